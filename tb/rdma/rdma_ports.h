// The responder's ports on a Verilated top: rdma_top and every top that exposes them under the same names
// (naa_top wraps rdma_top) drive and read them through these two templates.
#pragma once

#include "model/rdma/rdma_types.h"
#include "tb/common/verilated_block.h"

namespace nettwin::rdma {

template <class VTop>
void DriveRdmaPorts(const RdmaIn& in, VTop* t) {
  t->clk_i = 0;
  tb::DriveS(*t, in.s);
  t->m_ready_i = in.m_ready;
  t->dma_req_ready_i = in.dma_ready;
  t->dma_rsp_valid_i = in.dma_rsp.valid;
  t->dma_rsp_last_i = in.dma_rsp.last;
  tb::PutBytes(t->dma_rsp_data_i, in.dma_rsp.data.data(), kDmaBeatBytes);
  t->cfg_valid_i = in.cfg.valid;
  t->cfg_table_i = in.cfg.table;
  t->cfg_index_i = in.cfg.index;
  for (int i = 0; i < CfgData::kWords * 2; ++i) t->cfg_data_i[i] = in.cfg.data.Word32(i);
}

// The DMA request port (every DMA master: rdma_top, naa_ctl, ... under the same names).
template <class VTop>
void ReadDmaRequest(const VTop& t, DmaRequest* d) {
  d->valid = t.dma_req_valid_o;
  d->write = t.dma_req_write_o;
  d->addr = t.dma_req_addr_o;
  d->len = t.dma_req_len_o;
  d->off = t.dma_req_off_o;
  tb::GetBytes(t.dma_req_data_o, d->data.data(), kDmaBeatBytes);
}

template <class VTop>
void ReadRdmaPorts(const VTop& t, RdmaOut* o) {
  o->s_ready = t.s_ready_o;
  o->busy = t.busy_o;
  tb::SampleM(t, &o->m);
  ReadDmaRequest(t, &o->dma_req);
  RdmaCounters& c = o->counters;
  c.packets_in = t.cnt_packets_in_o;
  c.processed = t.cnt_processed_o;
  c.responses = t.cnt_responses_o;
  for (int i = 0; i < kNumDrops; ++i) c.drops[i] = t.cnt_drops_o[i];
  c.acks = t.cnt_acks_o;
  c.naks = t.cnt_naks_o;
  c.atomics = t.cnt_atomics_o;
  c.atomic_replays = t.cnt_replays_o;
  c.dma_reads = t.cnt_dma_reads_o;
  c.dma_writes = t.cnt_dma_writes_o;
  c.cqes = t.cnt_cqes_o;
}

// The completion event (rdma_top's cqe_o, packed as rdma_pkg::cqe_t: wr_id in the top bits, psn at the bottom).
template <class VTop>
CqeEvent ReadCqe(const VTop& t) {
  CqeEvent c;
  c.valid = t.cqe_valid_o;
  auto bits = [&](int lo, int n) { return tb::WideField(t.cqe_o, lo, n); };
  c.psn = static_cast<uint32_t>(bits(0, 24));
  c.opcode = static_cast<uint8_t>(bits(24, 8));
  c.qpn = static_cast<uint32_t>(bits(32, 24));
  c.imm = static_cast<uint32_t>(bits(56, 32));
  c.len = static_cast<uint32_t>(bits(88, 32));
  c.wr_id = static_cast<uint32_t>(bits(120, 32));
  return c;
}

}  // namespace nettwin::rdma
