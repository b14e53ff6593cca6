// Ports, configuration and counters of the NAAICE endpoint (docs/naa.md): the RoCEv2 responder's ports plus
// the connection manager's (CM) counters. The programming port carries the responder's tables (0..3) and the
// CM's table (NaaTblCm): index 0 the CM settings, 1 the QP the CM connects, 2 that QP's receive/completion queues.
#pragma once

#include <array>
#include <cstdint>

#include "model/common/cfg_port.h"
#include "model/common/dma.h"
#include "model/rdma/rdma_types.h"
#include "nt_params.h"

namespace nettwin::naa {

constexpr int kCmBufBeats = static_cast<int>(params::kNaaCmBufBeats);
constexpr int kCmFrameBytes = static_cast<int>(params::kNaaCmFrameBytes);
constexpr int kCmIcrcAt = kCmFrameBytes - 4;  // the ICRC covers [14, kCmIcrcAt)
constexpr int kMadAt = 62;                    // Ethernet + IPv4 + UDP + BTH + DETH
constexpr int kCmDataAt = kMadAt + 24;        // CM message fields follow the 24-byte MAD header
constexpr uint32_t kQp1Qkey = 0x80010000u;    // IBA 13.4.6.1: the well-known GSI Q_Key
constexpr uint8_t kUdSendOnly = 0x64;

namespace attr {
constexpr uint16_t kReq = 0x0010, kMra = 0x0011, kRej = 0x0012, kRep = 0x0013, kRtu = 0x0014, kDreq = 0x0015,
                   kDrep = 0x0016;
}  // namespace attr

// IBA table 112 (REJ reason) values this endpoint sends.
namespace rej {
constexpr uint16_t kNoQp = 1, kInvalidServiceId = 8, kInvalidTransportType = 9, kInvalidMtu = 26;
}  // namespace rej

enum class CmDrop : uint8_t {
  kNone = 0,
  kMalformed = params::kNaaCmDropMalformed,
  kNotForUs = params::kNaaCmDropNotForUs,
  kBadIcrc = params::kNaaCmDropBadIcrc,
  kBadMad = params::kNaaCmDropBadMad,
  kIgnored = params::kNaaCmDropIgnored,
};
constexpr int kNumCmDrops = static_cast<int>(params::kNaaCmDrops);
static_assert(static_cast<int>(CmDrop::kIgnored) + 1 == kNumCmDrops, "CmDrop list and NaaCmDrops agree");
const char* CmDropName(int d);

enum class Conn : uint8_t { kIdle = 0, kRepSent = 1, kEstablished = 2 };
const char* ConnName(Conn c);

// Table NaaTblCm, index 0.
struct CmCfg {
  bool listen = false;          // accept connection requests at all
  uint64_t service_id = 0;      // the ServiceID a REQ must carry (rdma_cm: 0x0000000001060000 | TCP port)
  uint64_t ca_guid = 0;         // REP Local CA GUID
  uint32_t start_psn = 0;       // REP Starting PSN: the PSN this endpoint's requester starts at
  uint8_t initiator_depth = 0;  // READ/atomics this endpoint would have outstanding as requester (REP caps it)
  uint8_t rnr_retry = 7;        // REP RNR Retry Count (3 bits)
  uint8_t ack_delay = 0;        // REP Target ACK Delay (5 bits)
  uint8_t qp_slot = 0;          // responder QP table entry the connection programs
  uint32_t comm_id = 0;         // Local Communication ID of the first connection (then +1 per accepted REQ)
};
CfgData Encode(const CmCfg& c);
CmCfg DecodeCm(const CfgData& d);

// ---- Controller <-> requester (rtl/naa/naa_pkg.sv, the same fields) ----
enum class ReqOp : uint8_t { kSend = 0, kWrite = 1, kWriteImm = 2 };
// One work request: one message (SEND ONLY, or a WRITE split by MTU).
struct ReqCmd {
  ReqOp op = ReqOp::kSend;
  uint64_t laddr = 0;  // payload address in the endpoint's (host-memory-model) memory
  uint32_t len = 0;    // bytes; 0 allowed for SEND and WRITE_WITH_IMM
  uint64_t raddr = 0;  // remote virtual address (WRITE, WRITE_WITH_IMM)
  uint32_t rkey = 0;   // remote key (WRITE, WRITE_WITH_IMM)
  uint32_t imm = 0;    // immediate (WRITE_WITH_IMM)
  uint8_t tag = 0;     // returned in the completion
  bool operator==(const ReqCmd& o) const {
    return op == o.op && laddr == o.laddr && len == o.len && raddr == o.raddr && rkey == o.rkey && imm == o.imm &&
           tag == o.tag;
  }
};
enum class CplStatus : uint8_t { kOk = 0, kRetryExceeded = 1, kRemoteError = 2, kFlushed = 3 };
const char* CplStatusName(CplStatus s);
struct ReqCpl {
  bool valid = false;  // a one-cycle pulse; the controller always takes it
  uint8_t tag = 0;
  CplStatus status = CplStatus::kOk;
  bool operator==(const ReqCpl& o) const { return valid == o.valid && (!valid || (tag == o.tag && status == o.status)); }
};

// The connection the CM established, as the requester and the controller see it (naa_cm info_o).
struct NaaConn {
  bool connected = false;  // RTU received, not yet torn down
  uint64_t mac = 0;        // the client's MAC (the REQ's source)
  uint32_t ip = 0;         // the client's IPv4 (the REQ's source)
  uint16_t sport = 0;      // the REQ's UDP source port
  uint32_t qpn = 0;        // the client's QPN
  uint32_t local_qpn = 0;  // this endpoint's QPN
  uint32_t start_psn = 0;  // the REP's Starting PSN: the requester's first PSN
  uint8_t mtu_log2 = 0;    // the negotiated path MTU
  bool operator==(const NaaConn& o) const {
    return connected == o.connected && mac == o.mac && ip == o.ip && sport == o.sport && qpn == o.qpn &&
           local_qpn == o.local_qpn && start_psn == o.start_psn && mtu_log2 == o.mtu_log2;
  }
};

// Requester settings, table NaaTblReq index 0 ([31:0] timeout in cycles (0: none), [34:32] retry count,
// [37:35] RNR retry count (7: unlimited)); index 1 posts a command (ReqCmd as the packed naa_req_cmd_t).
struct ReqCfg {
  uint32_t timeout = params::kNaaReqTimeout;
  uint8_t retry = 7, rnr_retry = 7;
};
CfgData Encode(const ReqCfg& c);
CfgData Encode(const ReqCmd& c);
ReqCmd DecodeReqCmd(const CfgData& d);

enum class ReqDrop : uint8_t {
  kNone = 0,
  kMalformed = params::kNaaReqDropMalformed,
  kNotForUs = params::kNaaReqDropNotForUs,
  kBadIcrc = params::kNaaReqDropBadIcrc,
  kNotConnected = params::kNaaReqDropNotConnected,
  kGhost = params::kNaaReqDropGhost,
};
constexpr int kNumReqDrops = static_cast<int>(params::kNaaReqDrops);
static_assert(static_cast<int>(ReqDrop::kGhost) + 1 == kNumReqDrops, "ReqDrop list and NaaReqDrops agree");
const char* ReqDropName(int d);

// Requester event counters (index = params::kNaaReqCnt*).
constexpr int kNumReqCnts = static_cast<int>(params::kNaaReqCnts);
const char* ReqCntName(int i);

// ---- The controller port inside naa_top (naa_ctl, model/naa/naa_ctl.h) ----
enum class CtlDrop : uint8_t {
  kNone = 0,
  kNoRegions = params::kNaaCtlDropNoRegions,  // a WRITE with immediate before any grant: nowhere to answer
  kOverflow = params::kNaaCtlDropOverflow,    // a completion event with the event FIFO full
  kFlushed = params::kNaaCtlDropFlushed,      // queued events of a connection that went away
};
constexpr int kNumCtlDrops = static_cast<int>(params::kNaaCtlDrops);
static_assert(static_cast<int>(CtlDrop::kFlushed) + 1 == kNumCtlDrops, "CtlDrop list and NaaCtlDrops agree");
const char* CtlDropName(int d);

enum class CtlState : uint8_t {
  kIdle,
  kRead,
  kReadWait,
  kHeader,
  kEntry,
  kGrant,
  kAnsWrite,
  kCmd,
  kCplWait,
  kRepost,
  kRevoke,
  kKStart,
  kKWait
};
const char* CtlStateName(CtlState s);

// The endpoint's port structs, generated from rtl/naa/data/naa.json (docs/blockgen.md): CmCounters, ReqCounters
// (its events by index params::kNaaReqCnt*: `req.cnt[i]`), CtlCounters, NaaIn (= the responder's inputs) and
// NaaOut. Included here, after the types their members have.
}  // namespace nettwin::naa
#include "naa_ports.h"  // NOLINT(build/include_order,build/include_subdir): generated
namespace nettwin::naa {

// Every completion event of the connection is handled (an MRSP request or a kernel run) or dropped with a
// reason, once none is queued.
inline bool CtlBalanced(const CtlCounters& c) { return c.requests + c.rpcs + NaaDropped(c) == c.events; }

// What the controller sees ...
struct NaaCtlIn {
  bool connected = false;  // the CM's connection (naa_conn_t connected)
  rdma::CqeEvent cqe;      // the responder's completion event
  bool dma_ready = true;   // its DMA master (arbiter master 2)
  DmaResponse dma_rsp;
  bool cfg_ready = true;  // the responder's programming port is free (the CM has priority)
  bool cmd_ready = false;  // the requester takes the command
  ReqCpl cpl;              // the requester's completion pulse
  CfgWrite cfg;            // the external programming port (table NaaTblCtl)
};

// ... and what it drives.
struct NaaCtlOut {
  DmaRequest dma_req;
  CfgWrite cfg;  // to the responder (MR table, QP queues)
  bool cmd_valid = false;
  ReqCmd cmd;  // executed in order
  CtlCounters counters;
  bool busy = false;  // an event is queued, being handled (a kernel runs, a command waits), or a grant revoked
};

}  // namespace nettwin::naa
