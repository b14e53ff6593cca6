// The responder against a host that takes one DMA request at a time and completes writes slowly: the DMA
// request port is not ready while a write is in flight, so the atomic's result write waits for the data
// write before it, and a duplicate atomic's AQ lookup waits for a payload write (docs/coverage-review.md:
// branches no other test reached). Results, memory and the RTL/model agreement must not depend on how
// slowly the host accepts requests.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "model/common/bytes.h"
#include "tb/rdma/rdma_requests.h"
#include "tb/rdma/rdma_run.h"
#include "tb/tests/rdma_lockstep.h"

namespace nettwin::rdma {
namespace {

constexpr uint64_t kVa = 0x7000000000ull, kPa = 0x1000000ull;

RdmaRunReport RunWithHost(const std::vector<RequestSpec>& reqs, uint32_t outstanding, uint32_t write_cycles) {
  const RdmaConfig c = ParseConfig(
      "responder mac 02:00:00:00:00:01 ip 10.0.0.1\n"
      "qp 0x11 dest_qp 0x22 mtu 1024 aq 0x900000 max_rd_atomic 16 epsn 100\n"
      "mr 0x1234 va 0x7000000000 len 0x10000 pa 0x1000000 access rwa\n",
      "stall");
  RdmaRunConfig cfg;
  cfg.engine = Engine::kLockstep;
  // The slots model: a write holds one of `outstanding` slots for `write_cycles`, so the host stalls the
  // responder (PCIe's posted writes, the default, would not).
  cfg.mem.model = tb::HostMemoryTiming::Model::kSlots;
  cfg.mem.read_latency = 3;
  cfg.mem.write_latency = write_cycles;
  cfg.mem.max_outstanding = outstanding;
  return RunChecked(c, RequestFrames(reqs), cfg);
}

uint64_t Word(const RdmaRunReport& r, uint64_t pa) {
  uint8_t b[8];
  r.memory->Read(pa, b, 8);
  return LoadLe64(b);
}

TEST(RdmaHostStall, AtomicsGiveTheSameResultsWhenTheHostTakesOneRequestAtATime) {
  // FETCH_ADD, a CAS that swaps, a CAS that does not, a FETCH_ADD on the swapped word.
  const std::vector<RequestSpec> reqs = {
      Atomic(op::kFetchAdd, 100, kVa + 8, 5), Atomic(op::kCompareSwap, 101, kVa + 16, 0xABCD, 0),
      Atomic(op::kCompareSwap, 102, kVa + 16, 0x1111, 7), Atomic(op::kFetchAdd, 103, kVa + 16, 1)};
  const RdmaRunReport fast = RunWithHost(reqs, 16, 1);
  const RdmaRunReport slow = RunWithHost(reqs, 1, 40);
  ASSERT_EQ(fast.run.out.size(), 4u);
  ASSERT_EQ(slow.run.out.size(), 4u);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(slow.run.out[i].bytes, fast.run.out[i].bytes) << "response " << i;
  EXPECT_EQ(Word(slow, kPa + 8), 5u);
  EXPECT_EQ(Word(slow, kPa + 16), 0xABCEu);
  EXPECT_EQ(slow.counters.dma_writes, fast.counters.dma_writes);
  EXPECT_GT(slow.run.cycles, fast.run.cycles + 3 * 40);  // each result write waited for the write before it
}

// The AQ lookup of a duplicate atomic (StAqIssue) waits while the host is busy with the write before it:
// after an atomic (so its AQ group is valid), a WRITE's payload write holds the only request slot for 40
// cycles, then an atomic retransmission with the WRITE's PSN, which the recent-results store does not hold,
// asks for the AQ group. The same responses (here a NAK: that PSN was never an atomic's) and memory as
// with a host that takes requests at once.
TEST(RdmaHostStall, DuplicateAtomicLookupWaitsForABusyHost) {
  RequestSpec w = Atomic(op::kWriteOnly, 101, kVa + 64, 0);
  w.payload.assign(64, 0x3c);
  w.dmalen = 64;
  const std::vector<RequestSpec> reqs = {Atomic(op::kFetchAdd, 100, kVa + 8, 5), w,
                                         Atomic(op::kFetchAdd, 101, kVa + 8, 5)};
  const RdmaRunReport fast = RunWithHost(reqs, 16, 1);
  const RdmaRunReport slow = RunWithHost(reqs, 1, 40);
  ASSERT_EQ(slow.run.out.size(), 3u);
  ASSERT_EQ(fast.run.out.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(slow.run.out[i].bytes, fast.run.out[i].bytes) << "response " << i;
  EXPECT_EQ(slow.run.out[2].bytes[54], 0x61);  // NAK invalid request
  EXPECT_EQ(Word(slow, kPa + 8), 5u);          // the retransmission was not executed
  EXPECT_EQ(slow.counters.dma_reads, 2u);      // the FETCH_ADD's word, the AQ group
  EXPECT_GT(slow.run.cycles, fast.run.cycles + 30);
}

}  // namespace
}  // namespace nettwin::rdma
