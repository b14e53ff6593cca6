// The source-ToR block's stats JSON (the keys nettwin.reroute.check reads), shared by `nettwin reroute` and
// `nettwin cwloop` (which writes it for the source ToR of its closed loop).
#pragma once

#include <cstdint>
#include <sstream>
#include <string>

#include "model/reroute/reroute_types.h"
#include "reroute_counter_stats.h"

namespace nettwin::reroute {

inline std::string RerouteStatsJson(const RerouteCounters& c, const char* engine, bool p4_format, uint64_t cycles,
                                    uint64_t mismatches, bool conservation_ok) {
  std::ostringstream j;
  j << "{\n  \"engine\": \"" << engine << "\",\n  \"wire_format\": \"" << (p4_format ? "conweave-p4" : "seed")
    << "\",\n";
  WriteRerouteCounterStats(j, c);  // generated from rtl/reroute/data/reroute.json
  j << "  \"cycles\": " << cycles
    << ",\n  \"mismatches\": " << mismatches << ",\n  \"conservation_ok\": " << (conservation_ok ? "true" : "false")
    << "\n}\n";
  return j.str();
}

}  // namespace nettwin::reroute
