// The Verilated vnic_encap_top or vnic_decap_top (same ports) behind ClockedBlock.
#pragma once

#include "model/vnic/vnic_types.h"
#include <memory>

#include "tb/common/verilated_block.h"

namespace nettwin::vnic {

template <class VTop>
class VnicRtl : public tb::VerilatedBlock<VTop, VnicIn, VnicOut> {
 public:
  explicit VnicRtl(const char* name) : tb::VerilatedBlock<VTop, VnicIn, VnicOut>(name) {}

  const VnicOut& Eval(const VnicIn& in) override {
    VTop& t = this->top();
    t.clk_i = 0;
    tb::DriveS(t, in.s);
    t.s_port_i = in.s_port;
    t.m_ready_i = in.m_ready;
    t.cfg_valid_i = in.cfg.valid;
    t.cfg_table_i = in.cfg.table;
    t.cfg_index_i = in.cfg.index;
    for (int i = 0; i < static_cast<int>(params::kCfgDataBits) / 32; ++i) t.cfg_data_i[i] = in.cfg.data.Word32(i);
    t.eval();
    out_.s_ready = t.s_ready_o;
    tb::SampleM(t, &out_.m);
    out_.m_port = t.m_port_o;
    out_.cnt.in = t.cnt_in_o;
    out_.cnt.out = t.cnt_out_o;
    for (int i = 0; i < kNumReasons; ++i) out_.cnt.drops[static_cast<size_t>(i)] = t.cnt_drops_o[i];
    return out_;
  }

 private:
  void IdleInputs() override {
    this->top().s_valid_i = 0;
    this->top().m_ready_i = 0;
    this->top().cfg_valid_i = 0;
  }
  VnicOut out_;
};

}  // namespace nettwin::vnic

namespace nettwin::vnic {

// The Verilated top of a direction (tb/vnic/vnic_rtl.cc: the only file that sees the Verilated headers).
std::unique_ptr<tb::RtlBlock<VnicIn, VnicOut>> MakeVnicRtl(Direction dir);

}  // namespace nettwin::vnic
