// ConWeave source-ToR block (docs/reroute.md) with its RTL and cycle model in lockstep (every output compared
// every cycle, tb/reroute/reroute_lockstep.h): each rerouting condition, RTT request / reply / cutoff, NOTIFY,
// CLEAR, TAIL / epoch marking, the 16-bit timestamp wrap, the ECMP fallback, malformed input, random traffic
// under backpressure, and the closed loop with the destination ToR's cycle model.
#include <gtest/gtest.h>

#include <functional>
#include <random>
#include <vector>

#include "model/reorder/reorder_frame.h"
#include "tb/reorder/reorder_frames.h"
#include "tb/reroute/reroute_lockstep.h"
#include "tb/reroute/reroute_loop.h"

namespace nettwin::reroute {
namespace {

constexpr uint32_t kHostA = 0x0a000002, kHostB = 0x0a000003;
constexpr int kMhz = 250;

std::vector<uint8_t> Nic(uint32_t src, uint32_t qp, uint32_t psn, int payload = 64) {
  return reorder::NicWrite(src, qp, psn, payload);
}

// One input event at a microsecond: a host frame, or a control packet made from an earlier decision.
struct Event {
  uint64_t at_us;
  std::vector<uint8_t> host;                                              // host frame (if ctrl empty)
  std::function<std::vector<uint8_t>(const std::vector<DataResult>&)> ctrl;  // control packet
};

Event Host(uint64_t at, std::vector<uint8_t> f) { return Event{at, std::move(f), nullptr}; }
// p4: the control packet in conweave-p4's wire format (the reorder block's builder with wire_format conweave-p4).
Event Ctrl(uint64_t at, int ref, uint8_t op, uint8_t epoch, int path = -1, bool p4 = false) {
  return Event{at, {}, [=](const std::vector<DataResult>& d) {
                 return MirrorControl(d[static_cast<size_t>(ref)].frame, op, epoch, path, p4);
               }};
}
Event RawCtrl(uint64_t at, std::vector<uint8_t> f) {
  return Event{at, {}, [f](const std::vector<DataResult>&) { return f; }};
}

struct RunOut {
  std::vector<DataResult> decisions;
  RerouteCounters cnt;
  uint64_t mismatches = 0;
  std::string first;
  size_t out_frames = 0;
};

// Offers the events in order (host and control streams independent, each waits for its time), the fabric
// side ready with probability 1 - bp; runs until everything is out and the block is idle.
RunOut RunEvents(const std::vector<Event>& ev, const RerouteCfg& cfg, double bp = 0, uint64_t seed = 1) {
  RerouteLockstep ls;
  ls.Reset();
  std::mt19937_64 rng(seed);
  RerouteIn in;
  in.cfg = cfg;
  const uint64_t t0 = ev.empty() ? 0 : ev.front().at_us;
  std::vector<size_t> host_idx, ctrl_idx;
  for (size_t i = 0; i < ev.size(); ++i) (ev[i].ctrl ? ctrl_idx : host_idx).push_back(i);
  size_t hi = 0, ci = 0, hb = 0, cb = 0;
  std::vector<Beat> hbeats, cbeats;
  RunOut r;
  uint64_t idle_cycles = 0;
  for (uint64_t cyc = 0; cyc < 50'000'000; ++cyc) {
    const uint64_t us = t0 + cyc / kMhz;
    in.now_us = static_cast<uint16_t>(us);
    if (hbeats.empty() && hi < host_idx.size() && ev[host_idx[hi]].at_us <= us) hbeats = ToBeats(ev[host_idx[hi]].host);
    // A control event waits until every host event before it in the list has been decided.
    if (cbeats.empty() && ci < ctrl_idx.size() && ev[ctrl_idx[ci]].at_us <= us) {
      size_t before = 0;
      for (size_t k : host_idx) before += k < ctrl_idx[ci];
      if (ls.model().decisions().size() >= before) cbeats = ToBeats(ev[ctrl_idx[ci]].ctrl(ls.model().decisions()));
    }
    in.s = StreamPort{};
    if (!hbeats.empty()) {
      in.s.valid = true;
      in.s.beat = hbeats[hb];
    }
    in.r = StreamPort{};
    if (!cbeats.empty()) {
      in.r.valid = true;
      in.r.beat = cbeats[cb];
    }
    in.m_ready = bp <= 0 || std::uniform_real_distribution<double>(0, 1)(rng) >= bp;
    const RerouteOut o = ls.Eval(in);
    if (in.s.valid && o.s_ready && ++hb == hbeats.size()) {
      hbeats.clear();
      hb = 0;
      ++hi;
    }
    if (in.r.valid && o.r_ready && ++cb == cbeats.size()) {
      cbeats.clear();
      cb = 0;
      ++ci;
    }
    if (o.m.valid && in.m_ready && o.m.beat.last) ++r.out_frames;
    ls.Tick();
    const bool done = hi == host_idx.size() && ci == ctrl_idx.size() && o.idle;
    idle_cycles = done ? idle_cycles + 1 : 0;
    if (idle_cycles > 4) break;
  }
  r.decisions = ls.model().decisions();
  r.cnt = ls.model().core().counters();
  r.mismatches = ls.mismatches();
  r.first = ls.FirstMismatchLine();
  EXPECT_EQ(r.mismatches, 0u) << r.first;
  EXPECT_EQ(r.cnt.in, host_idx.size());
  EXPECT_EQ(r.cnt.in, r.cnt.out + r.cnt.drop_malformed);
  EXPECT_EQ(r.out_frames, r.cnt.out);
  EXPECT_EQ(r.cnt.ctrl_in, ctrl_idx.size());
  EXPECT_EQ(r.cnt.ctrl_in, r.cnt.rtt_replies + r.cnt.stale_replies + r.cnt.notifies + r.cnt.clears +
                               r.cnt.stale_clears + r.cnt.bad_control);
  return r;
}

RerouteCfg Cfg() { return RerouteCfg{}; }

TEST(RerouteLockstep, RttRequestReplyAndTheCutoff) {
  std::vector<Event> ev = {Host(100, Nic(kHostA, 0x11, 1)), Ctrl(110, 0, reorder::kCwRttReply, 0),
                           Host(200, Nic(kHostA, 0x11, 2)),   // a new request after the reply
                           Host(239, Nic(kHostA, 0x11, 3)),   // 39 us: no reroute
                           Host(240, Nic(kHostA, 0x11, 4)),   // 40 us: reroute, TAIL on the old path
                           Host(241, Nic(kHostA, 0x11, 5))};
  for (double bp : {0.0, 0.5}) {
    RunOut r = RunEvents(ev, Cfg(), bp);
    ASSERT_EQ(r.decisions.size(), 5u);
    EXPECT_EQ(r.decisions[0].op, reorder::kCwRttRequest);
    EXPECT_EQ(r.decisions[1].op, reorder::kCwRttRequest);
    EXPECT_FALSE(r.decisions[2].reroute);
    EXPECT_TRUE(r.decisions[3].reroute);
    EXPECT_TRUE(r.decisions[3].tail);
    EXPECT_EQ(r.decisions[3].path, r.decisions[0].path);
    EXPECT_EQ(r.decisions[4].path, r.decisions[3].new_path);
    EXPECT_EQ(r.decisions[4].epoch, 1);
    EXPECT_TRUE(r.decisions[4].rerouted);
    EXPECT_EQ(r.decisions[4].tail_tx_ts, r.decisions[3].tx_ts);
    EXPECT_EQ(r.cnt.rtt_replies, 1u);
  }
}

// p4: the block and its control packets in conweave-p4's wire format; then a CLEAR in the seed's format is
// not a control packet there (bad_control).
void ConditionThreeAndClears(bool p4) {
  RerouteCfg cfg = Cfg();
  cfg.p4_format = p4;
  std::vector<Event> ev = {Host(100, Nic(kHostA, 0x11, 1)), Host(140, Nic(kHostA, 0x11, 2)),  // reroute
                           Host(141, Nic(kHostA, 0x11, 3)), Host(190, Nic(kHostA, 0x11, 4)),  // blocked (iii)
                           Ctrl(191, 1, reorder::kCwClear, 0, -1, p4),                         // stale
                           Ctrl(192, 1, reorder::kCwClear, 1, -1, p4),                         // the CLEAR
                           Ctrl(193, 1, reorder::kCwClear, 1, -1, p4)};                        // duplicate
  if (p4) ev.push_back(Ctrl(193, 0, reorder::kCwClear, 1, -1, false));
  ev.push_back(Host(194, Nic(kHostA, 0x11, 5)));
  ev.push_back(Host(195, Nic(kHostA, 0x11, 6)));
  RunOut r = RunEvents(ev, cfg);
  EXPECT_EQ(r.cnt.reroute_blocked_clear, 1u);
  EXPECT_EQ(r.cnt.clears, 1u);
  EXPECT_EQ(r.cnt.stale_clears, 2u);
  EXPECT_EQ(r.cnt.bad_control, p4 ? 1u : 0u);
  EXPECT_EQ(r.cnt.reroutes, 2u);
  EXPECT_FALSE(r.decisions[4].rerouted);
  EXPECT_EQ(r.decisions[5].epoch, 2);
}

TEST(RerouteLockstep, ConditionThreeAndClears) { ConditionThreeAndClears(false); }
TEST(RerouteLockstep, ConweaveP4ConditionThreeAndClears) { ConditionThreeAndClears(true); }

TEST(RerouteLockstep, ConditionTwoNotifyAndItsExpiry) {
  RerouteCfg cfg = Cfg();
  cfg.paths = 4;
  std::vector<Event> ev = {Host(100, Nic(kHostA, 0x11, 1))};
  for (int p = 0; p < 4; ++p) ev.push_back(Ctrl(120, 0, reorder::kCwNotify, 0, p));
  ev.push_back(Ctrl(120, 0, reorder::kCwNotify, 0, 9));  // beyond the table: bad_control
  ev.push_back(Host(150, Nic(kHostA, 0x11, 2)));           // no viable path
  ev.push_back(Host(219, Nic(kHostA, 0x11, 3)));           // still busy
  ev.push_back(Host(221, Nic(kHostA, 0x11, 4)));           // expired: reroute
  RunOut r = RunEvents(ev, cfg);
  EXPECT_EQ(r.cnt.notifies, 4u);
  EXPECT_EQ(r.cnt.bad_control, 1u);
  EXPECT_EQ(r.cnt.reroute_no_path, 2u);
  EXPECT_TRUE(r.decisions[3].reroute);
}

TEST(RerouteLockstep, TimestampWrap) {
  std::vector<Event> ev = {Host(65530, Nic(kHostA, 0x11, 1)), Host(65569, Nic(kHostA, 0x11, 2)),
                           Host(65570, Nic(kHostA, 0x11, 3)), Host(65571, Nic(kHostA, 0x11, 4))};
  RunOut r = RunEvents(ev, Cfg());
  EXPECT_FALSE(r.decisions[1].reroute);
  EXPECT_TRUE(r.decisions[2].reroute);
  EXPECT_EQ(r.decisions[2].tail_tx_ts, 34);
  EXPECT_EQ(r.decisions[3].tail_tx_ts, 34);
}

TEST(RerouteLockstep, FlowTableOverflowFallsBackToEcmp) {
  RerouteCfg cfg = Cfg();
  cfg.flows_mask = 0;
  cfg.flow_idle_us = 500;
  std::vector<Event> ev;
  for (uint64_t t = 100; t < 600; t += 50) {
    ev.push_back(Host(t, Nic(kHostA, 0x11, static_cast<uint32_t>(t))));
    ev.push_back(Host(t, Nic(kHostB, 0x22, static_cast<uint32_t>(t))));
  }
  ev.push_back(Host(1100, Nic(kHostB, 0x22, 9)));  // A idle: B takes the entry
  ev.push_back(Host(1101, Nic(kHostA, 0x11, 9)));  // now A falls back
  RunOut r = RunEvents(ev, cfg);
  EXPECT_EQ(r.cnt.fallback_ecmp, 11u);
  EXPECT_EQ(r.cnt.evictions, 1u);
  EXPECT_GT(r.cnt.reroutes, 0u);  // A rerouted while it held the entry
  uint8_t b_path = r.decisions[1].path;
  for (size_t i = 1; i < 20; i += 2) EXPECT_EQ(r.decisions[i].path, b_path);
  EXPECT_EQ(r.decisions[20].path, b_path);
}

TEST(RerouteLockstep, IdleResetIpv6MalformedAndStaleControl) {
  auto bad = Nic(kHostA, 0x11, 2);
  bad[36] ^= 1;
  auto lenbad = Nic(kHostA, 0x11, 3);
  lenbad.push_back(0);
  std::vector<uint8_t> longf = Nic(kHostA, 0x11, 4, 4700);  // longer than 4604 bytes
  std::vector<Event> ev = {Host(100, reorder::ToIpv6(Nic(kHostA, 0x11, 1))),
                           Ctrl(101, 0, reorder::kCwRttReply, 0),
                           Ctrl(102, 0, reorder::kCwRttReply, 0),  // stale: no request outstanding
                           Host(103, bad), Host(104, lenbad), Host(105, longf),
                           RawCtrl(106, Nic(kHostB, 0x22, 1)),     // a data packet on the control input
                           Host(107, Nic(kHostB, 0x22, 1)), Host(150, Nic(kHostB, 0x22, 2)),  // reroute
                           Host(5000, Nic(kHostB, 0x22, 3))};  // idle 2 ms, CLEAR never came
  RunOut r = RunEvents(ev, Cfg());
  EXPECT_EQ(r.cnt.drop_malformed, 3u);
  EXPECT_EQ(r.cnt.rtt_replies, 1u);
  EXPECT_EQ(r.cnt.stale_replies, 1u);
  EXPECT_EQ(r.cnt.bad_control, 1u);
  EXPECT_EQ(r.cnt.idle_resets, 1u);
  EXPECT_FALSE(r.decisions.back().rerouted);
}

void RandomTrafficAndControl(bool p4) {
  std::mt19937 rng(11);
  RerouteCfg cfg = Cfg();
  cfg.p4_format = p4;
  cfg.flows_mask = 7;  // 8 entries for 24 flows: fallbacks and evictions
  cfg.flow_idle_us = 300;
  cfg.reply_cutoff_us = 20;
  std::vector<Event> ev;
  uint64_t t = 100;
  int decided = 0;
  for (int i = 0; i < 600; ++i) {
    t += rng() % 6;
    const int k = static_cast<int>(rng() % 10);
    if (k < 6 || decided == 0) {
      const uint32_t fl = rng() % 24;
      auto f = Nic(kHostA + fl % 4, 0x40 + fl, static_cast<uint32_t>(i), static_cast<int>(rng() % 1200));
      if (rng() % 40 == 0) f[14] = 0x46;  // IPv4 options: malformed
      ev.push_back(Host(t, f));
      ++decided;
    } else {
      const int ref = static_cast<int>(rng() % static_cast<uint32_t>(decided));
      const uint8_t op = k == 6 ? reorder::kCwNotify : k == 7 ? reorder::kCwClear : reorder::kCwRttReply;
      ev.push_back(Ctrl(t, ref, op, static_cast<uint8_t>(rng() % 4), op == reorder::kCwNotify ? int(rng() % 8) : -1,
                        p4));
    }
  }
  // A malformed decision has no frame: control made from one is an empty frame (bad_control).
  for (auto& e : ev) {
    if (!e.ctrl) continue;
    auto inner = e.ctrl;
    e.ctrl = [inner](const std::vector<DataResult>& d) {
      std::vector<DataResult> dd = d;
      for (auto& x : dd)
        if (!x.ok) x.frame = std::vector<uint8_t>(60, 0);
      return inner(dd);
    };
  }
  for (double bp : {0.0, 0.6}) {
    RunOut r = RunEvents(ev, cfg, bp, 3);
    EXPECT_GT(r.cnt.reroutes, 0u);
    EXPECT_GT(r.cnt.fallback_ecmp, 0u);
    EXPECT_GT(r.cnt.clears + r.cnt.stale_clears, 0u);
    if (p4) EXPECT_GT(r.cnt.clears + r.cnt.rtt_replies + r.cnt.notifies, 0u);
    std::printf("random%s: in %u out %u malformed %u reroutes %u fallback %u evictions %u ctrl %u\n",
                p4 ? " (conweave-p4)" : "", r.cnt.in, r.cnt.out, r.cnt.drop_malformed, r.cnt.reroutes,
                r.cnt.fallback_ecmp, r.cnt.evictions, r.cnt.ctrl_in);
  }
}

TEST(RerouteLockstep, RandomTrafficAndControlUnderBackpressure) { RandomTrafficAndControl(false); }

// conweave-p4's wire format (docs/reroute.md "Wire format"): the same random traffic, control packets in
// that format, RTL and model compared every cycle.
TEST(RerouteLockstep, ConweaveP4RandomTrafficAndControlUnderBackpressure) { RandomTrafficAndControl(true); }

void ClosedLoopInLockstep(uint64_t seed, bool p4) {
  for (double bp : {0.0, 0.3}) {
    RerouteLockstep src;
    LoopResult r = RunClosedLoop(&src, bp, seed, p4);
    EXPECT_EQ(src.mismatches(), 0u) << src.FirstMismatchLine();
    ExpectLoopOk(r);
  }
}

TEST(RerouteLockstep, ClosedLoopWithTheDestinationToR) { ClosedLoopInLockstep(5, false); }
// Both ToRs in conweave-p4's wire format, the source ToR's RTL and model in lockstep.
TEST(RerouteLockstep, ClosedLoopConweaveP4WireFormat) { ClosedLoopInLockstep(6, true); }

}  // namespace
}  // namespace nettwin::reroute
