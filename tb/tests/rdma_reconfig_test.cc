// A QP rewritten between atomics (issue 25 item 8): writing a QP entry resets its traffic state, the store of
// its recent atomic results included (docs/rdma-microarchitecture.md "Writing a QP entry resets its traffic
// state"). A retransmitted atomic of the old QP must never be answered with the old QP's result, and one of
// the new QP with the new result, whether the new entry keeps the AQ address or moves it. RTL and model in
// lockstep; the QP is rewritten through the programming port while the responder is idle, between requests.
// scripts/mutate.py "rdma-recent-kept-both" plants the uncleared store in both engines: these tests catch it.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
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
#include "tb/rdma/rdma_run.h"

namespace nettwin::rdma {
namespace {

constexpr uint64_t kMrVa = 0x7000000000ull, kMrPa = 0x1000000ull;

RdmaConfig Config(uint32_t epsn, uint64_t aq) {
  char qp[160];
  std::snprintf(qp, sizeof qp, "qp 0x11 dest_qp 0x22 mtu 1024 aq 0x%llx max_rd_atomic 64 epsn %u\n",
                static_cast<unsigned long long>(aq), epsn);
  return ParseConfig(std::string("responder mac 02:00:00:00:00:01 ip 10.0.0.1\n") + qp +
                         "mr 0x1234 va 0x7000000000 len 0x10000 pa 0x1000000 access rwa\n",
                     "reconfig");
}

std::vector<CfgWrite> QpWrites(const RdmaConfig& c) {
  std::vector<CfgWrite> out;
  for (const CfgWrite& w : c.Writes()) {
    if (w.table == params::kRdmaTblQp) out.push_back(w);
  }
  return out;
}

// The host side of RunRdma, plus QP rewrites: before frame `at` is offered, once every earlier frame is
// processed and the memory has been quiet for a while, the writes go in (one a cycle).
class ReconfigSide : public RdmaSide {
 public:
  ReconfigSide(std::vector<CfgWrite> writes, tb::HostMemory* memory, size_t at, std::vector<CfgWrite> rewrite)
      : RdmaSide(std::move(writes), memory), at_(at), rewrite_(std::move(rewrite)) {}
  bool Drive(uint64_t cycle, size_t next, const tb::Accounting& acc, RdmaIn* in) override {
    if (!RdmaSide::Drive(cycle, next, acc, in)) return false;
    if (next != at_ || done_ == rewrite_.size()) return true;
    if (!(acc.in == at_ && acc.Drained())) return false;
    if (quiet_ < 400) {  // the last request's memory writes and response are done
      ++quiet_;
      return false;
    }
    in->cfg = rewrite_[done_++];
    return false;
  }

 private:
  size_t at_, done_ = 0;
  int quiet_ = 0;
  std::vector<CfgWrite> rewrite_;
};

RequestSpec Faa(uint32_t psn, uint64_t add) { return Atomic(op::kFetchAdd, psn, kMrVa + 64, add); }

struct Result {
  tb::RunResult run;
  std::string mismatch;
  bool conserved = false;
  uint64_t final_value = 0;
};

Result RunReconfig(const RdmaConfig& first, const RdmaConfig& second, const std::vector<RequestSpec>& reqs, size_t at,
           double bp) {
  std::vector<Packet> pkts;
  for (const auto& r : reqs) pkts.push_back(Packet{BuildRequest(r), 0});
  tb::HostMemory mem(20, 5, 16, 250);
  RdmaRtl rtl;
  RdmaCycleModel model;
  tb::Harness<RdmaBinding> h(&rtl, &model);
  ReconfigSide side(first.Writes(), &mem, at, QpWrites(second));
  tb::RunOptions o;
  o.backpressure = bp;
  o.seed = 9;
  Result res;
  res.run = h.Run(pkts, &side, o);
  if (res.run.mismatch) res.mismatch = tb::MismatchReport(*res.run.mismatch, "request", "response");
  const RdmaCounters& k = h.last_out().counters;
  uint64_t dropped = 0;
  for (uint32_t d : k.drops) dropped += d;
  res.conserved = !res.run.hang && k.packets_in == pkts.size() && k.packets_in == k.processed + dropped;
  uint8_t v[8];
  mem.Read(kMrPa + 64, v, 8);
  res.final_value = LoadLe64(v);
  return res;
}

struct Rsp {
  uint8_t opcode, syndrome;
  uint64_t orig;
};
Rsp Decode(const Packet& p) {
  const auto& f = p.bytes;
  return Rsp{f[42], f[54], f[42] == op::kAtomicAck ? Load64(&f[58]) : 0};
}

// Old QP: FAAs at PSNs 100..109 on one word. The entry is rewritten with ePSN 105 (the new connection starts
// inside the old one's PSNs), with the same AQ address and with a new one. New QP: FAAs at 105, 106; then the
// retransmissions of 106 (the new QP's: its new result), of 102 and 100 (the old QP's, PSNs the new QP never
// executed: not in its AQ, NAK invalid request), of 105 (the new result again).
TEST(RdmaReconfig, RewrittenQpForgetsTheOldQpsRecentAtomics) {
  for (uint64_t new_aq : {0x900000ull, 0xa00000ull}) {
    for (double bp : {0.0, 0.4}) {
      SCOPED_TRACE(std::to_string(new_aq) + " " + std::to_string(bp));
      std::vector<RequestSpec> q;
      uint64_t value = 0;
      std::map<uint32_t, uint64_t> orig;
      for (uint32_t p = 100; p < 110; ++p) {
        q.push_back(Faa(p, 1 + p));
        value += 1 + p;
      }
      const size_t at = q.size();
      for (uint32_t p = 105; p < 107; ++p) {
        q.push_back(Faa(p, 1000 * p));
        orig[p] = value;
        value += 1000 * p;
      }
      for (uint32_t p : {106u, 102u, 100u, 105u}) q.push_back(Faa(p, 7));
      const Result r = RunReconfig(Config(100, 0x900000), Config(105, new_aq), q, at, bp);
      ASSERT_TRUE(r.mismatch.empty()) << r.mismatch;
      ASSERT_TRUE(r.conserved);
      ASSERT_EQ(r.run.out.size(), q.size());
      for (size_t i = 0; i < at; ++i) EXPECT_EQ(Decode(r.run.out[i]).opcode, op::kAtomicAck) << i;
      const Rsp n105 = Decode(r.run.out[at]), n106 = Decode(r.run.out[at + 1]);
      EXPECT_EQ(n105.orig, orig[105]);
      EXPECT_EQ(n106.orig, orig[106]);
      const Rsp d106 = Decode(r.run.out[at + 2]), d102 = Decode(r.run.out[at + 3]), d100 = Decode(r.run.out[at + 4]),
                d105 = Decode(r.run.out[at + 5]);
      EXPECT_EQ(d106.opcode, op::kAtomicAck);
      EXPECT_EQ(d106.orig, orig[106]) << "the new QP's retransmission answered with the old QP's result";
      for (const Rsp& d : {d102, d100}) {
        EXPECT_NE(d.opcode, op::kAtomicAck) << "an old QP's atomic answered after the rewrite: orig " << d.orig;
        EXPECT_EQ(d.syndrome, 0x61u);  // NAK invalid request: not in the new QP's AQ
      }
      EXPECT_EQ(d105.opcode, op::kAtomicAck);
      EXPECT_EQ(d105.orig, orig[105]);
      EXPECT_EQ(r.final_value, value);  // retransmissions never executed again
    }
  }
}

}  // namespace
}  // namespace nettwin::rdma
