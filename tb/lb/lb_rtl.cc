#include "tb/lb/lb_rtl.h"

namespace nettwin::lb {

using tb::DriveS;
using tb::SampleM;
using tb::ShowModelM;

void LbRtl::IdleInputs() {
  top().s_valid_i = 0;
  top().cfg_valid_i = 0;
  top().m_ready_i = 0;
}

const LbOut& LbRtl::Eval(const LbIn& in) {
  Vlb_tb_top& t = top();
  t.clk_i = 0;
  DriveS(t, in.s);
  t.m_ready_i = in.m_ready;
  t.cfg_valid_i = in.cfg.valid;
  t.cfg_table_i = in.cfg.table;
  t.cfg_index_i = in.cfg.index;
  for (int i = 0; i < CfgData::kWords * 2; ++i) t.cfg_data_i[i] = in.cfg.data.Word32(i);
  t.eval();
  out_.s_ready = t.s_ready_o;
  SampleM(t, &out_.m);
  out_.counters.packets_in = t.pkts_in_o;
  out_.counters.packets_out = t.pkts_out_o;
  for (int r = 0; r < kNumReasons; ++r) out_.counters.drops[r] = t.drops_o[r];
  return out_;
}

void LbRtl::ShowModel(const LbOut& m) {
  Vlb_tb_top& t = top();
  t.model_s_ready_i = m.s_ready;
  ShowModelM(t, m.m);
  t.eval();
}

}  // namespace nettwin::lb
