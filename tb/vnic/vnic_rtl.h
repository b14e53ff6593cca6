// The Verilated vnic_encap_top or vnic_decap_top (same ports) behind ClockedBlock, each inside its tb top
// (vnic_encap_tb_top.sv / vnic_decap_tb_top.sv, generated from rtl/vnic/data/vnic.json with a model_* input
// beside every output, docs/blockgen.md): the generated VnicRtlPorts is the whole adapter.
#pragma once

#include <memory>

#include "model/vnic/vnic_types.h"
#include "tb/common/verilated_block.h"
#include "vnic_rtl_ports.h"  // NOLINT(build/include_subdir): generated

namespace nettwin::vnic {

template <class VTop>
using VnicRtl = VnicRtlPorts<VTop>;  // the generated IdleInputs idles s, m_ready and cfg

// The Verilated top of a direction (tb/vnic/vnic_rtl.cc: the only file that sees the Verilated headers).
std::unique_ptr<tb::RtlBlock<VnicIn, VnicOut>> MakeVnicRtl(Direction dir);

}  // namespace nettwin::vnic
