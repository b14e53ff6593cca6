#include <string>

#include "model/lb/lb_script.h"

namespace nettwin::lb {
namespace {

CfgWrite Write(uint32_t table, int index, const CfgData& data) {
  CfgWrite w;
  w.valid = true;
  w.table = static_cast<uint8_t>(table);
  w.index = static_cast<uint16_t>(index);
  w.data = data;
  return w;
}

template <class T>
int FreeSlot(const T& slots) {
  for (size_t i = 0; i < slots.size(); ++i) {
    if (!slots[i]) return static_cast<int>(i);
  }
  return -1;
}

bool SameFilterKey(const FilterEntry& a, const FilterEntry& b) {
  return a.mac == b.mac && a.ethertype == b.ethertype && a.ip == b.ip && a.port == b.port;
}

std::string Hex(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

std::vector<CfgWrite> LbDriver::AddFilter(const FilterEntry& e) {
  for (const auto& f : filter_) {
    if (f && SameFilterKey(*f, e)) throw ScriptError("duplicate dst_filter_table entry");
  }
  const int i = FreeSlot(filter_);
  if (i < 0) throw ScriptError("dst_filter_table is full (" + std::to_string(kFilterEntries) + " entries)");
  filter_[i] = e;
  return {Write(params::kLbTblFilter, i, Encode(e))};
}

std::vector<CfgWrite> LbDriver::DeleteFilter(const FilterEntry& key) {
  for (size_t i = 0; i < filter_.size(); ++i) {
    if (filter_[i] && SameFilterKey(*filter_[i], key)) {
      filter_[i].reset();
      return {Write(params::kLbTblFilter, static_cast<int>(i), Encode(FilterEntry{}))};
    }
  }
  throw ScriptError("no such dst_filter_table entry");
}

std::vector<CfgWrite> LbDriver::AddEpoch(const EpochEntry& e) {
  for (const auto& x : epoch_) {
    if (x && x->value == e.value && x->mask == e.mask && x->prio == e.prio) {
      throw ScriptError("duplicate epoch_assign_table entry (same value, mask and priority)");
    }
  }
  const int i = FreeSlot(epoch_);
  if (i < 0) throw ScriptError("epoch_assign_table is full (" + std::to_string(kEpochEntries) + " entries)");
  epoch_[i] = e;
  return {Write(params::kLbTblEpoch, i, Encode(e))};
}

std::vector<CfgWrite> LbDriver::DeleteEpoch(uint64_t value, uint64_t mask, std::optional<uint16_t> prio) {
  int found = -1;
  for (size_t i = 0; i < epoch_.size(); ++i) {
    const auto& x = epoch_[i];
    if (!x || x->value != (value & mask) || x->mask != mask || (prio && x->prio != *prio)) continue;
    if (found >= 0) {
      throw ScriptError("ambiguous: several epoch_assign_table entries have this key; add the priority");
    }
    found = static_cast<int>(i);
  }
  if (found < 0) throw ScriptError("no such epoch_assign_table entry");
  epoch_[found].reset();
  return {Write(params::kLbTblEpoch, found, Encode(EpochEntry{}))};
}

std::vector<CfgWrite> LbDriver::AddCalendar(uint32_t epoch, int slot, const CalendarEntry& e) {
  std::vector<CfgWrite> w;
  int row = -1;
  for (int r = 0; r < kCalendarEpochs; ++r) {
    if (rows_[r] && *rows_[r] == epoch) row = r;
  }
  if (row >= 0 && calendar_[row * kCalendarSlots + slot]) {
    throw ScriptError("duplicate load_balance_calendar_table entry (epoch " + std::to_string(epoch) +
                      ", slot " + std::to_string(slot) + ")");
  }
  if (row < 0) {
    row = FreeSlot(rows_);
    if (row < 0) {
      throw ScriptError("load_balance_calendar_table holds " + std::to_string(kCalendarEpochs) +
                        " epochs already (2048 entries = 4 epochs x 512 slots); delete an epoch's calendar first");
    }
    rows_[row] = epoch;
    w.push_back(Write(params::kLbTblEpochMap, row, Encode(EpochMapEntry{true, epoch})));
  }
  ++row_use_[row];
  calendar_[row * kCalendarSlots + slot] = e;
  w.push_back(Write(params::kLbTblCalendar, row * kCalendarSlots + slot, Encode(e)));
  return w;
}

std::vector<CfgWrite> LbDriver::DeleteCalendar(uint32_t epoch, int slot) {
  for (int r = 0; r < kCalendarEpochs; ++r) {
    if (!rows_[r] || *rows_[r] != epoch || !calendar_[r * kCalendarSlots + slot]) continue;
    std::vector<CfgWrite> w;
    calendar_[r * kCalendarSlots + slot].reset();
    w.push_back(Write(params::kLbTblCalendar, r * kCalendarSlots + slot, Encode(CalendarEntry{})));
    if (--row_use_[r] == 0) {
      rows_[r].reset();
      w.push_back(Write(params::kLbTblEpochMap, r, Encode(EpochMapEntry{})));
    }
    return w;
  }
  throw ScriptError("no such load_balance_calendar_table entry");
}

std::vector<CfgWrite> LbDriver::AddMember(bool is_v6, uint16_t id, const MemberEntry& e) {
  const int slot = MemberSlot(is_v6, id);
  if (member_id_[slot]) {
    if (*member_id_[slot] == id) throw ScriptError("duplicate member_info_lookup_table entry");
    throw ScriptError("member id " + Hex(id) + " shares hardware slot " + std::to_string(slot) +
                      " with member id " + Hex(*member_id_[slot]) +
                      " (member ids of one family must differ modulo 512)");
  }
  member_id_[slot] = id;
  return {Write(params::kLbTblMember, slot, Encode(e))};
}

std::vector<CfgWrite> LbDriver::DeleteMember(bool is_v6, uint16_t id) {
  const int slot = MemberSlot(is_v6, id);
  if (!member_id_[slot] || *member_id_[slot] != id) throw ScriptError("no such member_info_lookup_table entry");
  member_id_[slot].reset();
  return {Write(params::kLbTblMember, slot, Encode(MemberEntry{}))};
}

std::vector<CfgWrite> LbDriver::Clear(int table) {
  std::vector<CfgWrite> w;
  switch (table) {
    case params::kLbTblFilter:
      for (int i = 0; i < kFilterEntries; ++i) {
        if (filter_[i]) w.push_back(Write(table, i, Encode(FilterEntry{})));
        filter_[i].reset();
      }
      break;
    case params::kLbTblEpoch:
      for (int i = 0; i < kEpochEntries; ++i) {
        if (epoch_[i]) w.push_back(Write(table, i, Encode(EpochEntry{})));
        epoch_[i].reset();
      }
      break;
    case params::kLbTblCalendar:
      for (int i = 0; i < kCalendarEntries; ++i) {
        if (calendar_[i]) w.push_back(Write(table, i, Encode(CalendarEntry{})));
        calendar_[i].reset();
      }
      for (int r = 0; r < kCalendarEpochs; ++r) {
        if (rows_[r]) w.push_back(Write(params::kLbTblEpochMap, r, Encode(EpochMapEntry{})));
        rows_[r].reset();
        row_use_[r] = 0;
      }
      break;
    case params::kLbTblMember:
      for (int i = 0; i < kMemberEntries; ++i) {
        if (member_id_[i]) w.push_back(Write(table, i, Encode(MemberEntry{})));
        member_id_[i].reset();
      }
      break;
    default:
      break;
  }
  return w;
}

}  // namespace nettwin::lb
