// The Verilated reorder_top behind ClockedBlock, inside reorder_tb_top.sv (generated from
// rtl/reorder/data/reorder.json with a model_* input beside every output, docs/blockgen.md).
#pragma once

#include "Vreorder_tb_top.h"
#include "model/reorder/reorder_types.h"
#include "tb/common/verilated_block.h"

namespace nettwin::reorder {

class ReorderRtl : public tb::VerilatedBlock<Vreorder_tb_top, ReorderIn, ReorderOut> {
 public:
  ReorderRtl() : VerilatedBlock("reorder_tb_top") {}
  const ReorderOut& Eval(const ReorderIn& in) override;
  void ShowModel(const ReorderOut& m) override;

 private:
  void IdleInputs() override;
  ReorderOut out_;
};

}  // namespace nettwin::reorder
