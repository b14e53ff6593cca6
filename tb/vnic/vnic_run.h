// Runs one direction of the VNIC block on a configuration and a list of frames with a chosen engine.
#pragma once

#include <string>
#include <vector>

#include "model/common/packet.h"
#include "model/vnic/vnic_types.h"
#include "tb/common/harness.h"
#include "tb/common/run_block.h"

namespace nettwin::vnic {

using tb::Engine;

struct VnicRunConfig {
  Direction dir = Direction::kEncap;
  Engine engine = Engine::kLockstep;
  tb::RunOptions opt;
  std::string mismatch_trace;  // FST of the cycles around a divergence (empty: none)
};

struct VnicRunReport {
  tb::RunResult run;               // run.out: output frames, stamped with their departure time
  std::vector<uint8_t> out_ports;  // the port sideband of each output frame
  Counters counters;
  std::string mismatch_text;
  bool conservation_ok = false;
};

// in_ports: the VNIC port of each input frame (encapsulation; empty: port 0).
VnicRunReport RunVnic(const Tables& tables, const std::vector<Packet>& packets, const std::vector<uint8_t>& in_ports,
                      const VnicRunConfig& rc);

}  // namespace nettwin::vnic
