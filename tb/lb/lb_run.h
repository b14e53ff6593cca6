// Runs the load balancer on a script and a list of frames with a chosen engine; shared by the CLI, the
// tests and the benchmarks.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/common/packet.h"
#include "model/common/pcap.h"
#include "model/lb/lb_script.h"
#include "model/lb/lb_types.h"
#include "tb/common/harness.h"
#include "tb/common/run_block.h"

namespace nettwin::lb {

using tb::Engine;  // lb and udplb also have kFast: the packet-at-a-time model
using tb::EngineName;

struct LbRunConfig {
  Engine engine = Engine::kLockstep;
  tb::RunOptions opt;
  std::string mismatch_trace = "lb_mismatch.fst";  // FST written around a divergence
  uint64_t trace_window = 64;                      // cycles before the divergence kept in it
};

struct LbRunReport {
  tb::RunResult run;
  LbCounters counters;
  std::vector<int> out_reason;  // fast engine: per input frame, 0 = forwarded, else the drop reason
  std::string mismatch_text;    // empty when RTL and model agreed
  std::string fast_mismatch;    // non-empty if the packet-at-a-time model disagrees with the cycle engine
  bool conservation_ok = false;
  // Cycle engines: cycles from each forwarded frame's first beat in to its first beat out.
  uint64_t latency_min = 0, latency_max = 0;
  double latency_mean = 0;
  // Frames per latency in cycles; bounded by the latency range, not by the capture (the regression plots it).
  std::map<uint64_t, uint64_t> latency_histogram;
};

LbRunReport RunLb(const std::vector<Segment>& script, const std::vector<Packet>& packets, const LbRunConfig& cfg);

// The fast engine on a capture of any size: reads, decides and writes one frame at a time, so memory does not
// grow with the capture. Fills counters, in/out beats and conservation_ok (no cycle figures, no out frames).
// Throws PcapError on a bad input record or a failed write.
LbRunReport RunLbStream(const std::vector<Segment>& script, PcapReader* in, PcapWriter* out);

}  // namespace nettwin::lb
