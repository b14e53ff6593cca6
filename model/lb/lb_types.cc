#include "model/lb/lb_types.h"

namespace nettwin::lb {

const char* ReasonName(DropReason r) {
  const int i = static_cast<int>(r);
  if (i < 0 || i >= kNumReasons) return "unknown";
  // drops_o's reasons, from rtl/lb/data/lb.json (index 0 is not a drop)
  return i == static_cast<int>(DropReason::kNone) ? "none" : LbCounters::kDropsReasons[i];
}

// Layouts: see docs/lb.md "Programming port". Bit 0 is always `valid`, bit 1 `drop` (where present).
CfgData Encode(const FilterEntry& e) {
  CfgData d;
  d.SetBit(0, e.valid);
  d.SetBit(1, e.drop);
  d.Set(2, 48, e.mac);
  d.Set(50, 16, e.ethertype);
  d.Set128(66, e.ip);
  d.Set(194, 16, e.port);
  return d;
}
FilterEntry DecodeFilter(const CfgData& d) {
  FilterEntry e;
  e.valid = d.Bit(0);
  e.drop = d.Bit(1);
  e.mac = d.Get(2, 48);
  e.ethertype = static_cast<uint16_t>(d.Get(50, 16));
  e.ip = d.Get128(66);
  e.port = static_cast<uint16_t>(d.Get(194, 16));
  return e;
}
CfgData Encode(const EpochEntry& e) {
  CfgData d;
  d.SetBit(0, e.valid);
  d.SetBit(1, e.drop);
  d.Set(2, 64, e.value);
  d.Set(66, 64, e.mask);
  d.Set(130, 16, e.prio);
  d.Set(146, 32, e.epoch);
  return d;
}
EpochEntry DecodeEpoch(const CfgData& d) {
  EpochEntry e;
  e.valid = d.Bit(0);
  e.drop = d.Bit(1);
  e.value = d.Get(2, 64);
  e.mask = d.Get(66, 64);
  e.prio = static_cast<uint16_t>(d.Get(130, 16));
  e.epoch = static_cast<uint32_t>(d.Get(146, 32));
  return e;
}
CfgData Encode(const EpochMapEntry& e) {
  CfgData d;
  d.SetBit(0, e.valid);
  d.Set(1, 32, e.epoch);
  return d;
}
EpochMapEntry DecodeEpochMap(const CfgData& d) {
  EpochMapEntry e;
  e.valid = d.Bit(0);
  e.epoch = static_cast<uint32_t>(d.Get(1, 32));
  return e;
}
CfgData Encode(const CalendarEntry& e) {
  CfgData d;
  d.SetBit(0, e.valid);
  d.SetBit(1, e.drop);
  d.Set(2, 16, e.member);
  return d;
}
CalendarEntry DecodeCalendar(const CfgData& d) {
  CalendarEntry e;
  e.valid = d.Bit(0);
  e.drop = d.Bit(1);
  e.member = static_cast<uint16_t>(d.Get(2, 16));
  return e;
}
CfgData Encode(const MemberEntry& e) {
  CfgData d;
  d.SetBit(0, e.valid);
  d.SetBit(1, e.drop);
  d.Set(2, 7, e.tag);
  d.Set(9, 48, e.mac);
  d.Set128(57, e.ip);
  d.Set(185, 16, e.port);
  return d;
}
MemberEntry DecodeMember(const CfgData& d) {
  MemberEntry e;
  e.valid = d.Bit(0);
  e.drop = d.Bit(1);
  e.tag = static_cast<uint8_t>(d.Get(2, 7));
  e.mac = d.Get(9, 48);
  e.ip = d.Get128(57);
  e.port = static_cast<uint16_t>(d.Get(185, 16));
  return e;
}

}  // namespace nettwin::lb
