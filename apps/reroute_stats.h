// The source-ToR block's stats JSON (the keys nettwin.reroute.check reads), shared by `nettwin reroute` and
// `nettwin cw-loop` (which writes it for the source ToR of its closed loop).
#pragma once

#include <cstdint>
#include <sstream>
#include <string>

#include "model/reroute/reroute_types.h"

namespace nettwin::reroute {

inline std::string RerouteStatsJson(const RerouteCounters& c, const char* engine, bool p4_format, uint64_t cycles,
                                    uint64_t mismatches, bool conservation_ok) {
  std::ostringstream j;
  j << "{\n  \"engine\": \"" << engine << "\",\n  \"wire_format\": \"" << (p4_format ? "conweave-p4" : "seed")
    << "\",\n  \"packets_in\": " << c.in << ",\n  \"packets_out\": " << c.out
    << ",\n  \"drops\": {\"malformed\": " << c.drop_malformed << "},\n  \"rtt_requests\": " << c.rtt_requests
    << ",\n  \"reroutes\": " << c.reroutes << ",\n  \"reroute_blocked_clear\": " << c.reroute_blocked_clear
    << ",\n  \"reroute_no_path\": " << c.reroute_no_path << ",\n  \"fallback_ecmp\": " << c.fallback_ecmp
    << ",\n  \"evictions\": " << c.evictions << ",\n  \"idle_resets\": " << c.idle_resets
    << ",\n  \"control_in\": " << c.ctrl_in << ",\n  \"rtt_replies\": " << c.rtt_replies
    << ",\n  \"stale_replies\": " << c.stale_replies << ",\n  \"notifies\": " << c.notifies
    << ",\n  \"clears\": " << c.clears << ",\n  \"stale_clears\": " << c.stale_clears
    << ",\n  \"bad_control\": " << c.bad_control << ",\n  \"cycles\": " << cycles
    << ",\n  \"mismatches\": " << mismatches << ",\n  \"conservation_ok\": " << (conservation_ok ? "true" : "false")
    << "\n}\n";
  return j.str();
}

}  // namespace nettwin::reroute
