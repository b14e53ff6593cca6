#include "tb/lb/udplb_rtl.h"

namespace nettwin::lb::udplb {

using tb::DriveCfg;
using tb::DriveS;
using tb::SampleM;
using tb::ShowModelM;

void UdplbRtl::IdleInputs() {
  top().s_valid_i = 0;
  top().cfg_valid_i = 0;
  top().m_ready_i = 0;
}

const UdplbOut& UdplbRtl::Eval(const UdplbIn& in) {
  Vudplb_tb_top& t = top();
  t.clk_i = 0;
  DriveS(t, in.s);
  t.s_port_i = in.s_port;
  t.m_ready_i = in.m_ready;
  DriveCfg(t, in.cfg);
  t.eval();
  out_.s_ready = t.s_ready_o;
  SampleM(t, &out_.m);
  out_.m_port = t.m_port_o;
  UdplbCounters& c = out_.counters;
  c.packets_in = t.pkts_in_o;
  c.packets_out = t.pkts_out_o;
  c.to_host = t.to_host_o;
  c.replies = t.replies_o;
  for (int r = 0; r < kNumReasons; ++r) c.drops[r] = t.drops_o[r];
  for (int i = 0; i < kInstances; ++i) {
    c.rx[i] = t.inst_rx_o[i];
    c.rx_v2[i] = t.inst_rx_v2_o[i];
    c.rx_v3[i] = t.inst_rx_v3_o[i];
    c.tx[i] = t.inst_tx_o[i];
    c.inst_drops[i] = t.inst_drops_o[i];
  }
  return out_;
}

void UdplbRtl::ShowModel(const UdplbOut& m) {
  Vudplb_tb_top& t = top();
  t.model_s_ready_i = m.s_ready;
  ShowModelM(t, m.m);
  t.model_m_port_i = m.m_port;
  t.eval();
}

}  // namespace nettwin::lb::udplb
