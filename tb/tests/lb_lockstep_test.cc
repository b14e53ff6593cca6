// RTL and model in lockstep on the spec vector and on randomized traffic, and the harness's own reporting.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>

#include "model/common/pcap.h"
#include "model/lb/lb_cycle_model.h"
#include "tb/common/clocked_lockstep.h"
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

// RTL and model behind one ClockedBlock, driven cycle by cycle by the test itself (no segment feeder).
class LbPairLockstep : public tb::ClockedLockstep<LbCycleModel, LbRtl, LbIn, LbOut> {
 private:
  std::optional<tb::SignalDiff> Differ(const LbOut& m, const LbOut& r) override { return LbBinding::Compare(r, m); }
};

// Table writes while frames are in flight, which the driver never does (it writes only when the block has
// drained, docs/lb.md): the filter CAM's and the epoch TCAM's matches are registered and chosen among a cycle
// later, from the table of then (docs/lb-microarchitecture.md "Branch lb17"), so a write can land between the
// two steps of a frame's search. RTL and model must still agree every cycle. One random write about every
// third cycle, to the entries the traffic hits: filter drop and valid bits, epoch priorities (which reorders
// the two entries of group 0), drop and valid bits, calendar and member drop and valid bits.
TEST(LbLockstep, TableWritesWhileFramesAreInFlight) {
  std::vector<CfgWrite> writes;
  for (const Segment& seg : ParseScript(testing::FullTables(), "full")) {
    writes.insert(writes.end(), seg.writes.begin(), seg.writes.end());
  }
  std::mt19937_64 rng(17);
  std::vector<Beat> beats;
  for (const Packet& p : testing::RandomTraffic(rng, 300)) {
    const std::vector<Beat> b = ToBeats(p.bytes);
    beats.insert(beats.end(), b.begin(), b.end());
  }
  LbPairLockstep ls;
  ls.Reset();
  for (const CfgWrite& w : writes) {
    LbIn in;
    in.cfg = w;
    ls.Eval(in);
    ls.Tick();
  }
  size_t next = 0;
  uint64_t rewrites = 0;
  bool offered = false;  // a beat offered is held until taken (stream rules)
  for (int c = 0; c < 400000 && (next < beats.size() || c < 200000); ++c) {
    LbIn in;
    in.m_ready = rng() % 8 != 0;
    if (next < beats.size() && (offered || rng() % 4 != 0)) {
      in.s.valid = true;
      in.s.beat = beats[next];
      offered = true;
    }
    if (rng() % 3 == 0) {
      // Half of them to the four filter and epoch entries (the script's first writes), half anywhere.
      CfgWrite w = writes[rng() % (rng() % 2 == 0 ? 4 : writes.size())];
      if (w.table == params::kLbTblEpoch) w.data.Set(130, 16, rng() % 4);  // priority
      w.data.SetBit(1, rng() % 4 == 0);                                     // drop
      w.data.SetBit(0, rng() % 8 != 0);                                     // valid
      in.cfg = w;
      ++rewrites;
    }
    const LbOut& o = ls.Eval(in);
    if (in.s.valid && o.s_ready) {
      ++next;
      offered = false;
    }
    ls.Tick();
    if (next == beats.size() && c > 1000 && o.counters.packets_in == o.counters.packets_out + LbDropped(o.counters))
      break;
  }
  EXPECT_EQ(ls.mismatches(), 0u) << ls.FirstMismatchLine();
  EXPECT_EQ(next, beats.size());
  LbIn idle;
  const LbOut& o = ls.Eval(idle);
  EXPECT_EQ(o.counters.packets_in, 300u);
  EXPECT_EQ(o.counters.packets_in, o.counters.packets_out + LbDropped(o.counters));
  // The writes changed verdicts: frames forwarded and dropped by the filter, the TCAM and the calendar.
  EXPECT_GT(o.counters.packets_out, 20u);
  for (DropReason r : {DropReason::kFilterDrop, DropReason::kEpochDrop, DropReason::kCalendarDrop}) {
    EXPECT_GT(o.counters.drops[static_cast<int>(r)], 0u) << static_cast<int>(r);
  }
  EXPECT_GT(rewrites, 1000u);
  std::printf("%llu rewrites, %u frames in, %u out, filter drops %u, epoch drops %u, calendar drops %u\n",
              static_cast<unsigned long long>(rewrites), o.counters.packets_in, o.counters.packets_out,
              o.counters.drops[static_cast<int>(DropReason::kFilterDrop)],
              o.counters.drops[static_cast<int>(DropReason::kEpochDrop)],
              o.counters.drops[static_cast<int>(DropReason::kCalendarDrop)]);
}

}  // namespace
}  // namespace nettwin::lb
