#include "tb/re/re_rtl.h"

#include "Vre_tb_top.h"
#include "re_rtl_ports.h"  // NOLINT(build/include_subdir): generated from rtl/re/data/re.json
#include "tb/common/verilated_block.h"

namespace nettwin::re {
namespace {

// re_top inside re_tb_top.sv (generated, docs/blockgen.md: a model_* input beside every output, so the
// divergence FST shows RTL and model side by side).
class ReRtl : public tb::VerilatedBlock<Vre_tb_top, ReIn, ReOut> {
 public:
  ReRtl() : tb::VerilatedBlock<Vre_tb_top, ReIn, ReOut>("re_tb_top") {}

  const ReOut& Eval(const ReIn& in) override {
    Vre_tb_top& t = top();
    t.clk_i = 0;
    DriveReIn(t, in);
    t.eval();
    SampleReOut(t, &out_);
    return out_;
  }
  void ShowModel(const ReOut& m) override {
    ShowReModel(top(), m);
    top().eval();
  }

 private:
  void IdleInputs() override {
    top().s_valid_i = 0;
    top().m_ready_i = 0;
    top().flush_i = 0;
    top().dma_req_ready_i = 0;
  }
  ReOut out_;
};

}  // namespace

std::unique_ptr<tb::RtlBlock<ReIn, ReOut>> MakeReRtl() { return std::make_unique<ReRtl>(); }

}  // namespace nettwin::re
