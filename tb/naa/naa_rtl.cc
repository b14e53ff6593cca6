#include "tb/naa/naa_rtl.h"

#include "Vnaa_tb_top.h"
#include "naa_rtl_ports.h"
#include "tb/common/verilated_block.h"

namespace nettwin::naa {
namespace {

// naa_top inside naa_tb_top.sv, both port lists and the copy generated from rtl/naa/data/naa.json (which
// includes rdma.json's ports; docs/blockgen.md): a model_* input beside every output in the FST.
class NaaRtl : public tb::VerilatedBlock<Vnaa_tb_top, NaaIn, NaaOut> {
 public:
  NaaRtl() : VerilatedBlock("naa_tb_top") {}
  const NaaOut& Eval(const NaaIn& in) override {
    Vnaa_tb_top& t = top();
    t.clk_i = 0;
    DriveNaaIn(t, in);
    t.eval();
    SampleNaaOut(t, &out_);
    return out_;
  }
  void ShowModel(const NaaOut& m) override {
    ShowNaaModel(top(), m);
    top().eval();
  }

 private:
  void IdleInputs() override {
    top().s_valid_i = 0;
    top().cfg_valid_i = 0;
    top().dma_rsp_valid_i = 0;
  }
  NaaOut out_;
};

}  // namespace

std::unique_ptr<tb::RtlBlock<NaaIn, NaaOut>> MakeNaaRtl() { return std::make_unique<NaaRtl>(); }

}  // namespace nettwin::naa
