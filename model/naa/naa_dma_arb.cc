#include "model/naa/naa_dma_arb.h"

namespace nettwin::naa {

void DmaArb::Eval(const std::array<DmaRequest, kMasters>& req, bool mem_ready, const DmaResponse& mem_rsp) {
  bool any = false;
  if (locked_) {  // the request offered last cycle and not taken (its master holds it)
    any = req[grant_].valid;
  } else {
    grant_ = 0;
    for (int k = 1; k <= kMasters && !any; ++k) {
      const int m = (last_ + k) % kMasters;
      if (req[m].valid) {
        any = true;
        grant_ = m;
      }
    }
  }
  const bool full = wr_ - rd_ == static_cast<uint32_t>(kDepth);
  out_ = req[grant_];
  out_.valid = any && (out_.write || !full);
  mem_ready_ = mem_ready;
  rsp_ = mem_rsp;
  ready_ = {};
  ready_[grant_] = out_.valid && mem_ready;
}

DmaResponse DmaArb::Response(int master, const DmaResponse& mem_rsp) const {
  DmaResponse r = mem_rsp;
  r.valid = mem_rsp.valid && wr_ != rd_ && ids_[rd_ % kDepth] == master;
  return r;
}

void DmaArb::Tick() {
  locked_ = out_.valid && !mem_ready_;
  if (out_.valid && mem_ready_) {
    last_ = grant_;
    if (!out_.write) ids_[wr_++ % kDepth] = static_cast<uint8_t>(grant_);
  }
  if (rsp_.valid && rsp_.last && wr_ != rd_) ++rd_;
}

}  // namespace nettwin::naa
