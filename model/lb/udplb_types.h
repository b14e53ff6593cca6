// Ports, table entries and fates of the udplb program of the EJFAT load balancer (docs/lb-udplb.md), shared by
// the cycle model, the packet engine, the control-plane driver and the RTL adapter.
#pragma once

#include <array>
#include <cstdint>

#include "model/common/bits.h"
#include "model/common/cfg_port.h"
#include "model/common/stream.h"
#include "nt_params.h"

namespace nettwin::lb::udplb {

// What happened to a frame: kNone = it left the block (forwarded, answered or sent to the host).
enum class Reason : uint8_t {
  kNone = params::kUdplbDropNone,
  kParseError = params::kUdplbDropParseError,
  kL2DstMiss = params::kUdplbDropL2DstMiss,
  kNotIp = params::kUdplbDropNotIp,
  kL3DstMiss = params::kUdplbDropL3DstMiss,
  kArpMismatch = params::kUdplbDropArpMismatch,
  kIcmpMismatch = params::kUdplbDropIcmpMismatch,
  kIcmpDestUnreach = params::kUdplbDropIcmpDestUnreach,
  kIcmpUnhandled = params::kUdplbDropIcmpUnhandled,
  kNdMismatch = params::kUdplbDropNdMismatch,
  kSrcBlocked = params::kUdplbDropSrcBlocked,
  kNoLbHeader = params::kUdplbDropNoLbHeader,
  kTtlExpired = params::kUdplbDropTtlExpired,
  kEpochMiss = params::kUdplbDropEpochMiss,
  kCalendarMiss = params::kUdplbDropCalendarMiss,
  kMemberMiss = params::kUdplbDropMemberMiss,
  kMemberSoftEvicted = params::kUdplbDropMemberSoftEvicted,
  kMemberDeregistered = params::kUdplbDropMemberDeregistered,
};
constexpr int kNumReasons = static_cast<int>(params::kUdplbDropReasons);
static_assert(static_cast<int>(Reason::kMemberDeregistered) + 1 == kNumReasons, "reason list out of sync");
const char* ReasonName(int r);
inline const char* ReasonName(Reason r) { return ReasonName(static_cast<int>(r)); }

constexpr int kInstances = static_cast<int>(params::kUdplbInstances);
constexpr int kL2IfaceEntries = static_cast<int>(params::kUdplbL2IfaceEntries);
constexpr int kMacDstEntries = static_cast<int>(params::kUdplbMacDstEntries);
constexpr int kIpDstEntries = static_cast<int>(params::kUdplbIpDstEntries);
constexpr int kSrcEntries = static_cast<int>(params::kUdplbSrcEntries);
constexpr int kEpochEntries = static_cast<int>(params::kUdplbEpochEntries);
constexpr int kEpochGroup = static_cast<int>(params::kUdplbEpochGroup);
constexpr int kEpochGroups = kEpochEntries / kEpochGroup;
constexpr int kEpochRows = static_cast<int>(params::kUdplbEpochRows);
constexpr int kCalendarSlots = static_cast<int>(params::kUdplbCalendarSlots);
constexpr int kCalendarEntries = static_cast<int>(params::kUdplbCalendarEntries);
constexpr int kMemberEntries = static_cast<int>(params::kUdplbMemberEntries);
constexpr int kLbHdr = static_cast<int>(params::kUdplbHeaderBytes);
static_assert(kEpochRows * kCalendarSlots == kCalendarEntries, "calendar RAM = rows x slots");

// What a frame that leaves the block is.
enum class Kind : uint8_t { kDrop, kForward, kReply, kToHost };

struct L2IfaceEntry {
  bool valid = false;
  uint16_t vid_value = 0, vid_mask = 0, prio = 0;
  uint8_t iface = 0;
  uint64_t uc_mac = 0;
};
struct MacDstEntry {
  bool valid = false;
  uint8_t iface_value = 0, iface_mask = 0;
  uint16_t prio = 0;
  uint64_t mac = 0;
  bool set_mac = false;  // set_mac_sa(mac_sa); else l2_dst_allow
  uint64_t mac_sa = 0;
};
struct IpDstEntry {
  bool valid = false;
  uint8_t iface_value = 0, iface_mask = 0;
  uint16_t prio = 0;
  uint16_t ethertype = 0;
  U128 ip_da;
  uint8_t lb_id = 0;
};
struct SrcEntry {
  bool valid = false;
  uint8_t lb_id = 0;
  U128 addr;  // IPv4 in the low 32 bits
};
struct EpochEntry {
  bool valid = false;
  uint8_t lb_id = 0;
  uint64_t value = 0;  // already masked to its prefix
  uint8_t prefix = 0;  // 0..64
  uint32_t epoch = 0;
  uint8_t slot_bits = 9;
  uint16_t slot_xor = 0;
};
struct EpochMapEntry {
  bool valid = false;
  uint8_t lb_id = 0;
  uint32_t epoch = 0;
};
struct CalendarEntry {
  bool valid = false;
  uint16_t member = 0;
};
enum class MemberAction : uint8_t { kRewrite = 0, kSoftEvicted = 1, kDeregistered = 2 };
struct MemberEntry {
  bool valid = false;
  MemberAction action = MemberAction::kRewrite;
  uint16_t tag = 0;  // member id bits 15:6
  uint64_t mac = 0;
  U128 ip;  // IPv4 in the low 32 bits
  uint16_t udp_base = 0;
  uint8_t port_bits = 0;
  bool keep = false;
};

// A prefix length above 64 (the 7-bit field allows 127; the driver never writes one) is 64, as in the RTL.
inline uint64_t PrefixMask(int prefix) { return prefix <= 0 ? 0 : prefix >= 64 ? ~uint64_t{0} : ~uint64_t{0} << (64 - prefix); }
inline int MemberIndex(int lb_id, bool is_v6, uint16_t member) {
  return lb_id * 128 + (is_v6 ? 64 : 0) + (member & 63);
}

// Bit-exact programming-port layouts (docs/lb-microarchitecture.md, rtl/lb/udplb_tables.sv).
CfgData Encode(const L2IfaceEntry& e);
CfgData Encode(const MacDstEntry& e);
CfgData Encode(const IpDstEntry& e);
CfgData EncodeIpSa(const U128& ip_sa);
CfgData Encode(const SrcEntry& e);
CfgData Encode(const EpochEntry& e);
CfgData Encode(const EpochMapEntry& e);
CfgData Encode(const CalendarEntry& e);
CfgData Encode(const MemberEntry& e);
CfgData EncodeSettings(bool ttl_decrement);
L2IfaceEntry DecodeL2Iface(const CfgData& d);
MacDstEntry DecodeMacDst(const CfgData& d);
IpDstEntry DecodeIpDst(const CfgData& d);
SrcEntry DecodeSrc(const CfgData& d);
EpochEntry DecodeEpoch(const CfgData& d);
EpochMapEntry DecodeEpochMap(const CfgData& d);
CalendarEntry DecodeCalendar(const CfgData& d);
MemberEntry DecodeMember(const CfgData& d);

}  // namespace nettwin::lb::udplb

// Ports of udplb_top, one struct per direction, as the harness sees them each cycle (UdplbIn, UdplbOut,
// UdplbCounters, UdplbDropped): generated from rtl/lb/data/udplb.json (docs/blockgen.md).
#include "udplb_ports.h"  // NOLINT(build/include_order)
