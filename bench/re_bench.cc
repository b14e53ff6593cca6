// EJFAT reassembly engine benchmark (docs/PERF.md "EJFAT reassembly engine"): back-to-back segments of
// events of several sizes, cut into segments of several sizes and delivered in order, reversed or shuffled
// across events; for each mix the input beats per cycle from the first to the last input beat (1.0 = line
// rate: the input was never stalled), input stall cycles, the latency from an event's last input beat to
// its first output beat, and the simulation speed. The `buffer host` mixes (event bytes to host memory by
// DMA, tb::HostMemory with a 100-cycle posted-write latency) carry events up to 16 MiB; one has a host slower
// than line rate (50 write credits). Then the memory the parameters cost, by context count.
// Prints a Markdown table and one JSON line per row.
//   build/re_bench [--engine rtl|lockstep|model] [--events N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tb/re/re_frames.h"
#include "tb/re/re_run.h"

namespace nettwin::re {
namespace {

using Clock = std::chrono::steady_clock;

struct Mix {
  const char* name;
  std::vector<int> event_sizes, seg_sizes;
  // in-order, reverse, shuffle (every segment of every event), shuffle12 (in windows of 12 segments: at most 11
  // holes, within the range table's 16), interleave (4 events)
  const char* order;
  bool e2sar = false;  // E2SAR's 20-byte header (config `header e2sar`), every third event behind an LB v2 header
  bool host = false;   // `buffer host`: event bytes to host memory by DMA (buffer_bytes 16 MiB)
  int events = 0;      // events of this mix (0: --events)
  uint32_t host_outstanding = 128;  // the host's posted-write credits (latency 100 cycles)
};

std::vector<Packet> Segments(const Mix& m, int events, std::mt19937_64& rng) {
  std::vector<Packet> all;
  std::vector<std::vector<Packet>> per;
  for (int e = 0; e < events; ++e) {
    const int size = m.event_sizes[static_cast<size_t>(e) % m.event_sizes.size()];
    const int seg = m.seg_sizes[static_cast<size_t>(e) % m.seg_sizes.size()];
    const auto data = Bytes(size, e);
    std::vector<Packet> v;
    for (int a = 0; a < size; a += seg) {
      const int b = std::min(size, a + seg);
      SegOpts o{e % 3 == 2, 5};
      if (m.e2sar) {
        o.lb_version = e % 3 == 1 ? 2 : 0;
        o.sport = static_cast<uint16_t>(20000 + a % 4);  // E2SAR's sockets
        v.push_back(E2sarSeg((uint64_t{1} << 40) | static_cast<uint64_t>(e), static_cast<uint16_t>(e >> 16),
                             static_cast<uint32_t>(a), static_cast<uint32_t>(size), Slice(data, a, b), 0.01 * e, o));
      } else {
        v.push_back(Seg(static_cast<uint16_t>(e), static_cast<uint16_t>(e >> 16), static_cast<uint32_t>(a),
                        Slice(data, a, b), b == size, 0.01 * e, o));
      }
    }
    if (std::strcmp(m.order, "reverse") == 0) std::reverse(v.begin(), v.end());
    if (std::strcmp(m.order, "shuffle") == 0) std::shuffle(v.begin(), v.end(), rng);
    if (std::strcmp(m.order, "shuffle12") == 0) {
      for (size_t w = 0; w < v.size(); w += 12) {
        std::shuffle(v.begin() + static_cast<std::ptrdiff_t>(w),
                     v.begin() + static_cast<std::ptrdiff_t>(std::min(v.size(), w + 12)), rng);
      }
    }
    per.push_back(std::move(v));
  }
  if (std::strcmp(m.order, "interleave") == 0) {
    for (size_t g = 0; g < per.size(); g += 4) {  // four events at a time, round robin
      for (size_t k = 0;; ++k) {
        bool any = false;
        for (size_t e = g; e < std::min(per.size(), g + 4); ++e) {
          if (k < per[e].size()) all.push_back(per[e][k]), any = true;
        }
        if (!any) break;
      }
    }
  } else {
    for (auto& v : per) all.insert(all.end(), v.begin(), v.end());
  }
  return all;
}

}  // namespace
}  // namespace nettwin::re

int main(int argc, char** argv) {
  using namespace nettwin;
  using namespace nettwin::re;
  Engine engine = Engine::kRtl;
  const char* engine_name = "rtl";
  int events = 400;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--engine") == 0 && i + 1 < argc) {
      engine_name = argv[++i];
      engine = std::strcmp(engine_name, "lockstep") == 0 ? Engine::kLockstep
               : std::strcmp(engine_name, "model") == 0  ? Engine::kModel
                                                         : Engine::kRtl;
    } else if (std::strcmp(argv[i], "--events") == 0 && i + 1 < argc) {
      events = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: re_bench [--engine rtl|lockstep|model] [--events N]\n");
      return 2;
    }
  }
  const std::vector<Mix> mixes = {
      {"9000 B events, 1400 B segments, in order", {9000}, {1400}, "in-order"},
      {"9000 B events, 1400 B segments, reversed", {9000}, {1400}, "reverse"},
      {"sizes 1..16000 B, 1400 B segments, shuffled", {1, 100, 1000, 4000, 9000, 16000}, {1400}, "shuffle"},
      {"sizes 1..16000 B, 8000 B jumbo segments, interleaved", {1, 100, 1000, 4000, 9000, 16000}, {8000}, "interleave"},
      {"4000 B events, 333 B segments, shuffled", {4000}, {333}, "shuffle"},
      {"1000 B events, 14 B segments (one-beat frames), interleaved", {1000}, {14}, "interleave"},
      {"E2SAR header: sizes 1..16000 B, 1400 B segments, shuffled", {1, 100, 1000, 4000, 9000, 16000}, {1400},
       "shuffle", true},
      {"E2SAR header: 200 B events, 2 B segments (one-beat frames), interleaved", {200}, {2}, "interleave", true},
      {"buffer host: 16 MiB, 4 MiB and 1..9000 B events, 8000 B jumbo segments, shuffled in windows of 12",
       {16 << 20, 1, 9000, 4 << 20, 1000}, {8000}, "shuffle12", true, true, 5},
      {"buffer host: 16 MiB events, 1400 B segments, in order", {16 << 20}, {1400}, "in-order", true, true, 2},
      {"buffer host: 200 B events, 2 B segments (one-beat frames), interleaved", {200}, {2}, "interleave", true,
       true},
      {"buffer host, slow host (50 write credits, 100-cycle latency): 4 MiB events, 1400 B segments",
       {4 << 20}, {1400}, "in-order", true, true, 2, 50},
  };
  std::printf(
      "| mix | segments | in beats | cycles | in beats/cycle | input stalls | events | max latency (cycles) | sim "
      "kcycles/s |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  std::mt19937_64 rng(1);
  int failures = 0;
  for (const Mix& m : mixes) {
    const int n = m.events > 0 ? m.events : events;
    // Event e's segments carry time 10e ns; with a 400 ns timeout a completed event's context (held until
    // its timeout, docs/re.md) is freed about 40 events later, so at most ~44 of the 64 are ever in use.
    const std::vector<Packet> timed = Segments(m, n, rng);
    ReRunConfig rc;
    rc.engine = engine;
    rc.cfg.contexts = params::kReContexts;
    rc.cfg.buffer_bytes = params::kReBufBytes;
    rc.cfg.timeout_ns = 400;
    if (m.e2sar) rc.cfg.format = HeaderFormat::kE2sar, rc.cfg.version = 1;
    if (m.host) {
      rc.cfg.buffer = BufferMode::kHost;
      rc.cfg.buffer_bytes = kReHostBufBytes;
      rc.host_write_latency = 100;
      rc.host_max_outstanding = m.host_outstanding;
    }
    const auto t0 = Clock::now();
    const ReRunReport r = RunRe(timed, rc);
    const double secs = std::chrono::duration<double>(Clock::now() - t0).count();
    const uint64_t first = r.run.in_first_cycle.empty() ? 0 : r.run.in_first_cycle.front();
    const uint64_t last = r.run.in_last_cycle.empty() ? 0 : r.run.in_last_cycle.back();
    const double rate = static_cast<double>(r.run.in_beats) / static_cast<double>(last - first + 1);
    // latency: an event's completing segment is its last one in arrival order; out frames are in completion order
    uint64_t max_lat = 0;
    {
      std::vector<uint64_t> done_cycle;
      std::vector<int> seen(static_cast<size_t>(n), 0), count(static_cast<size_t>(n), 0);
      for (const Packet& p : timed) ++count[static_cast<size_t>(p.time_ns / 10)];
      for (size_t i = 0; i < timed.size(); ++i) {
        const size_t e = timed[i].time_ns / 10;
        if (++seen[e] == count[e]) done_cycle.push_back(r.run.in_last_cycle[i]);
      }
      for (size_t i = 0; i < std::min(done_cycle.size(), r.run.out_first_cycle.size()); ++i) {
        max_lat = std::max(max_lat, r.run.out_first_cycle[i] - done_cycle[i]);
      }
    }
    const bool ok = r.conservation_ok && r.counters.completed == static_cast<uint32_t>(n) && r.reports.empty();
    failures += !ok;
    std::printf("| %s | %zu | %llu | %llu | %.3f | %llu | %u%s | %llu | %.0f |\n", m.name, timed.size(),
                static_cast<unsigned long long>(r.run.in_beats), static_cast<unsigned long long>(last - first + 1),
                rate, static_cast<unsigned long long>(r.run.input_stall_cycles), r.counters.completed,
                ok ? "" : " FAIL", static_cast<unsigned long long>(max_lat),
                static_cast<double>(r.run.cycles) / secs / 1000.0);
    std::printf(
        "{\"bench\": \"re\", \"engine\": \"%s\", \"mix\": \"%s\", \"in_beats\": %llu, \"cycles\": %llu, "
        "\"rate\": %.4f, \"stalls\": %llu, \"ok\": %s}\n",
        engine_name, m.name, static_cast<unsigned long long>(r.run.in_beats),
        static_cast<unsigned long long>(last - first + 1), rate,
        static_cast<unsigned long long>(r.run.input_stall_cycles), ok ? "true" : "false");
  }
  // Memory by context count (the RTL's storage; bits): data buffer, range table, context state, input FIFO.
  // Offsets are OffW = $clog2(ReHostBufBytes + 1) = 25 bits since `buffer host` (events up to 16 MiB); a build
  // for on-chip buffers only would keep $clog2(buffer + 1). "host": no data buffer, 16 MiB events.
  const unsigned off_w = 25;
  std::printf("\n| contexts | buffer/context | data buffer | range table | context state | input FIFO | total |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (unsigned ctx : {16u, 64u, 256u}) {
    for (unsigned buf : {9216u, 16384u, 65536u, 0u}) {
      const unsigned ow = buf == 0 ? off_w : (buf == 16384 ? 15 : (buf == 9216 ? 14 : 17));
      const double data_kib = ctx * static_cast<double>(buf) / 1024;
      const double range_kib = ctx * params::kReRanges * (2.0 * ow + 1) / 8 / 1024;
      const double state_kib = ctx * (4.0 + 80 + 96 + 64 + 32 + 4 * ow) / 8 / 1024;  // key: event_num 64 + data_id
      const double fifo_kib = params::kReFifoBeats * 64.0 / 1024;
      if (buf == 0) {
        std::printf("| %u | host (16 MiB events) | 0 | %.1f KiB | %.1f KiB | %.0f KiB | %.0f KiB |\n", ctx, range_kib,
                    state_kib, fifo_kib, range_kib + state_kib + fifo_kib);
        continue;
      }
      std::printf("| %u | %u B | %.0f KiB | %.1f KiB | %.1f KiB | %.0f KiB | %.0f KiB |\n", ctx, buf, data_kib,
                  range_kib, state_kib, fifo_kib, data_kib + range_kib + state_kib + fifo_kib);
    }
  }
  return failures ? 1 : 0;
}
