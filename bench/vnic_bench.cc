// OPA VNIC benchmarks (docs/PERF.md "OPA VNIC"): for each frame-size mix, back-to-back traffic through
// encapsulation and then decapsulation (of the encapsulation's output): output beats per cycle while the
// output has something to send (1.0 = line rate, no bubbles), input beats per cycle, the store-and-forward
// latency of the first frame, and the simulation speed of each engine (wall clock). Prints a Markdown table
// and one JSON line per row.
//   build/vnic_bench [--engine model|rtl|lockstep] [--frames N]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "model/vnic/vnic_config.h"
#include "tb/vnic/vnic_run.h"

namespace nettwin::vnic {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<Packet> Frames(const std::string& mix, int n, std::mt19937_64& rng) {
  std::vector<Packet> v;
  for (int i = 0; i < n; ++i) {
    size_t len = 0;
    if (mix == "60") len = 60;
    else if (mix == "64") len = 64;
    else if (mix == "1514") len = 1514;
    else if (mix == "9018") len = 9018;
    else if (mix == "imix") len = (i % 12 < 7) ? 60 : (i % 12 < 11) ? 590 : 1514;
    else len = 60 + rng() % (9018 - 60 + 1);  // uniform
    std::vector<uint8_t> f(len);
    for (auto& b : f) b = static_cast<uint8_t>(rng());
    f[0] = 0x02;
    v.push_back(Packet{std::move(f), 0});
  }
  return v;
}

struct Row {
  double out_per_busy = 0, in_per_cycle = 0, mbeats_s = 0;
  uint64_t cycles = 0, out_beats = 0, first_latency = 0;
};

Row Measure(const Tables& t, const std::vector<Packet>& in, Direction dir, Engine e, std::vector<Packet>* out) {
  VnicRunConfig rc;
  rc.dir = dir;
  rc.engine = e;
  const auto t0 = Clock::now();
  VnicRunReport r = RunVnic(t, in, {}, rc);
  const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
  if (!r.conservation_ok || r.run.out.size() != in.size()) {
    std::fprintf(stderr, "vnic_bench: run failed: %s\n", r.mismatch_text.c_str());
    std::exit(1);
  }
  Row row;
  row.cycles = r.run.cycles;
  row.out_beats = r.run.out_beats;
  // The output is busy from its first beat to its last; bubbles in between would show as < 1.
  const uint64_t first = r.run.out_first_cycle.front();
  row.out_per_busy = static_cast<double>(r.run.out_beats) / static_cast<double>(r.run.cycles - first);
  row.in_per_cycle = static_cast<double>(r.run.in_beats) / static_cast<double>(r.run.cycles - r.run.in_first_cycle.front());
  row.first_latency = first - r.run.in_first_cycle.front();
  row.mbeats_s = static_cast<double>(r.run.cycles) / secs / 1e6;
  if (out != nullptr) *out = std::move(r.run.out);
  return row;
}

}  // namespace
}  // namespace nettwin::vnic

int main(int argc, char** argv) {
  using namespace nettwin;
  using namespace nettwin::vnic;
  Engine e = Engine::kLockstep;
  const char* en = "lockstep";
  int n = 2000;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--engine") && i + 1 < argc) {
      en = argv[++i];
      e = !std::strcmp(en, "model") ? Engine::kModel : !std::strcmp(en, "rtl") ? Engine::kRtl : Engine::kLockstep;
    } else if (!std::strcmp(argv[i], "--frames") && i + 1 < argc) {
      n = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: vnic_bench [--engine model|rtl|lockstep] [--frames N]\n");
      return 2;
    }
  }
  const Tables t = ParseConfig("port 0 veswid 1 pkey 0x8001 slid 1 ucast_dlid 2 mcast_dlid 3\n", "bench");
  std::printf("| frames | direction | out beats/busy cycle | in beats/cycle | first-frame latency (cycles) | "
              "cycles | Mcycles/s (%s) |\n|---|---|---|---|---|---|---|\n", en);
  for (const char* mix : {"60", "64", "imix", "1514", "9018", "uniform"}) {
    std::mt19937_64 rng(1);
    const int count = !std::strcmp(mix, "9018") || !std::strcmp(mix, "uniform") ? n / 10 : n;
    const std::vector<Packet> frames = Frames(mix, count, rng);
    std::vector<Packet> pkts;
    const Row enc = Measure(t, frames, Direction::kEncap, e, &pkts);
    const Row dec = Measure(t, pkts, Direction::kDecap, e, nullptr);
    for (const auto& [dir, r] : {std::pair<const char*, Row>{"encap", enc}, {"decap", dec}}) {
      std::printf("| %s x%d | %s | %.4f | %.4f | %llu | %llu | %.2f |\n", mix, count, dir, r.out_per_busy,
                  r.in_per_cycle, static_cast<unsigned long long>(r.first_latency),
                  static_cast<unsigned long long>(r.cycles), r.mbeats_s);
    }
    for (const auto& [dir, r] : {std::pair<const char*, Row>{"encap", enc}, {"decap", dec}}) {
      std::printf("{\"mix\": \"%s\", \"dir\": \"%s\", \"engine\": \"%s\", \"out_per_busy\": %.4f, \"in_per_cycle\": "
                  "%.4f, \"latency\": %llu, \"cycles\": %llu, \"mcycles_s\": %.3f}\n",
                  mix, dir, en, r.out_per_busy, r.in_per_cycle, static_cast<unsigned long long>(r.first_latency),
                  static_cast<unsigned long long>(r.cycles), r.mbeats_s);
    }
  }
  return 0;
}
