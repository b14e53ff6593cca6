// Runs the NAAICE endpoint on a configuration and a list of client frames with a chosen engine.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/common/packet.h"
#include "model/naa/naa_config.h"
#include "model/naa/naa_types.h"
#include "tb/common/harness.h"
#include "tb/common/host_memory.h"
#include "tb/naa/naa_gates.h"
#include "tb/rdma/rdma_run.h"

namespace nettwin::naa {

using rdma::Engine;
using NaaRunConfig = rdma::RdmaRunConfig;  // engine, harness options, host-memory timing, divergence FST

struct NaaRunReport {
  tb::RunResult run;
  NaaOut last;                             // counters at the end
  std::unique_ptr<tb::HostMemory> memory;  // final host memory
  std::string mismatch_text;
  bool conservation_ok = false;
};

// `gates`: when each client frame may be offered (tb/naa/naa_gates.h; none by default).
NaaRunReport RunNaa(const NaaConfig& config, const std::vector<Packet>& packets, const NaaRunConfig& cfg,
                    const Gates& gates = {});

}  // namespace nettwin::naa
