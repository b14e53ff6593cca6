// Runs the udplb program on a script and a list of frames with a chosen engine; shared by the CLI, the tests
// and the benchmarks.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/common/packet.h"
#include "model/lb/lb_script.h"
#include "model/lb/udplb_types.h"
#include "tb/common/harness.h"
#include "tb/lb/lb_run.h"

namespace nettwin::lb::udplb {

struct UdplbRunConfig {
  Engine engine = Engine::kLockstep;
  tb::RunOptions opt;
  uint8_t in_port = 0;
  std::string mismatch_trace = "udplb_mismatch.fst";
  uint64_t trace_window = 64;
};

struct UdplbRunReport {
  tb::RunResult run;  // run.out: the frames that left, in order
  std::vector<uint8_t> out_ports;  // egress port of each of them
  UdplbCounters counters;
  std::vector<int> fate;        // per input frame: 0 left the block, else the drop reason (fast engine)
  std::string mismatch_text;    // empty when RTL and model agreed
  std::string fast_mismatch;    // non-empty if the packet engine disagrees with the cycle engine
  bool conservation_ok = false;
  uint64_t latency_min = 0, latency_max = 0;  // cycle engines: first beat in to first beat out
  double latency_mean = 0;
  std::map<uint64_t, uint64_t> latency_histogram;
};

UdplbRunReport RunUdplb(const std::vector<Segment>& script, const std::vector<Packet>& packets,
                        const UdplbRunConfig& cfg);

// The simulator's per-frame metadata line (udplb p4/sim expected/packets_out.meta).
std::string MetaLine(uint8_t in_port, uint8_t out_port);

}  // namespace nettwin::lb::udplb
