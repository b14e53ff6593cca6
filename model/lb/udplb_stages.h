// The udplb program's pipeline stages as functions (docs/lb-microarchitecture.md "udplb_top"): the cycle model
// calls each in its own stage, the packet engine calls them back to back. Each stage decides only while the
// frame is still clean (reason kNone and not already answered or sent to the host).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "model/lb/udplb_parse.h"
#include "model/lb/udplb_tables.h"
#include "model/lb/udplb_types.h"

namespace nettwin::lb::udplb {

// Everything the lookups learn about a frame (first beats only).
struct Lookup {
  Reason reason = Reason::kNone;
  Kind kind = Kind::kForward;  // what the frame becomes if it stays clean
  uint8_t in_port = 0;
  uint8_t iface = 0;
  uint64_t uc_mac = 0;
  int lb_id = -1;      // known from S3 on (the IP DA filter hit)
  int ip_dst_idx = -1;
  U128 uc_ip;
  bool ejfat = false;   // a UDP frame that reached the EJFAT stage (counted rx)
  bool lb_ok = false;   // and passed the source filter and the LB-header check (counted rx_v2/rx_v3)
  bool ttl_decrement = false;
  std::array<EpochHit, kEpochGroups> groups{};
  EpochHit epoch;
  uint16_t slot = 0;
  int row = -1;
  CalendarEntry cal;
  MemberEntry member;
};

// The output of the last decision stage (S8): what leaves, and its first Lo bytes.
struct Verdict {
  Kind kind = Kind::kDrop;
  Reason reason = Reason::kNone;
  int lb_id = -1;
  bool ejfat = false, lb_ok = false, lb_v3 = false;
  uint8_t port = 0;
  int lo = 0;  // output header bytes
  int d = 0;   // Li - Lo: output byte p >= lo is input byte p + d
  std::array<uint8_t, kParseWindow> hdr{};
};

Lookup StageL2(const Parsed& p, const UdplbTables& t, uint8_t in_port);       // S2
void StageL3(const Parsed& p, const UdplbTables& t, Lookup* l);                // S3
void StageEjfat(const Parsed& p, const UdplbTables& t, Lookup* l);             // S4
void StageEpoch(const Parsed& p, const UdplbTables& t, Lookup* l);             // S5
void StageCalendar(const UdplbTables& t, Lookup* l);                           // S6
void StageMember(const Parsed& p, const UdplbTables& t, Lookup* l);            // S7
// S8: `w` holds the frame's first kMaxExtract bytes (fewer if the frame is shorter).
Verdict BuildVerdict(const Parsed& p, const Lookup& l, const uint8_t* w);

// Counts a verdict (when its first beat leaves S8).
void CountVerdict(const Verdict& v, UdplbCounters* c);

}  // namespace nettwin::lb::udplb
