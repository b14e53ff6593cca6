#include "tb/rdma/rdma_rtl.h"

namespace nettwin::rdma {

using tb::DriveS;
using tb::GetBytes;
using tb::PutBytes;
using tb::SampleM;

void RdmaRtl::IdleInputs() {
  top().s_valid_i = 0;
  top().cfg_valid_i = 0;
  top().dma_rsp_valid_i = 0;
}

const RdmaOut& RdmaRtl::Eval(const RdmaIn& in) {
  Vrdma_top& t = top();
  t.clk_i = 0;
  DriveS(t, in.s);
  t.m_ready_i = in.m_ready;
  t.dma_req_ready_i = in.dma_ready;
  t.dma_rsp_valid_i = in.dma_rsp.valid;
  t.dma_rsp_last_i = in.dma_rsp.last;
  PutBytes(t.dma_rsp_data_i, in.dma_rsp.data.data(), kDmaBeatBytes);
  t.cfg_valid_i = in.cfg.valid;
  t.cfg_table_i = in.cfg.table;
  t.cfg_index_i = in.cfg.index;
  for (int i = 0; i < CfgData::kWords * 2; ++i) t.cfg_data_i[i] = in.cfg.data.Word32(i);
  t.eval();
  out_.s_ready = t.s_ready_o;
  out_.busy = t.busy_o;
  SampleM(t, &out_.m);
  DmaRequest& d = out_.dma_req;
  d.valid = t.dma_req_valid_o;
  d.write = t.dma_req_write_o;
  d.addr = t.dma_req_addr_o;
  d.len = t.dma_req_len_o;
  d.off = t.dma_req_off_o;
  GetBytes(t.dma_req_data_o, d.data.data(), kDmaBeatBytes);
  RdmaCounters& c = out_.counters;
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
  return out_;
}

}  // namespace nettwin::rdma
