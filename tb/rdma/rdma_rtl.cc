#include "tb/rdma/rdma_rtl.h"

#include <verilated.h>
#include <verilated_fst_c.h>

#include "Vrdma_top.h"

namespace nettwin::rdma {
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

RdmaRtl::RdmaRtl() : ctx_(std::make_unique<VerilatedContext>()) {
  ctx_->traceEverOn(true);
  top_ = std::make_unique<Vrdma_top>(ctx_.get(), "rdma_top");
}

RdmaRtl::~RdmaRtl() {
  if (fst_) fst_->close();
  top_->final();
}

void RdmaRtl::OpenTrace(const std::string& path) {
  fst_ = std::make_unique<VerilatedFstC>();
  top_->trace(fst_.get(), 99);
  fst_->open(path.c_str());
}

void RdmaRtl::Dump() {
  if (fst_ && tracing_) fst_->dump(half_cycles_);
  ++half_cycles_;
}

void RdmaRtl::Reset() {
  top_->rst_ni = 0;
  top_->s_valid_i = 0;
  top_->cfg_valid_i = 0;
  top_->dma_rsp_valid_i = 0;
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

const RdmaOut& RdmaRtl::Eval(const RdmaIn& in) {
  top_->clk_i = 0;
  top_->s_valid_i = in.s.valid;
  PutBytes(top_->s_data_i, in.s.beat.data.data(), kBeatBytes);
  top_->s_keep_i = in.s.beat.keep;
  top_->s_last_i = in.s.beat.last;
  top_->m_ready_i = in.m_ready;
  top_->dma_req_ready_i = in.dma_ready;
  top_->dma_rsp_valid_i = in.dma_rsp.valid;
  top_->dma_rsp_last_i = in.dma_rsp.last;
  PutBytes(top_->dma_rsp_data_i, in.dma_rsp.data.data(), kDmaBeatBytes);
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
  DmaRequest& d = out_.dma_req;
  d.valid = top_->dma_req_valid_o;
  d.write = top_->dma_req_write_o;
  d.addr = top_->dma_req_addr_o;
  d.len = top_->dma_req_len_o;
  d.off = top_->dma_req_off_o;
  GetBytes(top_->dma_req_data_o, d.data.data(), kDmaBeatBytes);
  RdmaCounters& c = out_.counters;
  c.packets_in = top_->cnt_packets_in_o;
  c.processed = top_->cnt_processed_o;
  c.responses = top_->cnt_responses_o;
  for (int i = 0; i < kNumDrops; ++i) c.drops[i] = top_->cnt_drops_o[i];
  c.acks = top_->cnt_acks_o;
  c.naks = top_->cnt_naks_o;
  c.atomics = top_->cnt_atomics_o;
  c.atomic_replays = top_->cnt_replays_o;
  c.dma_reads = top_->cnt_dma_reads_o;
  c.dma_writes = top_->cnt_dma_writes_o;
  return out_;
}

void RdmaRtl::Tick() {
  Dump();
  top_->clk_i = 1;
  top_->eval();
  Dump();
}

}  // namespace nettwin::rdma
