#include "model/naa/naa_model.h"

#include "model/common/bytes.h"

namespace nettwin::naa {

bool IsCmFrame(const Beat& b) {
  const uint8_t* d = b.data.data();
  return (b.keep >> 49 & 1) && Load16(d + 12) == 0x0800 && d[14] == 0x45 && d[23] == 17 &&
         Load16(d + 36) == params::kRdmaUdpPort && d[47] == 0 && d[48] == 0 && d[49] == 1;
}

void NaaModel::Reset() { *this = NaaModel(); }

const NaaOut& NaaModel::Eval(const NaaIn& in) {
  in_ = in;
  route_cm_now_ = in_frame_ ? route_cm_ : IsCmFrame(in.s.beat);
  grant_cm_ = out_lock_ ? out_cm_ : cm_.Sending();
  CmIn ci;
  const bool hold = cm_.Holding();
  ci.s.valid = in.s.valid && route_cm_now_ && !hold;
  ci.s.beat = in.s.beat;
  ci.m_ready = in.m_ready && grant_cm_;
  ci.cfg = in.cfg;
  const CmOut& co = cm_.Eval(ci);
  rdma::RdmaIn ri;
  ri.s.valid = in.s.valid && !route_cm_now_ && !hold;
  ri.s.beat = in.s.beat;
  ri.m_ready = in.m_ready && !grant_cm_;
  ri.dma_ready = in.dma_ready;
  ri.dma_rsp = in.dma_rsp;
  // The CM programs the responder's QP while it connects or disconnects; the external port only writes
  // before traffic (docs/naa.md), so the two never meet.
  if (co.cfg.valid) {
    ri.cfg = co.cfg;
  } else if (in.cfg.table != params::kNaaTblCm) {
    ri.cfg = in.cfg;
  }
  const rdma::RdmaOut& ro = rdma_.Eval(ri);
  uint32_t done = ro.counters.processed;
  for (uint32_t d : ro.counters.drops) done += d;
  cm_.SetRdmaIdle(!ro.busy && done == ro.counters.packets_in);
  out_.s_ready = !co.hold && (route_cm_now_ ? co.s_ready : ro.s_ready);
  out_.busy = ro.busy;
  out_.cm_busy = co.busy;
  out_.m = grant_cm_ ? co.m : ro.m;
  out_.dma_req = ro.dma_req;
  out_.rdma = ro.counters;
  out_.cqe = ro.cqe;
  out_.cm = co.counters;
  return out_;
}

void NaaModel::Tick() {
  if (in_.s.valid && out_.s_ready) {
    in_frame_ = !in_.s.beat.last;
    route_cm_ = route_cm_now_;
  }
  // A source keeps the output from its first offered beat to its last beat taken (AXI-Stream: data is stable
  // while valid waits for ready).
  if (out_.m.valid) {
    out_lock_ = !(in_.m_ready && out_.m.beat.last);
    out_cm_ = grant_cm_;
  }
  rdma_.Tick();
  cm_.Tick();
}

}  // namespace nettwin::naa
