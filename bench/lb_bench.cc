// Load balancer benchmarks: golden-model packet rate, simulation speed of every engine, and the RTL's
// throughput and latency in cycles. Prints a Markdown table for docs/PERF.md.
//   build/lb_bench [--seconds S]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "model/lb/lb_packet_model.h"
#include "model/lb/lb_script.h"
#include "tb/lb/lb_run.h"
#include "tb/tests/lb_frames.h"

namespace nettwin::lb {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<Packet> Frames(size_t n, bool min_size, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Packet> v;
  for (size_t i = 0; i < n; ++i) {
    testing::FrameSpec s;
    s.v6 = !min_size && i % 2;  // minimum frames: IPv4, 60 B (one beat)
    s.tick = rng() % 8192;
    // Mixed: a simple IMIX-like spread of 64 B .. 1518 B frames plus some jumbo.
    static const size_t kMix[] = {6, 6, 6, 6, 6, 6, 6, 520, 520, 520, 1400, 1400, 8900};
    s.payload = testing::RandomPayload(rng, min_size ? 6 : kMix[i % 13]);
    v.push_back(Packet{testing::BuildFrame(s), 0});
  }
  return v;
}

double Seconds(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

void PacketModelRate(const std::vector<Segment>& script, const char* name, const std::vector<Packet>& pkts,
                     double budget) {
  LbTables t;
  for (const auto& s : script) {
    for (const auto& w : s.writes) t.Apply(w);
  }
  uint64_t n = 0, fwd = 0;
  const auto t0 = Clock::now();
  while (Seconds(t0) < budget) {
    for (const Packet& p : pkts) fwd += ProcessPacket(t, p.bytes).rewrite.forward;
    n += pkts.size();
  }
  const double s = Seconds(t0);
  std::printf("| packet model (fast), %s | %.2f Mpps | %.0fx the P4 behavioural model (~0.1 Mpps) | %llu/%llu fwd |\n",
              name, n / s / 1e6, n / s / 1e5, static_cast<unsigned long long>(fwd), static_cast<unsigned long long>(n));
}

void EngineRate(const std::vector<Segment>& script, Engine e, const char* name, const std::vector<Packet>& pkts) {
  LbRunConfig cfg;
  cfg.engine = e;
  const auto t0 = Clock::now();
  const LbRunReport r = RunLb(script, pkts, cfg);
  const double s = Seconds(t0);
  if (!r.conservation_ok || !r.mismatch_text.empty()) std::printf("| %s | RUN FAILED | | |\n", name);
  std::printf("| %s engine, %s | %.2f Mcycles/s | %.3f Mpps | %llu cycles |\n", EngineName(e), name,
              static_cast<double>(r.run.cycles) / s / 1e6, static_cast<double>(pkts.size()) / s / 1e6,
              static_cast<unsigned long long>(r.run.cycles));
}

void Throughput(const std::vector<Segment>& script, const char* name, const std::vector<Packet>& pkts) {
  LbRunConfig cfg;
  cfg.engine = Engine::kRtl;
  const LbRunReport r = RunLb(script, pkts, cfg);
  // Measure over the traffic only: from the first beat in to the last beat out.
  const uint64_t first = r.run.in_first_cycle.front();
  const uint64_t last_out = r.run.out_first_cycle.back() +
                            ToBeats(r.run.out.back().bytes).size() - 1;
  const double span = static_cast<double>(last_out - first + 1);
  const uint64_t in_span = r.run.in_last_cycle.back() - first + 1;
  std::printf("| RTL, %s | in: %.3f beats/cycle, %.4f packets/cycle | out: %.3f beats/cycle | "
              "input stalls %llu, latency %llu..%llu cycles |\n",
              name, static_cast<double>(r.run.in_beats) / static_cast<double>(in_span),
              static_cast<double>(pkts.size()) / static_cast<double>(in_span),
              static_cast<double>(r.run.out_beats) / span, static_cast<unsigned long long>(r.run.input_stall_cycles),
              static_cast<unsigned long long>(r.latency_min), static_cast<unsigned long long>(r.latency_max));
}

}  // namespace
}  // namespace nettwin::lb

int main(int argc, char** argv) {
  using namespace nettwin::lb;
  double budget = 2.0;
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--seconds")) budget = std::atof(argv[i + 1]);
  }
  const auto script = ParseScript(testing::FullTables(), "full");
  const auto min_frames = Frames(20000, true, 1);
  const auto mixed = Frames(20000, false, 2);
  std::printf("| what | rate | comparison / detail | |\n|---|---|---|---|\n");
  PacketModelRate(script, "60 B IPv4 frames", min_frames, budget);
  PacketModelRate(script, "mixed sizes", mixed, budget);
  EngineRate(script, Engine::kModel, "60 B IPv4 frames", min_frames);
  EngineRate(script, Engine::kRtl, "60 B IPv4 frames", min_frames);
  EngineRate(script, Engine::kLockstep, "60 B IPv4 frames", min_frames);
  EngineRate(script, Engine::kLockstep, "mixed sizes", mixed);
  std::printf("\n| traffic | input | output | stalls, latency |\n|---|---|---|---|\n");
  Throughput(script, "60 B IPv4 frames back to back", min_frames);
  Throughput(script, "mixed sizes back to back", mixed);
  return 0;
}
