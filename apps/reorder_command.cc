// `nettwin reorder`: the ConWeave destination-ToR reorder queue on timed fabric arrivals (pcap in ->
// delivered pcap + control pcap out), with the RTL, the model, or both in lockstep.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "model/common/file_io.h"
#include "model/common/pcap.h"
#include "model/reorder/reorder_config.h"
#include "reorder_counter_stats.h"
#include "tb/reorder/reorder_run.h"

namespace nettwin::reorder {
namespace {

constexpr const char* kHelp =
    "usage: nettwin reorder --config reorder.txt --in arrivals.pcap --out delivered.pcap --ctrl-out control.pcap\n"
    "                       [--engine model|rtl|lockstep] [--clock-mhz 250] [--stats stats.json]\n"
    "                       [--trace wave.fst] [--backpressure P] [--ctrl-backpressure P] [--seed N]\n"
    "                       [--back-to-back] [--out-format pcap|pcapng]\n"
    "  --config FILE   the reorder queue's configuration (docs/reorder.md).\n"
    "  --in FILE       arriving frames from the fabric (pcap or pcapng), in time order.\n"
    "  --out FILE      the frames delivered to the hosts; --ctrl-out FILE: the control packets (RTT_REPLY,\n"
    "                  NOTIFY, CLEAR) the block sends back, a separate port.\n"
    "  --engine E      model, rtl or lockstep (default lockstep: both, compared every cycle).\n"
    "  --clock-mhz F   clock in MHz (default 250): arrival cycles and the block's microsecond clock.\n"
    "  --stats FILE    counters as JSON (docs/reorder.md \"--stats\"); --trace FILE: FST of the RTL (rtl,\n"
    "                  lockstep; default none; without it a divergence writes OUT.mismatch.fst).\n"
    "  --backpressure P, --ctrl-backpressure P  the data / control output not ready in a random fraction P\n"
    "                  of cycles (0..0.99, default 0); --seed N: their seed (default 1).\n"
    "  Arrival times are the input pcap timestamps (--back-to-back offers frames at line rate instead; the\n"
    "  microsecond clock still follows the cycles). Output timestamps are departure times.\n";

std::string StatsJson(const ReorderRunReport& r, const char* engine) {
  const ReorderCounters& c = r.counters;
  std::vector<uint32_t> hs;
  for (const HoldRecord& h : r.holds) {
    if (h.held) hs.push_back(h.hold_us);
  }
  std::sort(hs.begin(), hs.end());
  double mean = 0;
  for (uint32_t h : hs) mean += h;
  if (!hs.empty()) mean /= static_cast<double>(hs.size());
  const size_t n = hs.size();
  return RunStatsJson(engine, r, [&](std::ostream& j) {
    WriteReorderCounterStats(j, c);  // generated from rtl/reorder/data/reorder.json
    j << "  \"hold_us\": {\"count\": " << n << ", \"min\": " << (n ? hs.front() : 0)
      << ", \"max\": " << (n ? hs.back() : 0) << ", \"mean\": ";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f", mean);
    j << buf << ", \"p50\": " << (n ? hs[n / 2] : 0) << ", \"p99\": " << (n ? hs[std::min(n - 1, n * 99 / 100)] : 0)
      << ", \"histogram\": [";
    // Power-of-two buckets: [upper bound in us (inclusive), count]; the first bucket is 0..1.
    uint32_t hi = 1;
    bool first = true;
    size_t i = 0;
    while (i < n) {
      size_t k = 0;
      while (i < n && hs[i] <= hi) ++i, ++k;
      if (k > 0) {
        j << (first ? "" : ", ") << "[" << hi << ", " << k << "]";
        first = false;
      }
      hi = hi * 2 + 1;
    }
    j << "]},\n";
  });
}

}  // namespace

int ReorderCommand(int argc, char** argv) {
  std::string config_path, ctrl_out;
  CommonOptions common(kOptBlockRun | kOptOutFormat);
  ReorderRunConfig rc;
  ReorderCfg cfg;
  std::vector<Packet> packets;
  const std::string help = std::string(kHelp) + kOutFormatHelp + kInjectHelp;
  try {
    const bool run = ForEachOption(argc, argv, help.c_str(), [&](const std::string& o, const auto& val) {
      if (common.Parse(o, val)) return;
      if (o == "--config") config_path = val();
      else if (o == "--ctrl-out") ctrl_out = val();
      else if (o == "--ctrl-backpressure") rc.ctrl_backpressure = ParseNumber(o, val(), 0, 0.99);
      else if (o == "--back-to-back") rc.untimed = true;
      else throw std::invalid_argument("unknown option '" + o + "'");
    });
    if (!run) return 0;
    common.Check();
    RequireOptions(
        {{"--config", &config_path}, {"--in", &common.in}, {"--out", &common.out}, {"--ctrl-out", &ctrl_out}});
    cfg = LoadConfig(config_path);
    packets = common.ReadInput();
    for (size_t i = 1; i < packets.size(); ++i) {
      if (packets[i].time_ns < packets[i - 1].time_ns) {
        throw std::runtime_error(common.in + ": packet " + std::to_string(i + 1) + " arrives before packet " +
                                 std::to_string(i) + " (arrivals must be in time order; packets count from 1)");
      }
    }
  } catch (const std::exception& e) {
    return InputError("reorder", e, help);
  }
  common.Configure(&rc);
  const ReorderRunReport r = RunReorder(cfg, packets, rc);
  try {
    common.WriteCapture(common.out, r.run.out);
    common.WriteCapture(ctrl_out, r.ctrl);
    if (!common.stats.empty()) {
      nettwin::WriteTextFile<std::runtime_error>(common.stats, StatsJson(r, common.engine_name()));
    }
  } catch (const std::exception& e) {
    return InputError("reorder", e, "");
  }
  const ReorderCounters& c = r.counters;
  std::printf("reorder: %zu arrivals, %u delivered (%u held: %u released by TAIL, %u by timeout; %u fallback), "
              "%u control, %u dropped, %llu cycles\n",
              packets.size(), c.delivered, c.held, c.released_by_tail, c.released_by_timeout, c.fallback_unordered,
              c.ctrl_out, static_cast<unsigned>(ReorderDropped(c)), static_cast<unsigned long long>(r.run.cycles));
  return RunExit("reorder", r.mismatch_text, rc.opt, r.run, r.conservation_ok,
                 "in " + std::to_string(c.in) + ", delivered " + std::to_string(c.delivered) + ", dropped " +
                     std::to_string(ReorderDropped(c)) + ", held now " + std::to_string(c.held_now),
                 argc, argv);
}

}  // namespace nettwin::reorder
