// Issue 27: a QP's queues rewritten while SENDs flow, with its RQ and CQ counters at or past the new entry
// counts, so that the RTL's slots (pf_iss % rq_entries, cq_tail % cq_entries) come from its 16-cycle slot
// divider (rtl/rdma/rdma_slot_div.sv; docs/rdma-microarchitecture.md "Slot registers") while the QP's
// prefetches and CQEs wait. RTL and model in lockstep, with rdma_top_sva's pf_slot_mod / cqe_slot_mod on (the
// slot a prefetch or a CQE uses equals the % it stands for), packets conserved; the test checks that the
// rewrites it meant to divide really found the counters at or past the new counts.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/common/bytes.h"
#include "model/rdma/rdma_cycle_model.h"
#include "tb/common/harness.h"
#include "tb/common/host_memory.h"
#include "tb/rdma/rdma_binding.h"
#include "tb/rdma/rdma_requests.h"
#include "tb/rdma/rdma_rtl.h"

namespace nettwin::rdma {
namespace {

constexpr uint64_t kRq = 0x3000000, kCq = 0x3100000, kBuf = 0x4000000;

// QP 0x11 (entry 0) with RQ ring 0 of 6 WQEs, all posted, and a CQ of 5.
RdmaConfig Config() {
  return ParseConfig("responder mac 02:00:00:00:00:01 ip 10.0.0.1\n"
                     "qp 0x11 dest_qp 0x22 epsn 0 mtu 1024 max_rd_atomic 16 aq 0x900000 rq " +
                         std::to_string(kRq) + " rq_entries 6 rq_posted 6 cq " + std::to_string(kCq) +
                         " cq_entries 5\n",
                     "slot_div");
}

// A queues write to QP entry 0 as host software rings it: RQ ring `ring` (0..2, at kRq + 0x8000 * ring) of
// `rq_entries`, 4000 WQEs posted in all (rq_posted counts every WQE posted since the QP entry was written: the
// ring's slots are reused), a CQ of `cq_entries` (at kCq + 0x8000 * ring).
CfgWrite QueuesWrite(int ring, int rq_entries, int cq_entries) {
  QpQueuesCfg q;
  q.valid = true;
  q.rq = kRq + 0x8000ull * ring;
  q.cq = kCq + 0x8000ull * ring;
  q.rq_entries = static_cast<uint16_t>(rq_entries);
  q.rq_posted = 4000;
  q.cq_entries = static_cast<uint16_t>(cq_entries);
  q.rnr_timer = 5;
  return CfgWrite{true, params::kRdmaTblQpQueues, 0, Encode(q)};
}

struct Rewrite {
  uint64_t cycle;
  int ring, rq_entries, cq_entries;
  bool divides_cq;  // the CQ tail is meant to be at or past cq_entries then (checked)
};

// The host side plus queues writes at fixed cycles (whatever the traffic is doing), counting the CQEs written
// before each.
class RewriteSide : public RdmaSide {
 public:
  RewriteSide(std::vector<CfgWrite> writes, tb::HostMemory* memory, std::vector<Rewrite> rewrites)
      : RdmaSide(std::move(writes), memory), rewrites_(std::move(rewrites)) {}
  bool Drive(uint64_t cycle, size_t next, const tb::Accounting& acc, RdmaIn* in) override {
    const bool offer = RdmaSide::Drive(cycle, next, acc, in);
    if (!offer) return false;  // the initial configuration is still going in
    if (done_ < rewrites_.size() && cycle >= rewrites_[done_].cycle) {
      const Rewrite& r = rewrites_[done_];
      in->cfg = QueuesWrite(r.ring, r.rq_entries, r.cq_entries);
      tails_.push_back(cqes_);
      ++done_;
    }
    return true;
  }
  void Observe(uint64_t cycle, const RdmaIn& in, const RdmaOut& out) override {
    RdmaSide::Observe(cycle, in, out);
    if (out.cqe.valid) ++cqes_;
  }
  bool Busy() const override { return RdmaSide::Busy() || done_ < rewrites_.size(); }
  const std::vector<uint32_t>& tails() const { return tails_; }

 private:
  std::vector<Rewrite> rewrites_;
  size_t done_ = 0;
  uint32_t cqes_ = 0;
  std::vector<uint32_t> tails_;  // CQEs written (the CQ tail) when each rewrite went in
};

// `slots`: host memory with that many requests of either kind outstanding (0: PCIe-like, 64 read tags); a
// few slots keep requests waiting on the port (held) often, CQEs and prefetches among them.
void RunRewrites(double bp, uint32_t read_cycles, uint32_t slots) {
  SCOPED_TRACE("bp " + std::to_string(bp) + " read " + std::to_string(read_cycles) + " slots " + std::to_string(slots));
  const std::vector<Rewrite> rw = {
      {0, 0, 6, 5, false},     // a doorbell before the first request: 4000 posted
      {400, 1, 3, 3, true},    // a new RQ of 3 and a CQ of 3: both divided
      {403, 1, 3, 3, true},    // a doorbell while dividing (RQ kept; the CQ divided again)
      {900, 2, 5, 7, true},    // another RQ and CQ size
      {905, 2, 5, 9, true},    // cq_entries changed again while its divider works: it starts again
      {1400, 2, 5, 9, false},  // a doorbell keeping both: nothing divided
      {1800, 0, 1000, 1000, false},  // counters below the counts: the slots are the counters
      {2200, 1, 3, 3, true},
  };
  RdmaConfig c = Config();
  for (int ring = 0; ring < 3; ++ring) {  // every WQE of every ring (1000 in ring 0, 8 in the others): 2 KiB
    for (int i = 0; i < (ring == 0 ? 1000 : 8); ++i) {
      std::vector<uint8_t> wqe(16, 0);
      StoreLe64(wqe.data(), kBuf + 0x10000ull * ring + 2048ull * (i % 8));
      wqe[9] = 0x08;  // 2048 bytes
      const uint32_t wr_id = 0x100 * (ring + 1) + i;
      for (int b = 0; b < 4; ++b) wqe[12 + b] = static_cast<uint8_t>(wr_id >> (8 * b));
      c.memory.push_back(MemInit{kRq + 0x8000ull * ring + 16ull * i, wqe});
    }
  }
  std::vector<Packet> pkts;
  for (uint32_t p = 0; p < 400; ++p) pkts.push_back(Packet{BuildRequest(Send(op::kSendOnly, p, 64 + p % 200, 1)), 0});
  tb::HostMemoryTiming t;
  t.read_latency = read_cycles;
  t.write_latency = 5;
  if (slots) {
    t.model = tb::HostMemoryTiming::Model::kSlots;
    t.max_outstanding = slots;
  }
  tb::HostMemory mem(t);
  for (const MemInit& m : c.memory) mem.Write(m.pa, m.bytes.data(), m.bytes.size());
  RdmaRtl rtl;
  RdmaCycleModel model;
  tb::Harness<RdmaBinding> h(&rtl, &model);
  RewriteSide side(c.Writes(), &mem, rw);
  tb::RunOptions o;
  o.backpressure = bp;
  o.seed = 11;
  const tb::RunResult run = h.Run(pkts, &side, o);
  ASSERT_FALSE(run.mismatch) << tb::MismatchReport(*run.mismatch, "request", "response");
  ASSERT_FALSE(run.hang);
  const RdmaCounters& k = h.last_out().counters;
  uint64_t dropped = 0;
  for (uint32_t d : k.drops) dropped += d;
  EXPECT_EQ(k.packets_in, pkts.size());
  EXPECT_EQ(k.packets_in, k.processed + dropped);
  EXPECT_EQ(k.responses, run.out.size());
  EXPECT_GT(k.cqes, 300u);  // the SENDs completed (a few may RNR while a ring starts again)
  ASSERT_EQ(side.tails().size(), rw.size());
  for (size_t i = 0; i < rw.size(); ++i) {
    if (rw[i].divides_cq) {
      EXPECT_GE(side.tails()[i], static_cast<uint32_t>(rw[i].cq_entries)) << "rewrite " << i << " divided nothing";
    }
  }
}

TEST(RdmaSlotDiv, QueuesRewrittenPastTheirCountsWhileSendsFlow) {
  RunRewrites(0.0, 20, 0);
  RunRewrites(0.3, 60, 0);  // backpressure on the responses
}
TEST(RdmaSlotDiv, QueuesRewrittenWithHeldRequests) {
  RunRewrites(0.0, 20, 2);
  RunRewrites(0.2, 7, 1);
}

}  // namespace
}  // namespace nettwin::rdma
