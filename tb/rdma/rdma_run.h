// Runs the RoCEv2 responder on a configuration and a list of request frames with a chosen engine.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/common/packet.h"
#include "model/rdma/rdma_config.h"
#include "model/rdma/rdma_types.h"
#include "tb/common/harness.h"
#include "tb/common/host_memory.h"
#include "tb/common/run_block.h"

namespace nettwin::rdma {

using tb::Engine;

struct RdmaRunConfig {
  Engine engine = Engine::kLockstep;
  tb::RunOptions opt;
  // Host memory (tb/common/host_memory.h; docs/rdma.md "Host memory and DMA"): PCIe-like by default;
  // mem.link_bytes_per_cycle 0 is 15750 MB/s at opt.clock_mhz.
  tb::HostMemoryTiming mem;
  bool aq_linear = false;
  std::string mismatch_trace;  // FST of the cycles around a divergence (empty: none)
};

struct RdmaRunReport {
  tb::RunResult run;
  RdmaCounters counters;
  std::unique_ptr<tb::HostMemory> memory;  // final host memory (MR contents, AQ)
  std::string mismatch_text;
  bool conservation_ok = false;
  std::vector<CqeEvent> cqes;  // the completion events, in order
};

RdmaRunReport RunRdma(const RdmaConfig& config, const std::vector<Packet>& packets, const RdmaRunConfig& cfg);

}  // namespace nettwin::rdma
