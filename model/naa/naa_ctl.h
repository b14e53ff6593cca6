// Cycle model of rtl/naa/naa_ctl.sv, the NAA controller (docs/naa.md "MRSP and RPC", docs/naa-microarchitecture.md
// "Controller"): it takes the responder's completion events for the connected QP, reads an MRSP 0x01 request
// from the receive buffer, checks it, programs one responder MR per granted region, writes the 0x02 (or 0x00)
// answer into its transmit buffer, posts one SEND command to the requester, and reposts the receive buffer.
//   MRSP: Idle -> {Read -> ReadWait -> Header -> Entry x N} -> [Grant x max(N, old)] -> AnsWrite -> Cmd
//         -> CplWait -> Repost -> Idle
//   RPC:  Idle -> KStart -> KWait (naa_kernel has the DMA port) -> Cmd (WRITE_WITH_IMM) -> CplWait -> Repost
//   disconnect: Idle -> Revoke x n -> Idle
#pragma once

#include <array>
#include <cstdint>

#include "model/common/clocked_block.h"
#include "model/naa/naa_kernel.h"
#include "model/naa/naa_types.h"
#include "model/rdma/rdma_types.h"
#include "nt_params.h"

namespace nettwin::naa {

constexpr int kRegions = static_cast<int>(params::kNaaRegions);
constexpr int kMsgBytes = static_cast<int>(params::kNaaMsgBytes);
constexpr int kMsgBeats = static_cast<int>(params::kNaaMsgBeats);
constexpr int kAnsBytes = 4 + 16 * kRegions;
constexpr int kCqeFifo = static_cast<int>(params::kNaaCqeFifo);
constexpr uint32_t kRxBufBytes = params::kNaaRxBufBytes;
static_assert(kMsgBytes == 4 + 24 * kRegions, "NaaMsgBytes holds a request for NaaRegions regions");
static_assert(kMsgBeats * kDmaBeatBytes >= kMsgBytes && (kMsgBeats - 1) * kDmaBeatBytes < kMsgBytes, "NaaMsgBeats");
static_assert(kMsgBytes <= static_cast<int>(kRxBufBytes), "a full request fits a receive buffer");

// MRSP message types and error codes (docs/naa.md; 0x04 is this endpoint's extension).
namespace mrsp {
constexpr uint8_t kError = 0x00, kAdvReq = 0x01, kAdv = 0x02;
constexpr uint8_t kNoMemory = 0x01, kBadAddress = 0x02, kTooMany = 0x03, kMalformed = 0x04;
}  // namespace mrsp

// The library's encoding (naa-communication-library f7b72fc lib/naaice.c START_RPC_MASK, naaice.h
// IMMEDIATE_OFFSET).
constexpr uint32_t kNaaiceRpcFlag = 0x80;
constexpr int kNaaiceRetShift = 8;

// Table NaaTblCtl: index 0 the controller, 1 its buffers, 2 the QP's queue template (the responder's layout).
struct CtlCfg {
  bool enable = false;
  uint64_t pool = 0, pool_size = 0;  // the FPGA memory pool regions may be granted in
  uint8_t mr_first = 0, mrs = 0;     // the responder MR slots the controller owns
  uint32_t rkey_base = 0;            // region i gets rkey_base + i
  uint8_t qp_slot = 0;               // the responder QP entry of the connection
  uint32_t qpn = 0;                  // its QPN (completion events of other QPs are not ours)
  uint64_t rxbuf = 0, txbuf = 0;     // receive buffers (NaaRxBufBytes each, buffer j = WQE j), answer buffer
  uint32_t budget = 0;               // a kernel's cycles before it gives up (immediate 0x02)
  // The RPC immediates' encoding (docs/naa.md "RPC immediates"): false the seed's (the function code is the
  // 32-bit immediate, the return code the immediate), true the naa-communication-library's (function code in
  // bits 6:0 with the flag 0x80, user bytes in 31:8; the return code in bits 31:8).
  bool imm_naaice = false;
  rdma::QpQueuesCfg queues;          // what the CM writes on RTU; reposting rewrites it with rq_posted + 1
};
CfgData EncodeCtl0(const CtlCfg& c);
CfgData EncodeCtl1(const CtlCfg& c);
void DecodeCtl(const CfgWrite& w, CtlCfg* c);
// The kernel's function code of an RPC immediate (ImmDt as a big-endian number), and the immediate that
// carries return code `code`, in the configured encoding; 0 (unknown function) for a library immediate
// without the 0x80 flag.
uint32_t RpcFunction(const CtlCfg& c, uint32_t imm);
uint32_t RpcReturnImm(const CtlCfg& c, uint8_t code);

// A granted region: the FPGA side (va = pa in the endpoint's memory) and the client's host region i.
struct Region {
  uint64_t fpga = 0, host = 0;
  uint32_t size = 0, host_rkey = 0;
};

class NaaCtl : public ClockedBlock<NaaCtlIn, NaaCtlOut> {
 public:
  void Reset() override { *this = NaaCtl(); }
  const NaaCtlOut& Eval(const NaaCtlIn& in) override;
  void Tick() override;
  const std::array<Region, kRegions>& regions() const { return regions_; }

 private:
  uint8_t MsgByte(int i) const { return msg_[i / kDmaBeatBytes][i % kDmaBeatBytes]; }
  uint64_t MsgBe(int off, int n) const;
  uint8_t AnsByte(int i) const;
  // Region `region` of the `grant`-th grant since reset (from 0): rkey_base + 32 grant + region, so no grant
  // reuses an rkey of an earlier one (docs/naa.md "Granting"; for 2^27 grants).
  uint32_t GrantKey(uint32_t grant, int region) const;
  int AnsLen() const { return err_ ? 4 : 4 + 16 * n_; }
  uint32_t EventCount() const { return static_cast<uint8_t>(ev_wr_ - ev_rd_); }

  NaaCtlIn in_;
  NaaCtlOut out_;
  CtlCfg cfg_;
  CtlState state_ = CtlState::kIdle;
  std::array<rdma::CqeEvent, kCqeFifo> ev_{};
  uint8_t ev_wr_ = 0, ev_rd_ = 0;
  rdma::CqeEvent cur_;  // the event being handled
  std::array<std::array<uint8_t, kDmaBeatBytes>, kMsgBeats> msg_{};
  int beat_ = 0;         // message beat being received, answer beat being written
  int idx_ = 0;          // entry being checked, slot being granted / revoked
  int req_n_ = 0;        // the request's region count
  int n_ = 0;            // regions granted now
  uint8_t err_ = 0;      // the answer's error code (0: a grant)
  uint16_t posted_ = 0;  // rq_posted as last written
  // The connection fell since the controller was last idle while connected (naa_ctl.sv gone_q): the work in
  // hand belongs to the connection that went, and Idle revokes the grant even if a new connection is up.
  bool gone_ = false;
  std::array<Region, kRegions> regions_{};
  CtlCounters counters_;
  NaaKernel kernel_;
  KernelOut kout_;
  bool rpc_ = false;  // the command to post answers an RPC (WRITE_WITH_IMM), not an MRSP request (SEND)
  uint8_t rpc_status_ = 0, out_idx_ = 0;
  uint32_t out_len_ = 0;
};

}  // namespace nettwin::naa
