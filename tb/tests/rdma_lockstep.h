// Shared by the RDMA GoogleTests: request specs -> frames -> RTL and model in lockstep, which must agree
// and conserve packets.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "tb/rdma/rdma_requests.h"
#include "tb/rdma/rdma_run.h"

namespace nettwin::rdma {

// The requests' frames, all offered at time 0.
inline std::vector<Packet> RequestFrames(const std::vector<RequestSpec>& reqs) {
  std::vector<Packet> pkts;
  for (const auto& r : reqs) pkts.push_back(Packet{BuildRequest(r), 0});
  return pkts;
}

// RunRdma with `cfg`, checked: RTL and model agree (lockstep) and packets are conserved.
inline RdmaRunReport RunChecked(const RdmaConfig& c, const std::vector<Packet>& pkts, const RdmaRunConfig& cfg) {
  RdmaRunReport r = RunRdma(c, pkts, cfg);
  EXPECT_TRUE(r.mismatch_text.empty()) << r.mismatch_text;
  EXPECT_TRUE(r.conservation_ok);
  return r;
}

inline RdmaRunReport RunLockstep(const RdmaConfig& c, const std::vector<RequestSpec>& reqs, double bp = 0,
                                 bool linear = false, uint32_t read_cycles = 20, uint32_t write_cycles = 5,
                                 uint32_t outstanding = 0) {
  RdmaRunConfig cfg;
  cfg.engine = Engine::kLockstep;
  cfg.mem.read_latency = read_cycles;
  cfg.mem.write_latency = write_cycles;
  if (outstanding) cfg.mem.max_outstanding = outstanding;
  cfg.opt.backpressure = bp;
  cfg.aq_linear = linear;
  return RunChecked(c, RequestFrames(reqs), cfg);
}

}  // namespace nettwin::rdma
