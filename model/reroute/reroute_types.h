// Port structs of the ConWeave source-ToR rerouting block (docs/reroute.md), shared by its golden model and
// its cycle model (and, later, the Verilated adapter) so lockstep compares the same fields.
#pragma once

#include <cstdint>

#include "model/common/stream.h"
#include "nt_params.h"

namespace nettwin::reroute {

constexpr int kFlows = static_cast<int>(params::kRerouteFlows);
constexpr int kPaths = static_cast<int>(params::kReroutePaths);
constexpr int kMaxBytes = static_cast<int>(params::kRerouteMaxBytes);
constexpr int kCtrlBytes = static_cast<int>(params::kRerouteCtrlBytes);
constexpr int kMaxBeats = (kMaxBytes + 4 + kBeatBytes - 1) / kBeatBytes;  // longest fabric frame in beats

// Quasi-static configuration (docs/reroute.md "Configuration").
struct RerouteCfg {
  uint16_t flows_mask = kFlows - 1;  // flows - 1 (flows a power of two)
  uint8_t paths = 8;                 // 4, 8, 16 or 32
  uint16_t reply_cutoff_us = 40;     // theta_reply: condition (i)
  uint16_t path_busy_us = 100;       // a NOTIFY keeps its path congested this long
  uint16_t flow_idle_us = 2000;      // eviction and the lost-CLEAR timeout
  bool p4_format = false;            // wire_format conweave-p4 (docs/reroute.md "Wire format"), else the seed's
};

struct RerouteIn {
  StreamPort s;          // host frames
  StreamPort r;          // control packets back from destination ToRs
  bool m_ready = false;  // fabric side
  uint16_t now_us = 0;   // free-running microsecond clock (the clock of TX_TSTAMP)
  RerouteCfg cfg;
};

// Counters; every field would be an output port of reroute_top, compared every cycle.
struct RerouteCounters {
  uint32_t in = 0, out = 0, drop_malformed = 0;
  uint32_t rtt_requests = 0, reroutes = 0, reroute_blocked_clear = 0, reroute_no_path = 0;
  uint32_t fallback_ecmp = 0, evictions = 0, idle_resets = 0;
  uint32_t ctrl_in = 0, rtt_replies = 0, stale_replies = 0, notifies = 0, clears = 0, stale_clears = 0;
  uint32_t bad_control = 0;
  bool operator==(const RerouteCounters& o) const;
};

struct RerouteOut {
  bool s_ready = false;
  bool r_ready = false;
  StreamPort m;         // to the fabric: the frame with its ConWeave fields
  uint8_t m_path = 0;   // with m: the uplink path (= BTH byte 4)
  bool idle = false;    // nothing in flight
  RerouteCounters cnt;
};

}  // namespace nettwin::reroute
