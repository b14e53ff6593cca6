// The cycle-accurate model on its own: against the packet-at-a-time model, line rate, latency.
#include <gtest/gtest.h>

#include <random>

#include "model/lb/lb_script.h"
#include "tb/lb/lb_run.h"
#include "tb/tests/lb_frames.h"

namespace nettwin::lb {
namespace {

LbRunReport RunModel(const std::vector<Packet>& pkts, double gaps, double bp, uint64_t seed) {
  LbRunConfig cfg;
  cfg.engine = Engine::kModel;
  cfg.opt.gaps = gaps;
  cfg.opt.backpressure = bp;
  cfg.opt.seed = seed;
  return RunLb(ParseScript(testing::FullTables(), "full"), pkts, cfg);
}

TEST(LbCycleModel, MatchesPacketModelUnderGapsAndBackpressure) {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    std::mt19937_64 rng(seed);
    const auto pkts = testing::RandomTraffic(rng, 300);
    const double gaps = (seed % 3) * 0.3, bp = (seed % 2) * 0.4;
    const LbRunReport r = RunModel(pkts, gaps, bp, seed);
    EXPECT_TRUE(r.fast_mismatch.empty()) << "seed " << seed << ": " << r.fast_mismatch;
    EXPECT_TRUE(r.conservation_ok) << "seed " << seed;
    EXPECT_GT(r.counters.packets_out, 100u);
  }
}

// One beat per cycle with no bubbles: back-to-back minimum frames never see s_ready low, and the output
// is as dense as the input (one beat per frame both sides).
TEST(LbCycleModel, LineRateForMinimumFrames) {
  std::vector<Packet> pkts;
  for (int i = 0; i < 2000; ++i) {
    testing::FrameSpec s;
    s.tick = static_cast<uint64_t>(i);
    pkts.push_back(Packet{testing::BuildFrame(s), 0});
  }
  const LbRunReport r = RunModel(pkts, 0, 0, 1);
  ASSERT_TRUE(r.conservation_ok);
  EXPECT_EQ(r.run.input_stall_cycles, 0u);
  EXPECT_EQ(r.counters.packets_out, 2000u);
  // Consecutive frames leave on consecutive cycles.
  for (size_t k = 1; k < r.run.out_first_cycle.size(); ++k) {
    ASSERT_EQ(r.run.out_first_cycle[k], r.run.out_first_cycle[k - 1] + 1) << "bubble before output " << k;
  }
  // H, S1..S7, O (docs/lb-microarchitecture.md; 8 before S6 folded the checksums, issue 27).
  EXPECT_EQ(r.latency_min, 9u);
  EXPECT_EQ(r.latency_max, 9u);
}

TEST(LbCycleModel, LineRateForMixedSizesIncludingTheFold) {
  std::mt19937_64 rng(9);
  std::vector<Packet> pkts;
  uint64_t in_beats = 0;
  for (int i = 0; i < 1500; ++i) {
    testing::FrameSpec s;
    s.v6 = i % 2;
    s.ihl = 5 + i % 11;
    s.tick = rng() % 4096;
    s.payload = testing::RandomPayload(rng, static_cast<size_t>(rng() % 300));
    pkts.push_back(Packet{testing::BuildFrame(s), 0});
    in_beats += ToBeats(pkts.back().bytes).size();
  }
  const LbRunReport r = RunModel(pkts, 0, 0, 1);
  ASSERT_TRUE(r.conservation_ok);
  EXPECT_EQ(r.counters.packets_out, 1500u);
  EXPECT_EQ(r.run.input_stall_cycles, 0u);
  EXPECT_EQ(r.run.in_beats, in_beats);
  // The frames all ran back to back: the input took exactly one cycle per beat.
  const uint64_t span = r.run.in_last_cycle.back() - r.run.in_first_cycle.front() + 1;
  EXPECT_EQ(span, in_beats);
}

TEST(LbCycleModel, EmptyAndGarbageFramesAreCountedNotLost) {
  std::vector<Packet> pkts = {{{}, 0}, {{0x01}, 0}, {std::vector<uint8_t>(200, 0xFF), 0}, {std::vector<uint8_t>(13), 0}};
  const LbRunReport r = RunModel(pkts, 0, 0, 1);
  EXPECT_TRUE(r.conservation_ok);
  EXPECT_EQ(r.counters.packets_out, 0u);
  EXPECT_EQ(r.counters.drops[static_cast<int>(DropReason::kRunt)], 3u);
  EXPECT_EQ(r.counters.drops[static_cast<int>(DropReason::kNotIp)], 1u);
}

}  // namespace
}  // namespace nettwin::lb
