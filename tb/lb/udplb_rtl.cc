#include "tb/lb/udplb_rtl.h"

#include "udplb_rtl_ports.h"

namespace nettwin::lb::udplb {

void UdplbRtl::IdleInputs() {
  top().s_valid_i = 0;
  top().cfg_valid_i = 0;
  top().m_ready_i = 0;
}

const UdplbOut& UdplbRtl::Eval(const UdplbIn& in) {
  Vudplb_tb_top& t = top();
  t.clk_i = 0;
  DriveUdplbIn(t, in);  // generated from rtl/lb/data/udplb.json
  t.eval();
  SampleUdplbOut(t, &out_);
  return out_;
}

void UdplbRtl::ShowModel(const UdplbOut& m) {
  ShowUdplbModel(top(), m);
  top().eval();
}

}  // namespace nettwin::lb::udplb
