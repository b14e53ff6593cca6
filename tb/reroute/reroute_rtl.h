// The Verilated reroute_top inside reroute_tb_top.sv (generated: a model_* input beside every output) behind
// ClockedBlock, for lockstep with model/reroute/reroute_cycle_model.h: the generated RerouteRtlPorts
// (rtl/reroute/data/reroute.json, docs/blockgen.md) is the whole adapter.
#pragma once

#include "Vreroute_tb_top.h"
#include "reroute_rtl_ports.h"  // NOLINT(build/include_subdir): generated

namespace nettwin::reroute {

using RerouteRtl = RerouteRtlPorts<Vreroute_tb_top>;

}  // namespace nettwin::reroute
