// The Verilated lb_top inside lb_tb_top (which also traces the model's outputs) behind ClockedBlock: the
// generated LbRtlPorts (rtl/lb/data/lb.json, docs/blockgen.md) is the whole adapter.
#pragma once

#include "Vlb_tb_top.h"
#include "lb_rtl_ports.h"  // NOLINT(build/include_subdir): generated

namespace nettwin::lb {

using LbRtl = LbRtlPorts<Vlb_tb_top>;

}  // namespace nettwin::lb
