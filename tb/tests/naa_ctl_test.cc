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
#include "tb/tests/crc32_ref.h"
#include "tb/tests/naa_mrsp.h"

namespace nettwin::naa {
namespace {

constexpr uint64_t kPool = 0x40000000, kPoolSize = 0x100000;
constexpr uint64_t kRxBuf = 0x200000, kTxBuf = 0x300000;
constexpr uint32_t kQpn = 0x11, kRkeyBase = 0x5000;

using Entry = test::MrspEntry;

std::vector<uint8_t> Request(const std::vector<Entry>& es, int count = -1, uint8_t type = 0x01) {
  return test::MrspRequest(es, count, type);
}
// The answer to the g-th grant since reset (each grant's rkeys are new: rkey_base + 32 g + i, docs/naa.md).
std::vector<uint8_t> Grant(const std::vector<Entry>& es, uint32_t g = 0) {
  return test::MrspGrant(es, kRkeyBase + 32 * g);
}

// What the client does at a cycle: a completion event (its SEND's message already in the receive buffer
// wr_id), or a change of the connection.
struct Step {
  uint64_t cycle;
  enum Kind { kSend, kWriteImm, kConnect, kDisconnect } kind;
  std::vector<uint8_t> msg;  // kSend
  uint32_t len = 0;          // the CQE byte count (default: the message's size)
  uint32_t imm = 1;          // kWriteImm: the function code
};

// Memory contents before the run (the client's WRITEs of the parameters into the granted regions).
struct Init {
  uint64_t addr;
  std::vector<uint8_t> bytes;
};

struct Result {
  std::vector<std::vector<uint8_t>> answers;  // the transmit buffer at each SEND command
  std::vector<CfgWrite> cfg;                  // the controller's writes into the responder
  CtlCounters counters;
  std::string mismatch;
  uint64_t first_cmd = 0;  // cycle of the first SEND command offered
  std::vector<ReqCmd> cmds;
  std::vector<uint64_t> cmd_cycles;  // when each command was taken
};

std::string Diff(uint64_t cycle, const NaaCtlOut& r, const NaaCtlOut& m) {
  auto say = [&](const char* what) { return "cycle " + std::to_string(cycle) + ": " + what + " differs"; };
  if (!(r.dma_req == m.dma_req)) return say("dma_req_*");
  if (r.cfg.valid != m.cfg.valid ||
      (r.cfg.valid && (r.cfg.table != m.cfg.table || r.cfg.index != m.cfg.index || !(r.cfg.data == m.cfg.data)))) {
    return say("rcfg_*");
  }
  if (r.cmd_valid != m.cmd_valid || (r.cmd_valid && !(r.cmd == m.cmd))) return say("cmd_*");
  if (r.busy != m.busy) return say("busy_o");
  if (!(r.counters == m.counters)) {
    return say("counters/state") + " (rtl state " + std::to_string(static_cast<int>(r.counters.state)) + ", model " +
           std::to_string(static_cast<int>(m.counters.state)) + ")";
  }
  return "";
}

// bp: the programming port busy 1 cycle in 3 (the CM), the requester slow, the host memory slow.
Result RunCtl(const std::vector<Step>& steps, uint8_t mrs = kRegions, bool bp = false, uint32_t budget = 1000000,
              const std::vector<Init>& init = {}, uint32_t read_latency = 0) {
  Result res;
  auto rtl = MakeNaaCtlRtl();
  NaaCtl model;
  rtl->Reset();
  model.Reset();
  tb::HostMemory mem(read_latency ? read_latency : bp ? 60 : 4, bp ? 20 : 2, 16);
  for (const Init& i : init) mem.Write(i.addr, i.bytes.data(), i.bytes.size());
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
  c.budget = budget;
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
  // Until every step is done and the controller has been idle for a while (the bound: a hang).
  const uint64_t last = steps.empty() ? 0 : steps.back().cycle;
  int idle = 0;
  for (uint64_t cyc = 0; cyc < last + 200000 && idle < 200; ++cyc) {
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
      in.cqe.imm = s.kind == Step::kWriteImm ? s.imm : 0;
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
      res.cmds.push_back(r.cmd);
      res.cmd_cycles.push_back(cyc);
      cpl_in = bp ? 40 : 3;
      cmd_wait = 0;
    }
    res.counters = r.counters;
    idle = next == steps.size() && cyc > last && r.counters.state == CtlState::kIdle && cpl_in < 0 ? idle + 1 : 0;
    rtl->Tick();
    model.Tick();
  }
  return res;
}

std::vector<Entry> Regions(int n, uint32_t size = 4096) {
  std::vector<Entry> es;
  for (int i = 0; i < n; ++i) {
    es.push_back(Entry{kPool + uint64_t{size} * i, 0x7f0000000000ull + 0x10000ull * static_cast<uint64_t>(i),
                       0x100u + i, size, static_cast<uint8_t>(i)});
  }
  return es;
}

std::vector<uint8_t> Error(uint8_t code) { return test::MrspError(code); }

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

using nettwin::test::Crc32;  // zlib's CRC-32, bit by bit (checked against the standard's check value below)

std::vector<uint8_t> Random(size_t n, uint32_t seed) {
  std::vector<uint8_t> v(n);
  for (auto& b : v) {
    seed = seed * 1103515245u + 12345u;
    b = static_cast<uint8_t>(seed >> 16);
  }
  return v;
}

std::vector<uint8_t> Le(uint32_t v) { return {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)}; }

TEST(NaaCtl, RpcKernelsWriteTheirResultBack) {
  ASSERT_EQ(Crc32({'1', '2', '3', '4', '5', '6', '7', '8', '9'}), 0xCBF43926u);
  for (uint32_t size : {64u, 8192u + 68}) {
    for (bool bp : {false, true}) {
      auto es = Regions(3, (size + 4095) / 4096 * 4096);
      for (auto& e : es) e.size = size;
      const auto a = Random(size, 1), b = Random(size, 2);
      std::vector<uint8_t> sum(size);
      for (uint32_t i = 0; i < size; i += 4) {
        const auto w = Le((a[i] | a[i + 1] << 8 | a[i + 2] << 16 | uint32_t{a[i + 3]} << 24) +
                          (b[i] | b[i + 1] << 8 | b[i + 2] << 16 | uint32_t{b[i + 3]} << 24));
        std::copy(w.begin(), w.end(), sum.begin() + i);
      }
      const Result r = RunCtl({{5, Step::kConnect, {}},
                               {10, Step::kSend, Request(es)},
                               {400, Step::kWriteImm, {}, 0, 1},   // add: region 2 = 0 + 1
                               {401, Step::kWriteImm, {}, 0, 2},   // CRC of region 0 into region 1
                               {402, Step::kWriteImm, {}, 0, 3}},  // copy region 0 into region 1
                              kRegions, bp, 1000000, {{es[0].fpga, a}, {es[1].fpga, b}});
      ASSERT_EQ(r.mismatch, "") << size << (bp ? " bp" : "");
      ASSERT_EQ(r.cmds.size(), 4u);
      const uint32_t want_len[] = {size, 4, size};
      const int want_idx[] = {2, 1, 1};
      for (int k = 0; k < 3; ++k) {
        const ReqCmd& c = r.cmds[k + 1];
        EXPECT_EQ(c.op, ReqOp::kWriteImm);
        EXPECT_EQ(c.imm, 0u);
        EXPECT_EQ(c.len, want_len[k]);
        EXPECT_EQ(c.laddr, es[want_idx[k]].fpga);
        EXPECT_EQ(c.raddr, es[want_idx[k]].host);
        EXPECT_EQ(c.rkey, es[want_idx[k]].rkey);
      }
      EXPECT_EQ(r.answers[1], sum);
      EXPECT_EQ(r.answers[2], Le(Crc32(a)));
      EXPECT_EQ(r.answers[3], a);
      EXPECT_EQ(r.counters.rpcs, 3u);
      EXPECT_EQ(r.counters.rpc_errors, 0u);
      EXPECT_EQ(r.counters.reposts, 4u);
    }
  }
}

TEST(NaaCtl, RpcErrorsAnswerAZeroLengthWriteWithTheCode) {
  auto es = Regions(3, 4096);
  es[2].size = 64;  // add needs equal sizes
  const auto two = Regions(2, 4096);
  auto rpc = [&](const std::vector<Entry>& grant, uint32_t fn, uint32_t budget = 1000000) {
    const Result r =
        RunCtl({{5, Step::kConnect, {}}, {10, Step::kSend, Request(grant)}, {300, Step::kWriteImm, {}, 0, fn}},
               kRegions, false, budget);
    EXPECT_EQ(r.mismatch, "");
    EXPECT_EQ(r.cmds.size(), 2u);
    if (r.cmds.size() < 2) return uint32_t{0xFFFF};
    const ReqCmd& c = r.cmds[1];
    EXPECT_EQ(c.op, ReqOp::kWriteImm);
    EXPECT_EQ(c.len, 0u);
    EXPECT_EQ(c.raddr, grant[0].host);  // errors go to host region 0
    EXPECT_EQ(c.rkey, grant[0].rkey);
    EXPECT_EQ(r.counters.rpc_errors, 1u);
    return c.imm;
  };
  EXPECT_EQ(rpc(es, 0), 0x10u);  // unknown function codes
  EXPECT_EQ(rpc(es, 4), 0x10u);
  EXPECT_EQ(rpc(es, 0x01000000), 0x10u);  // the code is the immediate as a big-endian number
  EXPECT_EQ(rpc(two, 1), 0x11u);          // add needs three regions
  EXPECT_EQ(rpc(es, 1), 0x12u);           // ... of equal sizes
  auto small = Regions(2, 4096);
  small[1].size = 3;
  EXPECT_EQ(rpc(small, 2), 0x12u);    // CRC needs 4 bytes in region 1
  EXPECT_EQ(rpc(small, 3), 0x12u);    // copy needs region 1 >= region 0
  EXPECT_EQ(rpc(two, 2, 40), 0x02u);  // a 4 KiB CRC cannot finish in 40 cycles: kernel timeout
}

// The numbers of docs/PERF.md "NAAICE endpoint: controller": a 64 KiB region through each kernel at host read
// latency R, from the completion event to the result's WRITE_WITH_IMM command (which then takes the
// requester's time). Bounds from docs/naa-microarchitecture.md "Kernels".
TEST(NaaCtl, KernelCyclesFor64KiB) {
  constexpr uint32_t kSize = 65536;
  auto es = Regions(3, kSize);
  const auto a = Random(kSize, 3), b = Random(kSize, 4);
  for (uint32_t lat : {4u, 200u}) {
    for (uint32_t fn : {1u, 2u, 3u}) {
      const Result r = RunCtl({{5, Step::kConnect, {}}, {10, Step::kSend, Request(es)}, {600, Step::kWriteImm, {}, 0, fn}},
                              kRegions, false, 1000000, {{es[0].fpga, a}, {es[1].fpga, b}}, lat);
      ASSERT_EQ(r.mismatch, "");
      ASSERT_EQ(r.cmds.size(), 2u);
      const uint64_t cycles = r.cmd_cycles[1] - 600;
      std::printf("kernel %u, 64 KiB, R = %u: %llu cycles from the event to the command, %.1f bytes/cycle\n", fn, lat,
                  static_cast<unsigned long long>(cycles), double{kSize} / static_cast<double>(cycles));
      const uint64_t chunks = kSize / 4096;
      const uint64_t bound = fn == 2 ? kSize / 64 + lat + 40 : chunks * (lat + (fn == 1 ? 200 : 135));
      EXPECT_LE(cycles, bound) << "kernel " << fn << " R " << lat;
    }
  }
}

TEST(NaaCtl, SecondRequestReplacesTheGrantAndDisconnectRevokesIt) {
  const auto first = Regions(5), second = Regions(2, 64);
  const Result r = RunCtl({{5, Step::kConnect, {}},
                           {10, Step::kWriteImm, {}},  // an RPC before any grant: nowhere to answer
                           {200, Step::kSend, Request(first)},
                           {600, Step::kSend, Request(second)},
                           {1000, Step::kWriteImm, {}},  // an RPC add with two regions: answered 0x11
                           {1400, Step::kDisconnect, {}}},
                          kRegions, true);
  ASSERT_EQ(r.mismatch, "");
  ASSERT_EQ(r.answers.size(), 3u);
  EXPECT_EQ(r.answers[0], Grant(first));
  EXPECT_EQ(r.answers[1], Grant(second, 1));
  EXPECT_EQ(r.cmds[2].imm, 0x11u);
  // repost; 5 MRs, repost; 2 MRs + 3 invalidated, repost; repost; 2 revoked.
  ASSERT_EQ(r.cfg.size(), 1u + 6 + 6 + 1 + 2);
  for (int i = 9; i < 12; ++i) EXPECT_FALSE(rdma::DecodeMr(r.cfg[i].data).valid) << i;
  for (int i = 14; i < 16; ++i) {
    EXPECT_EQ(r.cfg[i].index, 4 + (i - 14));
    EXPECT_FALSE(rdma::DecodeMr(r.cfg[i].data).valid);
  }
  EXPECT_EQ(r.counters.regions, 0);
  EXPECT_EQ(r.counters.drops[static_cast<int>(CtlDrop::kNoRegions)], 1u);
  EXPECT_EQ(r.counters.rpc_errors, 1u);
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
