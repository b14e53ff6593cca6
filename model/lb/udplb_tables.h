// The udplb program's tables as the hardware holds them (rtl/lb/udplb_tables.sv): written through the
// programming port, read by the pipeline stages. Lookups are the hardware's: CAMs where the lowest priority
// value wins (ties: the lower index), the epoch TCAM in groups of 16 where the longest prefix wins.
#pragma once

#include <array>
#include <cstdint>

#include "model/lb/udplb_types.h"

namespace nettwin::lb::udplb {

struct EpochHit {
  bool hit = false;
  uint8_t prefix = 0;
  uint32_t epoch = 0;
  uint8_t slot_bits = 0;
  uint16_t slot_xor = 0;
};

class UdplbTables {
 public:
  void Apply(const CfgWrite& w);

  // S2: l2_iface_table on the VLAN id; a miss gives iface 0 and MAC 0 (udplb's compat mode).
  void LookupL2Iface(uint16_t vid, uint8_t* iface, uint64_t* uc_mac) const;
  // S3: the MAC DA filter; nullptr on a miss.
  const MacDstEntry* LookupMacDst(uint8_t iface, uint64_t mac_da) const;
  // S3: the IP DA filter; -1 on a miss, else the entry's index (its ip_sa is read in S4).
  int LookupIpDst(uint8_t iface, uint16_t ethertype, const U128& ip_da) const;
  const IpDstEntry& ip_dst(int index) const { return ip_dst_[index]; }
  const U128& ip_sa(int index) const { return ip_sa_[index]; }
  // S4: the source filters and the first epoch TCAM stage (each group's winner).
  bool SrcAllowed(bool is_v6, uint8_t lb_id, const U128& addr) const;
  std::array<EpochHit, kEpochGroups> EpochGroups(uint8_t lb_id, uint64_t tick) const;
  // S5: the second TCAM stage (longest prefix, ties to the lower group) and the epoch map (-1: no row).
  static EpochHit ReduceEpoch(const std::array<EpochHit, kEpochGroups>& groups);
  int EpochRow(uint8_t lb_id, uint32_t epoch) const;
  // S6, S7: RAMs.
  const CalendarEntry& Calendar(int index) const { return calendar_[index]; }
  const MemberEntry& Member(int index) const { return member_[index]; }
  bool ttl_decrement() const { return ttl_decrement_; }

 private:
  std::array<L2IfaceEntry, kL2IfaceEntries> l2_iface_{};
  std::array<MacDstEntry, kMacDstEntries> mac_dst_{};
  std::array<IpDstEntry, kIpDstEntries> ip_dst_{};
  std::array<U128, kIpDstEntries> ip_sa_{};
  std::array<SrcEntry, kSrcEntries> src4_{}, src6_{};
  std::array<EpochEntry, kEpochEntries> epoch_{};
  std::array<EpochMapEntry, kEpochRows> epoch_map_{};
  std::array<CalendarEntry, kCalendarEntries> calendar_{};
  std::array<MemberEntry, kMemberEntries> member_{};
  bool ttl_decrement_ = true;  // reset value, as udplb.p4 255e11b
};

}  // namespace nettwin::lb::udplb
