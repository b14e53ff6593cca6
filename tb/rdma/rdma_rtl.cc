#include "tb/rdma/rdma_rtl.h"

#include "rdma_rtl_ports.h"

namespace nettwin::rdma {

void RdmaRtl::IdleInputs() {
  top().s_valid_i = 0;
  top().cfg_valid_i = 0;
  top().dma_rsp_valid_i = 0;
}

const RdmaOut& RdmaRtl::Eval(const RdmaIn& in) {
  Vrdma_tb_top& t = top();
  t.clk_i = 0;
  DriveRdmaIn(t, in);
  t.eval();
  SampleRdmaOut(t, &out_);
  return out_;
}

void RdmaRtl::ShowModel(const RdmaOut& m) {
  ShowRdmaModel(top(), m);
  top().eval();
}

}  // namespace nettwin::rdma
