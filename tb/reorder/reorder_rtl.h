// The Verilated reorder_top inside reorder_tb_top.sv (a model_* input beside every output) behind
// ClockedBlock: the generated ReorderRtlPorts (rtl/reorder/data/reorder.json, docs/blockgen.md) is the whole
// adapter.
#pragma once

#include "Vreorder_tb_top.h"
#include "reorder_rtl_ports.h"  // NOLINT(build/include_subdir): generated

namespace nettwin::reorder {

using ReorderRtl = ReorderRtlPorts<Vreorder_tb_top>;

}  // namespace nettwin::reorder
