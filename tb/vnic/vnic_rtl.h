// The Verilated vnic_encap_top or vnic_decap_top (same ports) behind ClockedBlock, each inside its tb top
// (vnic_encap_tb_top.sv / vnic_decap_tb_top.sv, generated from rtl/vnic/data/vnic.json with a model_* input
// beside every output, docs/blockgen.md).
#pragma once

#include <memory>

#include "model/vnic/vnic_types.h"
#include "tb/common/verilated_block.h"
#include "vnic_rtl_ports.h"  // NOLINT(build/include_subdir): generated

namespace nettwin::vnic {

template <class VTop>
class VnicRtl : public tb::VerilatedBlock<VTop, VnicIn, VnicOut> {
 public:
  explicit VnicRtl(const char* name) : tb::VerilatedBlock<VTop, VnicIn, VnicOut>(name) {}

  const VnicOut& Eval(const VnicIn& in) override {
    VTop& t = this->top();
    t.clk_i = 0;
    DriveVnicIn(t, in);
    t.eval();
    SampleVnicOut(t, &out_);
    return out_;
  }
  void ShowModel(const VnicOut& m) override {
    ShowVnicModel(this->top(), m);
    this->top().eval();
  }

 private:
  void IdleInputs() override {
    this->top().s_valid_i = 0;
    this->top().m_ready_i = 0;
    this->top().cfg_valid_i = 0;
  }
  VnicOut out_;
};

}  // namespace nettwin::vnic

namespace nettwin::vnic {

// The Verilated top of a direction (tb/vnic/vnic_rtl.cc: the only file that sees the Verilated headers).
std::unique_ptr<tb::RtlBlock<VnicIn, VnicOut>> MakeVnicRtl(Direction dir);

}  // namespace nettwin::vnic
