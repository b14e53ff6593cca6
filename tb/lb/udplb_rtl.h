// The Verilated udplb_top (inside udplb_tb_top, which also traces the model's outputs) behind ClockedBlock.
#pragma once

#include "Vudplb_tb_top.h"
#include "model/lb/udplb_types.h"
#include "tb/common/verilated_block.h"

namespace nettwin::lb::udplb {

class UdplbRtl : public tb::VerilatedBlock<Vudplb_tb_top, UdplbIn, UdplbOut> {
 public:
  UdplbRtl() : VerilatedBlock("udplb_tb_top") {}
  const UdplbOut& Eval(const UdplbIn& in) override;
  void ShowModel(const UdplbOut& model_out) override;

 private:
  void IdleInputs() override;
  UdplbOut out_;
};

}  // namespace nettwin::lb::udplb
