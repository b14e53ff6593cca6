// The Verilated vnic_encap_top or vnic_decap_top (same ports) behind ClockedBlock, each inside its tb top
// (vnic_encap_tb_top.sv / vnic_decap_tb_top.sv, generated from rtl/vnic/data/vnic.json with a model_* input
// beside every output, docs/blockgen.md); Eval and ShowModel are the generated VnicRtlPorts'.
#pragma once

#include <memory>

#include "model/vnic/vnic_types.h"
#include "tb/common/verilated_block.h"
#include "vnic_rtl_ports.h"  // NOLINT(build/include_subdir): generated

namespace nettwin::vnic {

template <class VTop>
class VnicRtl : public VnicRtlPorts<VTop> {
 public:
  explicit VnicRtl(const char* name) : VnicRtlPorts<VTop>(name) {}

 private:
  void IdleInputs() override {
    this->top().s_valid_i = 0;
    this->top().m_ready_i = 0;
    this->top().cfg_valid_i = 0;
  }
};

// The Verilated top of a direction (tb/vnic/vnic_rtl.cc: the only file that sees the Verilated headers).
std::unique_ptr<tb::RtlBlock<VnicIn, VnicOut>> MakeVnicRtl(Direction dir);

}  // namespace nettwin::vnic
