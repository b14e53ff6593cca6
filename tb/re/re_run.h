// Runs the reassembly engine on a list of segments with a chosen engine: the cycle model, the RTL, or both
// in lockstep through the generic harness.
#pragma once

#include <string>
#include <vector>

#include "model/common/packet.h"
#include "model/re/re_cycle_model.h"
#include "tb/common/harness.h"
#include "tb/common/run_block.h"
#include "tb/re/re_binding.h"

namespace nettwin::re {

using tb::Engine;

struct ReRunConfig {
  Engine engine = Engine::kLockstep;
  ReStatic cfg;
  tb::RunOptions opt;
  std::string mismatch_trace;  // FST of the cycles around a divergence (empty: none)
  // `buffer host`: the host memory's timing (tb::HostMemory); line rate needs max_outstanding >= write_latency.
  uint32_t host_write_latency = 100, host_max_outstanding = 128;
};

struct ReRunReport {
  tb::RunResult run;              // run.out: one frame per completed event, stamped with its departure cycle
  std::vector<ReReport> reports;  // incomplete events, in report order
  ReCycleCounters counters;
  std::string mismatch_text;
  bool conservation_ok = false;
  // `buffer host`: each completion record's event bytes as the host read them, and the DMA writes accepted.
  std::vector<std::vector<uint8_t>> host_events;
  uint64_t dma_writes = 0, dma_write_bytes = 0;
};

ReRunReport RunRe(const std::vector<Packet>& segments, const ReRunConfig& rc);

}  // namespace nettwin::re
