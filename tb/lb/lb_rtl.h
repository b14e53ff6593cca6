// The Verilated lb_top (inside lb_tb_top, which also traces the model's outputs) behind ClockedBlock.
#pragma once

#include "Vlb_tb_top.h"
#include "model/lb/lb_types.h"
#include "tb/common/verilated_block.h"

namespace nettwin::lb {

class LbRtl : public tb::VerilatedBlock<Vlb_tb_top, LbIn, LbOut> {
 public:
  LbRtl() : VerilatedBlock("lb_tb_top") {}
  const LbOut& Eval(const LbIn& in) override;
  void ShowModel(const LbOut& model_out) override;

 private:
  void IdleInputs() override;
  LbOut out_;
};

}  // namespace nettwin::lb
