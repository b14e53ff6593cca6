// udplb program benchmarks: packet-engine rate, simulation speed of every engine, and the RTL's throughput
// (input stalls) and latency in cycles on minimum and mixed frames. Prints Markdown for docs/PERF.md.
//   build/udplb_bench [--seconds S]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "model/common/pcap.h"
#include "model/lb/udplb_engine.h"
#include "model/lb/udplb_script.h"
#include "tb/lb/udplb_run.h"

namespace nettwin::lb::udplb {
namespace {

using Clock = std::chrono::steady_clock;
double Seconds(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

const std::string kPeer = std::string(NT_SOURCE_DIR) + "/vectors/peers/udplb/";

std::vector<Segment> Script() {
  std::ifstream in(kPeer + "cli_commands.txt");
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseScript(ss.str(), "cli_commands.txt", ScriptOptions{});
}

// udplb test-1's forwarded LB frames (v2/v3, IPv4/IPv6, both instances), cut to 60 B or grown to a size mix.
std::vector<Packet> Frames(size_t n, bool min_size, uint64_t seed) {
  std::vector<Packet> lb;
  for (Packet& p : ReadPcap(kPeer + "packets_in.pcap")) {
    const bool v4 = p.bytes[12] == 0x08 && p.bytes[13] == 0x00;
    if (p.bytes.size() > 120 && (v4 || !min_size)) lb.push_back(std::move(p));  // a 60 B frame holds IPv4 only
  }
  std::mt19937_64 rng(seed);
  static const size_t kMix[] = {60, 60, 60, 60, 60, 60, 60, 576, 576, 576, 1450, 1450, 9000};
  std::vector<Packet> v;
  for (size_t i = 0; i < n; ++i) {
    Packet p = lb[rng() % lb.size()];
    p.bytes.resize(min_size ? 60 : std::max<size_t>(kMix[i % 13], 120), 0xA5);
    v.push_back(std::move(p));
  }
  return v;
}

void EngineRate(const std::vector<Segment>& script, Engine e, const char* name, const std::vector<Packet>& pkts) {
  UdplbRunConfig cfg;
  cfg.engine = e;
  const auto t0 = Clock::now();
  const UdplbRunReport r = RunUdplb(script, pkts, cfg);
  const double s = Seconds(t0);
  const bool ok = r.conservation_ok && r.mismatch_text.empty() && r.fast_mismatch.empty();
  std::printf("| %s engine, %s | %.2f Mcycles/s | %.3f Mpps | %llu cycles%s |\n", EngineName(e), name,
              static_cast<double>(r.run.cycles) / s / 1e6, static_cast<double>(pkts.size()) / s / 1e6,
              static_cast<unsigned long long>(r.run.cycles), ok ? "" : " RUN FAILED");
}

void Throughput(const std::vector<Segment>& script, const char* name, const std::vector<Packet>& pkts) {
  UdplbRunConfig cfg;
  cfg.engine = Engine::kLockstep;
  const UdplbRunReport r = RunUdplb(script, pkts, cfg);
  if (!r.conservation_ok || !r.mismatch_text.empty() || r.run.out.empty()) {
    std::printf("| lockstep, %s | RUN FAILED | %s%s | |\n", name, r.mismatch_text.c_str(), r.fast_mismatch.c_str());
    return;
  }
  const uint64_t first = r.run.in_first_cycle.front();
  const uint64_t in_span = r.run.in_last_cycle.back() - first + 1;
  const uint64_t last_out = r.run.out_first_cycle.back() + ToBeats(r.run.out.back().bytes).size() - 1;
  std::printf("| lockstep, %s | in: %.3f beats/cycle | out: %.3f beats/cycle | input stalls %llu, latency %llu..%llu "
              "cycles%s |\n",
              name, static_cast<double>(r.run.in_beats) / static_cast<double>(in_span),
              static_cast<double>(r.run.out_beats) / static_cast<double>(last_out - first + 1),
              static_cast<unsigned long long>(r.run.input_stall_cycles),
              static_cast<unsigned long long>(r.latency_min), static_cast<unsigned long long>(r.latency_max),
              r.conservation_ok && r.mismatch_text.empty() ? "" : " RUN FAILED");
}

}  // namespace
}  // namespace nettwin::lb::udplb

int main(int argc, char** argv) {
  using namespace nettwin::lb::udplb;
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  double budget = 2.0;
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--seconds")) budget = std::atof(argv[i + 1]);
  }
  const auto script = Script();
  const auto min_frames = Frames(20000, true, 1);
  const auto mixed = Frames(20000, false, 2);
  std::printf("| what | rate | detail | |\n|---|---|---|---|\n");
  {
    UdplbTables t;
    for (const auto& s : script) {
      for (const auto& w : s.writes) t.Apply(w);
    }
    uint64_t n = 0;
    const auto t0 = Clock::now();
    while (Seconds(t0) < budget) {
      for (const nettwin::Packet& p : min_frames) n += ProcessFrame(t, p.bytes, 0).verdict.kind == Kind::kForward;
    }
    std::printf("| packet engine (fast), 60 B LB frames | %.2f Mpps | | |\n", n / Seconds(t0) / 1e6);
  }
  EngineRate(script, nettwin::lb::Engine::kModel, "60 B LB frames", min_frames);
  EngineRate(script, nettwin::lb::Engine::kRtl, "60 B LB frames", min_frames);
  EngineRate(script, nettwin::lb::Engine::kLockstep, "60 B LB frames", min_frames);
  std::printf("\n| traffic | input | output | stalls, latency |\n|---|---|---|---|\n");
  Throughput(script, "60 B LB frames back to back", min_frames);
  Throughput(script, "mixed sizes back to back", mixed);
  return 0;
}
