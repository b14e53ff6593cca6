// Cycle model of rtl/naa/naa_top.sv (docs/naa-microarchitecture.md): the RoCEv2 responder (rdma::RdmaCycleModel,
// unchanged) behind a front end that sends CM frames (RoCEv2, IPv4, destination QP 1) to the connection
// manager and everything else to the responder, an output arbiter that interleaves their frames (and the
// requester's), the controller (naa_ctl: completion events in, MR/queue writes into the responder after the
// CM's, commands to the requester), and the DMA arbiter in front of host memory (responder, requester,
// controller).
#pragma once

#include "model/common/clocked_block.h"
#include "model/naa/naa_cm.h"
#include "model/naa/naa_ctl.h"
#include "model/naa/naa_dma_arb.h"
#include "model/naa/naa_req.h"
#include "model/naa/naa_types.h"
#include "model/rdma/rdma_cycle_model.h"

namespace nettwin::naa {

// Whether a frame whose first beat is `b` goes to the CM (decided on the first beat alone).
bool IsCmFrame(const Beat& b);
// Whether it goes to the requester: an ACK/NAK (RoCEv2/IPv4, opcode 0x11) to this endpoint's QP while connected.
bool IsReqFrame(const Beat& b, const NaaConn& conn);

// Output sources, in the order the arbiter prefers them when the output is free.
enum class OutSrc : uint8_t { kCm = 0, kRdma = 1, kReq = 2 };

class NaaCycleModel : public ClockedBlock<NaaIn, NaaOut> {
 public:
  void Reset() override;
  const NaaOut& Eval(const NaaIn& in) override;
  void Tick() override;

 private:
  rdma::RdmaCycleModel rdma_;
  CmEngine cm_;
  ReqEngine req_;
  DmaArb dma_arb_;
  NaaCtl ctl_;
  NaaIn in_;
  NaaOut out_;
  bool route_cm_now_ = false, route_rq_now_ = false;
  OutSrc out_src_now_ = OutSrc::kRdma;
  // Input: inside a frame, and where it goes. Output: a frame is being sent, and by whom.
  bool in_frame_ = false, route_cm_ = false, route_rq_ = false;
  bool out_lock_ = false;
  OutSrc out_src_ = OutSrc::kCm;
};

}  // namespace nettwin::naa
