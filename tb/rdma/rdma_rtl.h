// The Verilated rdma_top behind ClockedBlock.
#pragma once

#include "Vrdma_top.h"
#include "model/rdma/rdma_types.h"
#include "tb/common/verilated_block.h"

namespace nettwin::rdma {

class RdmaRtl : public tb::VerilatedBlock<Vrdma_top, RdmaIn, RdmaOut> {
 public:
  RdmaRtl() : VerilatedBlock("rdma_top") {}
  const RdmaOut& Eval(const RdmaIn& in) override;

 private:
  void IdleInputs() override;
  RdmaOut out_;
};

}  // namespace nettwin::rdma
