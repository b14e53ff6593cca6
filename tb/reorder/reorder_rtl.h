// The Verilated reorder_top behind ClockedBlock.
#pragma once

#include "Vreorder_top.h"
#include "model/reorder/reorder_types.h"
#include "tb/common/verilated_block.h"

namespace nettwin::reorder {

class ReorderRtl : public tb::VerilatedBlock<Vreorder_top, ReorderIn, ReorderOut> {
 public:
  ReorderRtl() : VerilatedBlock("reorder_top") {}
  const ReorderOut& Eval(const ReorderIn& in) override;

 private:
  void IdleInputs() override;
  ReorderOut out_;
};

}  // namespace nettwin::reorder
