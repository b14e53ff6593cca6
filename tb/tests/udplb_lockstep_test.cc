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

namespace nettwin::lb::udplb {
namespace {

const std::string kPeer = std::string(NT_SOURCE_DIR) + "/vectors/peers/udplb/";

std::vector<Segment> Test1Script(bool ttl_decrement) {
  ScriptOptions opt;
  opt.ttl_decrement = ttl_decrement;
  return LoadScript(kPeer + "cli_commands.txt", opt);
}

struct Lockstep {
  tb::RunResult run;
  UdplbCounters counters;
  std::vector<uint8_t> ports;
};

Lockstep RunLockstep(const std::vector<Segment>& script, const std::vector<Packet>& pkts, double gaps, double bp,
                     uint64_t seed, uint8_t in_port = 0) {
  UdplbRtl rtl;
  UdplbCycleModel model;
  tb::Harness<UdplbBinding> h(&rtl, &model);
  UdplbFeeder feeder(script, pkts.size(), in_port);
  tb::RunOptions o;
  o.gaps = gaps;
  o.backpressure = bp;
  o.seed = seed;
  Lockstep r;
  r.run = h.Run(pkts, &feeder, o);
  r.counters = h.last_out().counters;
  r.ports = feeder.out_ports();
  return r;
}

void ExpectClean(const Lockstep& r, size_t n_in, const std::string& what) {
  ASSERT_FALSE(r.run.mismatch) << what << "\n"
                               << tb::MismatchReport(*r.run.mismatch, "frame", "output frame");
  ASSERT_FALSE(r.run.hang) << what;
  EXPECT_EQ(r.counters.packets_in, n_in) << what;
  EXPECT_EQ(r.counters.packets_in, r.counters.packets_out + r.counters.TotalDrops()) << what;
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
  EXPECT_EQ(r.counters.TotalDrops(), 0u);
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

}  // namespace
}  // namespace nettwin::lb::udplb
