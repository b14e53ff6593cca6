#include "model/naa/naa_cycle_model.h"

#include "model/common/bytes.h"

namespace nettwin::naa {

namespace {

bool IsRoce4(const Beat& b) {
  const uint8_t* d = b.data.data();
  return (b.keep >> 49 & 1) && Load16(d + 12) == 0x0800 && d[14] == 0x45 && d[23] == 17 &&
         Load16(d + 36) == params::kRdmaUdpPort;
}

}  // namespace

bool IsCmFrame(const Beat& b) {
  const uint8_t* d = b.data.data();
  return IsRoce4(b) && d[47] == 0 && d[48] == 0 && d[49] == 1;
}

bool IsReqFrame(const Beat& b, const NaaConn& conn) {
  const uint8_t* d = b.data.data();
  return IsRoce4(b) && conn.connected && d[42] == 0x11 && LoadBe(d + 47, 3) == conn.local_qpn;
}

void NaaCycleModel::Reset() { *this = NaaCycleModel(); }

const NaaOut& NaaCycleModel::Eval(const NaaIn& in) {
  in_ = in;
  route_cm_now_ = in_frame_ ? route_cm_ : IsCmFrame(in.s.beat);
  // The output source: the locked one, else the CM if it sends, else the responder if it offers a beat,
  // else the requester. The responder's offer does not depend on its ready, so it is shown the ready it
  // would get if chosen and evaluated again if it is not.
  const bool cm_first = out_lock_ ? out_src_ == OutSrc::kCm : cm_.Sending();
  out_src_now_ = out_lock_ ? out_src_ : cm_first ? OutSrc::kCm : OutSrc::kRdma;
  CmIn ci;
  const bool hold = cm_.Holding();
  // A lost RTU: the client's first packet on the connection's QP waits while the CM establishes (naa_top.sv
  // cm_est).
  const bool est = !in_frame_ && in.s.valid && !IsCmFrame(in.s.beat) && cm_.Establishes(in.s.beat);
  ci.s.valid = in.s.valid && route_cm_now_ && !hold;
  ci.est = est;
  ci.s.beat = in.s.beat;
  ci.m_ready = in.m_ready && out_src_now_ == OutSrc::kCm;
  ci.cfg = in.cfg;
  const CmOut& co = cm_.Eval(ci);
  // The controller's outputs come from its state alone; its inputs are completed below (ctl_.Eval again).
  NaaCtlIn ki;
  ki.connected = co.conn.connected;
  ki.cfg = in.cfg;
  const NaaCtlOut ko = ctl_.Eval(ki);
  // The connection is a register of the CM, so routing on it is not a loop.
  route_rq_now_ = in_frame_ ? route_rq_ : IsReqFrame(in.s.beat, co.conn) && !IsCmFrame(in.s.beat);
  ReqIn qi;
  qi.s.valid = in.s.valid && route_rq_now_ && !route_cm_now_ && !hold;
  qi.s.beat = in.s.beat;
  qi.dma_rsp = dma_arb_.Response(1, in.dma_rsp);
  qi.cmd_valid = ko.cmd_valid;
  qi.cmd = ko.cmd;
  qi.conn = co.conn;
  qi.cfg = in.cfg;
  const ReqOut& qo = req_.Eval(qi);
  rdma::RdmaIn ri;
  ri.s.valid = in.s.valid && !route_cm_now_ && !route_rq_now_ && !hold && !est;
  ri.s.beat = in.s.beat;
  ri.m_ready = in.m_ready && out_src_now_ == OutSrc::kRdma;
  ri.dma_ready = in.dma_ready;
  ri.dma_rsp = dma_arb_.Response(0, in.dma_rsp);
  // The CM programs the responder's QP while it connects or disconnects, then the controller writes; the
  // external port only writes before traffic (docs/naa.md), so it never meets the other two.
  if (co.cfg.valid) {
    ri.cfg = co.cfg;
  } else if (ko.cfg.valid) {
    ri.cfg = ko.cfg;
  } else if (in.cfg.table != params::kNaaTblCm) {
    ri.cfg = in.cfg;
  }
  const rdma::RdmaOut* ro = &rdma_.Eval(ri);
  const StreamPort& rq_m = qo.m;
  if (!out_lock_ && !cm_first && !ro->m.valid && rq_m.valid) out_src_now_ = OutSrc::kReq;
  // The DMA arbiter decides from the masters' requests (a master's valid does not depend on its ready).
  std::array<DmaRequest, DmaArb::kMasters> reqs{};
  reqs[0] = ro->dma_req;
  reqs[1] = qo.dma_req;
  reqs[2] = ko.dma_req;
  dma_arb_.Eval(reqs, in.dma_ready, in.dma_rsp);
  const bool rd_m_ready = in.m_ready && out_src_now_ == OutSrc::kRdma;
  // The responder reads its readies only for what it offers (RdmaCycleModel::Tick), so only then do they matter.
  if ((ro->dma_req.valid && dma_arb_.Ready(0) != ri.dma_ready) || (ro->m.valid && rd_m_ready != ri.m_ready)) {
    ri.dma_ready = dma_arb_.Ready(0);
    ri.m_ready = rd_m_ready;
    ro = &rdma_.Eval(ri);
  }
  req_.SetReadies(in.m_ready && out_src_now_ == OutSrc::kReq, dma_arb_.Ready(1));
  ki.cqe = ro->cqe;
  ki.dma_ready = dma_arb_.Ready(2);
  ki.dma_rsp = dma_arb_.Response(2, in.dma_rsp);
  ki.cfg_ready = !co.cfg.valid;
  ki.cmd_ready = qo.cmd_ready;
  ki.cpl = qo.cpl;
  const NaaCtlOut& ko2 = ctl_.Eval(ki);
  uint32_t done = ro->counters.processed;
  for (uint32_t d : ro->counters.drops) done += d;
  cm_.SetRdmaIdle(!ro->busy && done == ro->counters.packets_in);
  out_.s_ready = !co.hold && !est && (route_cm_now_ ? co.s_ready : route_rq_now_ ? qo.s_ready : ro->s_ready);
  out_.busy = ro->busy;
  out_.cm_busy = co.busy;
  switch (out_src_now_) {
    case OutSrc::kCm: out_.m = co.m; break;
    case OutSrc::kRdma: out_.m = ro->m; break;
    case OutSrc::kReq: out_.m = rq_m; break;
  }
  out_.dma_req = dma_arb_.MemRequest();
  out_.rdma = ro->counters;
  out_.cqe = ro->cqe;
  out_.cm = co.counters;
  out_.conn = co.conn;
  out_.req = qo.counters;
  out_.req_cpl = qo.cpl;
  out_.req_busy = qo.busy;
  out_.ctl = ko2.counters;
  out_.ctl_busy = ko2.busy;
  return out_;
}

void NaaCycleModel::Tick() {
  if (in_.s.valid && out_.s_ready) {
    in_frame_ = !in_.s.beat.last;
    route_cm_ = route_cm_now_;
    route_rq_ = route_rq_now_;
  }
  // A source keeps the output from its first offered beat to its last beat taken (AXI-Stream: data is stable
  // while valid waits for ready).
  if (out_.m.valid) {
    out_lock_ = !(in_.m_ready && out_.m.beat.last);
    out_src_ = out_src_now_;
  }
  rdma_.Tick();
  cm_.Tick();
  req_.Tick();
  ctl_.Tick();
  dma_arb_.Tick();
}

}  // namespace nettwin::naa
