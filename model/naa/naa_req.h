// Cycle model of rtl/naa/naa_req.sv: the endpoint's RC requester on the connected QP (docs/naa.md
// "Requester", docs/naa-microarchitecture.md "Requester"). Eval computes what the RTL's always_comb blocks do
// (the packet's shape, the beat being sent, the ACK frame's checks, the completion), Tick the register
// updates in the RTL's statement order (a later update of the same register wins, as with nonblocking
// assignments).
#pragma once

#include <array>
#include <cstdint>

#include "model/common/dma.h"
#include "model/common/stream.h"
#include "model/naa/naa_types.h"

namespace nettwin::naa {

constexpr int kReqMsgs = static_cast<int>(params::kNaaReqMsgs);
constexpr int kReqHostCmds = static_cast<int>(params::kNaaReqHostCmds);
constexpr int kReqBufBeats = static_cast<int>(params::kNaaReqBufBeats);

struct ReqIn {
  StreamPort s;  // ACK / NAK frames routed here by the front end
  bool m_ready = false;
  bool dma_ready = false;
  DmaResponse dma_rsp;
  bool cmd_valid = false;
  ReqCmd cmd;
  NaaConn conn;
  CfgWrite cfg;  // the external programming port
};

struct ReqOut {
  bool s_ready = false;
  StreamPort m;
  DmaRequest dma_req;
  bool cmd_ready = false;
  ReqCpl cpl;
  ReqCounters counters;
  bool busy = false;
};

class ReqEngine {
 public:
  const ReqOut& Eval(const ReqIn& in);
  void Tick();
  // The output and DMA readies are decided after Eval (by the arbiters) and only used at the edge.
  void SetReadies(bool m_ready, bool dma_ready) {
    in_.m_ready = m_ready;
    in_.dma_ready = dma_ready;
  }

 private:
  enum class Snd : uint8_t { kIdle, kRead, kFill, kSend };
  struct Msg {
    ReqCmd cmd;
    uint32_t psn = 0, n = 0;
    bool host = false;
  };
  // Every register but the arrays (which are written at the edge and read only by Eval).
  struct State {
    uint64_t mac = 0;
    uint32_t ip4 = 0, timeout = params::kNaaReqTimeout;
    uint8_t retry_max = 7, rnr_max = 7;
    uint32_t hq_wr = 0, hq_rd = 0, head = 0, tail = 0, snd_msg = 0;
    bool live = false;
    uint32_t alloc = 0, snd = 0, snd_pkt = 0, una = 0, max = 0;
    bool fatal = false, fail_first = false;
    CplStatus fail_status = CplStatus::kOk;
    uint32_t timer = 0, rnr_wait = 0;
    bool rnr_waiting = false, rw = false;
    uint8_t retry_left = 0, rnr_left = 0;
    Snd sst = Snd::kIdle;
    uint32_t fill = 0, k = 0, rcrc = 0;
    // The packet being sent.
    uint32_t p_hdr = 0, p_plen = 0, p_psn = 0, p_rkey = 0, p_dmalen = 0, p_imm = 0;
    uint8_t p_opcode = 0;
    bool p_ack = false, p_reth = false, p_has_imm = false;
    uint64_t p_va = 0, p_laddr = 0;
    // The ACK frame received.
    uint32_t rx_len = 0, rx_nb = 0;
    bool rx_full = false;
    ReqCounters c;
  };
  // The next packet of the message at snd_msg (the RTL's p_* wires).
  struct Shape {
    uint32_t off = 0, plen = 0, hdr = 0, n = 0;
    uint8_t opcode = 0;
    bool reth = false, imm = false, ack = false, last = false;
  };
  Shape NextShape() const;
  StreamPort TxBeat() const;
  void Receive();
  void ProcessAck();
  void Send();

  ReqIn in_;
  ReqOut out_;
  State st_, o_;  // o_: the registers as they were at the start of Tick
  std::array<ReqCmd, kReqHostCmds> hq_{};
  std::array<Msg, kReqMsgs> msg_{};
  std::array<std::array<uint8_t, kDmaBeatBytes>, kReqBufBeats> buf_{};
  std::array<uint8_t, kBeatBytes> rx_{};
  // Eval's wires that Tick uses.
  Shape shape_;
  bool take_ = false, ctl_take_ = false, host_take_ = false, head_done_ = false, flushing_ = false;
  bool ring_empty_ = true;
  CplStatus cpl_status_ = CplStatus::kOk;
  ReqCmd take_cmd_;
  uint32_t icrc_at_ = 0;
  ReqDrop rx_drop_ = ReqDrop::kNone;
};

}  // namespace nettwin::naa
