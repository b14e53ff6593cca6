// ConWeave reorder block: behaviour tests (epochs, timestamp wrap, deadlines, queue allocation, fallback,
// buffer limit, flow-table collisions, control packets) and robustness, all with the RTL and the model in
// lockstep, so every test is also a lockstep test.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "model/common/bytes.h"
#include "model/reorder/reorder_config.h"
#include "model/reorder/reorder_frame.h"
#include "model/reorder/reorder_cycle_model.h"
#include "tb/reorder/reorder_binding.h"
#include "tb/reorder/reorder_frames.h"
#include "tb/reorder/reorder_rtl.h"
#include "tb/reorder/reorder_run.h"
#include "tb/tests/divergence_fst.h"
#include "tb/tests/error_message.h"

namespace nettwin::reorder {
namespace {

constexpr uint32_t kHostA = 0x0a000002, kHostB = 0x0a000003;
constexpr uint64_t kT0Us = 1000000;  // runs start at 1 s, like the generator's

ReorderCfg Cfg() {
  ReorderCfg c;
  c.flows_mask = kFlows - 1;
  c.queues = 32;
  c.buffer_cells = 4096;
  c.margin_us = 16;
  c.default_hold_us = 200;
  c.flow_idle_us = 2000;
  return c;
}

uint16_t Us16(uint64_t us) { return static_cast<uint16_t>(us & 0xFFFF); }

// One fabric frame of flow (src, qp) arriving at `at_us`.
Packet Frame(uint32_t src, uint32_t qp, uint32_t psn, CwFields cw, uint64_t at_us, int payload = 64) {
  return Packet{ToFabric(NicWrite(src, qp, psn, payload), cw), at_us * 1000};
}

uint32_t Psn(const Packet& p) { return Load32(&p.bytes[42 + 8]) & 0xFFFFFF; }

ReorderRunReport RunLs(const std::vector<Packet>& pkts, const ReorderCfg& cfg = Cfg(), double bp = 0) {
  ReorderRunConfig rc;
  rc.engine = Engine::kLockstep;
  rc.opt.backpressure = bp;
  rc.ctrl_backpressure = bp;
  ReorderRunReport r = RunReorder(cfg, pkts, rc);
  EXPECT_TRUE(r.mismatch_text.empty()) << r.mismatch_text;
  EXPECT_FALSE(r.run.hang);
  EXPECT_TRUE(r.conservation_ok);
  return r;
}

std::vector<uint32_t> Psns(const std::vector<Packet>& v) {
  std::vector<uint32_t> out;
  for (const Packet& p : v) out.push_back(Psn(p));
  return out;
}

// A reroute of one flow: old path (delay d_old) carries PSNs 0..n_old-1, the last one the TAIL; the new path
// (delay d_new) carries the rest, REROUTED: with d_new < d_old they overtake the TAIL (TAIL last), with
// d_new >= d_old the TAIL comes first. One packet per `gap` us.
std::vector<Packet> Reroute(uint8_t epoch_old, int n_old, int n_new, int d_old, int d_new, int gap = 1,
                            uint64_t t0 = kT0Us, bool lose_tail = false) {
  std::vector<Packet> v;
  const uint8_t epoch_new = (epoch_old + 1) & 3;
  const uint64_t tail_tx = t0 + static_cast<uint64_t>((n_old - 1) * gap);
  for (int i = 0; i < n_old + n_new; ++i) {
    const uint64_t tx = t0 + static_cast<uint64_t>(i * gap);
    CwFields c;
    c.tx_ts = Us16(tx);
    if (i < n_old) {
      c.epoch = epoch_old;
      c.path_id = 1;
      c.tail = i == n_old - 1;
      if (c.tail && lose_tail) continue;
      v.push_back(Frame(kHostA, 0x11, static_cast<uint32_t>(i), c, tx + static_cast<uint64_t>(d_old)));
    } else {
      c.epoch = epoch_new;
      c.path_id = 2;
      c.rerouted = true;
      c.tail_tx_ts = Us16(tail_tx);
      v.push_back(Frame(kHostA, 0x11, static_cast<uint32_t>(i), c, tx + static_cast<uint64_t>(d_new)));
    }
  }
  std::stable_sort(v.begin(), v.end(), [](const Packet& a, const Packet& b) { return a.time_ns < b.time_ns; });
  return v;
}

// A CRC-32 (reflected 0xEDB88320, as zlib.crc32), written here bit by bit so the expected ICRC does not
// come from the code under test.
uint32_t TestCrc32(const std::vector<uint8_t>& d) {
  uint32_t c = 0xFFFFFFFFu;
  for (uint8_t b : d) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
  }
  return ~c;
}

// The control packet docs/reorder.md's rules make of fabric frame `fab`, computed here from those rules
// (not by the model's BuildControl): truncated after the CW header, Ethernet and IP addresses swapped,
// TTL / hop limit 64, IP and UDP lengths of the truncated packet, IPv4 checksum from scratch (RFC 1071),
// BTH byte 8 = AckReq | op | epoch, then the RoCEv2 ICRC over the masked pseudo-packet (8 bytes of ones,
// IP TOS/TTL/checksum or IPv6 class/flow/hop limit, UDP checksum and BTH resv8a all ones), little-endian.
std::vector<uint8_t> ExpectedControl(const std::vector<uint8_t>& fab, uint8_t op, uint8_t epoch) {
  const bool v6 = fab[12] == 0x86 && fab[13] == 0xDD;
  const size_t udp = v6 ? 54 : 34, bth = udp + 8, end = bth + 12 + 4, len = end + 4;
  std::vector<uint8_t> f(fab.begin(), fab.begin() + static_cast<long>(end));
  auto put16 = [&f](size_t at, size_t v) {
    f[at] = static_cast<uint8_t>(v >> 8);
    f[at + 1] = static_cast<uint8_t>(v);
  };
  for (size_t i = 0; i < 6; ++i) std::swap(f[i], f[6 + i]);
  const size_t a = v6 ? 22 : 26, n = v6 ? 16 : 4;
  for (size_t i = 0; i < n; ++i) std::swap(f[a + i], f[a + n + i]);
  if (v6) {
    f[21] = 64;
    put16(18, len - 54);
  } else {
    f[22] = 64;
    put16(16, len - 14);
    put16(24, 0);
    uint32_t sum = 0;
    for (size_t i = 14; i < 34; i += 2) sum += static_cast<uint32_t>(f[i] << 8 | f[i + 1]);
    while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
    put16(24, ~sum & 0xFFFF);
  }
  put16(udp + 4, len - udp);
  f[bth + 8] = static_cast<uint8_t>((f[bth + 8] & 0x80) | (op << 4) | (epoch << 2));
  std::vector<uint8_t> m(8, 0xFF);
  m.insert(m.end(), f.begin() + 14, f.end());
  const size_t o = 8 - 14;  // frame offset -> m offset
  if (v6) {
    m[o + 14] |= 0x0F;
    for (size_t i = 15; i < 18; ++i) m[o + i] = 0xFF;
    m[o + 21] = 0xFF;
  } else {
    m[o + 15] = m[o + 22] = m[o + 24] = m[o + 25] = 0xFF;
  }
  m[o + udp + 6] = m[o + udp + 7] = 0xFF;
  m[o + bth + 4] = 0xFF;
  const uint32_t crc = TestCrc32(m);
  for (int j = 0; j < 4; ++j) f.push_back(static_cast<uint8_t>(crc >> (8 * j)));
  return f;
}

uint8_t CwOp(const Packet& p) { return (p.bytes[50] >> 4) & 7; }
uint8_t CwEpoch(const Packet& p) { return (p.bytes[50] >> 2) & 3; }

// The cycle a control frame's first beat left (its stamp is the departure time at 250 MHz).
uint64_t CtrlCycle(const Packet& c, const std::vector<Packet>& in) { return (c.time_ns - in[0].time_ns) / 4; }

std::vector<uint32_t> Iota(int n) {
  std::vector<uint32_t> v;
  for (int i = 0; i < n; ++i) v.push_back(static_cast<uint32_t>(i));
  return v;
}

TEST(ReorderFrame, StripRestoresTheNicFrameAndControlIsWellFormed) {
  const std::vector<uint8_t> nic = NicWrite(kHostA, 0x123456, 77, 300);
  CwFields c;
  c.path_id = 9;
  c.op = kCwRttRequest;
  c.epoch = 2;
  c.tail = true;
  c.tx_ts = 0xFFFE;
  c.tail_tx_ts = 0x0003;
  const std::vector<uint8_t> fab = ToFabric(nic, c);
  ASSERT_EQ(fab.size(), nic.size() + 4);
  std::array<uint8_t, kWindowBytes> win{};
  std::copy(fab.begin(), fab.begin() + kWindowBytes, win.begin());
  CwMeta m = ParseCw(win.data(), -1);
  ASSERT_TRUE(m.ok);
  EXPECT_EQ(m.path_id, 9);
  EXPECT_EQ(m.op, kCwRttRequest);
  EXPECT_EQ(m.epoch, 2);
  EXPECT_FALSE(m.rerouted);
  EXPECT_TRUE(m.tail);
  EXPECT_EQ(m.tx_ts, 0xFFFE);
  EXPECT_EQ(m.tail_tx_ts, 3);
  EXPECT_EQ(m.cw_off, 54);
  // Through the block: the host gets exactly the NIC frame; the RTT_REPLY mirrors the header, and (the
  // flow's first packet being a TAIL) a CLEAR for epoch 3 mirrors it too.
  const ReorderRunReport r = RunLs({Packet{fab, kT0Us * 1000}});
  ASSERT_EQ(r.run.out.size(), 1u);
  EXPECT_EQ(r.run.out[0].bytes, nic);
  ASSERT_EQ(r.ctrl.size(), 2u);
  const std::vector<uint8_t>& rep = r.ctrl[0].bytes;
  ASSERT_EQ(rep.size(), 62u);
  EXPECT_EQ(Load32(&rep[26]), Load32(&fab[30]));  // addresses swapped
  EXPECT_EQ(Load32(&rep[30]), Load32(&fab[26]));
  EXPECT_EQ(rep[22], 64);  // TTL
  EXPECT_EQ((rep[50] >> 4) & 7, kCwRttReply);
  EXPECT_EQ(Load16(&rep[54]), 0xFFFE);  // TX_TSTAMP echoed
  EXPECT_EQ(rep, ExpectedControl(fab, kCwRttReply, 2));
  EXPECT_EQ(r.ctrl[1].bytes, ExpectedControl(fab, kCwClear, 3));
  // The same over IPv6 (the other address and checksum rules), with an AckReq bit to keep.
  rdma::RequestSpec rq;
  rq.src_ip4 = kHostB;
  rq.opcode = rdma::op::kWriteOnly;
  rq.dqpn = 0x42;
  rq.psn = 9;
  rq.ackreq = true;
  rq.dmalen = 40;
  rq.payload.assign(40, 0x5A);
  const std::vector<uint8_t> fab6 = ToFabric(ToIpv6(rdma::BuildRequest(rq)), c);
  const ReorderRunReport r6 = RunLs({Packet{fab6, kT0Us * 1000}});
  ASSERT_EQ(r6.ctrl.size(), 2u);
  EXPECT_EQ(r6.ctrl[0].bytes.size(), 82u);
  EXPECT_EQ(r6.ctrl[0].bytes, ExpectedControl(fab6, kCwRttReply, 2));
  EXPECT_EQ(r6.ctrl[1].bytes, ExpectedControl(fab6, kCwClear, 3));
}

TEST(ReorderFrame, HashIsCrc16CcittFalseAndParseRejectsWhatIsNotADataPacket) {
  // The catalogue check value of CRC-16/CCITT-FALSE.
  const uint8_t check[] = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};
  EXPECT_EQ(Crc16CcittFalse(check, sizeof check), 0x29B1);
  const std::vector<uint8_t> good = ToFabric(NicWrite(kHostA, 0x11, 1, 32), CwFields{});
  auto parse = [](std::vector<uint8_t> f) {
    std::array<uint8_t, kWindowBytes> win{};
    std::copy(f.begin(), f.begin() + std::min<size_t>(f.size(), kWindowBytes), win.begin());
    return ParseCw(win.data(), f.size() <= static_cast<size_t>(kWindowBytes) ? static_cast<int>(f.size()) : -1);
  };
  EXPECT_TRUE(parse(good).ok);
  auto mutate = [&](int pos, uint8_t v) {
    std::vector<uint8_t> f = good;
    f[static_cast<size_t>(pos)] = v;
    return parse(f).ok;
  };
  EXPECT_FALSE(mutate(12, 0x81));  // not IP
  EXPECT_FALSE(mutate(14, 0x46));  // IPv4 options
  EXPECT_FALSE(mutate(23, 6));     // TCP
  EXPECT_FALSE(mutate(20, 0x20));  // more fragments
  EXPECT_FALSE(mutate(37, 0xB8));  // UDP port 4792
  for (uint8_t op = 2; op < 8; ++op) EXPECT_FALSE(mutate(50, static_cast<uint8_t>(op << 4))) << int{op};
  EXPECT_TRUE(mutate(50, 1 << 4));                               // RTT_REQUEST is data
  std::vector<uint8_t> shortf(good.begin(), good.begin() + 61);  // one byte short of CW header + ICRC
  EXPECT_FALSE(parse(shortf).ok);
}

TEST(ReorderFrame, FrameLengthsAroundTheBeatBoundaries) {
  // Frames whose NIC length puts the CW removal on every side of a 64-byte boundary.
  std::vector<Packet> pkts;
  std::vector<std::vector<uint8_t>> nics;
  for (int payload = 0; payload <= 400; ++payload) {
    nics.push_back(NicWrite(kHostA, 0x22, static_cast<uint32_t>(payload), payload % 201));
    if (payload > 200) nics.back() = ToIpv6(nics.back());
    CwFields c;
    c.tx_ts = Us16(kT0Us);
    pkts.push_back(Packet{ToFabric(nics.back(), c), kT0Us * 1000});
  }
  ReorderRunConfig rc;
  rc.untimed = true;
  rc.opt.gaps = 0.2;
  rc.opt.backpressure = 0.3;
  const ReorderRunReport r = RunReorder(Cfg(), pkts, rc);
  EXPECT_TRUE(r.mismatch_text.empty()) << r.mismatch_text;
  ASSERT_EQ(r.run.out.size(), nics.size());
  for (size_t i = 0; i < nics.size(); ++i) EXPECT_EQ(r.run.out[i].bytes, nics[i]) << "payload " << i;
}

TEST(Reorder, ForwardLatencyIsSixCyclesAfterTheLastBeat) {
  // docs/reorder-microarchitecture.md: I, D1, D2, R load, R read, output register.
  for (int payload : {8, 100, 1000}) {
    CwFields c;
    c.tx_ts = Us16(kT0Us);
    const ReorderRunReport r = RunLs({Frame(kHostA, 0x11, 0, c, kT0Us, payload)});
    ASSERT_EQ(r.run.out.size(), 1u);
    EXPECT_EQ(r.run.out_first_cycle[0] - r.run.in_last_cycle[0], 6u) << "payload " << payload;
  }
}

TEST(Reorder, ReroutedPacketsWaitForTheTailThenLeaveInOrder) {
  const auto pkts = Reroute(0, 30, 10, 40, 10, 2);
  const ReorderRunReport r = RunLs(pkts);
  EXPECT_EQ(Psns(r.run.out), Iota(40));
  EXPECT_GT(r.counters.held, 0u);
  EXPECT_EQ(r.counters.released_by_tail, r.counters.held);
  EXPECT_EQ(r.counters.released_by_timeout, 0u);
  // One CLEAR, carrying the new epoch, once the queue drained.
  ASSERT_EQ(r.ctrl.size(), 1u);
  EXPECT_EQ((r.ctrl[0].bytes[50] >> 4) & 7, kCwClear);
  EXPECT_EQ((r.ctrl[0].bytes[50] >> 2) & 3, 1);
}

TEST(Reorder, EpochCompareIsModularAcrossTheWrap) {
  // Epoch 3 -> 0: 0 is newer than 3, so the rerouted packets are held; old-path (3) packets pass.
  const ReorderRunReport r = RunLs(Reroute(3, 30, 10, 40, 10, 2));
  EXPECT_EQ(Psns(r.run.out), Iota(40));
  EXPECT_GT(r.counters.held, 0u);
  EXPECT_EQ(r.counters.epoch_jump, 0u);
  ASSERT_EQ(r.ctrl.size(), 1u);
  EXPECT_EQ((r.ctrl[0].bytes[50] >> 2) & 3, 0);
}

TEST(Reorder, EpochJumpOfTwoIsCountedAndTreatedAsNewer) {
  std::vector<Packet> v;
  CwFields c;
  c.tx_ts = Us16(kT0Us);
  v.push_back(Frame(kHostA, 0x11, 0, c, kT0Us));
  c.epoch = 2;  // two ahead: the source rerouted twice before any packet of epoch 1 came
  v.push_back(Frame(kHostA, 0x11, 1, c, kT0Us + 5));
  const ReorderRunReport r = RunLs(v);
  EXPECT_EQ(r.counters.epoch_jump, 1u);
  EXPECT_EQ(Psns(r.run.out), Iota(2));
}

// Issue 13: the new path is not faster (ConWeave reroutes on a predicted RTT), so the old path's TAIL
// arrives before the first rerouted packet. Nothing may be held, and the CLEAR mirrors the TAIL and leaves
// a fixed number of cycles after the TAIL's last beat came in.
constexpr uint64_t kCtrlLatencyCycles = 6;  // docs/reorder-microarchitecture.md "Latency" (5 before reorder16)

TEST(Reorder, TailFirstHoldsNothingAndClearsAtTheTail) {
  for (int d_new : {40, 45, 120}) {  // equal to the old path's delay, slower, much slower
    for (uint8_t ep : {0, 3}) {      // 3 -> 0 crosses the 2-bit epoch wrap
      const auto pkts = Reroute(ep, 30, 10, 40, d_new, 2);
      const ReorderRunReport r = RunLs(pkts);
      SCOPED_TRACE("d_new " + std::to_string(d_new) + " epoch " + std::to_string(ep));
      EXPECT_EQ(Psns(r.run.out), Iota(40));
      EXPECT_EQ(r.counters.held, 0u);
      EXPECT_EQ(r.counters.released_by_timeout, 0u);
      EXPECT_EQ(r.counters.epoch_jump, 0u);
      for (const HoldRecord& h : r.holds) EXPECT_FALSE(h.held);
      ASSERT_EQ(r.ctrl.size(), 1u);
      size_t tail = 0;
      while (Psn(pkts[tail]) != 29) ++tail;
      EXPECT_EQ(r.ctrl[0].bytes, ExpectedControl(pkts[tail].bytes, kCwClear, (ep + 1) & 3));
      EXPECT_EQ(CtrlCycle(r.ctrl[0], pkts), r.run.in_last_cycle[tail] + kCtrlLatencyCycles);
    }
  }
  // The control path's latency is the RTT_REPLY's too: one fixed pipeline for every control packet.
  CwFields c;
  c.op = kCwRttRequest;
  c.tx_ts = Us16(kT0Us);
  const std::vector<Packet> one = {Frame(kHostA, 0x11, 0, c, kT0Us)};
  const ReorderRunReport r = RunLs(one);
  ASSERT_EQ(r.ctrl.size(), 1u);
  EXPECT_EQ(CtrlCycle(r.ctrl[0], one), r.run.in_last_cycle[0] + kCtrlLatencyCycles);
}

TEST(Reorder, TailFirstThenASecondRerouteBeforeAnyPacketOfTheFirst) {
  // Epoch 0 on path 1 (10 us) ends with its TAIL (PSN 4): CLEAR(1) at once. Epoch 1 goes to a slow path
  // (100 us) and ends with its TAIL (PSN 9); the source, cleared, reroutes again at once: epoch 2 on a fast
  // path (10 us) arrives before any epoch-1 packet (d = 2, a legal jump after a TAIL-first reroute). The
  // TAIL of epoch 0 does not stand for epoch 1's, so epoch 2 is held until PSN 9, with the default
  // deadline (the skipped path's delay was never sampled), and epoch 1 passes as the previous epoch.
  std::vector<Packet> v;
  auto add = [&](uint32_t psn, uint8_t ep, bool rr, bool tail, uint64_t tx, int delay, uint64_t tail_tx) {
    CwFields c;
    c.epoch = ep;
    c.path_id = static_cast<uint8_t>(ep + 1);
    c.rerouted = rr;
    c.tail = tail;
    c.tx_ts = Us16(tx);
    c.tail_tx_ts = Us16(tail_tx);
    v.push_back(Frame(kHostA, 0x11, psn, c, tx + static_cast<uint64_t>(delay)));
  };
  const uint64_t t = kT0Us;
  for (uint32_t i = 0; i < 5; ++i) add(i, 0, false, i == 4, t + i, 10, 0);
  for (uint32_t i = 5; i < 10; ++i) add(i, 1, true, i == 9, t + i, 100, t + 4);
  for (uint32_t i = 10; i < 15; ++i) add(i, 2, true, false, t + 20 + i, 10, t + 9);
  std::stable_sort(v.begin(), v.end(), [](const Packet& a, const Packet& b) { return a.time_ns < b.time_ns; });
  const ReorderRunReport r = RunLs(v);
  EXPECT_EQ(Psns(r.run.out), Iota(15));
  EXPECT_EQ(r.counters.epoch_jump, 1u);
  EXPECT_EQ(r.counters.held, 5u);
  EXPECT_EQ(r.counters.released_by_tail, 5u);
  EXPECT_EQ(r.counters.released_by_timeout, 0u);
  ASSERT_EQ(r.ctrl.size(), 2u);
  EXPECT_EQ(r.ctrl[0].bytes, ExpectedControl(v[4].bytes, kCwClear, 1));  // at TAIL 0
  size_t tail1 = 0;
  while (Psn(v[tail1]) != 9) ++tail1;
  EXPECT_EQ(r.ctrl[1].bytes, ExpectedControl(v[tail1].bytes, kCwClear, 2));  // after the drain
}

TEST(Reorder, AStragglerAfterATailFirstRerouteIsForwardedAtOnce) {
  // A fabric that reorders within a path delivers an old-path packet after its TAIL: once before the
  // first rerouted packet, once after. It is late whatever the block does; it is forwarded at once and
  // changes nothing (no hold, no second CLEAR).
  std::vector<Packet> v = Reroute(0, 10, 6, 10, 40, 2);
  std::vector<Packet> w;
  for (const Packet& p : v) {
    if (Psn(p) == 7 || Psn(p) == 8) continue;
    w.push_back(p);
    if (Psn(p) == 9) w.push_back(Packet{v[8].bytes, p.time_ns + 1000});   // PSN 8 after the TAIL
    if (Psn(p) == 11) w.push_back(Packet{v[7].bytes, p.time_ns + 1000});  // PSN 7 after epoch 1 began
  }
  const ReorderRunReport r = RunLs(w);
  EXPECT_EQ(Psns(r.run.out), Psns(w));
  EXPECT_EQ(r.counters.held, 0u);
  ASSERT_EQ(r.ctrl.size(), 1u);
  EXPECT_EQ(CwEpoch(r.ctrl[0]), 1);
}

TEST(Reorder, ADuplicatedTailClearsOnce) {
  // TAIL first, duplicated before and after the first rerouted packet: one CLEAR, nothing held.
  std::vector<Packet> v = Reroute(0, 10, 6, 10, 40, 2);
  const Packet tail = v[9];
  ASSERT_EQ(Psn(tail), 9u);
  v.insert(v.begin() + 10, Packet{tail.bytes, tail.time_ns + 500});
  v.push_back(Packet{tail.bytes, v.back().time_ns + 500});
  const ReorderRunReport r = RunLs(v);
  EXPECT_EQ(r.run.out.size(), 18u);
  EXPECT_EQ(r.counters.held, 0u);
  ASSERT_EQ(r.ctrl.size(), 1u);
  // TAIL last, duplicated after the release: still one CLEAR (after the drain), everything in order.
  std::vector<Packet> u = Reroute(0, 20, 6, 40, 5, 2);
  u.push_back(Packet{u.back().bytes, u.back().time_ns + 500});
  ASSERT_EQ(Psn(u.back()), 19u);
  const ReorderRunReport r2 = RunLs(u);
  EXPECT_GT(r2.counters.held, 0u);
  EXPECT_EQ(r2.counters.released_by_tail, r2.counters.held);
  ASSERT_EQ(r2.ctrl.size(), 1u);
  std::vector<uint32_t> want = Iota(26);
  want.push_back(19);
  EXPECT_EQ(Psns(r2.run.out), want);
}

TEST(Reorder, AnEvictionBetweenTheTailAndTheReroutedPacketsForgetsTheTail) {
  // One flow-table entry, 100 us idle time. Flow A's TAIL comes (CLEAR), A idles, flow B takes the entry.
  ReorderCfg cfg = Cfg();
  cfg.flows_mask = 0;
  cfg.flow_idle_us = 100;
  cfg.default_hold_us = 50;
  const uint64_t t = kT0Us;
  auto build = [&](uint64_t a_rerouted_at) {
    std::vector<Packet> v;
    CwFields c;
    for (uint32_t i = 0; i < 3; ++i) {
      c.tx_ts = Us16(t + i);
      c.tail = i == 2;
      v.push_back(Frame(kHostA, 0x11, i, c, t + i + 5));
    }
    CwFields b;
    b.tx_ts = Us16(t + 150);
    v.push_back(Frame(kHostB, 0x12, 0, b, t + 150));
    CwFields rr;
    rr.epoch = 1;
    rr.rerouted = true;
    rr.tx_ts = Us16(a_rerouted_at - 40);
    rr.tail_tx_ts = Us16(t + 2);
    v.push_back(Frame(kHostA, 0x11, 3, rr, a_rerouted_at));
    return v;
  };
  // B is still live when A's rerouted packet comes: A collides and is forwarded untracked.
  const ReorderRunReport r1 = RunLs(build(t + 170), cfg);
  EXPECT_EQ(r1.counters.fallback_collision, 1u);
  EXPECT_EQ(r1.counters.held, 0u);
  EXPECT_EQ(Psns(r1.run.out), (std::vector<uint32_t>{0, 1, 2, 0, 3}));
  ASSERT_EQ(r1.ctrl.size(), 1u);
  // B idled out too: A's rerouted packet makes a new entry knowing nothing of the TAIL, so it is held for
  // default_hold_us and its timeout sends a second CLEAR (for the epoch the source already cleared).
  const ReorderRunReport r2 = RunLs(build(t + 400), cfg);
  EXPECT_EQ(r2.counters.fallback_collision, 0u);
  EXPECT_EQ(r2.counters.held, 1u);
  EXPECT_EQ(r2.counters.released_by_timeout, 1u);
  ASSERT_EQ(r2.ctrl.size(), 2u);
  EXPECT_EQ(CwEpoch(r2.ctrl[1]), 1);
  EXPECT_EQ(Psn(r2.ctrl[1]), 3u);  // mirrors the held packet
}

TEST(Reorder, LostTailReleasesAtTheDeadlineFromTheTimestamps) {
  // Old path 60 us, new 10 us, gap 2: deadline = TAIL_TX + max old-path delay (60) + margin (16).
  const auto pkts = Reroute(0, 40, 10, 60, 10, 2, kT0Us, /*lose_tail=*/true);
  const ReorderRunReport r = RunLs(pkts);
  EXPECT_EQ(r.counters.released_by_timeout, r.counters.held);
  EXPECT_EQ(r.counters.held, 10u);
  EXPECT_EQ(r.run.out.size(), 49u);
  // The first held packet (PSN 40, sent at t0+80, arrived at t0+90) leaves at TAIL_TX (t0+78) + 60 + 16
  // = t0+154, within the timer's scan (a few cycles) and the microsecond clock's resolution.
  uint16_t first_hold = 0;
  uint64_t left = 0;
  for (size_t i = 0; i < r.run.out.size(); ++i) {
    if (Psn(r.run.out[i]) == 40) {
      first_hold = r.holds[i].hold_us;
      left = r.run.out_first_cycle[i];
    }
  }
  EXPECT_GE(first_hold, 63);
  EXPECT_LE(first_hold, 65);
  // In cycles: cycle 0 is the first arrival (t0+60), so the clock reads the deadline t0+154 from cycle
  // 94 x 250; the scan reaches the queue within `queues` cycles, then R loads, reads, registers (3).
  const uint64_t deadline_cycle = (154 - 60) * 250;
  EXPECT_GE(left, deadline_cycle);
  EXPECT_LE(left, deadline_cycle + 32 + 3);
  ASSERT_EQ(r.ctrl.size(), 1u);  // CLEAR after the timeout's drain
  EXPECT_EQ((r.ctrl[0].bytes[50] >> 4) & 7, kCwClear);
}

TEST(Reorder, DefaultHoldWhenThereIsNoOldPathSample) {
  // The block first sees a flow through rerouted packets (its state was lost, or it just started): the
  // old path may still carry packets, but there is no old-path delay to estimate the deadline from.
  ReorderCfg cfg = Cfg();
  cfg.default_hold_us = 50;
  std::vector<Packet> v;
  CwFields c;
  c.epoch = 1;
  c.rerouted = true;
  c.tail_tx_ts = Us16(kT0Us);
  for (uint32_t i = 0; i < 3; ++i) {
    c.tx_ts = Us16(kT0Us + i);
    v.push_back(Frame(kHostB, 0x12, 10 + i, c, kT0Us + i));
  }
  const ReorderRunReport r = RunLs(v, cfg);
  EXPECT_EQ(r.counters.held, 3u);
  EXPECT_EQ(r.counters.released_by_timeout, 3u);
  ASSERT_EQ(r.holds.size(), 3u);
  EXPECT_GE(r.holds[0].hold_us, 49);
  EXPECT_LE(r.holds[0].hold_us, 51);
  // A late old-path TAIL (epoch 0) within the default hold releases them instead, TAIL first.
  CwFields t;
  t.tail = true;
  t.tx_ts = Us16(kT0Us - 5);
  v.push_back(Frame(kHostB, 0x12, 9, t, kT0Us + 20));
  const ReorderRunReport r2 = RunLs(v, cfg);
  EXPECT_EQ(r2.counters.released_by_tail, 3u);
  EXPECT_EQ(Psns(r2.run.out), (std::vector<uint32_t>{9, 10, 11, 12}));
}

TEST(Reorder, TimestampWrapAt16Bits) {
  // The reroute straddles the 16-bit microsecond wrap: TAIL_TX just below 65536, deadline after it.
  const uint64_t t0 = 65536ull * 20 - 30;
  const auto pkts = Reroute(1, 40, 10, 60, 10, 2, t0, /*lose_tail=*/true);
  const ReorderRunReport r = RunLs(pkts);
  EXPECT_EQ(r.counters.released_by_timeout, 10u);
  uint16_t first_hold = 0;
  for (size_t i = 0; i < r.run.out.size(); ++i) {
    if (Psn(r.run.out[i]) == 40) first_hold = r.holds[i].hold_us;
  }
  EXPECT_GE(first_hold, 63);
  EXPECT_LE(first_hold, 65);
  // Same with the TAIL present: released by the TAIL, in order.
  const ReorderRunReport r2 = RunLs(Reroute(1, 40, 10, 60, 10, 2, t0));
  EXPECT_EQ(Psns(r2.run.out), Iota(50));
  EXPECT_EQ(r2.counters.released_by_tail, r2.counters.held);
}

// n flows (QP 0x100 + i) reroute at once; returns the run.
ReorderRunReport ManyReroutes(int n, const ReorderCfg& cfg, int n_new = 6, int stagger_us = 1) {
  std::vector<Packet> v;
  for (int f = 0; f < n; ++f) {
    for (const Packet& p : Reroute(0, 30, n_new, 30, 5, 1, kT0Us + static_cast<uint64_t>(f * stagger_us))) {
      std::vector<uint8_t> b = p.bytes;
      Store32(&b[42 + 4], (Load32(&b[42 + 4]) & 0xFF000000u) | (0x100u + static_cast<uint32_t>(f)));
      v.push_back(Packet{b, p.time_ns});
    }
  }
  std::stable_sort(v.begin(), v.end(), [](const Packet& a, const Packet& b) { return a.time_ns < b.time_ns; });
  return RunLs(v, cfg);
}

TEST(Reorder, QueuePoolExhaustionFallsBackAndCounts) {
  ReorderCfg cfg = Cfg();
  cfg.queues = 4;  // one queue per way: the 4-way lookup sees the whole pool
  const ReorderRunReport r4 = ManyReroutes(4, cfg);
  EXPECT_EQ(r4.counters.fallback_unordered, 0u);
  EXPECT_EQ(r4.counters.peak_queues, 4u);
  const ReorderRunReport r6 = ManyReroutes(6, cfg);
  EXPECT_GT(r6.counters.fallback_unordered, 0u);
  EXPECT_EQ(r6.counters.peak_queues, 4u);
  EXPECT_EQ(r6.run.out.size(), 216u);  // nothing lost
}

TEST(Reorder, FourWayAllocationCanFallBackBeforeThePoolIsFull) {
  // With 32 queues a flow probes only 4 of them (one per way), so some flow falls back before all 32
  // are taken; every packet is still delivered.
  ReorderCfg cfg = Cfg();
  int first_fallback = 0;
  uint32_t queues_in_use = 0;
  for (int n = 4; n <= 32 && first_fallback == 0; n += 4) {
    const ReorderRunReport r = ManyReroutes(n, cfg, 3);
    if (r.counters.fallback_unordered > 0) {
      first_fallback = n;
      queues_in_use = r.counters.peak_queues;
    }
    EXPECT_EQ(r.run.out.size(), static_cast<size_t>(n) * 33);
  }
  ASSERT_GT(first_fallback, 0) << "no fallback up to 32 flows";
  // The run that first fell back never had the whole pool taken: a flow fell back while queues were free.
  EXPECT_LT(queues_in_use, 32u);
}

TEST(Reorder, AnyQueueAllocationUsesTheWholePool) {
  // The same 32 simultaneous reroutes that make the 4-way lookup fall back fit a fully associative pool.
  ReorderCfg cfg = Cfg();
  cfg.any_queue = true;
  const ReorderRunReport r = ManyReroutes(32, cfg, 3, 0);  // all 32 windows open at once
  EXPECT_EQ(r.counters.fallback_unordered, 0u);
  EXPECT_EQ(r.counters.peak_queues, 32u);
  const ReorderRunReport r2 = ManyReroutes(34, cfg, 3, 0);
  EXPECT_GT(r2.counters.fallback_unordered, 0u);
}

TEST(Reorder, BufferLimitDropsAndCounts) {
  ReorderCfg cfg = Cfg();
  cfg.buffer_cells = 8;  // 8 cells: about 4 held packets of 2 cells each
  std::vector<Packet> v = Reroute(0, 40, 12, 40, 5, 1);
  for (Packet& p : v) {
    std::vector<uint8_t> nic = NicWrite(kHostA, 0x11, Psn(p), 50);  // 124 bytes: 2 cells
    std::array<uint8_t, kWindowBytes> win{};
    std::copy(p.bytes.begin(), p.bytes.begin() + 64, win.begin());
    const CwMeta m = ParseCw(win.data(), -1);
    CwFields c{m.path_id, m.op, m.epoch, m.rerouted, m.tail, m.tx_ts, m.tail_tx_ts, false};
    p.bytes = ToFabric(nic, c);
  }
  const ReorderRunReport r = RunLs(v, cfg);
  EXPECT_GT(r.counters.drop_buffer_full, 0u);
  EXPECT_EQ(r.counters.peak_held_cells, 8u);
  EXPECT_EQ(r.run.out.size() + r.counters.drop_buffer_full, v.size());
}

TEST(Reorder, ADroppedFirstPacketOfASecondRerouteStillHoldsTheRest) {
  // Found by the benchmark: a flow's second reroute whose first rerouted packet is dropped (buffer_full)
  // must still hold the rest until its TAIL, and get its CLEAR; the first reroute's queue is history.
  std::vector<Packet> v;
  uint64_t t = kT0Us;
  auto add = [&](uint32_t psn, int payload, uint8_t ep, bool rr, bool tail, uint64_t tail_tx) {
    CwFields c;
    c.epoch = ep;
    c.rerouted = rr;
    c.tail = tail;
    c.tx_ts = Us16(t - 20);
    c.tail_tx_ts = Us16(tail_tx);
    v.push_back(Frame(kHostA, 0x11, psn, c, t, payload));
    ++t;
  };
  add(0, 64, 0, false, false, 0);
  add(1, 64, 0, false, false, 0);
  add(3, 64, 1, true, false, t + 2 - 20);  // reroute 1: held
  add(4, 64, 1, true, false, t + 1 - 20);
  add(2, 64, 0, false, true, 0);  // its TAIL
  add(5, 64, 1, false, false, 0);
  add(6, 64, 1, false, false, 0);
  add(8, 1024, 2, true, false, t + 3 - 20);  // reroute 2: 19 cells > 10: dropped
  add(9, 64, 2, true, false, t + 2 - 20);    // held
  add(10, 64, 2, true, false, t + 1 - 20);   // held
  add(7, 64, 1, false, true, 0);             // its TAIL
  add(11, 64, 2, false, false, 0);
  ReorderCfg cfg = Cfg();
  cfg.buffer_cells = 10;
  const ReorderRunReport r = RunLs(v, cfg);
  EXPECT_EQ(r.counters.drop_buffer_full, 1u);
  EXPECT_EQ(Psns(r.run.out), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11}));
  EXPECT_EQ(r.counters.released_by_tail, 4u);
  std::vector<int> clear_epochs;
  for (const Packet& p : r.ctrl) {
    if (((p.bytes[50] >> 4) & 7) == kCwClear) clear_epochs.push_back((p.bytes[50] >> 2) & 3);
  }
  EXPECT_EQ(clear_epochs, (std::vector<int>{1, 2}));
}

TEST(Reorder, AFullCellBufferStallsTheInputAndLosesNothing) {
  // Large frames into a mostly blocked output: the shared buffer fills up and s_ready goes low (as PFC
  // would pause the link); every frame is still delivered, in order.
  std::vector<Packet> v;
  for (uint32_t i = 0; i < 160; ++i) {
    CwFields c;
    c.tx_ts = Us16(kT0Us);
    v.push_back(Frame(kHostA + i % 3, 0x11, i, c, kT0Us, 3900));
  }
  ReorderRunConfig rc;
  rc.untimed = true;
  rc.opt.backpressure = 0.9;
  const ReorderRunReport r = RunReorder(Cfg(), v, rc);
  EXPECT_TRUE(r.mismatch_text.empty()) << r.mismatch_text;
  EXPECT_TRUE(r.conservation_ok);
  EXPECT_EQ(r.run.out.size(), v.size());
  EXPECT_GT(r.counters.peak_cells_used, static_cast<uint32_t>(kCells - kMaxCells));
  EXPECT_GT(r.run.input_stall_cycles, 1000u);
  EXPECT_EQ(Psns(r.run.out), Iota(160));
}

TEST(Reorder, FlowTableCollisionsAndIdleEviction) {
  ReorderCfg cfg = Cfg();
  cfg.flows_mask = 0;  // one entry: every second flow collides
  cfg.flow_idle_us = 100;
  std::vector<Packet> v;
  CwFields c;
  c.tx_ts = Us16(kT0Us);
  v.push_back(Frame(kHostA, 0x11, 0, c, kT0Us));
  v.push_back(Frame(kHostB, 0x12, 0, c, kT0Us + 10));   // collides: forwarded, counted
  v.push_back(Frame(kHostB, 0x12, 1, c, kT0Us + 200));  // the first flow idled out: takes the entry
  v.push_back(Frame(kHostA, 0x11, 1, c, kT0Us + 210));  // now A collides
  const ReorderRunReport r = RunLs(v, cfg);
  EXPECT_EQ(r.counters.fallback_collision, 2u);
  EXPECT_EQ(r.run.out.size(), 4u);
}

TEST(Reorder, ControlPacketsForRttRequestsEcnAndClears) {
  std::vector<Packet> v;
  CwFields c;
  c.tx_ts = Us16(kT0Us);
  c.op = kCwRttRequest;
  v.push_back(Frame(kHostA, 0x11, 0, c, kT0Us));
  c.op = kCwNormal;
  c.ce = true;
  v.push_back(Frame(kHostA, 0x11, 1, c, kT0Us + 1));
  c.op = kCwRttRequest;  // both at once
  v.push_back(Frame(kHostA, 0x11, 2, c, kT0Us + 2));
  const ReorderRunReport r = RunLs(v, Cfg(), 0.5);
  ASSERT_EQ(r.ctrl.size(), 4u);
  std::vector<int> ops;
  for (const Packet& p : r.ctrl) ops.push_back((p.bytes[50] >> 4) & 7);
  EXPECT_EQ(ops, (std::vector<int>{kCwRttReply, kCwNotify, kCwRttReply, kCwNotify}));
  EXPECT_EQ(r.run.out.size(), 3u);
}

TEST(Reorder, MutatedFramesAreCountedNeverHang) {
  std::mt19937_64 rng(23);
  std::vector<Packet> pkts;
  uint64_t t = kT0Us * 1000;
  for (int i = 0; i < 600; ++i) {
    CwFields c;
    c.epoch = static_cast<uint8_t>(rng() % 4);
    c.rerouted = rng() % 2;
    c.tail = rng() % 5 == 0;
    c.op = static_cast<uint8_t>(rng() % 3 == 0 ? rng() % 8 : 0);
    c.tx_ts = Us16(t / 1000);
    c.tail_tx_ts = Us16(t / 1000 - rng() % 50);
    std::vector<uint8_t> f = ToFabric(NicWrite(kHostA + static_cast<uint32_t>(rng() % 4), 0x11,
                                               static_cast<uint32_t>(i), static_cast<int>(rng() % 1500)),
                                      c);
    switch (rng() % 8) {
      case 0: f.resize(rng() % f.size()); break;                                    // truncated
      case 1: f[rng() % f.size()] ^= static_cast<uint8_t>(1 + rng() % 255); break;  // bit flips
      case 2:
        for (auto& b : f) b = static_cast<uint8_t>(rng());
        break;                                             // garbage
      case 3: f.resize(4700 + rng() % 1000, 0xAB); break;  // longer than 72 cells
      case 4: f.clear(); break;                            // empty frame
      default: break;
    }
    t += rng() % 3000;
    pkts.push_back(Packet{f, t});
  }
  for (bool b2b : {false, true}) {
    ReorderRunConfig rc;
    rc.untimed = b2b;
    rc.opt.backpressure = 0.3;
    rc.ctrl_backpressure = 0.3;
    ReorderCfg cfg = Cfg();
    cfg.queues = 4;
    cfg.buffer_cells = 64;
    cfg.default_hold_us = 20;
    const ReorderRunReport r = RunReorder(cfg, pkts, rc);
    EXPECT_TRUE(r.mismatch_text.empty()) << r.mismatch_text;
    EXPECT_FALSE(r.run.hang);
    EXPECT_TRUE(r.conservation_ok);
    EXPECT_EQ(r.counters.in, pkts.size());
    EXPECT_GT(r.counters.drop_malformed, 100u);
  }
}

// A model that corrupts its first control beat: lockstep must stop there, naming the control stream's byte.
class FaultyModel : public ReorderCycleModel {
 public:
  const ReorderOut& Eval(const ReorderIn& in) override {
    out_ = ReorderCycleModel::Eval(in);
    if (out_.c.valid && !flipped_) {
      out_.c.beat.data[50] ^= 0x10;
      flipped_ = true;
    }
    return out_;
  }
  bool flipped_ = false;

 private:
  ReorderOut out_;
};

TEST(ReorderLockstep, DivergenceOnTheControlStreamIsReported) {
  std::vector<Packet> v;
  CwFields c;
  c.op = kCwRttRequest;
  for (uint32_t i = 0; i < 5; ++i) {
    c.tx_ts = Us16(kT0Us + i);
    v.push_back(Frame(kHostA, 0x11, i, c, kT0Us + i));
  }
  ReorderRtl rtl;
  FaultyModel model;
  tb::Harness<ReorderBinding> h(&rtl, &model);
  ReorderSide side(Cfg(), v[0].time_ns, 250, 0, 1);
  tb::RunOptions opt;
  opt.timed = true;
  const tb::RunResult r = h.Run(v, &side, opt);
  ASSERT_TRUE(r.mismatch.has_value());
  EXPECT_TRUE(model.flipped_);
  // tb/common/compare.h's format: the port, the flipped byte and the 8-byte window that holds it.
  EXPECT_EQ(r.mismatch->diff.signal, "c_data_o byte 50 (bytes 48..55 shown)");
  EXPECT_NE(r.mismatch->diff.rtl, r.mismatch->diff.model);
  // The replay a CLI run does: the same run traced around the divergence, RTL and model side by side.
  tb::testing::ExpectDivergenceWindowTraced(opt, *r.mismatch, "reorder_divergence", 1000, [&](const auto& o) {
    ReorderRtl rtl2;
    FaultyModel model2;
    tb::Harness<ReorderBinding> h2(&rtl2, &model2);
    ReorderSide side2(Cfg(), v[0].time_ns, 250, 0, 1);
    return h2.Run(v, &side2, o);
  });
}

TEST(ReorderConfig, ParsesAndRejectsPrecisely) {
  const ReorderCfg c = ParseConfig(
      "flows 256\nqueues 8 # comment\nbuffer_bytes 65536\nmargin_us 5\ndefault_hold_us 100\nflow_idle_us 10\n",
      "r.txt");
  EXPECT_EQ(c.flows_mask, 255);
  EXPECT_EQ(c.queues, 8);
  EXPECT_EQ(c.buffer_cells, 1024);
  auto err = [](const std::string& text) {
    return ErrorMessage<ConfigError>([&] { ParseConfig(text, "r.txt"); }, "no error");
  };
  const std::string ok = "queues 8\nbuffer_bytes 65536\nmargin_us 5\ndefault_hold_us 100\nflow_idle_us 10\n";
  EXPECT_EQ(err("flows 300\n" + ok), "r.txt:1: token '300': flows must be a power of two, 1..1024");
  EXPECT_EQ(err(ok), "r.txt: no 'flows' line");
  EXPECT_EQ(err("flows x\n" + ok), "r.txt:1: token 'x': not a decimal number");
  EXPECT_EQ(err("flows 0x10\n" + ok), "r.txt:1: token '0x10': not a decimal number");
  EXPECT_EQ(err("flows 4\nflows 4\n" + ok), "r.txt:2: token 'flows': given twice");
  EXPECT_EQ(err("color 4\n"),
            "r.txt:1: token 'color': unknown key (flows, queues, buffer_bytes, margin_us, "
            "default_hold_us, flow_idle_us, queue_allocation, wire_format)");
  EXPECT_EQ(err("flows 4\nqueue_allocation lru\n" + ok), "r.txt:2: token 'lru': queue_allocation must be 4way or any");
  EXPECT_FALSE(c.any_queue);
  EXPECT_TRUE(ParseConfig("flows 4\nqueue_allocation any\n" + ok, "r.txt").any_queue);
  // conweave-p4's wire format (docs/reorder.md "Two wire formats"): optional, once, two words
  EXPECT_FALSE(c.p4_format);
  EXPECT_TRUE(ParseConfig("flows 4\nwire_format conweave-p4\n" + ok, "r.txt").p4_format);
  EXPECT_FALSE(ParseConfig("flows 4\nwire_format seed\n" + ok, "r.txt").p4_format);
  EXPECT_EQ(err("flows 4\nwire_format p4\n" + ok), "r.txt:2: token 'p4': wire_format must be seed or conweave-p4");
  EXPECT_EQ(err("flows 4\nwire_format seed\nwire_format seed\n" + ok), "r.txt:3: token 'wire_format': given twice");
}

}  // namespace
}  // namespace nettwin::reorder
