// The Verilated rdma_top inside rdma_tb_top.sv (a model_* input beside every output) behind ClockedBlock: the
// generated RdmaRtlPorts (rtl/rdma/data/rdma.json, docs/blockgen.md) is the whole adapter.
#pragma once

#include "Vrdma_tb_top.h"
#include "rdma_rtl_ports.h"  // NOLINT(build/include_subdir): generated

namespace nettwin::rdma {

using RdmaRtl = RdmaRtlPorts<Vrdma_tb_top>;

}  // namespace nettwin::rdma
