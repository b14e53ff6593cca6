// Cycle model of rtl/naa/naa_top.sv (docs/naa-microarchitecture.md): the RoCEv2 responder (rdma::RdmaModel,
// unchanged) behind a front end that sends CM frames (RoCEv2, IPv4, destination QP 1) to the connection
// manager and everything else to the responder, an output arbiter that interleaves their frames (and the
// requester's), the controller port, and the DMA arbiter in front of host memory.
#pragma once

#include "model/common/clocked_block.h"
#include "model/naa/naa_cm.h"
#include "model/naa/naa_dma_arb.h"
#include "model/naa/naa_types.h"
#include "model/rdma/rdma_model.h"

namespace nettwin::naa {

// Whether a frame whose first beat is `b` goes to the CM (decided on the first beat alone).
bool IsCmFrame(const Beat& b);

// Output sources, in the order the arbiter prefers them when the output is free.
enum class OutSrc : uint8_t { kCm = 0, kRdma = 1, kReq = 2 };

class NaaModel : public ClockedBlock<NaaIn, NaaOut> {
 public:
  void Reset() override;
  const NaaOut& Eval(const NaaIn& in) override;
  void Tick() override;

 private:
  rdma::RdmaModel rdma_;
  CmEngine cm_;
  DmaArb dma_arb_;
  CtlOut ctl_out_;  // the controller port: tied off (no controller yet)
  NaaIn in_;
  NaaOut out_;
  bool route_cm_now_ = false;
  OutSrc out_src_now_ = OutSrc::kRdma;
  // Input: inside a frame, and where it goes. Output: a frame is being sent, and by whom.
  bool in_frame_ = false, route_cm_ = false;
  bool out_lock_ = false;
  OutSrc out_src_ = OutSrc::kCm;
};

}  // namespace nettwin::naa
