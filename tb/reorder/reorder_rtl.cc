#include "tb/reorder/reorder_rtl.h"

#include "reorder_rtl_ports.h"

namespace nettwin::reorder {

void ReorderRtl::IdleInputs() {
  top().s_valid_i = 0;
  top().m_ready_i = 0;
  top().c_ready_i = 0;
}

const ReorderOut& ReorderRtl::Eval(const ReorderIn& in) {
  Vreorder_tb_top& t = top();
  t.clk_i = 0;
  DriveReorderIn(t, in);
  t.eval();
  SampleReorderOut(t, &out_);
  return out_;
}

void ReorderRtl::ShowModel(const ReorderOut& m) {
  ShowReorderModel(top(), m);
  top().eval();
}

}  // namespace nettwin::reorder
