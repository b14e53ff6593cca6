#include "tb/reorder/reorder_rtl.h"

namespace nettwin::reorder {

using tb::DriveS;
using tb::GetBytes;
using tb::PutBytes;
using tb::SampleM;
using tb::ShowModelM;

void ReorderRtl::IdleInputs() {
  top().s_valid_i = 0;
  top().m_ready_i = 0;
  top().c_ready_i = 0;
}

const ReorderOut& ReorderRtl::Eval(const ReorderIn& in) {
  Vreorder_tb_top& t = top();
  t.clk_i = 0;
  DriveS(t, in.s);
  t.m_ready_i = in.m_ready;
  t.c_ready_i = in.c_ready;
  t.now_us_i = in.now_us;
  t.cfg_flows_mask_i = in.cfg.flows_mask;
  t.cfg_queues_i = in.cfg.queues;
  t.cfg_buffer_cells_i = in.cfg.buffer_cells;
  t.cfg_margin_us_i = in.cfg.margin_us;
  t.cfg_default_hold_us_i = in.cfg.default_hold_us;
  t.cfg_flow_idle_us_i = in.cfg.flow_idle_us;
  t.cfg_any_queue_i = in.cfg.any_queue;
  t.cfg_p4_format_i = in.cfg.p4_format;
  t.eval();
  out_.s_ready = t.s_ready_o;
  SampleM(t, &out_.m);
  out_.m_held = t.m_held_o;
  out_.m_hold_us = t.m_hold_us_o;
  out_.c.valid = t.c_valid_o;
  GetBytes(t.c_data_o, out_.c.beat.data.data(), kBeatBytes);
  out_.c.beat.keep = t.c_keep_o;
  out_.c.beat.last = t.c_last_o;
  out_.idle = t.idle_o;
  ReorderCounters& c = out_.cnt;
  c.in = t.cnt_in_o;
  c.delivered = t.cnt_delivered_o;
  c.ctrl_out = t.cnt_ctrl_out_o;
  c.drop_malformed = t.cnt_drop_malformed_o;
  c.drop_buffer_full = t.cnt_drop_buffer_full_o;
  c.held = t.cnt_held_o;
  c.released_by_tail = t.cnt_released_by_tail_o;
  c.released_by_timeout = t.cnt_released_by_timeout_o;
  c.fallback_unordered = t.cnt_fallback_unordered_o;
  c.fallback_collision = t.cnt_fallback_collision_o;
  c.epoch_jump = t.cnt_epoch_jump_o;
  c.held_now = t.cnt_held_now_o;
  c.queues_now = t.cnt_queues_now_o;
  c.peak_queues = t.cnt_peak_queues_o;
  c.held_cells = t.cnt_held_cells_o;
  c.peak_held_cells = t.cnt_peak_held_cells_o;
  c.cells_used = t.cnt_cells_used_o;
  c.peak_cells_used = t.cnt_peak_cells_used_o;
  return out_;
}

void ReorderRtl::ShowModel(const ReorderOut& m) {
  Vreorder_tb_top& t = top();
  t.model_s_ready_i = m.s_ready;
  ShowModelM(t, m.m);
  t.model_m_held_i = m.m_held;
  t.model_m_hold_us_i = m.m_hold_us;
  t.model_c_valid_i = m.c.valid;
  PutBytes(t.model_c_data_i, m.c.beat.data.data(), kBeatBytes);
  t.model_c_keep_i = m.c.beat.keep;
  t.model_c_last_i = m.c.beat.last;
  t.model_idle_i = m.idle;
  t.model_cnt_in_i = m.cnt.in;
  t.model_cnt_delivered_i = m.cnt.delivered;
  t.model_cnt_held_now_i = m.cnt.held_now;
  t.model_cnt_queues_now_i = m.cnt.queues_now;
  t.eval();
}

}  // namespace nettwin::reorder
