// RTL and model in lockstep on the spec vector and on randomized traffic, and the harness's own reporting.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>

#include "model/common/pcap.h"
#include "model/lb/lb_cycle_model.h"
#include "tb/lb/lb_binding.h"
#include "tb/lb/lb_rtl.h"
#include "tb/lb/lb_run.h"
#include "tb/tests/divergence_fst.h"
#include "tb/tests/lb_frames.h"

namespace nettwin::lb {
namespace {

std::string Slurp(const std::string& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

LbRunReport Lockstep(const std::string& script, const std::vector<Packet>& pkts, double gaps, double bp,
                     uint64_t seed) {
  LbRunConfig cfg;
  cfg.engine = Engine::kLockstep;
  cfg.opt.gaps = gaps;
  cfg.opt.backpressure = bp;
  cfg.opt.seed = seed;
  cfg.mismatch_trace = ::testing::TempDir() + "/lockstep_mismatch.fst";
  return RunLb(ParseScript(script, "test"), pkts, cfg);
}

void ExpectClean(const LbRunReport& r, const std::string& what) {
  EXPECT_TRUE(r.mismatch_text.empty()) << what << "\n" << r.mismatch_text;
  EXPECT_TRUE(r.fast_mismatch.empty()) << what << ": " << r.fast_mismatch;
  EXPECT_FALSE(r.run.hang) << what;
  EXPECT_TRUE(r.conservation_ok) << what;
}

TEST(LbLockstep, SpecVectorBothStreamsReachMemberZero) {
  const auto pkts = ReadPcap(std::string(NT_SOURCE_DIR) + "/vectors/lb/spec/packets_in.pcap");
  ASSERT_EQ(pkts.size(), 22u);
  const std::string script = Slurp(std::string(NT_SOURCE_DIR) + "/vectors/lb/spec/runsim.txt");
  for (auto [gaps, bp] : {std::pair{0.0, 0.0}, std::pair{0.5, 0.0}, std::pair{0.0, 0.5}, std::pair{0.3, 0.7}}) {
    const LbRunReport r = Lockstep(script, pkts, gaps, bp, 3);
    ExpectClean(r, "spec vector");
    ASSERT_EQ(r.counters.packets_out, 22u);
    for (size_t k = 0; k < r.run.out.size(); ++k) {
      const auto& o = r.run.out[k].bytes;
      EXPECT_EQ(LoadBe(&o[0], 6), 0x112233445566ull);
      EXPECT_EQ(LoadBe(&o[6], 6), 0x00aabbccddeeull);
      if (k % 2 == 0) {
        EXPECT_EQ(Load32(&o[30]), 0xaabbccddu);
        EXPECT_EQ(Load16(&o[36]), 0x4556);
      } else {
        EXPECT_EQ(LoadBe(&o[38], 8), 0xfe80000000000000ull);
        EXPECT_EQ(LoadBe(&o[46], 8), 3u);
        EXPECT_EQ(Load16(&o[56]), 0x4556);
      }
      EXPECT_EQ(testing::UdpVerify(o), 0);
    }
  }
}

TEST(LbLockstep, RandomTrafficWithGapsAndBackpressure) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    std::mt19937_64 rng(seed * 101);
    const auto pkts = testing::RandomTraffic(rng, 150);
    const double gaps = seed >= 3 ? 0.3 : 0.0, bp = seed % 2 == 0 ? 0.4 : 0.0;
    ExpectClean(Lockstep(testing::FullTables(), pkts, gaps, bp, seed), "seed " + std::to_string(seed));
  }
}

TEST(LbLockstep, ReconfigurationBetweenSegments) {
  std::mt19937_64 rng(5);
  const auto pkts = testing::RandomTraffic(rng, 120);
  std::string script = testing::FullTables();
  script.replace(script.rfind("run_traffic packets"), std::string("run_traffic packets").size(),
                 "run_traffic 40\n"
                 "table_add epoch_assign_table do_assign_epoch 0x0100/56 => 1 1\n"
                 "table_delete member_info_lookup_table 0x0800 2\n"
                 "run_traffic 40\n"
                 "table_clear dst_filter_table\n"
                 "run_traffic packets\n");
  const LbRunReport r = Lockstep(script, pkts, 0.2, 0.2, 7);
  ExpectClean(r, "reconfiguration");
  EXPECT_GT(r.counters.drops[static_cast<int>(DropReason::kFilterMiss)], 30u);  // the last segment
}

// A model that diverges on purpose: the harness must stop at that cycle, name the signal and both values,
// and write an FST around it.
class FaultyModel : public LbCycleModel {
 public:
  explicit FaultyModel(uint64_t at) : at_(at) {}
  void Reset() override {
    LbCycleModel::Reset();
    cycle_ = 0;
  }
  const LbOut& Eval(const LbIn& in) override {
    out_ = LbCycleModel::Eval(in);
    if (cycle_ >= at_ && out_.m.valid && !flipped_) {
      out_.m.beat.data[17] ^= 0x40;
      flipped_ = true;
      flipped_at_ = cycle_;
    }
    return out_;
  }
  void Tick() override {
    ++cycle_;
    LbCycleModel::Tick();
  }
  uint64_t flipped_at_ = 0;

 private:
  uint64_t at_, cycle_ = 0;
  bool flipped_ = false;
  LbOut out_;
};

TEST(LbLockstep, DivergenceIsReportedPreciselyWithWaveform) {
  std::mt19937_64 rng(11);
  const auto pkts = testing::RandomTraffic(rng, 40);
  LbRtl rtl;
  FaultyModel model(0);
  tb::Harness<LbBinding> h(&rtl, &model);
  LbTableFeeder feeder(ParseScript(testing::FullTables(), "full"), pkts.size());
  tb::RunOptions opt;
  const tb::RunResult r = h.Run(pkts, &feeder, opt);
  ASSERT_TRUE(r.mismatch.has_value());
  EXPECT_EQ(r.mismatch->cycle, model.flipped_at_);
  EXPECT_EQ(r.mismatch->diff.signal, "m_data_o byte 17 (bytes 16..23 shown)");
  EXPECT_NE(r.mismatch->diff.rtl, r.mismatch->diff.model);

  // The runner's report replays the seeded run and writes the waveform window.
  tb::testing::ExpectDivergenceWindowTraced(opt, *r.mismatch, "lb_divergence", 2000, [&](const auto& o) {
    LbRtl rtl2;
    FaultyModel model2(0);
    tb::Harness<LbBinding> h2(&rtl2, &model2);
    LbTableFeeder feeder2(ParseScript(testing::FullTables(), "full"), pkts.size());
    return h2.Run(pkts, &feeder2, o);
  });
}

// An RTL run whose input breaks the stream protocol on purpose: the first beat the block does not take is
// withdrawn (s_valid low) on the next cycle, on the RTL's input only. The s port's valid_held assertion
// (rtl/common/nt_stream_checker.sv, bound by nt_stream_ports_sva.sv) must stop the run at that cycle with its
// name, as a divergence would, and a replay must stop there again and trace the window (docs/assertions.md).
class ValidDroppingRtl : public LbRtl {
 public:
  void Reset() override {
    LbRtl::Reset();
    cycle_ = 0;
    stalled_ = dropped_ = false;
  }
  const LbOut& Eval(const LbIn& in) override {
    LbIn x = in;
    if (stalled_ && !dropped_) {
      x.s.valid = false;
      dropped_ = true;
      dropped_at_ = cycle_;
    }
    const LbOut& out = LbRtl::Eval(x);
    now_stalled_ = x.s.valid && !out.s_ready;
    return out;
  }
  void Tick() override {
    LbRtl::Tick();
    stalled_ = now_stalled_;
    ++cycle_;
  }
  uint64_t dropped_at_ = 0;

 private:
  uint64_t cycle_ = 0;
  bool stalled_ = false, now_stalled_ = false, dropped_ = false;
};

TEST(LbLockstep, RtlAssertionStopsTheRunLikeADivergence) {
  std::mt19937_64 rng(5);
  const auto pkts = testing::RandomTraffic(rng, 60);
  tb::RunOptions opt;
  opt.backpressure = 0.8;  // stalls the pipeline, so s_ready falls while a beat is offered
  auto run = [&](const tb::RunOptions& o, uint64_t* dropped_at) {
    ValidDroppingRtl rtl;
    LbCycleModel model;
    tb::Harness<LbBinding> h(&rtl, &model);
    LbTableFeeder feeder(ParseScript(testing::FullTables(), "full"), pkts.size());
    const tb::RunResult r = h.Run(pkts, &feeder, o);
    if (dropped_at != nullptr) *dropped_at = rtl.dropped_at_;
    return r;
  };
  uint64_t dropped_at = 0;
  const tb::RunResult r = run(opt, &dropped_at);
  ASSERT_TRUE(r.mismatch.has_value()) << "no assertion fired";
  EXPECT_EQ(r.mismatch->cycle, dropped_at);
  EXPECT_NE(r.mismatch->assertion.find("u_sva_ports.u_s.valid_held"), std::string::npos) << r.mismatch->assertion;
  const std::string report = tb::MismatchReport(*r.mismatch, "input packet", "output packet");
  const std::string head = "RTL ASSERTION FAILED at cycle " + std::to_string(dropped_at) + ": lb_tb_top.lb_tb_top.u_dut.";
  EXPECT_EQ(report.rfind(head, 0), 0u) << report;
  EXPECT_NE(report.find(" being offered; output packet #"), std::string::npos) << report;
  tb::testing::ExpectDivergenceWindowTraced(opt, *r.mismatch, "lb_assertion", 2000,
                                            [&](const auto& o) { return run(o, nullptr); });
}

}  // namespace
}  // namespace nettwin::lb
