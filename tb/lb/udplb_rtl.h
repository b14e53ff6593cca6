// The Verilated udplb_top inside udplb_tb_top (which also traces the model's outputs) behind ClockedBlock: the
// generated UdplbRtlPorts (rtl/lb/data/udplb.json, docs/blockgen.md) is the whole adapter.
#pragma once

#include "Vudplb_tb_top.h"
#include "udplb_rtl_ports.h"  // NOLINT(build/include_subdir): generated

namespace nettwin::lb::udplb {

using UdplbRtl = UdplbRtlPorts<Vudplb_tb_top>;

}  // namespace nettwin::lb::udplb
