// Parameters and configuration of the ConWeave source-ToR rerouting block (docs/reroute.md). Its port structs
// (RerouteIn, RerouteOut, RerouteCounters) are generated from rtl/reroute/data/reroute.json into
// reroute_ports.h (docs/blockgen.md), shared by its golden model, cycle model and Verilated adapter.
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

}  // namespace nettwin::reroute

// Generated from rtl/reroute/data/reroute.json: RerouteIn, RerouteOut, RerouteCounters (needs RerouteCfg).
#include "reroute_ports.h"  // NOLINT(build/include_order)
