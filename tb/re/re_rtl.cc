#include "tb/re/re_rtl.h"

#include "Vre_tb_top.h"
#include "re_rtl_ports.h"  // NOLINT(build/include_subdir): generated from rtl/re/data/re.json

namespace nettwin::re {
namespace {

// re_top inside re_tb_top.sv (generated, docs/blockgen.md: a model_* input beside every output, so the
// divergence FST shows RTL and model side by side); Eval and ShowModel are the generated ReRtlPorts'.
class ReRtl : public ReRtlPorts<Vre_tb_top> {
 public:
  ReRtl() : ReRtlPorts<Vre_tb_top>("re_tb_top") {}

 private:
  void IdleInputs() override {
    top().s_valid_i = 0;
    top().m_ready_i = 0;
    top().flush_i = 0;
    top().dma_req_ready_i = 0;
  }
};

}  // namespace

std::unique_ptr<tb::RtlBlock<ReIn, ReOut>> MakeReRtl() { return std::make_unique<ReRtl>(); }

}  // namespace nettwin::re
