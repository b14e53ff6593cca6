#include "tb/lb/lb_rtl.h"

#include <verilated.h>
#include <verilated_fst_c.h>

#include "Vlb_tb_top.h"

namespace nettwin::lb {
namespace {

template <size_t N>
void PutBytes(VlWide<N>& w, const uint8_t* bytes, size_t n) {
  for (size_t i = 0; i < N; ++i) w[i] = 0;
  for (size_t i = 0; i < n; ++i) w[i / 4] |= static_cast<uint32_t>(bytes[i]) << (8 * (i % 4));
}
template <size_t N>
void GetBytes(const VlWide<N>& w, uint8_t* bytes, size_t n) {
  for (size_t i = 0; i < n; ++i) bytes[i] = static_cast<uint8_t>(w[i / 4] >> (8 * (i % 4)));
}

}  // namespace

LbRtl::LbRtl() : ctx_(std::make_unique<VerilatedContext>()) {
  ctx_->traceEverOn(true);
  top_ = std::make_unique<Vlb_tb_top>(ctx_.get(), "lb_tb_top");
}

LbRtl::~LbRtl() {
  if (fst_) fst_->close();
  top_->final();
}

void LbRtl::OpenTrace(const std::string& path) {
  fst_ = std::make_unique<VerilatedFstC>();
  top_->trace(fst_.get(), 99);
  fst_->open(path.c_str());
}

void LbRtl::Dump() {
  if (fst_ && tracing_) fst_->dump(half_cycles_);
  ++half_cycles_;
}

void LbRtl::Reset() {
  top_->rst_ni = 0;
  top_->clk_i = 0;
  top_->s_valid_i = 0;
  top_->cfg_valid_i = 0;
  top_->m_ready_i = 0;
  for (int i = 0; i < 3; ++i) {
    top_->clk_i = 0;
    top_->eval();
    top_->clk_i = 1;
    top_->eval();
  }
  top_->clk_i = 0;
  top_->eval();
  top_->rst_ni = 1;
  top_->eval();
}

const LbOut& LbRtl::Eval(const LbIn& in) {
  top_->clk_i = 0;
  top_->s_valid_i = in.s.valid;
  PutBytes(top_->s_data_i, in.s.beat.data.data(), kBeatBytes);
  top_->s_keep_i = in.s.beat.keep;
  top_->s_last_i = in.s.beat.last;
  top_->m_ready_i = in.m_ready;
  top_->cfg_valid_i = in.cfg.valid;
  top_->cfg_table_i = in.cfg.table;
  top_->cfg_index_i = in.cfg.index;
  for (int i = 0; i < CfgData::kWords * 2; ++i) top_->cfg_data_i[i] = in.cfg.data.Word32(i);
  top_->eval();
  out_.s_ready = top_->s_ready_o;
  out_.m.valid = top_->m_valid_o;
  GetBytes(top_->m_data_o, out_.m.beat.data.data(), kBeatBytes);
  out_.m.beat.keep = top_->m_keep_o;
  out_.m.beat.last = top_->m_last_o;
  out_.counters.packets_in = top_->pkts_in_o;
  out_.counters.packets_out = top_->pkts_out_o;
  for (int r = 0; r < kNumReasons; ++r) out_.counters.drops[r] = top_->drops_o[r];
  return out_;
}

void LbRtl::ShowModel(const LbOut& m) {
  top_->model_s_ready_i = m.s_ready;
  top_->model_m_valid_i = m.m.valid;
  PutBytes(top_->model_m_data_i, m.m.beat.data.data(), kBeatBytes);
  top_->model_m_keep_i = m.m.beat.keep;
  top_->model_m_last_i = m.m.beat.last;
  top_->eval();
}

void LbRtl::Tick() {
  Dump();
  top_->clk_i = 1;
  top_->eval();
  Dump();
}

}  // namespace nettwin::lb
