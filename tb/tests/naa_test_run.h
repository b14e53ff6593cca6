// The lockstep run the naa tests share: the client's frames offered at once, with the tests' backpressure, gaps,
// seed and host-memory latencies.
#pragma once

#include <cstdint>
#include <vector>

#include "model/common/packet.h"
#include "model/naa/naa_config.h"
#include "tb/common/host_memory.h"
#include "tb/naa/naa_run.h"

namespace nettwin::naa::test {

// Output backpressure `bp` and input gaps `gaps` (probabilities per cycle) from `seed`; host reads take
// `read_cycles`, writes `write_cycles` (the PCIe model; a test that wants the slots model sets rc.mem.model).
inline NaaRunConfig TestRunConfig(double bp, double gaps, uint64_t seed, uint32_t read_cycles,
                                  uint32_t write_cycles = tb::HostMemoryTiming::kDefaultWriteLatency) {
  NaaRunConfig rc;
  rc.opt.backpressure = bp;
  rc.opt.gaps = gaps;
  rc.opt.seed = seed;
  rc.mem.read_latency = read_cycles;
  rc.mem.write_latency = write_cycles;
  return rc;
}

// RunNaa on the client's frames (each a Packet at time 0) and their gates.
inline NaaRunReport RunFrames(const NaaConfig& config, const std::vector<std::vector<uint8_t>>& frames,
                              const Gates& gates, const NaaRunConfig& rc) {
  std::vector<Packet> ps;
  for (const auto& f : frames) ps.push_back(Packet{f});
  return RunNaa(config, ps, rc, gates);
}

}  // namespace nettwin::naa::test
