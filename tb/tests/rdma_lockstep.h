// Shared by the RDMA GoogleTests: request specs -> frames -> RTL and model in lockstep, which must agree
// and conserve packets.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "tb/rdma/rdma_requests.h"
#include "tb/rdma/rdma_run.h"

namespace nettwin::rdma {

inline RdmaRunReport RunLockstep(const RdmaConfig& c, const std::vector<RequestSpec>& reqs, double bp = 0,
                                 bool linear = false, uint32_t read_cycles = 20, uint32_t write_cycles = 5,
                                 uint32_t outstanding = 0) {
  std::vector<Packet> pkts;
  for (const auto& r : reqs) pkts.push_back(Packet{BuildRequest(r), 0});
  RdmaRunConfig cfg;
  cfg.engine = Engine::kLockstep;
  cfg.mem_read_cycles = read_cycles;
  cfg.mem_write_cycles = write_cycles;
  if (outstanding) cfg.mem_outstanding = outstanding;
  cfg.opt.backpressure = bp;
  cfg.aq_linear = linear;
  RdmaRunReport r = RunRdma(c, pkts, cfg);
  EXPECT_TRUE(r.mismatch_text.empty()) << r.mismatch_text;
  EXPECT_TRUE(r.conservation_ok);
  return r;
}

}  // namespace nettwin::rdma
