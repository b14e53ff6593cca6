// The udplb program's cycle model on its own, through the generic harness: udplb's test-1 byte for byte under
// gaps and backpressure, the packet engine's frames, ports and counters on frames that exercise every shift
// of the beat former (fold, extra beat), and line rate for minimum LB frames.
#include <gtest/gtest.h>

#include <random>

#include "model/common/pcap.h"
#include "model/lb/udplb_cycle_model.h"
#include "model/lb/udplb_engine.h"
#include "model/lb/udplb_script.h"
#include "tb/lb/udplb_binding.h"
#include "tb/tests/udplb_test_run.h"

namespace nettwin::lb::udplb {
namespace {

using ModelRun = UdplbTestRun;

ModelRun RunModel(const std::vector<Segment>& script, const std::vector<Packet>& pkts, double gaps, double bp,
                  uint64_t seed) {
  return RunUdplbHarness(nullptr, script, pkts, gaps, bp, seed);
}

// The packet engine's view of the same frames.
ModelRun RunEngine(const std::vector<Segment>& script, const std::vector<Packet>& pkts) {
  UdplbPacketEngine e(script, 0);
  ModelRun r;
  for (const Packet& p : pkts) {
    FrameResult f = e.Process(p.bytes);
    if (f.verdict.kind == Kind::kDrop) continue;
    r.run.out.push_back(Packet{f.out, 0});
    r.ports.push_back(f.verdict.port);
  }
  r.counters = e.counters();
  return r;
}

void ExpectSameFrames(const ModelRun& a, const ModelRun& b, const std::string& what) {
  ASSERT_EQ(a.run.out.size(), b.run.out.size()) << what;
  for (size_t k = 0; k < a.run.out.size(); ++k) {
    ASSERT_EQ(a.run.out[k].bytes, b.run.out[k].bytes) << what << ": frame " << k;
  }
  EXPECT_EQ(a.ports, b.ports) << what;
  EXPECT_TRUE(a.counters == b.counters) << what;
}

TEST(UdplbCycleModel, Test1ByteForByteUnderGapsAndBackpressure) {
  const auto script = Test1Script(false);
  const auto pkts = ReadPcap(kPeer + "packets_in.pcap");
  const auto expected = ReadPcap(kPeer + "expected_packets_out.pcap");
  for (int mode = 0; mode < 3; ++mode) {
    const ModelRun r = RunModel(script, pkts, mode * 0.3, mode * 0.35, 7 + mode);
    ASSERT_FALSE(r.run.hang);
    ASSERT_EQ(r.run.out.size(), expected.size()) << "mode " << mode;
    for (size_t k = 0; k < expected.size(); ++k) {
      ASSERT_EQ(r.run.out[k].bytes, expected[k].bytes) << "mode " << mode << " frame " << k;
    }
    EXPECT_EQ(r.counters.packets_in, r.counters.packets_out + UdplbDropped(r.counters));
    ExpectSameFrames(r, RunEngine(script, pkts), "mode " + std::to_string(mode));
  }
}

// Frames of every length around the beat boundaries, through every kind of shift: LB frames losing their
// 16-byte header (d = 16), kept headers (d = 0), ND solicitations without option whose advertisement grows
// by 8 bytes (d = -8: the extra output beat), and replies.
std::vector<Packet> ShiftFrames(std::mt19937_64& rng, int n) {
  const auto base = ReadPcap(kPeer + "packets_in.pcap");
  std::vector<Packet> out;
  for (int i = 0; i < n; ++i) {
    Packet p = base[rng() % base.size()];
    const int extra = static_cast<int>(rng() % 200);
    for (int k = 0; k < extra; ++k) p.bytes.push_back(static_cast<uint8_t>(rng()));
    out.push_back(p);
  }
  return out;
}

TEST(UdplbCycleModel, MatchesPacketEngineOnEveryShift) {
  const auto script = Test1Script(true);
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    std::mt19937_64 rng(seed);
    const auto pkts = ShiftFrames(rng, 400);
    const ModelRun r = RunModel(script, pkts, (seed % 3) * 0.3, (seed % 2) * 0.4, seed);
    ASSERT_FALSE(r.run.hang) << "seed " << seed;
    ExpectSameFrames(r, RunEngine(script, pkts), "seed " + std::to_string(seed));
  }
}

TEST(UdplbCycleModel, LineRateForMinimumLbFrames) {
  const auto script = Test1Script(true);
  const auto base = ReadPcap(kPeer + "packets_in.pcap");
  // An LB v2 frame of instance 0 (frame 5), cut to the 60-byte Ethernet minimum.
  Packet p = base[5];
  p.bytes.resize(60);
  std::vector<Packet> pkts(2000, p);
  const ModelRun r = RunModel(script, pkts, 0, 0, 1);
  ASSERT_FALSE(r.run.hang);
  EXPECT_EQ(r.run.input_stall_cycles, 0u);
  EXPECT_EQ(r.counters.packets_out, 2000u);
  for (size_t k = 1; k < r.run.out_first_cycle.size(); ++k) {
    ASSERT_EQ(r.run.out_first_cycle[k], r.run.out_first_cycle[k - 1] + 1) << "bubble before output " << k;
  }
  EXPECT_EQ(r.run.out_first_cycle[0] - r.run.in_first_cycle[0], 10u);  // H, S1..S8, O
}

}  // namespace
}  // namespace nettwin::lb::udplb
