// The responder with several READs and atomics in flight (RTL and model in lockstep): host reads overlap,
// responses leave in PSN order, the hazard CAM holds back a request on the word of a queued atomic,
// max_rd_atomic bounds what is in flight, and a retransmission racing its original waits for it. And the
// on-chip store of recent atomic results (RdmaRecent per QP): a retransmission within it costs no host
// read, one beyond it exactly one, across the PSN wrap and with QPs interleaved.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "model/common/bytes.h"
#include "tb/rdma/rdma_requests.h"
#include "tb/rdma/rdma_run.h"
#include "tb/tests/rdma_lockstep.h"

namespace nettwin::rdma {
namespace {

constexpr uint64_t kMrVa = 0x7000000000ull, kMrPa = 0x1000000ull;
constexpr uint32_t kR = 900;  // host read latency: long enough that overlap (or its absence) is obvious

RdmaConfig Config(int max_rd_atomic) {
  return ParseConfig("responder mac 02:00:00:00:00:01 ip 10.0.0.1\n"
                     "qp 0x11 dest_qp 0x22 epsn 0 mtu 1024 aq 0x900000 max_rd_atomic " +
                         std::to_string(max_rd_atomic) +
                         "\n"
                         "mr 0x1234 va 0x7000000000 len 0x10000 pa 0x1000000 access rwa\n",
                     "inflight");
}

RequestSpec Faa(uint32_t psn, uint64_t va, uint64_t add) { return Atomic(op::kFetchAdd, psn, va, add); }

RequestSpec Read(uint32_t psn, uint64_t va, uint32_t len) { return MrRequest(op::kReadRequest, psn, va, len); }

RdmaRunReport RunSlowHost(const RdmaConfig& c, const std::vector<RequestSpec>& reqs, double bp = 0) {
  RdmaRunConfig cfg;
  cfg.engine = Engine::kLockstep;
  cfg.mem.read_latency = kR;
  cfg.mem.write_latency = 8;
  cfg.mem.max_outstanding = 16;
  cfg.opt.backpressure = bp;
  return RunChecked(c, RequestFrames(reqs), cfg);
}

uint32_t Psn(const Packet& p) { return Load32(&p.bytes[50]) & kPsnMask; }
uint64_t Orig(const Packet& p) { return Load64(&p.bytes[58]); }
uint64_t Word(const RdmaRunReport& r, uint64_t va) {
  uint8_t b[8];
  r.memory->Read(kMrPa + (va - kMrVa), b, 8);
  return LoadLe64(b);
}

TEST(RdmaInflight, AtomicsOnDistinctWordsOverlapTheirHostReads) {
  std::vector<RequestSpec> q;
  for (uint32_t i = 0; i < 8; ++i) q.push_back(Faa(i, kMrVa + 8 * i, i + 1));
  const RdmaRunReport r = RunSlowHost(Config(16), q);
  ASSERT_EQ(r.run.out.size(), 8u);
  for (uint32_t i = 0; i < 8; ++i) {
    EXPECT_EQ(Psn(r.run.out[i]), i) << "responses leave in PSN order";
    EXPECT_EQ(Orig(r.run.out[i]), 0u);
    EXPECT_EQ(Word(r, kMrVa + 8 * i), i + 1);
  }
  EXPECT_LT(r.run.cycles, 2 * kR) << "the eight reads were in flight together";
}

// Issue 25 item 3: atomics on one word no longer wait for each other's host round trip (R + 7 each); the
// later ones take their predecessor's new value on chip (tb/tests/rdma_pipe_test.cc RdmaHotWord.*).
TEST(RdmaInflight, AtomicsOnOneWordAreForwardedOnChip) {
  std::vector<RequestSpec> q;
  for (uint32_t i = 0; i < 4; ++i) q.push_back(Faa(i, kMrVa, uint64_t{1} << (8 * i)));
  const RdmaRunReport r = RunSlowHost(Config(16), q);
  ASSERT_EQ(r.run.out.size(), 4u);
  uint64_t expect = 0;
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(Orig(r.run.out[i]), expect) << "atomic " << i << " read its predecessor's new value";
    expect += uint64_t{1} << (8 * i);
  }
  EXPECT_EQ(Word(r, kMrVa), expect);
  EXPECT_EQ(r.counters.dma_reads, 1u) << "one host read for the chain";
  EXPECT_LT(r.run.cycles, 2 * kR) << "no atomic waited for another's host read";
}

TEST(RdmaInflight, MaxRdAtomicBoundsWhatIsInFlight) {
  std::vector<RequestSpec> q;
  for (uint32_t i = 0; i < 4; ++i) q.push_back(Faa(i, kMrVa + 8 * i, 1));
  const RdmaRunReport one = RunSlowHost(Config(1), q);
  EXPECT_GE(one.run.cycles, 4 * kR);
  const RdmaRunReport two = RunSlowHost(Config(2), q);
  EXPECT_GE(two.run.cycles, 2 * kR);
  EXPECT_LT(two.run.cycles, 3 * kR);
  EXPECT_EQ(two.run.out.size(), 4u);
}

TEST(RdmaInflight, ReadsOverlapAndAWriteAfterThemDoesNotChangeTheirData) {
  RdmaConfig c = Config(16);
  std::vector<uint8_t> init(4096);
  for (size_t i = 0; i < init.size(); ++i) init[i] = static_cast<uint8_t>(i * 7 + 3);
  c.memory.push_back(MemInit{kMrPa, init});
  std::vector<RequestSpec> q;
  for (uint32_t i = 0; i < 4; ++i) q.push_back(Read(i, kMrVa + 1000 * i, 1000));
  RequestSpec w = MrRequest(op::kWriteOnly, 4, kMrVa + 500);  // over bytes of READs still in flight: they
                                                        // must return the old bytes
  w.dmalen = 1000;  // bytes 500..1499: inside READs 0 and 1
  w.ackreq = true;
  w.payload.assign(1000, 0xEE);
  q.push_back(w);
  q.push_back(Read(5, kMrVa + 400, 200));  // after the WRITE: sees it from byte 100 on
  const RdmaRunReport r = RunSlowHost(c, q);
  ASSERT_EQ(r.run.out.size(), 6u);
  for (uint32_t i = 0; i < 4; ++i) {
    const auto& f = r.run.out[i].bytes;
    ASSERT_GE(f.size(), 58u + 1000);
    EXPECT_EQ(Psn(r.run.out[i]), i);
    EXPECT_TRUE(std::equal(init.begin() + 1000 * i, init.begin() + 1000 * (i + 1), f.begin() + 58)) << i;
  }
  EXPECT_EQ(Psn(r.run.out[4]), 4u);  // the WRITE's ACK after the READ responses
  const auto& f = r.run.out[5].bytes;
  EXPECT_TRUE(std::equal(init.begin() + 400, init.begin() + 500, f.begin() + 58));
  EXPECT_TRUE(std::all_of(f.begin() + 58 + 100, f.begin() + 58 + 200, [](uint8_t b) { return b == 0xEE; }));
  EXPECT_LT(r.run.cycles, 3 * kR) << "the READs were in flight together";
}

TEST(RdmaInflight, RetransmissionRacingItsOriginalIsReplayedNotExecuted) {
  // The requester retransmits right behind the original (its timer fired early): the duplicate waits for
  // the original to be answered, then replays its result; the word is added to once.
  std::vector<RequestSpec> q = {Faa(0, kMrVa, 5), Faa(0, kMrVa, 5), Faa(1, kMrVa + 8, 7), Faa(1, kMrVa + 8, 7)};
  const RdmaRunReport r = RunSlowHost(Config(16), q);
  ASSERT_EQ(r.run.out.size(), 4u);
  for (const auto& p : r.run.out) EXPECT_EQ(p.bytes[42], op::kAtomicAck);
  EXPECT_EQ(Orig(r.run.out[0]), 0u);
  EXPECT_EQ(Orig(r.run.out[1]), 0u);
  EXPECT_EQ(Word(r, kMrVa), 5u);
  EXPECT_EQ(Word(r, kMrVa + 8), 7u);
  EXPECT_EQ(r.counters.atomics, 2u);
  EXPECT_EQ(r.counters.atomic_replays, 2u);
}

TEST(RdmaRecent, RetransmissionsAtEveryDistanceAcrossTheStoreBoundaryThePsnWrapAndTwoQps) {
  RdmaConfig c = ParseConfig(
      "responder mac 02:00:00:00:00:01 ip 10.0.0.1\n"
      "qp 0x11 dest_qp 0x22 epsn 0xffffe8 mtu 1024 aq 0x900000 max_rd_atomic 64\n"
      "qp 0x12 dest_qp 0x23 epsn 0xfffff0 mtu 1024 aq 0xa00000 max_rd_atomic 64\n"
      "mr 0x1234 va 0x7000000000 len 0x10000 pa 0x1000000 access rwa\n",
      "recent");
  const int kPerQp = kRecent + 8;
  const uint32_t qpn[2] = {0x11, 0x12};
  uint32_t psn[2] = {0xffffe8, 0xfffff0};
  uint64_t value[2] = {0, 0};
  std::vector<RequestSpec> q;
  std::vector<uint64_t> expect;
  for (int i = 0; i < kPerQp; ++i) {  // interleaved; both QPs' PSNs wrap past 0xffffff
    for (int k = 0; k < 2; ++k) {
      RequestSpec s = Faa(psn[k], kMrVa + 64 * k, static_cast<uint64_t>(i + 1) << (4 * k));
      s.dqpn = qpn[k];
      q.push_back(s);
      expect.push_back(value[k]);
      value[k] += s.swap;
      psn[k] = (psn[k] + 1) & kPsnMask;
    }
  }
  const size_t executed = q.size();
  size_t from_aq = 0;
  for (int dist = 1; dist <= kPerQp; ++dist) {  // each QP's atomics retransmitted, newest first
    for (int k = 0; k < 2; ++k) {
      RequestSpec s = q[2 * (kPerQp - dist) + k];
      s.swap = 999;  // a retransmission must not be executed: its operand does not matter
      q.push_back(s);
      expect.push_back(expect[2 * (kPerQp - dist) + k]);
      if (dist > kRecent) ++from_aq;
    }
  }
  for (double bp : {0.0, 0.5}) {
    const RdmaRunReport r = RunSlowHost(c, q, bp);
    ASSERT_EQ(r.run.out.size(), q.size());
    for (size_t i = 0; i < q.size(); ++i) {
      EXPECT_EQ(r.run.out[i].bytes[42], op::kAtomicAck) << i;
      EXPECT_EQ(Psn(r.run.out[i]), q[i].psn) << i;
      EXPECT_EQ(Orig(r.run.out[i]), expect[i]) << "request " << i << " psn " << q[i].psn;
    }
    EXPECT_EQ(Word(r, kMrVa), value[0]);
    EXPECT_EQ(Word(r, kMrVa + 64), value[1]);
    EXPECT_EQ(r.counters.atomics, executed);
    EXPECT_EQ(r.counters.atomic_replays, q.size() - executed);
    // One read per executed atomic, one per retransmission beyond the store, none within it.
    EXPECT_EQ(r.counters.dma_reads, executed + from_aq);
  }
}

TEST(RdmaRecent, RetransmissionRacingItsOriginalAmongOthersIsFoundOnChip) {
  // The duplicate arrives while its original (and others) are still reading the host: it waits for the
  // queue to drain, then is found in the store: no AQ read, not executed again.
  std::vector<RequestSpec> q;
  for (uint32_t i = 0; i < 6; ++i) q.push_back(Faa(i, kMrVa + 8 * i, 10 + i));
  q.push_back(Faa(3, kMrVa + 24, 10 + 3));
  q.push_back(Faa(6, kMrVa + 24, 1));
  const RdmaRunReport r = RunSlowHost(Config(16), q);
  ASSERT_EQ(r.run.out.size(), q.size());
  EXPECT_EQ(Orig(r.run.out[6]), 0u);
  EXPECT_EQ(Orig(r.run.out[7]), 13u);
  EXPECT_EQ(Word(r, kMrVa + 24), 14u);
  EXPECT_EQ(r.counters.atomics, 7u);
  EXPECT_EQ(r.counters.dma_reads, 7u);
}

}  // namespace
}  // namespace nettwin::rdma
