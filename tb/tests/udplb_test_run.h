// Shared by udplb's cycle-model and lockstep tests: udplb's test-1 (vectors/peers/udplb/), and what they read of
// one run through the generic harness: the cycle model with the RTL in lockstep (`rtl`), or alone (`rtl` null).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/lb/udplb_cycle_model.h"
#include "model/lb/udplb_script.h"
#include "tb/lb/udplb_binding.h"

namespace nettwin::lb::udplb {

inline const std::string kPeer = std::string(NT_SOURCE_DIR) + "/vectors/peers/udplb/";

// test-1's table script, with the TTL decrement on or off.
inline std::vector<Segment> Test1Script(bool ttl_decrement) {
  ScriptOptions opt;
  opt.ttl_decrement = ttl_decrement;
  return LoadScript(kPeer + "cli_commands.txt", opt);
}

struct UdplbTestRun {
  tb::RunResult run;
  UdplbCounters counters;
  std::vector<uint8_t> ports;  // egress port of each frame that left
};

inline UdplbTestRun RunUdplbHarness(tb::RtlBlock<UdplbIn, UdplbOut>* rtl, const std::vector<Segment>& script,
                                    const std::vector<Packet>& pkts, double gaps, double bp, uint64_t seed,
                                    uint8_t in_port = 0) {
  UdplbCycleModel model;
  tb::Harness<UdplbBinding> h(rtl, &model);
  UdplbFeeder feeder(script, pkts.size(), in_port);
  tb::RunOptions o;
  o.gaps = gaps;
  o.backpressure = bp;
  o.seed = seed;
  UdplbTestRun r;
  r.run = h.Run(pkts, &feeder, o);
  r.counters = h.last_out().counters;
  r.ports = feeder.out_ports();
  return r;
}

}  // namespace nettwin::lb::udplb
