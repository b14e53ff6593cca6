// The edges of the PSN window (docs/rdma.md: d = (psn - ePSN) mod 2^24; 0 new, 1 <= d < 2^23 ahead,
// otherwise duplicate), RTL and model in lockstep, with the responses decoded here field by field.
#include <gtest/gtest.h>

#include <vector>

#include "model/common/bytes.h"
#include "model/rdma/rdma_packet.h"
#include "tb/rdma/rdma_requests.h"
#include "tb/rdma/rdma_run.h"
#include "tb/tests/rdma_lockstep.h"

namespace nettwin::rdma {
namespace {

constexpr uint32_t kHalf = 1u << 23;
constexpr uint64_t kVa = 0x7000000000ull, kPa = 0x1000000ull;

RdmaConfig WindowConfig(uint32_t epsn) {
  return ParseConfig("responder mac 02:00:00:00:00:01 ip 10.0.0.1\n"
                     "qp 0x11 dest_qp 0x22 mtu 1024 aq 0x900000 max_rd_atomic 16 epsn " + std::to_string(epsn) +
                         "\nmr 0x1234 va 0x7000000000 len 0x1000 pa 0x1000000 access rwa\n",
                     "window");
}

RequestSpec WriteOnly(uint32_t psn, uint8_t fill) {
  RequestSpec s = MrRequest(op::kWriteOnly, psn & kPsnMask, kVa, 8);
  s.payload.assign(8, fill);
  return s;
}

struct Ack {
  uint8_t opcode, syndrome;
  uint32_t psn;
};

Ack DecodeAck(const Packet& p) {
  EXPECT_GE(p.bytes.size(), 62u);
  if (p.bytes.size() < 62) return Ack{};
  return Ack{p.bytes[42], p.bytes[54], Load32(&p.bytes[50]) & kPsnMask};
}

// For ePSN e: a WRITE at e + 2^23 is a duplicate (ACKed with its own PSN, memory untouched), one at
// e + 2^23 - 1 is ahead (one PSN-sequence-error NAK carrying e), and the WRITE at e then executes.
void CheckWindowEdges(uint32_t epsn) {
  SCOPED_TRACE("ePSN " + std::to_string(epsn));
  const std::vector<RequestSpec> reqs = {WriteOnly(epsn + kHalf, 0xD1), WriteOnly(epsn + kHalf - 1, 0xA5),
                                         WriteOnly(epsn, 0x3C)};
  const RdmaRunReport r = RunLockstep(WindowConfig(epsn), reqs);
  ASSERT_EQ(r.run.out.size(), 3u);
  const Ack dup = DecodeAck(r.run.out[0]), ahead = DecodeAck(r.run.out[1]), fresh = DecodeAck(r.run.out[2]);
  EXPECT_EQ(dup.opcode, op::kAck);
  EXPECT_EQ(dup.syndrome, syndrome::kAck) << "2^23 past ePSN is a duplicate, not ahead";
  EXPECT_EQ(dup.psn, (epsn + kHalf) & kPsnMask);
  EXPECT_EQ(ahead.syndrome, syndrome::kPsnSeqErr) << "2^23 - 1 past ePSN is ahead";
  EXPECT_EQ(ahead.psn, epsn & kPsnMask);
  EXPECT_EQ(fresh.syndrome, syndrome::kAck);
  EXPECT_EQ(fresh.psn, epsn & kPsnMask);
  std::vector<uint8_t> mem(8);
  r.memory->Read(kPa, mem.data(), mem.size());
  EXPECT_EQ(mem, std::vector<uint8_t>(8, 0x3C)) << "only the new WRITE reaches memory";
  EXPECT_EQ(r.counters.dma_writes, 1u);
}

TEST(RdmaWindow, HalfWindowEdgeAtEpsn100) { CheckWindowEdges(100); }
TEST(RdmaWindow, HalfWindowEdgeNearTheWrap) { CheckWindowEdges(0xFFFFF0); }
TEST(RdmaWindow, HalfWindowEdgeAtEpsnZero) { CheckWindowEdges(0); }

// ePSN - 1 (d = 2^24 - 1) is the newest duplicate; ePSN + 1 the nearest ahead.
TEST(RdmaWindow, NeighboursOfEpsn) {
  const uint32_t epsn = 0;
  const RdmaRunReport r = RunLockstep(WindowConfig(epsn), {WriteOnly(kPsnMask, 1), WriteOnly(epsn + 1, 2)});
  ASSERT_EQ(r.run.out.size(), 2u);
  EXPECT_EQ(DecodeAck(r.run.out[0]).syndrome, syndrome::kAck);
  EXPECT_EQ(DecodeAck(r.run.out[0]).psn, kPsnMask);
  EXPECT_EQ(DecodeAck(r.run.out[1]).syndrome, syndrome::kPsnSeqErr);
  EXPECT_EQ(DecodeAck(r.run.out[1]).psn, 0u);
  EXPECT_EQ(r.counters.dma_writes, 0u);
}

}  // namespace
}  // namespace nettwin::rdma
