// Table entries and drop reasons of the EJFAT load balancer (its ports: lb_ports.h, generated), shared by the cycle model, the
// packet-at-a-time model, the control-plane driver and the RTL adapter.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "model/common/bits.h"
#include "model/common/cfg_port.h"
#include "model/common/stream.h"
#include "nt_params.h"

namespace nettwin::lb {

enum class DropReason : uint8_t {
  kNone = params::kLbDropNone,
  kRunt = params::kLbDropRunt,
  kNotIp = params::kLbDropNotIp,
  kTruncated = params::kLbDropTruncated,
  kBadIp = params::kLbDropBadIp,
  kIpFragment = params::kLbDropIpFragment,
  kNotUdp = params::kLbDropNotUdp,
  kNotLbPort = params::kLbDropNotLbPort,
  kBadLength = params::kLbDropBadLength,
  kBadMagic = params::kLbDropBadMagic,
  kBadVersion = params::kLbDropBadVersion,
  kUdp6ZeroCsum = params::kLbDropUdp6ZeroCsum,
  kFilterMiss = params::kLbDropFilterMiss,
  kFilterDrop = params::kLbDropFilterDrop,
  kEpochMiss = params::kLbDropEpochMiss,
  kEpochDrop = params::kLbDropEpochDrop,
  kCalendarMiss = params::kLbDropCalendarMiss,
  kCalendarDrop = params::kLbDropCalendarDrop,
  kMemberMiss = params::kLbDropMemberMiss,
  kMemberDrop = params::kLbDropMemberDrop,
};
constexpr int kNumReasons = static_cast<int>(params::kLbDropReasons);
static_assert(static_cast<int>(DropReason::kMemberDrop) + 1 == kNumReasons, "reason list out of sync");

// Names used in stats JSON, reports and docs/lb.md.
const char* ReasonName(DropReason r);
inline const char* ReasonName(int r) { return ReasonName(static_cast<DropReason>(r)); }

constexpr uint16_t kEthIpv4 = 0x0800;
constexpr uint16_t kEthIpv6 = 0x86DD;
constexpr int kLbHdr = static_cast<int>(params::kLbHeaderBytes);

using nettwin::CfgData;
using nettwin::CfgWrite;

struct FilterEntry {
  bool valid = false, drop = false;
  uint64_t mac = 0;
  uint16_t ethertype = 0;
  U128 ip;
  uint16_t port = 0;
};
struct EpochEntry {
  bool valid = false, drop = false;
  uint64_t value = 0, mask = 0;
  uint16_t prio = 0;
  uint32_t epoch = 0;
};
struct EpochMapEntry {
  bool valid = false;
  uint32_t epoch = 0;
};
struct CalendarEntry {
  bool valid = false, drop = false;
  uint16_t member = 0;
};
struct MemberEntry {
  bool valid = false, drop = false;
  uint8_t tag = 0;  // member id bits 15:9; bits 8:0 and the family are the slot index
  uint64_t mac = 0;
  U128 ip;  // IPv4 in the low 32 bits
  uint16_t port = 0;
};

// Bit-exact encodings of the programming-port data word (rtl/lb/lb_tables.sv decodes the same layout).
CfgData Encode(const FilterEntry& e);
CfgData Encode(const EpochEntry& e);
CfgData Encode(const EpochMapEntry& e);
CfgData Encode(const CalendarEntry& e);
CfgData Encode(const MemberEntry& e);
FilterEntry DecodeFilter(const CfgData& d);
EpochEntry DecodeEpoch(const CfgData& d);
EpochMapEntry DecodeEpochMap(const CfgData& d);
CalendarEntry DecodeCalendar(const CfgData& d);
MemberEntry DecodeMember(const CfgData& d);

inline int MemberSlot(bool is_v6, uint16_t member_id) {
  return (is_v6 ? static_cast<int>(params::kLbCalendarSlots) : 0) + (member_id % 512);
}

}  // namespace nettwin::lb

// Ports of lb_top, one struct per direction, as the harness sees them each cycle (LbIn, LbOut, LbCounters,
// LbDropped): generated from rtl/lb/data/lb.json (docs/blockgen.md).
#include "lb_ports.h"  // NOLINT(build/include_order)
