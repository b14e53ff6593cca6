#include "model/lb/udplb_types.h"

namespace nettwin::lb::udplb {

const char* ReasonName(int r) {
  if (r < 0 || r >= kNumReasons) return "?";
  // drops_o's reasons, from rtl/lb/data/udplb.json (index 0 is not a drop)
  return r == static_cast<int>(Reason::kNone) ? "none" : UdplbCounters::kDropsReasons[r];
}

CfgData Encode(const L2IfaceEntry& e) {
  CfgData d;
  d.Set(0, 1, e.valid);
  d.Set(1, 12, e.vid_value);
  d.Set(13, 12, e.vid_mask);
  d.Set(25, 16, e.prio);
  d.Set(41, 4, e.iface);
  d.Set(45, 48, e.uc_mac);
  return d;
}
L2IfaceEntry DecodeL2Iface(const CfgData& d) {
  L2IfaceEntry e;
  e.valid = d.Get(0, 1);
  e.vid_value = static_cast<uint16_t>(d.Get(1, 12));
  e.vid_mask = static_cast<uint16_t>(d.Get(13, 12));
  e.prio = static_cast<uint16_t>(d.Get(25, 16));
  e.iface = static_cast<uint8_t>(d.Get(41, 4));
  e.uc_mac = d.Get(45, 48);
  return e;
}

CfgData Encode(const MacDstEntry& e) {
  CfgData d;
  d.Set(0, 1, e.valid);
  d.Set(1, 4, e.iface_value);
  d.Set(5, 4, e.iface_mask);
  d.Set(9, 16, e.prio);
  d.Set(25, 48, e.mac);
  d.Set(73, 1, e.set_mac);
  d.Set(74, 48, e.mac_sa);
  return d;
}
MacDstEntry DecodeMacDst(const CfgData& d) {
  MacDstEntry e;
  e.valid = d.Get(0, 1);
  e.iface_value = static_cast<uint8_t>(d.Get(1, 4));
  e.iface_mask = static_cast<uint8_t>(d.Get(5, 4));
  e.prio = static_cast<uint16_t>(d.Get(9, 16));
  e.mac = d.Get(25, 48);
  e.set_mac = d.Get(73, 1);
  e.mac_sa = d.Get(74, 48);
  return e;
}

CfgData Encode(const IpDstEntry& e) {
  CfgData d;
  d.Set(0, 1, e.valid);
  d.Set(1, 4, e.iface_value);
  d.Set(5, 4, e.iface_mask);
  d.Set(9, 16, e.prio);
  d.Set(25, 16, e.ethertype);
  d.Set128(41, e.ip_da);
  d.Set(169, 3, e.lb_id);
  return d;
}
IpDstEntry DecodeIpDst(const CfgData& d) {
  IpDstEntry e;
  e.valid = d.Get(0, 1);
  e.iface_value = static_cast<uint8_t>(d.Get(1, 4));
  e.iface_mask = static_cast<uint8_t>(d.Get(5, 4));
  e.prio = static_cast<uint16_t>(d.Get(9, 16));
  e.ethertype = static_cast<uint16_t>(d.Get(25, 16));
  e.ip_da = d.Get128(41);
  e.lb_id = static_cast<uint8_t>(d.Get(169, 3));
  return e;
}

CfgData EncodeIpSa(const U128& ip_sa) {
  CfgData d;
  d.Set128(0, ip_sa);
  return d;
}

CfgData Encode(const SrcEntry& e) {
  CfgData d;
  d.Set(0, 1, e.valid);
  d.Set(1, 3, e.lb_id);
  d.Set128(4, e.addr);
  return d;
}
SrcEntry DecodeSrc(const CfgData& d) {
  SrcEntry e;
  e.valid = d.Get(0, 1);
  e.lb_id = static_cast<uint8_t>(d.Get(1, 3));
  e.addr = d.Get128(4);
  return e;
}

CfgData Encode(const EpochEntry& e) {
  CfgData d;
  d.Set(0, 1, e.valid);
  d.Set(1, 3, e.lb_id);
  d.Set(4, 64, e.value);
  d.Set(68, 7, e.prefix);
  d.Set(75, 32, e.epoch);
  d.Set(107, 5, e.slot_bits);
  d.Set(112, 16, e.slot_xor);
  return d;
}
EpochEntry DecodeEpoch(const CfgData& d) {
  EpochEntry e;
  e.valid = d.Get(0, 1);
  e.lb_id = static_cast<uint8_t>(d.Get(1, 3));
  e.value = d.Get(4, 64);
  e.prefix = static_cast<uint8_t>(d.Get(68, 7));
  e.epoch = static_cast<uint32_t>(d.Get(75, 32));
  e.slot_bits = static_cast<uint8_t>(d.Get(107, 5));
  e.slot_xor = static_cast<uint16_t>(d.Get(112, 16));
  return e;
}

CfgData Encode(const EpochMapEntry& e) {
  CfgData d;
  d.Set(0, 1, e.valid);
  d.Set(1, 3, e.lb_id);
  d.Set(4, 32, e.epoch);
  return d;
}
EpochMapEntry DecodeEpochMap(const CfgData& d) {
  EpochMapEntry e;
  e.valid = d.Get(0, 1);
  e.lb_id = static_cast<uint8_t>(d.Get(1, 3));
  e.epoch = static_cast<uint32_t>(d.Get(4, 32));
  return e;
}

CfgData Encode(const CalendarEntry& e) {
  CfgData d;
  d.Set(0, 1, e.valid);
  d.Set(1, 16, e.member);
  return d;
}
CalendarEntry DecodeCalendar(const CfgData& d) {
  CalendarEntry e;
  e.valid = d.Get(0, 1);
  e.member = static_cast<uint16_t>(d.Get(1, 16));
  return e;
}

CfgData Encode(const MemberEntry& e) {
  CfgData d;
  d.Set(0, 1, e.valid);
  d.Set(1, 2, static_cast<uint64_t>(e.action));
  d.Set(3, 10, e.tag);
  d.Set(13, 48, e.mac);
  d.Set128(61, e.ip);
  d.Set(189, 16, e.udp_base);
  d.Set(205, 5, e.port_bits);
  d.Set(210, 1, e.keep);
  return d;
}
MemberEntry DecodeMember(const CfgData& d) {
  MemberEntry e;
  e.valid = d.Get(0, 1);
  e.action = static_cast<MemberAction>(d.Get(1, 2));
  e.tag = static_cast<uint16_t>(d.Get(3, 10));
  e.mac = d.Get(13, 48);
  e.ip = d.Get128(61);
  e.udp_base = static_cast<uint16_t>(d.Get(189, 16));
  e.port_bits = static_cast<uint8_t>(d.Get(205, 5));
  e.keep = d.Get(210, 1);
  return e;
}

CfgData EncodeSettings(bool ttl_decrement) {
  CfgData d;
  d.Set(0, 1, ttl_decrement);
  return d;
}

}  // namespace nettwin::lb::udplb
