#include "tb/reroute/reroute_rtl.h"

namespace nettwin::reroute {

using tb::DriveS;
using tb::PutBytes;
using tb::SampleM;

void RerouteRtl::IdleInputs() {
  top().s_valid_i = 0;
  top().r_valid_i = 0;
  top().m_ready_i = 0;
}

const RerouteOut& RerouteRtl::Eval(const RerouteIn& in) {
  Vreroute_top& t = top();
  t.clk_i = 0;
  DriveS(t, in.s);
  t.r_valid_i = in.r.valid;
  PutBytes(t.r_data_i, in.r.beat.data.data(), kBeatBytes);
  t.r_keep_i = in.r.beat.keep;
  t.r_last_i = in.r.beat.last;
  t.m_ready_i = in.m_ready;
  t.now_us_i = in.now_us;
  t.cfg_flows_mask_i = in.cfg.flows_mask;
  t.cfg_paths_i = in.cfg.paths;
  t.cfg_reply_cutoff_us_i = in.cfg.reply_cutoff_us;
  t.cfg_path_busy_us_i = in.cfg.path_busy_us;
  t.cfg_flow_idle_us_i = in.cfg.flow_idle_us;
  t.cfg_p4_format_i = in.cfg.p4_format;
  t.eval();
  out_.s_ready = t.s_ready_o;
  out_.r_ready = t.r_ready_o;
  SampleM(t, &out_.m);
  out_.m_path = t.m_path_o;
  out_.idle = t.idle_o;
  RerouteCounters& c = out_.cnt;
  c.in = t.cnt_in_o;
  c.out = t.cnt_out_o;
  c.drop_malformed = t.cnt_drop_malformed_o;
  c.rtt_requests = t.cnt_rtt_requests_o;
  c.reroutes = t.cnt_reroutes_o;
  c.reroute_blocked_clear = t.cnt_reroute_blocked_clear_o;
  c.reroute_no_path = t.cnt_reroute_no_path_o;
  c.fallback_ecmp = t.cnt_fallback_ecmp_o;
  c.evictions = t.cnt_evictions_o;
  c.idle_resets = t.cnt_idle_resets_o;
  c.ctrl_in = t.cnt_ctrl_in_o;
  c.rtt_replies = t.cnt_rtt_replies_o;
  c.stale_replies = t.cnt_stale_replies_o;
  c.notifies = t.cnt_notifies_o;
  c.clears = t.cnt_clears_o;
  c.stale_clears = t.cnt_stale_clears_o;
  c.bad_control = t.cnt_bad_control_o;
  return out_;
}

}  // namespace nettwin::reroute
