// ConWeave source-ToR block (docs/reroute.md): the golden model packet by packet (each rerouting condition,
// RTT request / reply / cutoff, NOTIFY, TAIL / epoch marking, timestamp wrap, flow-table overflow), the cycle
// model's stream behaviour (backpressure, conservation), and the closed loop with the destination ToR's
// cycle model (reorder::ReorderCycleModel): hosts -> reroute -> a 4-path fabric with one congested path ->
// reorder -> hosts, control packets back. Expected fabric frames come from the reorder tests' own encoder
// (tb/reorder/reorder_frames.h ToFabric), control packets from the reorder block's builder, and delivery
// order from the reorder block: nothing here is hand-written bytes.
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "model/common/bytes.h"
#include "model/common/checksum.h"
#include "model/reorder/reorder_frame.h"
#include "model/reorder/reorder_cycle_model.h"
#include "model/reroute/reroute_core.h"
#include "model/reroute/reroute_cycle_model.h"
#include "tb/reorder/reorder_frames.h"
#include "tb/reroute/reroute_loop.h"

namespace nettwin::reroute {
namespace {

constexpr uint32_t kHostA = 0x0a000002, kHostB = 0x0a000003;

RerouteCfg Cfg() {
  RerouteCfg c;
  c.paths = 8;
  c.reply_cutoff_us = 40;
  c.path_busy_us = 100;
  c.flow_idle_us = 2000;
  return c;
}

std::vector<uint8_t> Nic(uint32_t src, uint32_t qp, uint32_t psn, int payload = 64) {
  return reorder::NicWrite(src, qp, psn, payload);
}

// The flow hash the way the reorder block computes it on the fabric frame (its own parser).
uint16_t FabricHash(const std::vector<uint8_t>& fabric) {
  std::array<uint8_t, reorder::kWindowBytes> w{};
  for (size_t i = 0; i < w.size() && i < fabric.size(); ++i) w[i] = fabric[i];
  const int len = fabric.size() <= w.size() ? static_cast<int>(fabric.size()) : -1;
  reorder::CwMeta m = reorder::ParseCw(w.data(), len);
  EXPECT_TRUE(m.ok);
  return reorder::FlowHash(m.key);
}

CtrlResult SendControl(RerouteCore* core, const std::vector<uint8_t>& f, uint16_t now) {
  std::array<uint8_t, kCtrlBytes> w{};
  for (size_t i = 0; i < w.size() && i < f.size(); ++i) w[i] = f[i];
  return core->Control(w.data(), static_cast<int>(f.size()), now);
}

DataResult Send(RerouteCore* core, const std::vector<uint8_t>& nic, uint16_t now) {
  return core->Data(nic.data(), static_cast<int>(nic.size()), now);
}

// The fabric frame must be the reorder tests' encoding of the NIC frame with the fields reported.
void ExpectEncoding(const std::vector<uint8_t>& nic, const DataResult& r) {
  ASSERT_TRUE(r.ok);
  reorder::CwFields f;
  f.path_id = r.path;
  f.op = r.op;
  f.epoch = r.epoch;
  f.rerouted = r.rerouted;
  f.tail = r.tail;
  f.tx_ts = r.tx_ts;
  f.tail_tx_ts = r.tail_tx_ts;
  EXPECT_EQ(r.frame, reorder::ToFabric(nic, f));
}

struct Fixture {
  RerouteCore core;
  explicit Fixture(const RerouteCfg& c = Cfg()) { core.SetConfig(c); }
};

TEST(RerouteGolden, NewFlowTakesItsEcmpPathAndSendsOneRttRequest) {
  Fixture t;
  const auto nic = Nic(kHostA, 0x11, 1);
  DataResult a = Send(&t.core, nic, 100);
  ExpectEncoding(nic, a);
  const uint16_t h = FabricHash(a.frame);
  EXPECT_EQ(a.path, EcmpPath(h, 8));
  EXPECT_EQ(a.op, reorder::kCwRttRequest);
  EXPECT_EQ(a.epoch, 0);
  EXPECT_FALSE(a.rerouted || a.tail || a.fallback);
  EXPECT_EQ(a.tx_ts, 100);
  DataResult b = Send(&t.core, Nic(kHostA, 0x11, 2), 101);
  EXPECT_EQ(b.op, reorder::kCwNormal);  // one request in flight
  EXPECT_EQ(b.path, a.path);
  EXPECT_EQ(t.core.counters().rtt_requests, 1u);
}

TEST(RerouteGolden, ReplyBeforeTheCutoffKeepsThePathAndArmsTheNextRequest) {
  Fixture t;
  DataResult a = Send(&t.core, Nic(kHostA, 0x11, 1), 100);
  EXPECT_EQ(SendControl(&t.core, MirrorControl(a.frame, reorder::kCwRttReply, 0), 110), CtrlResult::kReply);
  DataResult b = Send(&t.core, Nic(kHostA, 0x11, 2), 200);  // long after the cutoff: no request is out
  EXPECT_EQ(b.op, reorder::kCwRttRequest);
  EXPECT_FALSE(b.tail);
  EXPECT_EQ(b.path, a.path);
  EXPECT_EQ(t.core.counters().reroutes, 0u);
}

TEST(RerouteGolden, AReplyForAnotherRequestIsStale) {
  Fixture t;
  DataResult a = Send(&t.core, Nic(kHostA, 0x11, 1), 100);
  auto reply = MirrorControl(a.frame, reorder::kCwRttReply, 0);
  reply[42 + 12 + 1] ^= 1;  // TX_TSTAMP low byte (IPv4: CW header at 54); the ICRC no longer matters here
  EXPECT_EQ(SendControl(&t.core, reply, 105), CtrlResult::kStaleReply);
  // A reply for a flow the table does not hold.
  DataResult other = Send(&t.core, Nic(kHostB, 0x22, 1), 101);
  RerouteCore fresh;
  fresh.SetConfig(Cfg());
  EXPECT_EQ(SendControl(&fresh, MirrorControl(other.frame, reorder::kCwRttReply, 0), 102), CtrlResult::kStaleReply);
  EXPECT_EQ(t.core.counters().stale_replies, 1u);
}

TEST(RerouteGolden, CutoffExceededReroutesWithATailOnTheOldPath) {
  Fixture t;
  DataResult a = Send(&t.core, Nic(kHostA, 0x11, 1), 100);
  DataResult b = Send(&t.core, Nic(kHostA, 0x11, 2), 139);  // 39 us: not yet
  EXPECT_FALSE(b.tail);
  EXPECT_EQ(t.core.counters().reroutes, 0u);
  const auto nic = Nic(kHostA, 0x11, 3);
  DataResult c = Send(&t.core, nic, 140);  // 40 us = the cutoff: condition (i)
  ExpectEncoding(nic, c);
  EXPECT_TRUE(c.reroute);
  EXPECT_TRUE(c.tail);
  EXPECT_EQ(c.path, a.path);  // the TAIL takes the old path
  EXPECT_EQ(c.epoch, 0);
  EXPECT_EQ(c.op, reorder::kCwNormal);
  EXPECT_EQ(c.tail_tx_ts, 140);
  EXPECT_NE(c.new_path, a.path);
  EXPECT_TRUE(c.new_path == c.candidates[0] || c.new_path == c.candidates[1]);
  EXPECT_NE(c.candidates[0] % 4, c.candidates[1] % 4);  // two ways of the 4-way table
  DataResult d = Send(&t.core, Nic(kHostA, 0x11, 4), 141);
  EXPECT_EQ(d.path, c.new_path);
  EXPECT_EQ(d.epoch, 1);
  EXPECT_TRUE(d.rerouted);
  EXPECT_FALSE(d.tail);
  EXPECT_EQ(d.tail_tx_ts, 140);
  EXPECT_EQ(d.op, reorder::kCwRttRequest);  // monitoring restarts on the new path
}

TEST(RerouteGolden, ConditionThreeBlocksASecondRerouteUntilTheClear) {
  Fixture t;
  Send(&t.core, Nic(kHostA, 0x11, 1), 100);
  DataResult c = Send(&t.core, Nic(kHostA, 0x11, 2), 140);
  ASSERT_TRUE(c.reroute);
  DataResult d = Send(&t.core, Nic(kHostA, 0x11, 3), 141);  // RTT_REQUEST on the new path
  DataResult e = Send(&t.core, Nic(kHostA, 0x11, 4), 190);  // its cutoff is exceeded, no CLEAR yet
  EXPECT_FALSE(e.reroute);
  EXPECT_EQ(e.path, c.new_path);
  EXPECT_EQ(t.core.counters().reroute_blocked_clear, 1u);
  // A CLEAR of the old epoch is stale; the one of epoch 1 (what reorder sends: the TAIL's epoch + 1) counts.
  EXPECT_EQ(SendControl(&t.core, MirrorControl(c.frame, reorder::kCwClear, 0), 191), CtrlResult::kStaleClear);
  EXPECT_EQ(SendControl(&t.core, MirrorControl(c.frame, reorder::kCwClear, 1), 192), CtrlResult::kClear);
  EXPECT_EQ(SendControl(&t.core, MirrorControl(c.frame, reorder::kCwClear, 1), 193), CtrlResult::kStaleClear);
  DataResult f = Send(&t.core, Nic(kHostA, 0x11, 5), 194);
  EXPECT_TRUE(f.reroute);  // (i) still holds, (iii) now holds
  EXPECT_EQ(f.epoch, 1);
  EXPECT_FALSE(f.rerouted);  // REROUTED ends with the CLEAR
  EXPECT_EQ(f.path, c.new_path);
  DataResult g = Send(&t.core, Nic(kHostA, 0x11, 6), 195);
  EXPECT_EQ(g.epoch, 2);
  EXPECT_EQ(g.path, f.new_path);
  (void)d;
}

TEST(RerouteGolden, ConditionTwoNoViablePathUntilTheNotifyExpires) {
  RerouteCfg cfg = Cfg();
  cfg.paths = 4;
  Fixture t(cfg);
  DataResult a = Send(&t.core, Nic(kHostA, 0x11, 1), 100);
  // NOTIFY every path (the reorder block mirrors a CE-marked packet; its PathID is in BTH byte 4).
  for (int p = 0; p < 4; ++p) {
    auto f = a.frame;
    f[42 + 4] = static_cast<uint8_t>(p);
    EXPECT_EQ(SendControl(&t.core, MirrorControl(f, reorder::kCwNotify, 0), 120), CtrlResult::kNotify);
  }
  DataResult b = Send(&t.core, Nic(kHostA, 0x11, 2), 150);
  EXPECT_FALSE(b.reroute);
  EXPECT_EQ(t.core.counters().reroute_no_path, 1u);
  DataResult c = Send(&t.core, Nic(kHostA, 0x11, 3), 219);  // 99 us after the NOTIFYs: still busy
  EXPECT_FALSE(c.reroute);
  DataResult d = Send(&t.core, Nic(kHostA, 0x11, 4), 220);  // 100 us: expired
  EXPECT_TRUE(d.reroute);
  EXPECT_EQ(t.core.counters().reroute_no_path, 2u);
  EXPECT_EQ(t.core.counters().notifies, 4u);
}

TEST(RerouteGolden, TheFirstCandidateThatIsNotCongestedIsTaken) {
  RerouteCfg cfg = Cfg();
  Fixture t(cfg);
  DataResult a = Send(&t.core, Nic(kHostA, 0x11, 1), 100);
  const uint16_t h = FabricHash(a.frame);
  uint16_t now = 140;  // a time whose two candidates are both other than the current path
  while (Candidates(h, now, 8)[0] == a.path || Candidates(h, now, 8)[1] == a.path) ++now;
  const auto cand = Candidates(h, now, 8);
  // Congest the first candidate: the second is taken.
  auto f = a.frame;
  f[42 + 4] = cand[0];
  SendControl(&t.core, MirrorControl(f, reorder::kCwNotify, 0), 130);
  DataResult b = Send(&t.core, Nic(kHostA, 0x11, 2), now);
  ASSERT_TRUE(b.reroute);
  EXPECT_EQ(b.candidates, cand);
  EXPECT_EQ(b.new_path, cand[1]);
  EXPECT_FALSE(t.core.Congested(b.new_path, now));
}

TEST(RerouteGolden, NotifyWithAPathBeyondTheTableIsBadControl) {
  Fixture t;
  DataResult a = Send(&t.core, Nic(kHostA, 0x11, 1), 100);
  auto f = a.frame;
  f[42 + 4] = 8;  // paths = 8
  EXPECT_EQ(SendControl(&t.core, MirrorControl(f, reorder::kCwNotify, 0), 101), CtrlResult::kBad);
  EXPECT_EQ(SendControl(&t.core, a.frame, 101), CtrlResult::kBad);  // a data packet on the control input
  EXPECT_EQ(t.core.counters().bad_control, 2u);
  EXPECT_EQ(t.core.counters().ctrl_in, 2u);
}

TEST(RerouteGolden, EpochWrapsAfterFourReroutes) {
  Fixture t;
  uint16_t now = 100;
  uint32_t psn = 1;
  Send(&t.core, Nic(kHostA, 0x11, psn++), now);
  uint8_t expect_epoch = 0;
  for (int k = 0; k < 5; ++k) {
    now = static_cast<uint16_t>(now + 40);
    DataResult tail = Send(&t.core, Nic(kHostA, 0x11, psn++), now);
    ASSERT_TRUE(tail.reroute) << k;
    EXPECT_EQ(tail.epoch, expect_epoch);
    expect_epoch = static_cast<uint8_t>((expect_epoch + 1) & 3);
    SendControl(&t.core, MirrorControl(tail.frame, reorder::kCwClear, expect_epoch), ++now);
    DataResult next = Send(&t.core, Nic(kHostA, 0x11, psn++), ++now);  // RTT_REQUEST on the new path
    EXPECT_EQ(next.epoch, expect_epoch);
    EXPECT_EQ(next.op, reorder::kCwRttRequest);
  }
  EXPECT_EQ(t.core.counters().reroutes, 5u);
  EXPECT_EQ(t.core.counters().clears, 5u);
}

TEST(RerouteGolden, TimestampsWrapAt16Bits) {
  Fixture t;
  DataResult a = Send(&t.core, Nic(kHostA, 0x11, 1), 65530);
  EXPECT_EQ(a.tx_ts, 65530);
  DataResult b = Send(&t.core, Nic(kHostA, 0x11, 2), 33);  // 39 us later across the wrap
  EXPECT_FALSE(b.reroute);
  DataResult c = Send(&t.core, Nic(kHostA, 0x11, 3), 34);  // 40 us
  EXPECT_TRUE(c.reroute);
  EXPECT_EQ(c.tail_tx_ts, 34);
  // The MSB of the difference: more than 32.8 ms counts as elapsed for any threshold.
  EXPECT_TRUE(Elapsed(0x9000, 0x1000, 32767));
  EXPECT_FALSE(Elapsed(0x1000, 0x1000, 1));
  EXPECT_TRUE(Elapsed(0x0005, 0xFFFB, 10));
  EXPECT_FALSE(Elapsed(0x0005, 0xFFFB, 11));
}

TEST(RerouteGolden, MoreFlowsThanEntriesFallBackToEcmpAndNeverReroute) {
  RerouteCfg cfg = Cfg();
  cfg.flows_mask = 0;  // one entry
  cfg.flow_idle_us = 500;
  Fixture t(cfg);
  DataResult a = Send(&t.core, Nic(kHostA, 0x11, 1), 100);
  EXPECT_FALSE(a.fallback);
  const auto nic_b = Nic(kHostB, 0x22, 1);
  DataResult b = Send(&t.core, nic_b, 101);
  ExpectEncoding(nic_b, b);
  EXPECT_TRUE(b.fallback);
  EXPECT_EQ(b.path, EcmpPath(FabricHash(b.frame), 8));
  EXPECT_EQ(b.op, reorder::kCwNormal);
  EXPECT_EQ(b.epoch, 0);
  for (uint16_t now = 150; now < 550; now = static_cast<uint16_t>(now + 50)) {
    Send(&t.core, Nic(kHostA, 0x11, 2), now);  // keeps A live (and rerouting)
    DataResult bb = Send(&t.core, nic_b, now);
    EXPECT_TRUE(bb.fallback);
    EXPECT_EQ(bb.path, b.path);  // one path, always
    EXPECT_FALSE(bb.tail || bb.rerouted);
  }
  // A goes idle for flow_idle_us: B takes the entry, on the same (ECMP) path.
  DataResult b2 = Send(&t.core, nic_b, 1100);
  EXPECT_FALSE(b2.fallback);
  EXPECT_EQ(b2.path, b.path);
  EXPECT_EQ(t.core.counters().evictions, 1u);
  EXPECT_EQ(t.core.counters().fallback_ecmp, 9u);
}

TEST(RerouteGolden, AnIdleFlowForgetsALostClear) {
  Fixture t;
  Send(&t.core, Nic(kHostA, 0x11, 1), 100);
  DataResult c = Send(&t.core, Nic(kHostA, 0x11, 2), 140);
  ASSERT_TRUE(c.reroute);
  DataResult d = Send(&t.core, Nic(kHostA, 0x11, 3), 2140);  // idle 2000 us, CLEAR never came
  EXPECT_FALSE(d.rerouted);
  EXPECT_EQ(d.epoch, 1);
  EXPECT_EQ(t.core.counters().idle_resets, 1u);
}

TEST(RerouteGolden, Ipv6FlowsAndMalformedFrames) {
  Fixture t;
  const auto v6 = reorder::ToIpv6(Nic(kHostA, 0x11, 1));
  DataResult a = Send(&t.core, v6, 100);
  ExpectEncoding(v6, a);
  EXPECT_EQ(SendControl(&t.core, MirrorControl(a.frame, reorder::kCwRttReply, 0), 101), CtrlResult::kReply);
  auto bad = Nic(kHostA, 0x11, 2);
  bad[36] ^= 1;  // UDP destination port
  EXPECT_FALSE(Send(&t.core, bad, 102).ok);
  auto shortf = Nic(kHostA, 0x11, 3);
  shortf.resize(40);
  EXPECT_FALSE(Send(&t.core, shortf, 103).ok);
  auto lenbad = Nic(kHostA, 0x11, 4);
  lenbad.push_back(0);  // the IP length no longer matches
  EXPECT_FALSE(Send(&t.core, lenbad, 104).ok);
  const RerouteCounters& c = t.core.counters();
  EXPECT_EQ(c.in, 4u);
  EXPECT_EQ(c.drop_malformed, 3u);
  EXPECT_EQ(c.in, c.out + c.drop_malformed);
}

// ---- conweave-p4's wire format (docs/reroute.md "Wire format", `wire_format conweave-p4`) ----

// The fields a decision put on the wire, as the reorder block's parser reads them and as the core reported.
std::tuple<int, int, int, bool, bool, int, int> Fields(const reorder::CwMeta& m) {
  return {m.path_id, m.op, m.epoch, m.rerouted, m.tail, m.tx_ts, m.tail_tx_ts};
}
std::tuple<int, int, int, bool, bool, int, int> Fields(const DataResult& r) {
  return {r.path, r.op, r.epoch, r.rerouted, r.tail, r.tx_ts, r.tail_tx_ts};
}

// The p4 frame read back by the reorder block's own parser in conweave-p4's format gives exactly the
// decision's seed meaning; stripped of the CW header and the two BTH bytes it is the NIC frame byte for byte
// (no length grown, the IPv4 checksum the NIC's).
void ExpectP4Encoding(const std::vector<uint8_t>& nic, const DataResult& r) {
  ASSERT_TRUE(r.ok);
  ASSERT_EQ(r.frame.size(), nic.size() + 4);
  std::array<uint8_t, reorder::kWindowBytes> w{};
  for (size_t i = 0; i < w.size() && i < r.frame.size(); ++i) w[i] = r.frame[i];
  const int len = r.frame.size() <= w.size() ? static_cast<int>(r.frame.size()) : -1;
  const reorder::CwMeta m = reorder::ParseCw(w.data(), len, true);
  ASSERT_TRUE(m.ok);
  EXPECT_EQ(Fields(m), Fields(r));
  EXPECT_EQ(m.ip_len, nic.size() - (m.v6 ? 54 : 14) + 4);  // the reorder block's length check
  const int bth = m.cw_off - 12;
  EXPECT_EQ((r.frame[bth + 8] >> 5) & 3, 1);                // conweave-p4's DATA opcode
  EXPECT_EQ((r.frame[bth + 8] >> 1) & 1, (r.op == reorder::kCwRttRequest || r.tail) ? 1 : 0);  // ask_reply
  std::vector<uint8_t> back = r.frame;
  back.erase(back.begin() + m.cw_off, back.begin() + m.cw_off + 4);
  back[bth + 4] = 0;
  back[bth + 8] &= 0x80;
  EXPECT_EQ(back, nic);
}

// The same host traffic and the same control events, each in its own format, through a seed-format and a
// conweave-p4-format core: the decisions are identical (nothing after the parse depends on the format).
TEST(RerouteP4Format, SameDecisionsAsTheSeedFormatWithControlFromTheReorderBuilder) {
  RerouteCfg cs = Cfg(), cp = Cfg();
  cs.paths = cp.paths = 4;
  cp.p4_format = true;
  Fixture seed(cs), p4(cp);
  uint32_t psn = 1;
  std::vector<std::pair<DataResult, DataResult>> d;
  auto send = [&](uint32_t src, uint32_t qp, uint16_t now) {
    const auto nic = src == kHostB ? reorder::ToIpv6(Nic(src, qp, psn++)) : Nic(src, qp, psn++);
    DataResult a = Send(&seed.core, nic, now), b = Send(&p4.core, nic, now);
    ExpectEncoding(nic, a);
    ExpectP4Encoding(nic, b);
    EXPECT_EQ(Fields(a), Fields(b));
    EXPECT_EQ(a.new_path, b.new_path);
    d.emplace_back(a, b);
    return d.size() - 1;
  };
  // Control built by the reorder block's builder from each core's own frame, in that core's format.
  auto ctrl = [&](size_t ref, uint8_t op, uint8_t epoch, uint16_t now, int path = -1) {
    CtrlResult a = SendControl(&seed.core, MirrorControl(d[ref].first.frame, op, epoch, path, false), now);
    CtrlResult b = SendControl(&p4.core, MirrorControl(d[ref].second.frame, op, epoch, path, true), now);
    EXPECT_EQ(a, b) << "op " << int(op) << " at " << now;
    return b;
  };
  for (uint32_t host : {kHostA, kHostB}) {  // IPv4, then IPv6
    const uint16_t t0 = host == kHostA ? 100 : 5000;
    const size_t a = send(host, 0x11, t0);                          // RTT_REQUEST
    EXPECT_EQ(ctrl(a, reorder::kCwRttReply, 0, t0 + 5), CtrlResult::kReply);
    send(host, 0x11, t0 + 10);                                      // the next RTT_REQUEST
    const size_t tail = send(host, 0x11, t0 + 50);                  // cutoff: the TAIL, epoch 0 -> 1
    ASSERT_TRUE(d[tail].second.reroute);
    send(host, 0x11, t0 + 51);                                      // REROUTED, phase 1
    send(host, 0x11, t0 + 100);                                     // blocked by (iii)
    EXPECT_EQ(ctrl(tail, reorder::kCwClear, 0, t0 + 101), CtrlResult::kStaleClear);
    EXPECT_EQ(ctrl(tail, reorder::kCwClear, 1, t0 + 102), CtrlResult::kClear);
    EXPECT_EQ(ctrl(tail, reorder::kCwClear, 1, t0 + 103), CtrlResult::kStaleClear);
    for (int p = 0; p < 4; ++p) EXPECT_EQ(ctrl(tail, reorder::kCwNotify, 0, t0 + 104, p), CtrlResult::kNotify);
    send(host, 0x11, t0 + 105);                                     // (i) and (iii), no path (ii)
    EXPECT_EQ(ctrl(tail, reorder::kCwNotify, 0, t0 + 106, 4), CtrlResult::kBad);  // path beyond the table
    // Epochs around the 2-bit wrap, each reroute cleared: p4 epoch = seed epoch - phase, mod 4.
    uint16_t now = static_cast<uint16_t>(t0 + 210);
    for (int k = 0; k < 5; ++k) {
      const size_t t = send(host, 0x11, now);
      if (d[t].second.reroute) {
        EXPECT_EQ(ctrl(t, reorder::kCwClear, (d[t].second.epoch + 1) & 3, now + 1), CtrlResult::kClear);
      }
      send(host, 0x11, static_cast<uint16_t>(now + 2));
      now = static_cast<uint16_t>(now + 45);
    }
  }
  // Fallback to ECMP (another flow in the one entry) is DATA, epoch 0, phase 0, no ask_reply.
  RerouteCfg one = cp;
  one.flows_mask = 0;
  Fixture f(one);
  Send(&f.core, Nic(kHostA, 0x11, 1), 100);
  const auto nic = Nic(kHostA, 0x22, 1);
  DataResult fb = Send(&f.core, nic, 101);
  ASSERT_TRUE(fb.fallback);
  ExpectP4Encoding(nic, fb);
  EXPECT_EQ(seed.core.counters(), p4.core.counters());
  EXPECT_GT(p4.core.counters().reroutes, 4u);
  EXPECT_EQ(p4.core.counters().clears, seed.core.counters().clears);
  EXPECT_GT(p4.core.counters().clears, 4u);
}

TEST(RerouteP4Format, ControlInTheOtherFormatIsNotTakenForControl) {
  RerouteCfg cp = Cfg();
  cp.p4_format = true;
  Fixture p4(cp), seed;
  const auto nic = Nic(kHostA, 0x11, 1);
  DataResult a = Send(&p4.core, nic, 100);
  DataResult b = Send(&seed.core, nic, 100);
  // Seed-format RTT_REPLY / CLEAR / NOTIFY (byte 8 opcodes 2, 3, 4) read as conweave-p4's: DATA, DATA, REPLY
  // phase 0. Only the last is a control packet there (an RTT_REPLY for this flow with the right TX_TSTAMP).
  EXPECT_EQ(SendControl(&p4.core, MirrorControl(b.frame, reorder::kCwRttReply, 0), 101), CtrlResult::kBad);
  EXPECT_EQ(SendControl(&p4.core, MirrorControl(b.frame, reorder::kCwClear, 0), 101), CtrlResult::kBad);
  // A conweave-p4 DATA frame (the fabric frame itself) on the control input.
  EXPECT_EQ(SendControl(&p4.core, a.frame, 102), CtrlResult::kBad);
  // conweave-p4's REPLY / NOTIFY read in the seed's format: ops 4..7 = NOTIFY (path of the frame) or bad.
  EXPECT_EQ(SendControl(&seed.core, MirrorControl(a.frame, reorder::kCwRttReply, 0, -1, true), 103),
            CtrlResult::kNotify);
  EXPECT_EQ(SendControl(&p4.core, MirrorControl(a.frame, reorder::kCwRttReply, 0, -1, true), 104), CtrlResult::kReply);
  EXPECT_EQ(p4.core.counters().bad_control, 3u);
}

// ---- cycle model ----

struct Cyc {
  RerouteCycleModel m;
  RerouteIn in;
  uint64_t cycle = 0;
  std::vector<std::vector<uint8_t>> out;
  std::vector<uint8_t> partial;
  std::vector<uint8_t> out_paths;
  Cyc() { in.cfg = Cfg(); }
  // One cycle; returns whether the offered host / control beat was taken.
  std::pair<bool, bool> Step(const StreamPort& s, const StreamPort& r, bool m_ready, uint16_t now) {
    in.s = s;
    in.r = r;
    in.m_ready = m_ready;
    in.now_us = now;
    const RerouteOut& o = m.Eval(in);
    const bool s_take = s.valid && o.s_ready, r_take = r.valid && o.r_ready;
    if (o.m.valid && m_ready) {
      if (partial.empty()) out_paths.push_back(o.m_path);
      AppendBeat(o.m.beat, &partial);
      if (o.m.beat.last) {
        out.push_back(partial);
        partial.clear();
      }
    }
    m.Tick();
    ++cycle;
    return {s_take, r_take};
  }
};

TEST(RerouteCycle, BackpressureKeepsEveryFrameOnceAndInOrder) {
  Cyc c;
  std::mt19937 rng(7);
  std::vector<std::vector<uint8_t>> frames;
  for (int i = 0; i < 60; ++i) {
    auto f = Nic(i % 3 ? kHostA : kHostB, 0x10 + i % 5, i, 16 + (i * 37) % 900);
    if (i % 11 == 5) f[36] ^= 1;  // malformed: counted, never sent
    frames.push_back(f);
  }
  size_t fi = 0, bi = 0;
  std::vector<Beat> beats = ToBeats(frames[0]);
  for (int k = 0; k < 20000 && c.m.core().counters().in < frames.size() + 0; ++k) {
    StreamPort s;
    s.valid = fi < frames.size() && (rng() % 4 != 0);
    if (s.valid) s.beat = beats[bi];
    const bool ready = rng() % 3 != 0;
    auto took = c.Step(s, StreamPort{}, ready, static_cast<uint16_t>(k / 250));
    if (took.first && ++bi == beats.size()) {
      bi = 0;
      if (++fi < frames.size()) beats = ToBeats(frames[fi]);
    }
  }
  for (int k = 0; k < 2000; ++k) c.Step(StreamPort{}, StreamPort{}, true, 100);
  const RerouteCounters& n = c.m.core().counters();
  EXPECT_EQ(n.in, frames.size());
  EXPECT_EQ(n.in, n.out + n.drop_malformed);
  EXPECT_GT(n.drop_malformed, 0u);
  ASSERT_EQ(c.out.size(), n.out);
  size_t j = 0;
  for (const DataResult& d : c.m.decisions()) {
    if (!d.ok) continue;
    EXPECT_EQ(c.out[j], d.frame);
    EXPECT_EQ(c.out_paths[j], d.path);
    EXPECT_EQ(c.out[j][42 + 4], d.path);  // sideband = BTH byte 4
    ++j;
  }
  EXPECT_TRUE(c.m.Eval(c.in).idle);
}

TEST(RerouteCycle, LatencyIsTheFrameThenOneDecisionCycle) {
  Cyc c;
  const auto f = Nic(kHostA, 0x11, 1, 100);  // 162 bytes: 3 beats
  const auto beats = ToBeats(f);
  int first_out = -1;
  for (int k = 0; k < 20; ++k) {
    StreamPort s;
    if (k < static_cast<int>(beats.size())) {
      s.valid = true;
      s.beat = beats[static_cast<size_t>(k)];
    }
    c.in.s = s;
    c.in.m_ready = true;
    const RerouteOut& o = c.m.Eval(c.in);
    if (o.m.valid && first_out < 0) first_out = k;
    c.m.Tick();
  }
  // Beats in at cycles 0..2, decision at cycle 3, first beat out at cycle 4.
  EXPECT_EQ(first_out, static_cast<int>(beats.size()) + 1);
}

// `now_us` is sampled at the clock edge (the RTL's now_q): the decision in the first cycle of a new microsecond
// reads the one before, so TX_TSTAMP is the previous cycle's now_us (docs/reroute.md "Cycle behaviour").
TEST(RerouteCycle, DecisionReadsNowSampledAtTheEdge) {
  for (int step_at : {3, 4}) {  // now_us steps from 100 to 101 at the decision cycle (3), or one cycle later
    Cyc c;
    const auto f = Nic(kHostA, 0x11, 1, 100);  // 3 beats: in at cycles 0..2, decided at cycle 3
    const auto beats = ToBeats(f);
    for (int k = 0; k < 20; ++k) {
      StreamPort s;
      if (k < static_cast<int>(beats.size())) {
        s.valid = true;
        s.beat = beats[static_cast<size_t>(k)];
      }
      c.Step(s, StreamPort{}, true, static_cast<uint16_t>(k < step_at ? 100 : 101));
    }
    ASSERT_EQ(c.m.decisions().size(), 1u);
    ASSERT_TRUE(c.m.decisions()[0].ok);
    EXPECT_EQ(c.m.decisions()[0].tx_ts, 100) << "now_us steps at cycle " << step_at;
  }
}

// ---- the closed loop with the destination ToR's cycle model (tb/reroute/reroute_loop.h) ----

TEST(RerouteClosedLoop, FlowsAvoidTheCongestedPathAndArriveInOrderExactlyOnce) {
  RerouteCycleModel src;
  LoopResult r = RunClosedLoop(&src, 0.0, 1);
  ExpectLoopOk(r);
}

TEST(RerouteClosedLoop, WithFabricBackpressure) {
  RerouteCycleModel src;
  LoopResult r = RunClosedLoop(&src, 0.3, 2);
  ExpectLoopOk(r);
}

// Both ToRs with `wire_format conweave-p4`: the reorder block reads what this block sends, and this block
// reads the control packets the reorder block sends (issue 26 item 2).
TEST(RerouteClosedLoop, ConweaveP4WireFormat) {
  for (double bp : {0.0, 0.3}) {
    RerouteCycleModel src;
    LoopResult r = RunClosedLoop(&src, bp, 3, true);
    ExpectLoopOk(r);
  }
}

}  // namespace
}  // namespace nettwin::reroute
