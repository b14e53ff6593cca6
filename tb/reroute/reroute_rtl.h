// The Verilated reroute_top (rtl/reroute/reroute_top.sv, no tb top yet) behind ClockedBlock, for lockstep with
// model/reroute/reroute_model.h: the generated RerouteRtlPorts (rtl/reroute/data/reroute.json,
// docs/blockgen.md) is the whole adapter.
#pragma once

#include "Vreroute_top.h"
#include "reroute_rtl_ports.h"  // NOLINT(build/include_subdir): generated

namespace nettwin::reroute {

using RerouteRtl = RerouteRtlPorts<Vreroute_top>;

}  // namespace nettwin::reroute
