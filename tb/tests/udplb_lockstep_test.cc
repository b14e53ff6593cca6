// The udplb RTL (rtl/lb/udplb_top.sv) and its cycle model (model/lb/udplb_cycle_model.cc) in lockstep: every
// output port (stream, egress port, every counter) compared every cycle. udplb's own test-1 (byte for byte
// against udplb's expected output with the TTL decrement off), randomized frames around test-1's, damaged
// headers, back-to-back minimum frames with 0 input stalls, gaps and backpressure.
#include <gtest/gtest.h>

#include <array>
#include <random>

#include "model/common/pcap.h"
#include "model/lb/udplb_cycle_model.h"
#include "model/lb/udplb_script.h"
#include "tb/lb/udplb_binding.h"
#include "tb/lb/udplb_rtl.h"
#include "tb/tests/udplb_test_run.h"

namespace nettwin::lb::udplb {
namespace {

using Lockstep = UdplbTestRun;

Lockstep RunLockstep(const std::vector<Segment>& script, const std::vector<Packet>& pkts, double gaps, double bp,
                     uint64_t seed, uint8_t in_port = 0) {
  UdplbRtl rtl;
  return RunUdplbHarness(&rtl, script, pkts, gaps, bp, seed, in_port);
}

void ExpectClean(const Lockstep& r, size_t n_in, const std::string& what) {
  ASSERT_FALSE(r.run.mismatch) << what << "\n"
                               << tb::MismatchReport(*r.run.mismatch, "frame", "output frame");
  ASSERT_FALSE(r.run.hang) << what;
  EXPECT_EQ(r.counters.packets_in, n_in) << what;
  EXPECT_EQ(r.counters.packets_in, r.counters.packets_out + UdplbDropped(r.counters)) << what;
  EXPECT_EQ(r.run.out.size(), r.counters.packets_out) << what;
}

TEST(UdplbLockstep, Test1ByteForByteUnderGapsAndBackpressure) {
  const auto pkts = ReadPcap(kPeer + "packets_in.pcap");
  const auto expected = ReadPcap(kPeer + "expected_packets_out.pcap");
  for (int ttl = 0; ttl < 2; ++ttl) {
    const auto script = Test1Script(ttl == 1);
    for (int mode = 0; mode < 4; ++mode) {
      const std::string what = "ttl " + std::to_string(ttl) + " mode " + std::to_string(mode);
      const Lockstep r = RunLockstep(script, pkts, (mode & 1) * 0.3, (mode >> 1) * 0.4, 11 + mode);
      ExpectClean(r, pkts.size(), what);
      ASSERT_EQ(r.run.out.size(), expected.size()) << what;
      if (ttl == 0) {
        for (size_t k = 0; k < expected.size(); ++k) {
          ASSERT_EQ(r.run.out[k].bytes, expected[k].bytes) << what << " frame " << k;
        }
      }
    }
  }
}

// Test-1's frames with random tails (every beat-former shift at every length around the beat boundaries),
// on several ingress ports.
TEST(UdplbLockstep, RandomTailsEveryShift) {
  const auto script = Test1Script(true);
  const auto base = ReadPcap(kPeer + "packets_in.pcap");
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    std::mt19937_64 rng(seed);
    std::vector<Packet> pkts;
    for (int i = 0; i < 300; ++i) {
      Packet p = base[rng() % base.size()];
      const int extra = static_cast<int>(rng() % 200);
      for (int k = 0; k < extra; ++k) p.bytes.push_back(static_cast<uint8_t>(rng()));
      pkts.push_back(p);
    }
    const Lockstep r = RunLockstep(script, pkts, (seed % 3) * 0.25, (seed % 4) * 0.2, seed,
                                   static_cast<uint8_t>(seed % 16));
    ExpectClean(r, pkts.size(), "seed " + std::to_string(seed));
  }
}

// Damaged frames: test-1's frames with a few header bytes overwritten, cut short or tagged, so every parser
// error, every drop reason and the IEEE 802 group path come up.
TEST(UdplbLockstep, DamagedHeaders) {
  const auto script = Test1Script(true);
  const auto base = ReadPcap(kPeer + "packets_in.pcap");
  std::array<uint64_t, kNumReasons> seen{};
  uint64_t to_host = 0, replies = 0;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    std::mt19937_64 rng(seed * 977);
    std::vector<Packet> pkts;
    for (int i = 0; i < 300; ++i) {
      Packet p = base[rng() % base.size()];
      const int kind = static_cast<int>(rng() % 6);
      if (kind == 0) {
        p.bytes.resize(1 + rng() % p.bytes.size());
      } else if (kind == 1) {
        // An 802.1Q tag after the MAC addresses.
        const uint16_t vid = static_cast<uint16_t>(rng() % 4);
        p.bytes.insert(p.bytes.begin() + 12, {0x81, 0x00, static_cast<uint8_t>(vid >> 8), static_cast<uint8_t>(vid)});
      } else if (kind == 2) {
        // IEEE 802 group destination.
        const uint8_t g[6] = {0x01, 0x80, 0xc2, 0x00, 0x00, static_cast<uint8_t>(rng() % 16)};
        std::copy(g, g + 6, p.bytes.begin());
      } else {
        const int flips = 1 + static_cast<int>(rng() % 3);
        for (int k = 0; k < flips; ++k) {
          const size_t at = rng() % std::min<size_t>(p.bytes.size(), 112);
          p.bytes[at] = static_cast<uint8_t>(rng() % 4 == 0 ? rng() : p.bytes[at] ^ (1u << (rng() % 8)));
        }
      }
      const int extra = static_cast<int>(rng() % 80);
      for (int k = 0; k < extra; ++k) p.bytes.push_back(static_cast<uint8_t>(rng()));
      if (p.bytes.empty()) p.bytes.push_back(0);
      pkts.push_back(p);
    }
    const Lockstep r = RunLockstep(script, pkts, (seed % 2) * 0.3, (seed % 3) * 0.3, seed, 1);
    ExpectClean(r, pkts.size(), "seed " + std::to_string(seed));
    for (int k = 1; k < kNumReasons; ++k) seen[k] += r.counters.drops[k];
    to_host += r.counters.to_host;
    replies += r.counters.replies;
  }
  // What test-1's tables can produce came up (its ARP and ICMP entries answer for the address they match, so
  // arp_mismatch and icmp_mismatch cannot happen; the member table's drops need other tables: VariedTables).
  for (Reason k : {Reason::kParseError, Reason::kL2DstMiss, Reason::kL3DstMiss, Reason::kSrcBlocked,
                   Reason::kNoLbHeader, Reason::kNdMismatch, Reason::kTtlExpired, Reason::kCalendarMiss}) {
    EXPECT_GT(seen[static_cast<int>(k)], 0u) << ReasonName(k);
  }
  EXPECT_GT(to_host, 0u);
  EXPECT_GT(replies, 0u);

}

TEST(UdplbLockstep, BackToBackMinimumFramesNoInputStalls) {
  const auto script = Test1Script(true);
  const auto base = ReadPcap(kPeer + "packets_in.pcap");
  std::vector<Packet> pkts;
  for (int i = 0; i < 600; ++i) {
    Packet p = base[5 + (i % 3) * 12];  // IPv4 LB of instance 0, IPv6 LB, IPv4 LB (frames 5, 17, 29)
    p.bytes.resize(std::min<size_t>(p.bytes.size(), i % 3 == 1 ? 78 : 60));
    pkts.push_back(p);
  }
  const Lockstep r = RunLockstep(script, pkts, 0, 0, 1);
  ExpectClean(r, pkts.size(), "minimum frames");
  EXPECT_EQ(r.run.input_stall_cycles, 0u);
  EXPECT_EQ(UdplbDropped(r.counters), 0u);
  // Every frame leaves the same number of cycles after it arrived (H, S1..S8, O), however the frame before it
  // shrank (the 78-byte IPv6 frames fold into one output beat).
  ASSERT_EQ(r.run.out_first_cycle.size(), pkts.size());
  for (size_t k = 0; k < pkts.size(); ++k) {
    ASSERT_EQ(r.run.out_first_cycle[k] - r.run.in_first_cycle[k], 10u) << "frame " << k;
  }
}

// The comparison is live: one flipped bit in the model's output is reported at that cycle.
TEST(UdplbLockstep, InjectedDivergenceIsCaught) {
  const auto pkts = ReadPcap(kPeer + "packets_in.pcap");
  UdplbRtl rtl;
  UdplbCycleModel model;
  tb::Harness<UdplbBinding> h(&rtl, &model);
  UdplbFeeder feeder(Test1Script(false), pkts.size(), 0);
  tb::RunOptions o;
  o.inject_divergence_at = 0;
  const tb::RunResult r = h.Run(pkts, &feeder, o);
  ASSERT_TRUE(r.mismatch);
  ASSERT_TRUE(r.injected_at);
  EXPECT_EQ(r.mismatch->cycle, *r.injected_at);
  EXPECT_NE(r.mismatch->diff.signal.find("m_data_o byte 0"), std::string::npos) << r.mismatch->diff.signal;
}

// ---- Varied tables: both address families, VLAN interfaces, every member action, kept LB headers, slot
// options, longest prefixes, and frames of every kind the parser knows ----

std::string VariedScript() {
  std::string s =
      "table_add l2_iface_table set_l2_iface 5&&&0xfff => 1 0x00aabbccdd01 3\n"
      "table_add l2_iface_table set_l2_iface 0&&&0 => 0 0x00aabbccddee 9\n"
      "table_add mac_dst_filter_table set_mac_sa 0&&&0 0x00aabbccddee => 0x00aabbccddee 5\n"
      "table_add mac_dst_filter_table l2_dst_allow 1&&&15 0x00aabbccdd01 => 5\n"
      "table_add mac_dst_filter_table set_mac_sa 0&&&0 0x3333ff000003 => 0x00aabbccddef 5\n"
      "table_add ip_dst_filter_table set_ip_sa 0&&&0 0x0800 10.1.2.3 => 10.1.2.3 0 0\n"
      "table_add ip_dst_filter_table set_ip_sa 0&&&0 0x0806 10.1.2.3 => 10.1.2.3 0 0\n"
      "table_add ip_dst_filter_table set_ip_sa 0&&&0 0x0806 10.1.2.99 => 10.1.2.3 0 0\n"
      "table_add ip_dst_filter_table set_ip_sa 0&&&0 0x0800 10.1.2.99 => 10.1.2.3 1 0\n"
      "table_add ip_dst_filter_table set_ip_sa 0&&&0 0x86dd fd00::3 => fd00::3 0 0\n"
      "table_add ip_dst_filter_table set_ip_sa 0&&&0 0x86dd ff02::1:ff00:3 => fd00::3 0 0\n"
      "table_add ip_dst_filter_table set_ip_sa 0&&&0 0x8100 10.1.2.3 => 10.1.2.3 2 0\n"
      "table_add ipv4_src_filter_table allow_ip_src 0 10.1.2.2 =>\n"
      "table_add ipv4_src_filter_table allow_ip_src 1 10.1.2.2 =>\n"
      "table_add ipv4_src_filter_table allow_ip_src 2 10.1.2.2 =>\n"
      "table_add ipv6_src_filter_table allow_ip_src 0 fe80::1 =>\n"
      "table_add epoch_assign_table do_assign_epoch 0 0x0/0 => 0 64\n"
      "table_add epoch_assign_table do_assign_epoch 0 0x100/56 => 1 8\n"
      "table_add epoch_assign_table do_assign_epoch 0 0x180/57 => 2 7\n"
      "table_add epoch_assign_table do_assign_epoch_with_slot_sel_opts 0 0x1000/52 => 3 4 0x5a5a 12\n"
      "table_add epoch_assign_table do_assign_epoch_with_slot_sel_opts 0 0x2000/52 => 4 20 0x0 12\n"
      "table_add epoch_assign_table do_assign_epoch 1 0x0/0 => 0 64\n"
      "table_add epoch_assign_table do_assign_epoch 2 0x0/60 => 0 4\n";
  auto cal = [&](int lb, int epoch, int slots, int mod) {
    for (int k = 0; k < slots; ++k) {
      s += "table_add load_balance_calendar_table do_assign_member " + std::to_string(lb) + " " +
           std::to_string(epoch) + " " + std::to_string(k) + " => " + std::to_string(k % mod == 7 ? 71 : k % mod) +
           "\n";
    }
  };
  cal(0, 0, 512, 9);
  cal(0, 1, 512, 8);
  cal(0, 2, 256, 9);
  cal(0, 3, 16, 8);
  cal(0, 4, 512, 7);
  cal(1, 0, 512, 3);
  cal(2, 0, 512, 3);
  for (int lb = 0; lb < 3; ++lb) {
    const std::string l = std::to_string(lb) + " ";
    for (int m = 0; m < 5; ++m) {
      const std::string id = std::to_string(m);
      const std::string keep = m == 4 ? "1" : "0";
      s += "table_add member_info_lookup_table do_ipv4_member_rewrite " + l + "0x0800 " + id + " => 0x02000000010" +
           id + " 10.9." + l.substr(0, 1) + "." + id + " " + std::to_string(0x4000 + 16 * m) + " " +
           std::to_string(m * 5) + " " + keep + "\n";
      s += "table_add member_info_lookup_table do_ipv6_member_rewrite " + l + "0x86dd " + id + " => 0x02000000020" +
           id + " fd09::" + id + " " + std::to_string(0x5000 + 16 * m) + " " + std::to_string(m * 4) + " " + keep +
           "\n";
    }
    s += "table_add member_info_lookup_table drop_soft_evicted " + l + "0x0800 5 =>\n";
    s += "table_add member_info_lookup_table drop_deregistered " + l + "0x0800 6 =>\n";
    s += "table_add member_info_lookup_table drop_soft_evicted " + l + "0x86dd 5 =>\n";
    s += "table_add member_info_lookup_table drop_deregistered " + l + "0x86dd 6 =>\n";
  }
  return s + "run_traffic packets\n";
}

void Be(std::vector<uint8_t>& b, size_t at, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * (n - 1 - i)));
}

Packet VariedFrame(std::mt19937_64& rng) {
  auto pick = [&](int n) { return static_cast<int>(rng() % n); };
  const int kind = pick(12);
  const bool tagged = pick(6) == 0;
  std::vector<uint8_t> b(14, 0);
  Be(b, 0, pick(10) == 0 ? 0x3333ff000003ULL : pick(20) == 0 ? 0x0180c2000002ULL : 0x00aabbccddeeULL, 6);
  if (tagged) Be(b, 0, 0x00aabbccdd01ULL, 6);
  Be(b, 6, 0x020000000099ULL, 6);
  auto ether = [&](uint16_t type) {
    if (tagged) {
      Be(b, 12, 0x8100, 2);
      b.insert(b.end(), {static_cast<uint8_t>(pick(2) ? 0 : 0x20), static_cast<uint8_t>(pick(3) ? 5 : 7), 0, 0});
      Be(b, 16, type, 2);
    } else {
      Be(b, 12, type, 2);
    }
  };
  auto grow = [&](size_t n) {
    const size_t at = b.size();
    b.resize(at + n);
    for (size_t i = at; i < b.size(); ++i) b[i] = static_cast<uint8_t>(rng());
    return at;
  };
  auto ipv4 = [&](uint8_t proto, uint32_t dst) {
    ether(0x0800);
    const int opts = pick(4) == 0 ? pick(11) : 0;
    const size_t h = grow(20 + 4 * opts);
    b[h] = static_cast<uint8_t>(0x40 | (5 + opts));
    b[h + 8] = static_cast<uint8_t>(pick(4) == 0 ? pick(3) : 64);
    b[h + 9] = proto;
    Be(b, h + 12, pick(8) == 0 ? 0x0a010207 : 0x0a010202, 4);
    Be(b, h + 16, dst, 4);
    return h;
  };
  auto ipv6 = [&](uint8_t nh, uint64_t dst_hi, uint64_t dst_lo) {
    ether(0x86dd);
    const size_t h = grow(40);
    b[h] = 0x60;
    b[h + 6] = nh;
    b[h + 7] = static_cast<uint8_t>(pick(4) == 0 ? pick(3) : 64);
    Be(b, h + 8, pick(6) == 0 ? 0 : 0xfe80000000000000ULL, 8);
    Be(b, h + 16, pick(8) == 0 ? 2 : 1, 8);
    Be(b, h + 24, dst_hi, 8);
    Be(b, h + 32, dst_lo, 8);
    return h;
  };
  auto lb = [&]() {
    const size_t u = grow(8);
    Be(b, u + 2, pick(8) == 0 ? 0x1234 : 0x4000 + pick(0x4000), 2);
    if (pick(5) == 0) Be(b, u + 6, 0, 2);
    if ((b[u + 2] & 0xc0) != 0x40) return;
    const size_t l = grow(16);
    Be(b, l, pick(30) == 0 ? 0x4c43 : 0x4c42, 2);
    b[l + 2] = static_cast<uint8_t>(pick(30) == 0 ? 1 : 2 + pick(2));
    static const uint64_t kTicks[] = {0x5, 0x1a0, 0x120, 0x1005, 0x2345, 0x80000000};
    uint64_t tick = kTicks[pick(6)] + pick(64);
    if (pick(6) == 0) tick = rng();
    Be(b, l + 8, tick, 8);
  };
  const bool ll = pick(2);
  switch (kind) {
    case 0: case 1: case 2: ipv4(17, pick(5) == 0 ? 0x0a010263 : 0x0a010203); lb(); break;
    case 3: case 4: ipv6(17, 0xfd00000000000000ULL, pick(8) == 0 ? 4 : 3); lb(); break;
    case 5: {  // ARP request
      ether(0x0806);
      const size_t a = grow(28);
      Be(b, a, 1, 2);
      Be(b, a + 2, 0x0800, 2);
      b[a + 4] = 6;
      b[a + 5] = 4;
      Be(b, a + 6, pick(10) == 0 ? 2 : 1, 2);
      Be(b, a + 24, pick(3) == 0 ? 0x0a010263 : 0x0a010203, 4);
      break;
    }
    case 6: {  // ICMPv4: echo, destination unreachable (with or without embedded UDP), other
      ipv4(1, pick(3) == 0 ? 0x0a010263 : 0x0a010203);
      const int t = pick(3);
      const size_t i = grow(4);
      b[i] = static_cast<uint8_t>(t == 0 ? 8 : t == 1 ? 3 : 5);
      b[i + 1] = static_cast<uint8_t>(pick(6) == 0);
      const size_t e = grow(t == 1 ? 20 : 4);
      if (t == 1) b[e + 9] = static_cast<uint8_t>(pick(2) ? 17 : 6);
      break;
    }
    case 7: {  // ICMPv6 echo / destination unreachable
      ipv6(58, 0xfd00000000000000ULL, 3);
      const size_t i = grow(4);
      const bool echo = pick(2);
      b[i] = echo ? 128 : 1;
      const size_t e = grow(echo ? 4 : 40);
      if (!echo) b[e + 6] = static_cast<uint8_t>(pick(2) ? 17 : 6);
      break;
    }
    case 8: case 9: {  // neighbour solicitation, with and without options
      const size_t h = ipv6(58, 0xff02000000000000ULL, 0x1ff000003ULL);
      const size_t i = grow(24);
      b[i] = 135;
      b[i + 1] = 0;
      Be(b, i + 8, 0xfd00000000000000ULL, 8);
      Be(b, i + 16, pick(6) == 0 ? 4 : 3, 8);
      if (ll) {
        const size_t o = grow(8);
        b[o] = static_cast<uint8_t>(pick(4) == 0 ? 2 : 1);
        b[o + 1] = 1;
        Be(b, h + 4, 32, 2);
      } else {
        Be(b, h + 4, 24, 2);
      }
      break;
    }
    case 10:  // slow protocols (LACP) and LLDP
      ether(pick(2) ? 0x8809 : 0x88cc);
      grow(2);
      if (b[12] == 0x88 && b[13] == 0x09) b[14] = static_cast<uint8_t>(pick(2));
      break;
    default:  // not a known EtherType
      ether(0x1234);
      break;
  }
  grow(pick(4) == 0 ? pick(3) : pick(160));
  return Packet{b, 0};
}

TEST(UdplbLockstep, VariedTables) {
  const auto script = ParseScript(VariedScript(), "varied", ScriptOptions{});
  std::array<uint64_t, kNumReasons> seen{};
  uint64_t to_host = 0, replies = 0, tx = 0, v3 = 0;
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    std::mt19937_64 rng(seed * 31337);
    std::vector<Packet> pkts;
    for (int i = 0; i < 400; ++i) pkts.push_back(VariedFrame(rng));
    const Lockstep r = RunLockstep(script, pkts, (seed % 3) * 0.25, (seed % 2) * 0.35, seed,
                                   static_cast<uint8_t>(seed * 5 % 16));
    ExpectClean(r, pkts.size(), "seed " + std::to_string(seed));
    for (int k = 1; k < kNumReasons; ++k) seen[k] += r.counters.drops[k];
    to_host += r.counters.to_host;
    replies += r.counters.replies;
    for (int i = 0; i < kInstances; ++i) {
      tx += r.counters.tx[i];
      v3 += r.counters.rx_v3[i];
    }
  }
  // Every drop reason but icmp_unhandled for ICMPv6 (the parser rejects its other types) came up.
  for (int k = 1; k < kNumReasons; ++k) EXPECT_GT(seen[k], 0u) << ReasonName(k);
  EXPECT_GT(to_host, 0u);
  EXPECT_GT(replies, 0u);
  EXPECT_GT(tx, 0u);
  EXPECT_GT(v3, 0u);
}

}  // namespace
}  // namespace nettwin::lb::udplb
