// The NAA controller alone (rtl/naa/naa_ctl.sv against model/naa/naa_ctl.cc), compared every cycle on every
// output, with the SystemC host memory behind its DMA port, a stand-in for the responder's programming port
// (the CM's priority as cycles without ready) and for the requester (commands accepted late, completions some
// cycles after). The expected MRSP answers are built here from the seed's layout, independently of both.
#include "model/naa/naa_ctl.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "model/rdma/rdma_types.h"
#include "tb/common/host_memory.h"
#include "tb/naa/naa_ctl_rtl.h"

namespace nettwin::naa {
namespace {

constexpr uint64_t kPool = 0x40000000, kPoolSize = 0x100000;
constexpr uint64_t kRxBuf = 0x200000, kTxBuf = 0x300000;
constexpr uint32_t kQpn = 0x11, kRkeyBase = 0x5000;

struct Entry {
  uint64_t fpga;
  uint64_t host;
  uint32_t rkey, size;
  uint8_t flags = 0;
};

std::vector<uint8_t> Request(const std::vector<Entry>& es, int count = -1, uint8_t type = 0x01) {
  std::vector<uint8_t> m = {type, static_cast<uint8_t>(count < 0 ? es.size() : count), 0, 0};
  auto be = [&](uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) m.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  for (const Entry& e : es) {
    m.push_back(e.flags);
    be(e.fpga, 7);
    be(e.host, 8);
    be(e.rkey, 4);
    be(e.size, 4);
  }
  return m;
}

std::vector<uint8_t> Grant(const std::vector<Entry>& es) {
  std::vector<uint8_t> m = {0x02, static_cast<uint8_t>(es.size()), 0, 0};
  auto be = [&](uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) m.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  for (size_t i = 0; i < es.size(); ++i) {
    be(es[i].fpga, 8);
    be(kRkeyBase + i, 4);
    be(es[i].size, 4);
  }
  return m;
}

// What the client does at a cycle: a completion event (its SEND's message already in the receive buffer
// wr_id), or a change of the connection.
struct Step {
  uint64_t cycle;
  enum Kind { kSend, kWriteImm, kConnect, kDisconnect } kind;
  std::vector<uint8_t> msg;  // kSend
  uint32_t len = 0;          // the CQE byte count (default: the message's size)
};

struct Result {
  std::vector<std::vector<uint8_t>> answers;  // the transmit buffer at each SEND command
  std::vector<CfgWrite> cfg;                  // the controller's writes into the responder
  CtlCounters counters;
  std::string mismatch;
  uint64_t first_cmd = 0;  // cycle of the first SEND command offered
};

std::string Diff(uint64_t cycle, const NaaCtlOut& r, const NaaCtlOut& m) {
  auto say = [&](const char* what) { return "cycle " + std::to_string(cycle) + ": " + what + " differs"; };
  if (!(r.dma_req == m.dma_req)) return say("dma_req_*");
  if (r.cfg.valid != m.cfg.valid ||
      (r.cfg.valid && (r.cfg.table != m.cfg.table || r.cfg.index != m.cfg.index || !(r.cfg.data == m.cfg.data)))) {
    return say("rcfg_*");
  }
  if (r.cmd_valid != m.cmd_valid || (r.cmd_valid && !(r.cmd == m.cmd))) return say("cmd_*");
  if (!(r.counters == m.counters)) {
    return say("counters/state") + " (rtl state " + std::to_string(static_cast<int>(r.counters.state)) + ", model " +
           std::to_string(static_cast<int>(m.counters.state)) + ")";
  }
  return "";
}

// bp: the programming port busy 1 cycle in 3 (the CM), the requester slow, the host memory slow.
Result RunCtl(const std::vector<Step>& steps, uint8_t mrs = kRegions, bool bp = false) {
  Result res;
  auto rtl = MakeNaaCtlRtl();
  NaaCtl model;
  rtl->Reset();
  model.Reset();
  tb::HostMemory mem(bp ? 60 : 4, bp ? 20 : 2, 16);
  CtlCfg c;
  c.enable = true;
  c.pool = kPool;
  c.pool_size = kPoolSize;
  c.mr_first = 4;
  c.mrs = mrs;
  c.rkey_base = kRkeyBase;
  c.qp_slot = 0;
  c.qpn = kQpn;
  c.rxbuf = kRxBuf;
  c.txbuf = kTxBuf;
  c.queues.valid = true;
  c.queues.rq = 0x100000;
  c.queues.rq_entries = 4;
  c.queues.rq_posted = 4;
  c.queues.cq = 0x110000;
  c.queues.cq_entries = 16;
  const std::vector<CfgData> cfg_words = {EncodeCtl0(c), EncodeCtl1(c), rdma::Encode(c.queues)};
  bool connected = false;
  size_t next = 0;
  uint32_t wr_id = 0;
  int cmd_wait = 0, cpl_in = -1;
  const uint64_t end = steps.empty() ? 100 : steps.back().cycle + 3000;
  for (uint64_t cyc = 0; cyc < end; ++cyc) {
    NaaCtlIn in;
    if (cyc < cfg_words.size()) {
      in.cfg.valid = true;
      in.cfg.table = params::kNaaTblCtl;
      in.cfg.index = static_cast<uint16_t>(cyc);
      in.cfg.data = cfg_words[cyc];
    }
    while (next < steps.size() && steps[next].cycle <= cyc && !in.cqe.valid) {
      const Step& s = steps[next++];
      if (s.kind == Step::kConnect || s.kind == Step::kDisconnect) {
        connected = s.kind == Step::kConnect;
        continue;
      }
      in.cqe.valid = true;
      in.cqe.wr_id = wr_id;
      in.cqe.qpn = kQpn;
      in.cqe.opcode = s.kind == Step::kSend ? 0 : 1;
      in.cqe.len = s.len ? s.len : static_cast<uint32_t>(s.msg.size());
      in.cqe.imm = s.kind == Step::kWriteImm ? 1 : 0;
      in.cqe.psn = static_cast<uint32_t>(next);
      if (!s.msg.empty()) mem.Write(kRxBuf + uint64_t{kRxBufBytes} * wr_id, s.msg.data(), s.msg.size());
      wr_id = (wr_id + 1) % 4;
    }
    in.connected = connected;
    in.dma_ready = mem.Ready(cyc);
    in.dma_rsp = mem.Response(cyc);
    in.cfg_ready = !bp || cyc % 3 != 0;
    in.cmd_ready = cmd_wait > (bp ? 7 : 0);
    if (cpl_in == 0) {
      in.cpl.valid = true;
      in.cpl.status = CplStatus::kOk;
    }
    const NaaCtlOut r = rtl->Eval(in);
    const NaaCtlOut& m = model.Eval(in);
    res.mismatch = Diff(cyc, r, m);
    if (!res.mismatch.empty()) return res;
    if (r.dma_req.valid && in.dma_ready) mem.Accept(cyc, r.dma_req);
    if (r.cfg.valid && in.cfg_ready) res.cfg.push_back(r.cfg);
    if (r.cmd_valid && res.first_cmd == 0) res.first_cmd = cyc;
    cmd_wait = r.cmd_valid ? cmd_wait + 1 : 0;
    if (cpl_in >= 0) --cpl_in;
    if (r.cmd_valid && in.cmd_ready) {
      std::vector<uint8_t> a(r.cmd.len);
      mem.Read(r.cmd.laddr, a.data(), a.size());
      res.answers.push_back(a);
      cpl_in = bp ? 40 : 3;
      cmd_wait = 0;
    }
    res.counters = r.counters;
    rtl->Tick();
    model.Tick();
  }
  return res;
}

std::vector<Entry> Regions(int n, uint32_t size = 4096) {
  std::vector<Entry> es;
  for (int i = 0; i < n; ++i) {
    es.push_back(
        Entry{kPool + uint64_t{size} * i, 0x7f0000000000ull + 0x10000ull * static_cast<uint64_t>(i), 0x100u + i, size, static_cast<uint8_t>(i)});
  }
  return es;
}

std::vector<uint8_t> Error(uint8_t code) { return {0x00, code, 0, 0}; }

TEST(NaaCtl, GrantsOneToThirtyTwoRegions) {
  for (int n : {1, 2, 7, 31, 32}) {
    for (bool bp : {false, true}) {
      const auto es = Regions(n);
      const Result r = RunCtl({{5, Step::kConnect, {}}, {10, Step::kSend, Request(es)}}, kRegions, bp);
      ASSERT_EQ(r.mismatch, "") << n << " regions";
      ASSERT_EQ(r.answers.size(), 1u);
      EXPECT_EQ(r.answers[0], Grant(es)) << n << " regions";
      // One MR per region (slot mr_first + i, rkey_base + i, va = pa = the FPGA address), then the repost.
      ASSERT_EQ(r.cfg.size(), static_cast<size_t>(n) + 1);
      for (int i = 0; i < n; ++i) {
        const rdma::MrCfg mr = rdma::DecodeMr(r.cfg[i].data);
        EXPECT_EQ(r.cfg[i].table, params::kRdmaTblMr);
        EXPECT_EQ(r.cfg[i].index, 4 + i);
        EXPECT_TRUE(mr.valid && mr.r && mr.w && !mr.a);
        EXPECT_EQ(mr.rkey, kRkeyBase + i);
        EXPECT_EQ(mr.va, es[i].fpga);
        EXPECT_EQ(mr.pa, es[i].fpga);
        EXPECT_EQ(mr.len, es[i].size);
      }
      EXPECT_EQ(r.cfg[n].table, params::kRdmaTblQpQueues);
      EXPECT_EQ(rdma::DecodeQpQueues(r.cfg[n].data).rq_posted, 5);
      EXPECT_EQ(r.counters.grants, 1u);
      EXPECT_EQ(r.counters.answers, 1u);
      EXPECT_EQ(r.counters.regions, n);
      if (!bp) {  // docs/naa-microarchitecture.md: event at t, SEND command at t + 2 + R + B + 1 + N + N + A
        const int beats = (4 + 24 * n + 63) / 64, ans = (4 + 16 * n + 63) / 64;
        EXPECT_EQ(r.first_cmd, 10u + 2 + 4 + beats + 1 + n + n + ans) << n << " regions";
      }
    }
  }
}

TEST(NaaCtl, EachErrorCodeInCheckOrder) {
  auto one = [](std::vector<uint8_t> msg, uint32_t len = 0, uint8_t mrs = kRegions) {
    const Result r = RunCtl({{5, Step::kConnect, {}}, {10, Step::kSend, std::move(msg), len}}, mrs);
    EXPECT_EQ(r.mismatch, "");
    EXPECT_EQ(r.answers.size(), 1u);
    EXPECT_EQ(r.counters.reposts, 1u);
    return r.answers.empty() ? std::vector<uint8_t>{} : r.answers[0];
  };
  auto es = Regions(3);
  EXPECT_EQ(one(Request(Regions(33))), Error(0x03));  // more than NaaRegions
  EXPECT_EQ(one(Request(es), 0, 2), Error(0x03));     // more than the controller's MR slots
  es[1].fpga = kPool - 1;
  EXPECT_EQ(one(Request(es)), Error(0x02));  // below the pool
  es[1].fpga = kPool + kPoolSize;
  EXPECT_EQ(one(Request(es)), Error(0x02));  // at its end
  es[1].fpga = kPool + kPoolSize - 100;
  EXPECT_EQ(one(Request(es)), Error(0x01));  // address + size beyond it
  es[0].fpga = kPool - 8;
  EXPECT_EQ(one(Request(es)), Error(0x02));                    // the first failing entry wins
  EXPECT_EQ(one(Request(Regions(2), -1, 0x02)), Error(0x04));  // a client's 0x02 is no request
  EXPECT_EQ(one(Request({}, 0)), Error(0x04));                 // no regions
  EXPECT_EQ(one(Request(Regions(2), 3)), Error(0x04));         // shorter than its count says
  EXPECT_EQ(one({0x01, 0x01}, 2), Error(0x04));                // shorter than a header
  auto big = Regions(2);
  big[1].size = static_cast<uint32_t>(kPoolSize - 4096);
  EXPECT_EQ(one(Request(big)), Grant(big));  // exactly up to the pool's end
  auto overlap = Regions(2);
  overlap[1].fpga = overlap[0].fpga + 16;
  EXPECT_EQ(one(Request(overlap)), Grant(overlap));  // overlapping regions are granted
}

TEST(NaaCtl, SecondRequestReplacesTheGrantAndDisconnectRevokesIt) {
  const auto first = Regions(5), second = Regions(2, 64);
  const Result r = RunCtl({{5, Step::kConnect, {}},
                        {10, Step::kWriteImm, {}},  // an RPC before any grant: nowhere to answer
                        {200, Step::kSend, Request(first)},
                        {600, Step::kSend, Request(second)},
                        {1000, Step::kWriteImm, {}},  // an RPC: the kernels are not built yet
                        {1400, Step::kDisconnect, {}}},
                       kRegions, true);
  ASSERT_EQ(r.mismatch, "");
  ASSERT_EQ(r.answers.size(), 2u);
  EXPECT_EQ(r.answers[0], Grant(first));
  EXPECT_EQ(r.answers[1], Grant(second));
  // repost; 5 MRs, repost; 2 MRs + 3 invalidated, repost; repost; 2 revoked.
  ASSERT_EQ(r.cfg.size(), 1u + 6 + 6 + 1 + 2);
  for (int i = 9; i < 12; ++i) EXPECT_FALSE(rdma::DecodeMr(r.cfg[i].data).valid) << i;
  for (int i = 14; i < 16; ++i) {
    EXPECT_EQ(r.cfg[i].index, 4 + (i - 14));
    EXPECT_FALSE(rdma::DecodeMr(r.cfg[i].data).valid);
  }
  EXPECT_EQ(r.counters.regions, 0);
  EXPECT_EQ(r.counters.drops[static_cast<int>(CtlDrop::kNoRegions)], 1u);
  EXPECT_EQ(r.counters.drops[static_cast<int>(CtlDrop::kRpc)], 1u);
  EXPECT_EQ(r.counters.events, 4u);
  EXPECT_EQ(r.counters.reposts, 4u);
  EXPECT_EQ(rdma::DecodeQpQueues(r.cfg[13].data).rq_posted, 8);
}

TEST(NaaCtl, EventsQueueWhileARequestIsHandledAndOverflowIsCounted) {
  std::vector<Step> s = {{5, Step::kConnect, {}}};
  for (int i = 0; i < 6; ++i) s.push_back({static_cast<uint64_t>(10 + i), Step::kSend, Request(Regions(1))});
  const Result r = RunCtl(s);
  ASSERT_EQ(r.mismatch, "");
  // The first is taken at once, four wait, the sixth finds the FIFO full.
  EXPECT_EQ(r.answers.size(), 5u);
  EXPECT_EQ(r.counters.drops[static_cast<int>(CtlDrop::kOverflow)], 1u);
  EXPECT_EQ(r.counters.events, r.counters.requests + r.counters.drops[static_cast<int>(CtlDrop::kOverflow)]);
}

}  // namespace
}  // namespace nettwin::naa
