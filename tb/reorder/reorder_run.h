// Runs the ConWeave reorder block on a configuration and timed fabric arrivals with a chosen engine.
#pragma once

#include <string>
#include <vector>

#include "model/common/packet.h"
#include "model/reorder/reorder_types.h"
#include "tb/common/harness.h"
#include "tb/common/run_block.h"
#include "tb/reorder/reorder_binding.h"

namespace nettwin::reorder {

using tb::Engine;

struct ReorderRunConfig {
  Engine engine = Engine::kLockstep;
  tb::RunOptions opt;            // opt.timed is forced: arrivals come from the pcap timestamps
  double ctrl_backpressure = 0;  // fraction of cycles the control port is not ready
  bool untimed = false;          // offer frames back to back (line-rate runs); the clock still runs
  std::string mismatch_trace;    // FST of the cycles around a divergence (empty: none)
};

struct ReorderRunReport {
  tb::RunResult run;              // run.out: delivered frames, stamped with their departure time
  std::vector<Packet> ctrl;       // control frames, stamped with their departure time
  std::vector<HoldRecord> holds;  // per delivered frame
  ReorderCounters counters;
  std::string mismatch_text;
  bool conservation_ok = false;
};

ReorderRunReport RunReorder(const ReorderCfg& cfg, const std::vector<Packet>& packets, const ReorderRunConfig& rc);

}  // namespace nettwin::reorder
