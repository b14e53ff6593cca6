#include "tb/lb/lb_rtl.h"

#include "lb_rtl_ports.h"

namespace nettwin::lb {

void LbRtl::IdleInputs() {
  top().s_valid_i = 0;
  top().cfg_valid_i = 0;
  top().m_ready_i = 0;
}

const LbOut& LbRtl::Eval(const LbIn& in) {
  Vlb_tb_top& t = top();
  t.clk_i = 0;
  DriveLbIn(t, in);  // generated from rtl/lb/data/lb.json
  t.eval();
  SampleLbOut(t, &out_);
  return out_;
}

void LbRtl::ShowModel(const LbOut& m) {
  ShowLbModel(top(), m);
  top().eval();
}

}  // namespace nettwin::lb
