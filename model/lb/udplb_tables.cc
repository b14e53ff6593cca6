#include "model/lb/udplb_tables.h"

namespace nettwin::lb::udplb {

void UdplbTables::Apply(const CfgWrite& w) {
  if (!w.valid) return;
  const int i = w.index;
  switch (w.table) {
    case params::kUdplbTblL2Iface:
      if (i < kL2IfaceEntries) l2_iface_[i] = DecodeL2Iface(w.data);
      break;
    case params::kUdplbTblMacDst:
      if (i < kMacDstEntries) mac_dst_[i] = DecodeMacDst(w.data);
      break;
    case params::kUdplbTblIpDst:
      if (i < kIpDstEntries) ip_dst_[i] = DecodeIpDst(w.data);
      break;
    case params::kUdplbTblIpSa:
      if (i < kIpDstEntries) ip_sa_[i] = w.data.Get128(0);
      break;
    case params::kUdplbTblSrc4:
      if (i < kSrcEntries) src4_[i] = DecodeSrc(w.data);
      break;
    case params::kUdplbTblSrc6:
      if (i < kSrcEntries) src6_[i] = DecodeSrc(w.data);
      break;
    case params::kUdplbTblEpoch:
      if (i < kEpochEntries) epoch_[i] = DecodeEpoch(w.data);
      break;
    case params::kUdplbTblEpochMap:
      if (i < kEpochRows) epoch_map_[i] = DecodeEpochMap(w.data);
      break;
    case params::kUdplbTblCalendar:
      if (i < kCalendarEntries) calendar_[i] = DecodeCalendar(w.data);
      break;
    case params::kUdplbTblMember:
      if (i < kMemberEntries) member_[i] = DecodeMember(w.data);
      break;
    case params::kUdplbTblSettings:
      if (i == 0) ttl_decrement_ = w.data.Get(0, 1);
      break;
    default:
      break;
  }
}

void UdplbTables::LookupL2Iface(uint16_t vid, uint8_t* iface, uint64_t* uc_mac) const {
  const L2IfaceEntry* best = nullptr;
  for (const L2IfaceEntry& e : l2_iface_) {
    if (e.valid && ((vid ^ e.vid_value) & e.vid_mask) == 0 && (!best || e.prio < best->prio)) best = &e;
  }
  *iface = best ? best->iface : 0;
  *uc_mac = best ? best->uc_mac : 0;
}

const MacDstEntry* UdplbTables::LookupMacDst(uint8_t iface, uint64_t mac_da) const {
  const MacDstEntry* best = nullptr;
  for (const MacDstEntry& e : mac_dst_) {
    if (e.valid && ((iface ^ e.iface_value) & e.iface_mask) == 0 && e.mac == mac_da &&
        (!best || e.prio < best->prio)) {
      best = &e;
    }
  }
  return best;
}

int UdplbTables::LookupIpDst(uint8_t iface, uint16_t ethertype, const U128& ip_da) const {
  int best = -1;
  for (int i = 0; i < kIpDstEntries; ++i) {
    const IpDstEntry& e = ip_dst_[i];
    if (e.valid && ((iface ^ e.iface_value) & e.iface_mask) == 0 && e.ethertype == ethertype && e.ip_da == ip_da &&
        (best < 0 || e.prio < ip_dst_[best].prio)) {
      best = i;
    }
  }
  return best;
}

bool UdplbTables::SrcAllowed(bool is_v6, uint8_t lb_id, const U128& addr) const {
  for (const SrcEntry& e : is_v6 ? src6_ : src4_) {
    if (e.valid && e.lb_id == lb_id && e.addr == addr) return true;
  }
  return false;
}

std::array<EpochHit, kEpochGroups> UdplbTables::EpochGroups(uint8_t lb_id, uint64_t tick) const {
  std::array<EpochHit, kEpochGroups> out{};
  for (int g = 0; g < kEpochGroups; ++g) {
    EpochHit& best = out[g];
    for (int i = g * kEpochGroup; i < (g + 1) * kEpochGroup; ++i) {
      const EpochEntry& e = epoch_[i];
      if (!e.valid || e.lb_id != lb_id || ((tick ^ e.value) & PrefixMask(e.prefix)) != 0) continue;
      if (!best.hit || e.prefix > best.prefix) best = EpochHit{true, e.prefix, e.epoch, e.slot_bits, e.slot_xor};
    }
  }
  return out;
}

EpochHit UdplbTables::ReduceEpoch(const std::array<EpochHit, kEpochGroups>& groups) {
  EpochHit best;
  for (const EpochHit& g : groups) {
    if (g.hit && (!best.hit || g.prefix > best.prefix)) best = g;
  }
  return best;
}

int UdplbTables::EpochRow(uint8_t lb_id, uint32_t epoch) const {
  for (int r = 0; r < kEpochRows; ++r) {
    if (epoch_map_[r].valid && epoch_map_[r].lb_id == lb_id && epoch_map_[r].epoch == epoch) return r;
  }
  return -1;
}

}  // namespace nettwin::lb::udplb
