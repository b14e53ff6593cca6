// `nettwin cwloop`: the ConWeave closed loop (docs/cwloop.md): seeded hosts' flows through the source ToR
// (reroute), a fabric of several paths with moving congestion, the destination ToR (reorder), control packets
// back through the fabric; both ToRs as cycle models, RTL, or RTL and model in lockstep. Writes a capture of
// every point with its time and a JSON report, for nettwin.cwloop.check.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <sys/stat.h>

#include "apps/commands.h"
#include "apps/reroute_stats.h"
#include "model/common/counters_json.h"
#include "model/common/pcap.h"
#include "tb/cwloop/cwloop.h"

namespace nettwin::reroute {
namespace {

constexpr const char* kHelp =
    "usage: nettwin cwloop --out-dir DIR [--seed N] [--engine model|rtl|lockstep] [--ecmp]\n"
    "        hosts:  [--host-flows 24] [--packets 80] [--payload 1000] [--gap-ns 4000] [--spread-ns 100000]\n"
    "                [--ipv6]\n"
    "        fabric: [--paths 8] [--gbps 25] [--base-ns 2000] [--step-ns 250] [--ecn-queue-ns 5000]\n"
    "                [--congested 1] [--moves 4] [--extra-us 50] [--rate-factor 0.6] [--loss 0]\n"
    "                [--ctrl-loss 0]\n"
    "        source ToR: [--flows 1024] [--reply-cutoff-us 40] [--path-busy-us 100] [--flow-idle-us 2000]\n"
    "        destination ToR: [--margin-us 100] [--default-hold-us 200] [--dst-idle-us 2000]\n"
    "  --out-dir DIR   where the captures and reports go (created if missing); --seed N: the seed of the hosts'\n"
    "                  flows, the fabric's loss and congestion moves (default 1); --engine E: model, rtl or\n"
    "                  lockstep (default lockstep) for both ToRs. Defaults of the other options are shown above.\n"
    "  The hosts' flows go through the source ToR (reroute), a fabric of --paths paths (each a FIFO link of\n"
    "  --gbps, one-way delay base + path * step, CE when a packet queued longer than --ecn-queue-ns), the\n"
    "  destination ToR (reorder), and its control packets come back through the fabric's reverse direction.\n"
    "  --congested paths at a time are congested (rate x --rate-factor, + --extra-us, CE on every packet,\n"
    "  data loss --loss); the congestion moves to other paths --moves times over the run. --ecmp: the source\n"
    "  ToR never reroutes (reply cutoff 32767 us), ECMP alone. Writes DIR/hosts.pcap, fabric_in.pcap,\n"
    "  fabric_out.pcap, fabric_lost.pcap, delivered.pcap, ctrl_dst.pcap, control.pcap (into the source ToR),\n"
    "  ctrl_lost.pcap (ns timestamps from the start of the run), run.json, src_stats.json, report.json.\n"
    "  --inject-divergence CYCLE  self-test (lockstep only): the source ToR's first fabric beat at or after\n"
    "                CYCLE is compared with one bit flipped; the run must report the divergence and exit 1.\n"
    "  Exit: 0 ok, 1 lockstep mismatch / hang / conservation, 2 usage.\n";

void Write(const std::string& dir, const char* name, const std::vector<Packet>& p) {
  WritePcap(dir + "/" + name, p, CaptureFormat{PcapFormat::kPcap, true, kLinkEthernet});
}

}  // namespace

int CwloopCommand(int argc, char** argv) {
  CwloopConfig c;
  c.dst.queues = 32;
  c.dst.margin_us = 100;  // above the congestion's delay step (docs/cwloop.md "Decision (margin)")
  std::string dir;
  const char* engine_name = "lockstep";
  int congested = 1, moves = 4;
  double extra_us = 50, rate_factor = 0.6, loss = 0;
  try {
    const bool run = ForEachOption(argc, argv, kHelp, [&](const std::string& o, const auto& val) {
      auto num = [&](double lo, double hi) { return ParseNumber(o, val(), lo, hi); };
      if (o == "--out-dir") dir = val();
      else if (o == "--seed") c.seed = static_cast<uint64_t>(num(0, 1e15));
      else if (o == "--engine") c.engine = ParseEngine<LoopEngine>(o, val(), &engine_name);
      else if (o == "--ecmp") c.ecmp_only = true;
      else if (o == "--ipv6") c.ipv6_some = true;
      else if (o == "--host-flows") c.host_flows = static_cast<int>(num(1, 4096));
      else if (o == "--packets") c.packets = static_cast<int>(num(1, 100000));
      else if (o == "--payload") c.payload = static_cast<int>(num(0, 4000));
      else if (o == "--gap-ns") c.gap_ns = static_cast<uint64_t>(num(100, 1e9));
      else if (o == "--spread-ns") c.start_spread_ns = static_cast<uint64_t>(num(0, 1e10));
      else if (o == "--paths") {
        const int p = static_cast<int>(num(4, 32));
        if (p != 4 && p != 8 && p != 16 && p != 32) throw std::invalid_argument("--paths must be 4, 8, 16 or 32");
        c.fabric.paths = p;
      } else if (o == "--gbps") c.fabric.gbps = num(0.1, 1000);
      else if (o == "--base-ns") c.fabric.base_ns = static_cast<uint32_t>(num(0, 1e7));
      else if (o == "--step-ns") c.fabric.step_ns = static_cast<uint32_t>(num(0, 1e6));
      else if (o == "--ecn-queue-ns") c.fabric.ecn_queue_ns = static_cast<uint32_t>(num(0, 1e9));
      else if (o == "--congested") congested = static_cast<int>(num(0, 31));
      else if (o == "--moves") moves = static_cast<int>(num(1, 1000));
      else if (o == "--extra-us") extra_us = num(0, 10000);
      else if (o == "--rate-factor") rate_factor = num(0.01, 1);
      else if (o == "--loss") loss = num(0, 0.5);
      else if (o == "--ctrl-loss") c.fabric.ctrl_loss = num(0, 0.5);
      else if (o == "--flows") {
        const int f = static_cast<int>(num(1, kFlows));
        if ((f & (f - 1)) != 0) throw std::invalid_argument("--flows must be a power of two <= 1024");
        c.src.flows_mask = static_cast<uint16_t>(f - 1);
      } else if (o == "--reply-cutoff-us") c.src.reply_cutoff_us = static_cast<uint16_t>(num(1, 32767));
      else if (o == "--path-busy-us") c.src.path_busy_us = static_cast<uint16_t>(num(1, 32767));
      else if (o == "--flow-idle-us") c.src.flow_idle_us = static_cast<uint16_t>(num(1, 32767));
      else if (o == "--margin-us") c.dst.margin_us = static_cast<uint16_t>(num(0, 32767));
      else if (o == "--default-hold-us") c.dst.default_hold_us = static_cast<uint16_t>(num(1, 32767));
      else if (o == "--inject-divergence") c.inject_at = ParseInjectDivergence(o, val());
      else if (o == "--dst-idle-us") c.dst.flow_idle_us = static_cast<uint16_t>(num(1, 32767));
      else throw std::invalid_argument("unknown option '" + o + "'");
    });
    if (!run) return 0;
    if (dir.empty()) throw std::invalid_argument("--out-dir is required");
    if (congested >= c.fabric.paths) throw std::invalid_argument("--congested must be below --paths");
    if (c.inject_at != ~uint64_t{0} && c.engine != LoopEngine::kLockstep) {
      throw std::invalid_argument("--inject-divergence needs --engine lockstep");
    }
  } catch (const std::exception& e) {
    std::cerr << "nettwin cwloop: " << e.what() << "\n" << kHelp;
    return 2;
  }
  c.fabric.seed = c.seed;
  const uint64_t run_ns = c.start_spread_ns + static_cast<uint64_t>(c.packets) * c.gap_ns;
  c.fabric.events = MovingCongestion(c.seed, c.fabric.paths, congested, moves, run_ns,
                                     static_cast<uint32_t>(extra_us * 1000), rate_factor, loss);
  CwloopRecord r = RunCwloop(c);
  const RerouteCounters& s = r.src;
  const reorder::ReorderCounters& d = r.dst;
  // Conservation at every point: hosts = source in = out = fabric in = fabric out + lost = destination in =
  // delivered + drops; control: destination out = back at the source + lost = source control in.
  const bool ok = r.mismatch.empty() && !r.hang && s.in == r.hosts.size() && s.out == s.in && s.drop_malformed == 0 &&
                  r.fabric_in.size() == s.out && r.fabric_in.size() == r.fabric_out.size() + r.fabric_lost.size() &&
                  d.in == r.fabric_out.size() && d.in == d.delivered + reorder::ReorderDropped(d) &&
                  r.delivered.size() == d.delivered && r.hold_us.size() == r.delivered.size() &&
                  r.ctrl_dst.size() == d.ctrl_out && r.ctrl_dst.size() == r.ctrl_src.size() + r.ctrl_lost.size() &&
                  s.ctrl_in == r.ctrl_src.size() && d.held_now == 0;
  try {
    mkdir(dir.c_str(), 0755);
    Write(dir, "hosts.pcap", r.hosts);
    Write(dir, "fabric_in.pcap", r.fabric_in);
    Write(dir, "fabric_out.pcap", r.fabric_out);
    Write(dir, "fabric_lost.pcap", r.fabric_lost);
    Write(dir, "delivered.pcap", r.delivered);
    Write(dir, "ctrl_dst.pcap", r.ctrl_dst);
    Write(dir, "control.pcap", r.ctrl_src);
    Write(dir, "ctrl_lost.pcap", r.ctrl_lost);
    std::ofstream rj(dir + "/run.json");
    rj << "{\n  \"seed\": " << c.seed << ",\n  \"engine\": \"" << engine_name << "\",\n  \"mode\": \""
       << (c.ecmp_only ? "ecmp" : "conweave") << "\",\n  \"clock_mhz\": " << c.clock_mhz
       << ",\n  \"host_flows\": " << c.host_flows << ",\n  \"packets\": " << c.packets << ",\n  \"payload\": "
       << c.payload << ",\n  \"paths\": " << c.fabric.paths << ",\n  \"gbps\": " << c.fabric.gbps
       << ",\n  \"base_ns\": " << c.fabric.base_ns << ",\n  \"step_ns\": " << c.fabric.step_ns
       << ",\n  \"ecn_queue_ns\": " << c.fabric.ecn_queue_ns << ",\n  \"loss\": " << loss << ",\n  \"ctrl_loss\": "
       << c.fabric.ctrl_loss << ",\n  \"reply_cutoff_us\": " << (c.ecmp_only ? 32767 : c.src.reply_cutoff_us)
       << ",\n  \"path_busy_us\": " << c.src.path_busy_us << ",\n  \"flow_idle_us\": " << c.src.flow_idle_us
       << ",\n  \"flows\": " << (c.src.flows_mask + 1) << ",\n  \"margin_us\": " << c.dst.margin_us
       << ",\n  \"default_hold_us\": " << c.dst.default_hold_us << ",\n  \"dst_flow_idle_us\": " << c.dst.flow_idle_us
       << ",\n  \"events\": [";
    for (size_t i = 0; i < c.fabric.events.size(); ++i) {
      const CongestionEvent& e = c.fabric.events[i];
      rj << (i ? ",\n    " : "\n    ") << "{\"from_ns\": " << e.from_ns << ", \"to_ns\": " << e.to_ns
         << ", \"path\": " << int{e.path} << ", \"extra_ns\": " << e.extra_ns << ", \"rate_factor\": " << e.rate_factor
         << ", \"loss\": " << e.loss << "}";
    }
    rj << "\n  ]\n}\n";
    std::ofstream ss(dir + "/src_stats.json");
    ss << RerouteStatsJson(r.src, engine_name, false, r.cycles, r.mismatch.empty() ? 0 : 1, ok);
    std::ofstream rp(dir + "/report.json");
    rp << "{\n  \"engine\": \"" << engine_name << "\",\n  \"mode\": \"" << (c.ecmp_only ? "ecmp" : "conweave")
       << "\",\n  \"cycles\": " << r.cycles << ",\n  \"mismatch\": \"" << r.mismatch << "\",\n  \"hang\": "
       << (r.hang ? "true" : "false") << ",\n  \"conservation_ok\": " << (ok ? "true" : "false")
       << ",\n  \"hosts\": " << r.hosts.size() << ",\n  \"fabric_in\": " << r.fabric_in.size()
       << ",\n  \"fabric_out\": " << r.fabric_out.size() << ",\n  \"fabric_lost\": " << r.fabric_lost.size()
       << ",\n  \"delivered\": " << r.delivered.size() << ",\n  \"ctrl_dst\": " << r.ctrl_dst.size()
       << ",\n  \"ctrl_src\": " << r.ctrl_src.size() << ",\n  \"ctrl_lost\": " << r.ctrl_lost.size()
       << ",\n  \"src\": {\"reroutes\": " << s.reroutes << ", \"rtt_requests\": " << s.rtt_requests
       << ", \"rtt_replies\": " << s.rtt_replies << ", \"stale_replies\": " << s.stale_replies
       << ", \"notifies\": " << s.notifies << ", \"clears\": " << s.clears << ", \"stale_clears\": " << s.stale_clears
       << ", \"blocked_iii\": " << s.reroute_blocked_clear << ", \"no_path_ii\": " << s.reroute_no_path
       << ", \"fallback_ecmp\": " << s.fallback_ecmp << ", \"idle_resets\": " << s.idle_resets << "}"
       << ",\n  \"dst\": " << CountersJson(d)  // every counter, named as in rtl/reorder/data/reorder.json
       << ",\n  \"occupancy\": {\"mean_held_packets\": " << r.mean_held_packets << ", \"mean_held_cells\": "
       << r.mean_held_cells << ", \"peak_held_packets\": " << r.peak_held_packets << ", \"peak_held_cells\": "
       << r.peak_held_cells << "}"
       << ",\n  \"hold_us\": [";
    for (size_t i = 0; i < r.hold_us.size(); ++i) rp << (i ? "," : "") << r.hold_us[i];
    rp << "]\n}\n";
    if (!rj || !ss || !rp) throw std::runtime_error(dir + ": write failed");
  } catch (const std::exception& e) {
    std::cerr << "nettwin cwloop: " << e.what() << "\n";
    return 2;
  }
  std::printf("cwloop (%s, %s): %zu host frames, %zu lost in the fabric, %zu delivered; %u reroutes, %u RTT "
              "requests, %u replies, %u NOTIFYs, %u CLEARs; held %u (TAIL %u, timeout %u); %zu control (%zu lost); "
              "%llu cycles\n",
              engine_name, c.ecmp_only ? "ecmp" : "conweave", r.hosts.size(), r.fabric_lost.size(),
              r.delivered.size(), s.reroutes, s.rtt_requests, s.rtt_replies, s.notifies, s.clears, d.held,
              d.released_by_tail, d.released_by_timeout, r.ctrl_dst.size(), r.ctrl_lost.size(),
              static_cast<unsigned long long>(r.cycles));
  if (!r.mismatch.empty()) {
    std::cerr << "nettwin cwloop: LOCKSTEP MISMATCH: " << r.mismatch << "\n";
    return 1;
  }
  if (c.inject_at != ~uint64_t{0}) {
    std::cerr << "nettwin cwloop: --inject-divergence: no divergence at or after cycle " << c.inject_at << "\n";
    return 1;
  }
  if (!ok) {
    std::cerr << "nettwin cwloop: " << (r.hang ? "HANG" : "CONSERVATION FAILED") << " (report.json)\n";
    return 1;
  }
  return 0;
}

}  // namespace nettwin::reroute
