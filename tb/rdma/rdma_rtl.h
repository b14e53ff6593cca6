// The Verilated rdma_top behind ClockedBlock, inside rdma_tb_top.sv (generated from rtl/rdma/data/rdma.json
// with a model_* input beside every output, docs/blockgen.md).
#pragma once

#include "Vrdma_tb_top.h"
#include "model/rdma/rdma_types.h"
#include "tb/common/verilated_block.h"

namespace nettwin::rdma {

class RdmaRtl : public tb::VerilatedBlock<Vrdma_tb_top, RdmaIn, RdmaOut> {
 public:
  RdmaRtl() : VerilatedBlock("rdma_tb_top") {}
  const RdmaOut& Eval(const RdmaIn& in) override;
  void ShowModel(const RdmaOut& m) override;

 private:
  void IdleInputs() override;
  RdmaOut out_;
};

}  // namespace nettwin::rdma
