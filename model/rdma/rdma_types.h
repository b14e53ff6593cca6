// Ports, configuration entries, opcodes and counters of the RoCEv2 responder (docs/rdma.md).
#pragma once

#include <array>
#include <cstdint>
#include <tuple>

#include "model/common/bits.h"
#include "model/common/cfg_port.h"
#include "model/common/dma.h"
#include "model/common/stream.h"
#include "nt_params.h"

namespace nettwin::rdma {

constexpr int kQps = static_cast<int>(params::kRdmaQps);
constexpr int kMrs = static_cast<int>(params::kRdmaMrs);
constexpr int kBufBeats = static_cast<int>(params::kRdmaBufBeats);
constexpr int kRxFrames = static_cast<int>(params::kRdmaRxFrames);
static_assert(kRxFrames >= 2 && kRxFrames <= 128 && (kRxFrames & (kRxFrames - 1)) == 0,
              "RdmaRxFrames: a power of two in 2..128 (the ring counts are 8 bits)");
constexpr int kRspBeats = static_cast<int>(params::kRdmaRspBeats);
constexpr int kInflight = static_cast<int>(params::kRdmaInflight);
static_assert(kInflight >= 2 && kInflight <= 128 && (kInflight & (kInflight - 1)) == 0,
              "RdmaInflight: a power of two in 2..128 (the queue counts are 8 bits)");
constexpr int kRecent = static_cast<int>(params::kRdmaRecent);
static_assert(kRecent >= 2 && kRecent <= 64 && (kRecent & (kRecent - 1)) == 0,
              "RdmaRecent: a power of two in 2..64, and below the AQ group size");
constexpr int kWqeRing = static_cast<int>(params::kRdmaWqeRing);
static_assert(kWqeRing >= 4 && kWqeRing <= 256 && (kWqeRing & (kWqeRing - 1)) == 0,
              "RdmaWqeRing: a power of two in 4..256");
constexpr int kPfReads = static_cast<int>(params::kRdmaPfReads);
static_assert(kPfReads >= 1 && kPfReads <= 64, "RdmaPfReads: 1..64");
constexpr int kWqesPerRead = 4;  // one 64-byte beat of 16-byte WQEs
constexpr int kAqGroup = static_cast<int>(params::kRdmaAqGroup);
constexpr int kAqMaxGroups = static_cast<int>(params::kRdmaAqMaxGroups);
constexpr int kAqeBytes = static_cast<int>(params::kRdmaAqeBytes);
constexpr uint32_t kPsnMask = 0xFFFFFF;

namespace op {
constexpr uint8_t kSendFirst = 0x00, kSendMiddle = 0x01, kSendLast = 0x02, kSendLastImm = 0x03,
                  kSendOnly = 0x04, kSendOnlyImm = 0x05;
constexpr uint8_t kWriteFirst = 0x06, kWriteMiddle = 0x07, kWriteLast = 0x08, kWriteLastImm = 0x09,
                  kWriteOnly = 0x0A, kWriteOnlyImm = 0x0B;
constexpr uint8_t kReadRequest = 0x0C, kReadRspFirst = 0x0D, kReadRspMiddle = 0x0E, kReadRspLast = 0x0F,
                  kReadRspOnly = 0x10;
constexpr uint8_t kAck = 0x11, kAtomicAck = 0x12, kCompareSwap = 0x13, kFetchAdd = 0x14;
constexpr uint8_t kCnp = 0x81;  // RoCEv2 congestion notification packet (IBA Annex A17)
}  // namespace op

namespace syndrome {
constexpr uint8_t kAck = 0x1F, kRnr = 0x20, kPsnSeqErr = 0x60, kInvalidRequest = 0x61, kRemoteAccess = 0x62,
                  kRemoteOp = 0x63;
}  // namespace syndrome

// Drop reasons: packets that get no response and have no effect.
enum class Drop : uint8_t {
  kNone = 0,
  kRunt,
  kMalformed,
  kNotForUs,
  kBadIcrc,
  kUnknownQp,
  kNotRequest,
  kPsnAheadSilent,
  kOverflow,  // frame longer than the request buffer
  kCnp,       // a RoCEv2 congestion notification packet (BTH opcode 0x81): consumed and counted
  kCount,
};
constexpr int kNumDrops = static_cast<int>(Drop::kCount);
const char* DropName(int d);

using nettwin::CfgData;
using nettwin::CfgWrite;

struct ResponderCfg {
  uint64_t mac = 0;
  bool has_ip4 = false, has_ip6 = false, aq_linear = false;
  uint32_t ip4 = 0;
  U128 ip6;
};
struct QpCfg {
  bool valid = false;
  uint32_t qpn = 0, dest_qp = 0, epsn = 0;
  uint8_t mtu_log2 = 10;  // 8..12
  uint16_t max_rd_atomic = 0;
  uint64_t aq = 0;
  uint8_t aq_groups = 0;  // AQ depth = aq_groups * 64
};
// Receive queue (host-posted WQEs) and completion queue of a QP (docs/rdma.md).
struct QpQueuesCfg {
  bool valid = false;  // the QP has an RQ and a CQ
  uint64_t rq = 0, cq = 0;
  uint16_t rq_entries = 0, rq_posted = 0, cq_entries = 0;
  uint8_t rnr_timer = 1;
};
struct MrCfg {
  bool valid = false;
  uint32_t rkey = 0;
  uint64_t va = 0, len = 0, pa = 0;
  bool r = false, w = false, a = false;
};

// Layouts on the programming port (rtl/rdma decodes the same bits).
CfgData Encode(const ResponderCfg& c);
CfgData Encode(const QpCfg& c);
CfgData Encode(const MrCfg& c);
CfgData Encode(const QpQueuesCfg& c);
QpQueuesCfg DecodeQpQueues(const CfgData& d);
ResponderCfg DecodeResponder(const CfgData& d);
QpCfg DecodeQp(const CfgData& d);
MrCfg DecodeMr(const CfgData& d);

// The completion event (cqe_valid_o / cqe_o, docs/rdma.md "Completion events"): the CQE whose write was
// accepted in the cycle before. imm is the immediate as a big-endian number; opcode 0 SEND, 1 WRITE with imm.
struct CqeEvent {
  bool valid = false;
  uint32_t wr_id = 0, len = 0, imm = 0, qpn = 0;
  uint8_t opcode = 0;
  uint32_t psn = 0;
  bool operator==(const CqeEvent& o) const {
    return valid == o.valid && (!valid || (wr_id == o.wr_id && len == o.len && imm == o.imm && qpn == o.qpn &&
                                           opcode == o.opcode && psn == o.psn));
  }
};

// Generated from rtl/rdma/data/rdma.json (docs/blockgen.md): RdmaIn, RdmaOut, RdmaCounters (needs CqeEvent,
// kNumDrops).
}  // namespace nettwin::rdma

#include "rdma_ports.h"  // NOLINT(build/include_order)

namespace nettwin::rdma {
static_assert(std::tuple_size_v<decltype(RdmaCounters::drops)> == kNumDrops,
              "rdma.json's drops count (rdma_pkg::NumDrops) and the Drop list agree");
}  // namespace nettwin::rdma
