#include "model/lb/lb_tables.h"

namespace nettwin::lb {

namespace {

template <class Table>
void Relist(const Table& t, std::vector<int>* live) {
  live->clear();
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].valid) live->push_back(static_cast<int>(i));
  }
}

}  // namespace

void LbTables::Apply(const CfgWrite& w) {
  if (!w.valid) return;
  switch (w.table) {
    case params::kLbTblFilter:
      if (w.index < kFilterEntries) filter_[w.index] = DecodeFilter(w.data);
      Relist(filter_, &filter_live_);
      break;
    case params::kLbTblEpoch:
      if (w.index < kEpochEntries) epoch_[w.index] = DecodeEpoch(w.data);
      Relist(epoch_, &epoch_live_);
      break;
    case params::kLbTblEpochMap:
      if (w.index < kCalendarEpochs) epoch_map_[w.index] = DecodeEpochMap(w.data);
      break;
    case params::kLbTblCalendar:
      if (w.index < kCalendarEntries) calendar_[w.index] = DecodeCalendar(w.data);
      break;
    case params::kLbTblMember:
      if (w.index < kMemberEntries) member_[w.index] = DecodeMember(w.data);
      break;
    default:
      break;
  }
}

void LbTables::LookupFilter(const FilterKey& k, bool* hit, bool* drop) const {
  *hit = false;
  *drop = false;
  for (int i : filter_live_) {
    const FilterEntry& e = filter_[i];
    if (e.mac == k.mac && e.ethertype == k.ethertype && e.ip == k.ip && e.port == k.port) {
      *hit = true;
      *drop = e.drop;
      return;
    }
  }
}

uint32_t LbTables::FilterMatches(const FilterKey& k) const {
  uint32_t m = 0;
  for (int i : filter_live_) {
    const FilterEntry& e = filter_[i];
    if (e.mac == k.mac && e.ethertype == k.ethertype && e.ip == k.ip && e.port == k.port) m |= 1u << i;
  }
  return m;
}

void LbTables::FilterSelect(uint32_t matches, bool* hit, bool* drop) const {
  *hit = matches != 0;
  *drop = false;
  for (int i = 0; i < kFilterEntries; ++i) {
    if ((matches >> i) & 1u) {
      *drop = filter_[i].drop;
      return;
    }
  }
}

EpochMatch LbTables::EpochMatches(uint64_t tick) const {
  EpochMatch m{};
  for (int i : epoch_live_) {
    const EpochEntry& e = epoch_[i];
    if (((tick ^ e.value) & e.mask) == 0) m[i / 64] |= uint64_t{1} << (i % 64);
  }
  return m;
}

std::array<EpochHit, kEpochGroups> LbTables::EpochGroupsOf(const EpochMatch& matches) const {
  std::array<EpochHit, kEpochGroups> out{};
  for (int i = 0; i < kEpochEntries; ++i) {
    if (((matches[i / 64] >> (i % 64)) & 1u) == 0) continue;
    const EpochEntry& e = epoch_[i];
    EpochHit& best = out[i / kEpochGroup];
    if (!best.hit || e.prio < best.prio) best = EpochHit{true, e.drop, e.prio, e.epoch};
  }
  return out;
}

std::array<EpochHit, kEpochGroups> LbTables::EpochGroups(uint64_t tick) const {
  std::array<EpochHit, kEpochGroups> out{};
  for (int i : epoch_live_) {
    const EpochEntry& e = epoch_[i];
    EpochHit& best = out[i / kEpochGroup];
    if (((tick ^ e.value) & e.mask) != 0) continue;
    if (!best.hit || e.prio < best.prio) best = EpochHit{true, e.drop, e.prio, e.epoch};
  }
  return out;
}

EpochHit LbTables::LookupEpoch(uint64_t tick) const {
  EpochHit best;
  for (int i : epoch_live_) {
    const EpochEntry& e = epoch_[i];
    if (((tick ^ e.value) & e.mask) != 0) continue;
    if (!best.hit || e.prio < best.prio) best = EpochHit{true, e.drop, e.prio, e.epoch};
  }
  return best;
}

EpochHit LbTables::ReduceEpoch(const std::array<EpochHit, kEpochGroups>& groups) {
  EpochHit best;
  for (const EpochHit& h : groups) {
    if (h.hit && (!best.hit || h.prio < best.prio)) best = h;
  }
  return best;
}

int LbTables::EpochRow(uint32_t epoch) const {
  for (int i = 0; i < kCalendarEpochs; ++i) {
    if (epoch_map_[i].valid && epoch_map_[i].epoch == epoch) return i;
  }
  return -1;
}

}  // namespace nettwin::lb
