#include "tb/rdma/rdma_rtl.h"

#include "tb/rdma/rdma_ports.h"

namespace nettwin::rdma {

void RdmaRtl::IdleInputs() {
  top().s_valid_i = 0;
  top().cfg_valid_i = 0;
  top().dma_rsp_valid_i = 0;
}

const RdmaOut& RdmaRtl::Eval(const RdmaIn& in) {
  Vrdma_top& t = top();
  DriveRdmaPorts(in, &t);
  t.eval();
  ReadRdmaPorts(t, &out_);
  out_.cqe = ReadCqe(t);
  return out_;
}

}  // namespace nettwin::rdma
