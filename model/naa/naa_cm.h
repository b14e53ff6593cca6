// Cycle model of rtl/naa/naa_cm.sv: the connection manager on QP1 (docs/naa.md "Connection management",
// docs/naa-microarchitecture.md). It receives a CM frame into a 6-beat buffer (ICRC computed as the beats
// arrive), decides in one cycle, programs the responder's QP through its programming port on RTU / DREQ,
// and sends its REP / REJ / DREP one beat per cycle with the ICRC appended on the fly:
//   Rx -> Parse -> { Rx | Drain -> { Resp | CfgQp -> CfgQueues -> Rx | CfgQp -> Resp } } ; Resp -> Rx
// It acts (Drain ends) only when the responder holds no request, so responses and QP writes keep the order of
// the client's frames; the front end holds the input from Parse to the QP writes.
#pragma once

#include <array>
#include <cstdint>

#include "model/naa/naa_mad.h"
#include "model/naa/naa_types.h"

namespace nettwin::naa {

enum class CmState : uint8_t { kRx, kParse, kDrain, kCfgQp, kCfgQueues, kResp };

struct CmIn {
  StreamPort s;
  bool m_ready = false;
  CfgWrite cfg;            // the external programming port (responder table 0 and the CM table)
  bool rdma_idle = false;  // the responder holds no request
  // In REP-sent, the client's first packet on the connection's QP waits at the input (a lost RTU,
  // IBA chapter 12): in Rx the CM establishes the connection as on an RTU (no CM frame is counted).
  bool est = false;
};

struct CmOut {
  bool s_ready = false;
  bool busy = false;
  bool hold = false;  // Parse, Drain, QP writes: the front end takes no input
  StreamPort m;
  CfgWrite cfg;  // to the responder's programming port
  CmCounters counters;
  NaaConn conn;  // the connection, exported to the requester and the controller
};

class CmEngine {
 public:
  const CmOut& Eval(const CmIn& in);
  void Tick();
  void SetRdmaIdle(bool idle) { in_.rdma_idle = idle; }
  bool Sending() const { return state_ == CmState::kResp; }
  bool Holding() const { return state_ == CmState::kParse || state_ == CmState::kDrain || Configuring(); }
  bool Configuring() const { return state_ == CmState::kCfgQp || state_ == CmState::kCfgQueues; }
  // The frame whose first beat is `b` is a packet of the client on the connection's QP while in REP-sent.
  bool Establishes(const Beat& b) const;

 private:
  void Receive(const Beat& beat);
  void Parse();
  CfgWrite QpWrite() const;
  StreamPort ResponseBeat() const;

  CmIn in_;
  CmOut out_;
  CmState state_ = CmState::kRx, after_ = CmState::kRx;  // after_: where Drain goes
  rdma::ResponderCfg resp_;
  CmCfg cfg_;
  CfgData qp_tpl_, queues_tpl_;
  // The frame being received.
  std::array<Beat, kCmBufBeats> buf_{};
  int nb_ = 0, len_ = 0;
  bool overflow_ = false;
  uint32_t crc_ = 0;
  // The connection (one QP).
  Conn conn_ = Conn::kIdle;
  uint32_t local_comm_ = 0, remote_comm_ = 0, client_qpn_ = 0, client_psn_ = 0, accepted_ = 0;
  uint64_t client_mac_ = 0;
  uint32_t client_ip_ = 0, start_psn_ = 0;
  uint16_t client_sport_ = 0;
  uint8_t resp_res_ = 0, init_depth_ = 0, mtu_log2_ = 0;
  bool cfg_connect_ = false;  // CfgQp writes the connected QP (else the invalid entry, then Resp)
  bool implicit_ = false;     // the QP writes establish on a packet, not on an RTU frame
  // The response.
  CmDesc desc_;
  CmFrameBytes frame_{};  // ComposeCm(desc_, resp_); the RTL composes it combinationally
  int k_ = 0;
  uint32_t rcrc_ = 0, mad_psn_ = 0;
  CmCounters counters_;
};

}  // namespace nettwin::naa
