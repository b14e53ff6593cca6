// `nettwin lb`: golden output, RTL run or lockstep run of the EJFAT load balancer on a pcap.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>

#include "apps/commands.h"
#include "lb_counter_stats.h"
#include "model/common/file_io.h"
#include "model/common/pcap.h"
#include "model/lb/udplb_script.h"
#include "tb/lb/lb_run.h"
#include "tb/lb/udplb_run.h"
#include "udplb_counter_stats.h"

namespace nettwin::lb {
namespace {

constexpr const char* kHelp =
    "usage: nettwin lb --tables runsim.txt --in packets_in.pcap --out packets_out.pcap\n"
    "                  [--program seed|udplb] [--ttl-decrement on|off] [--ingress-port N] [--meta-out FILE]\n"
    "                  [--engine model|fast|rtl|lockstep] [--stats stats.json] [--trace wave.fst]\n"
    "                  [--backpressure P] [--gaps P] [--seed N] [--timed] [--clock-mhz F]\n"
    "                  [--out-format pcap|pcapng] [--inject-divergence CYCLE]\n"
    "  --tables      the table script (seed: runsim.txt format, docs/lb.md; udplb: udplb's simulator CLI)\n"
    "  --in          input frames (pcap or pcapng, Ethernet); --out: the frames the block forwards or answers\n"
    "  --stats       counters as JSON (packets in/out, drops by reason; cycle engines: cycles, stalls)\n"
    "  --program     seed (default): the seed's P4 sample, LB header v1 (docs/lb.md); udplb: ESnet's udplb.p4\n"
    "                (esnet/udplb 255e11b: LB header v2/v3, instances, L2/L3 filters, ARP/ICMP/ND answers;\n"
    "                docs/lb-udplb.md), its table script in udplb's simulator CLI format\n"
    "  --ttl-decrement  udplb: on (default, udplb 255e11b) or off (udplb before c77dc72, as its test-1's\n"
    "                expected output)\n"
    "  --ingress-port   udplb: ingress port of every frame, 0..15 (default 0)\n"
    "  --meta-out    udplb: one simulator metadata line (smartnic_metadata, as udplb's expected/*.meta) per\n"
    "                output frame, with its egress port\n"
    "  --engine      lockstep (default): RTL and cycle-accurate model, every output compared every cycle;\n"
    "                model: cycle-accurate C++ model; fast: packet-at-a-time C++ model (no cycle figures;\n"
    "                streams the capture frame by frame, so memory does not grow with its size);\n"
    "                rtl: Verilated RTL only\n"
    "  --trace       FST of the whole run (RTL engines); without it a lockstep divergence writes\n"
    "                <out>.mismatch.fst with the cycles around it\n"
    "  --backpressure P  output not ready in a random fraction P of cycles; --gaps P: input idle likewise\n"
    "                (probabilities 0..0.99, default 0)\n"
    "  --seed N      seed of the gap and backpressure patterns (default 1)\n"
    "  --timed       offer each frame at its pcap timestamp (clock --clock-mhz, default 250)\n"
    "%s%s";

struct Args {
  std::string tables, meta_out;
  bool udplb = false;
  udplb::ScriptOptions udplb_opt;
  uint8_t ingress_port = 0;
  CommonOptions c{kOptBlockRun | kOptFastEngine | kOptGaps | kOptOutFormat};
  LbRunConfig cfg;  // its engine and options from `c`
};

std::string Help() {
  char buf[4096];
  std::snprintf(buf, sizeof buf, kHelp, kOutFormatHelp, kInjectHelp);
  return buf;
}

Args ParseArgs(int argc, char** argv) {
  Args a;
  ForEachOption(argc, argv, "", [&](const std::string& o, const auto& val) {
    if (a.c.Parse(o, val)) return;
    if (o == "--tables") a.tables = val();
    else if (o == "--program") {
      const std::string p = val();
      if (p != "seed" && p != "udplb") throw std::invalid_argument("--program must be seed or udplb, got '" + p + "'");
      a.udplb = p == "udplb";
    } else if (o == "--ttl-decrement") {
      const std::string v = val();
      if (v != "on" && v != "off") throw std::invalid_argument("--ttl-decrement must be on or off, got '" + v + "'");
      a.udplb_opt.ttl_decrement = v == "on";
    } else if (o == "--ingress-port") a.ingress_port = static_cast<uint8_t>(ParseNumber(o, val(), 0, 15));
    else if (o == "--meta-out") a.meta_out = val();
    else if (o == "--timed") a.c.opt.timed = true;
    else throw std::invalid_argument("unknown option '" + o + "'");
  });
  RequireOptions({{"--tables", &a.tables}, {"--in", &a.c.in}, {"--out", &a.c.out}});
  a.c.Check();
  if (!a.udplb && !a.meta_out.empty()) throw std::invalid_argument("--meta-out needs --program udplb");
  a.c.Configure(&a.cfg);
  return a;
}

std::string StatsJson(const Args& a, const LbRunReport& r, uint64_t packets) {
  std::ostringstream j;
  const auto& c = r.counters;
  j << "{\n  \"engine\": \"" << EngineName(a.cfg.engine) << "\",\n";
  WriteLbCounterStats(j, c);  // generated from rtl/lb/data/lb.json
  j << "  \"cycles\": " << r.run.cycles << ",\n  \"in_beats\": " << r.run.in_beats << ",\n";
  j << "  \"out_beats\": " << r.run.out_beats << ",\n";
  j << "  \"input_stall_cycles\": " << r.run.input_stall_cycles << ",\n";
  j << "  \"latency_cycles\": {\"min\": " << r.latency_min << ", \"max\": " << r.latency_max
    << ", \"mean\": " << r.latency_mean << ", \"histogram\": [";
  bool first = true;
  for (const auto& [cycles, frames] : r.latency_histogram) {
    j << (first ? "" : ", ") << "[" << cycles << ", " << frames << "]";
    first = false;
  }
  j << "]},\n";
  j << "  \"packets_offered\": " << packets << ",\n";
  j << "  \"mismatches\": " << (r.mismatch_text.empty() ? 0 : 1) << ",\n";
  j << "  \"hang\": " << (r.run.hang ? "true" : "false") << ",\n";
  j << "  \"conservation_ok\": " << (r.conservation_ok ? "true" : "false") << "\n}\n";
  return j.str();
}

std::string UdplbStatsJson(const Args& a, const udplb::UdplbRunReport& r, uint64_t packets) {
  std::ostringstream j;
  const udplb::UdplbCounters& c = r.counters;
  j << "{\n  \"program\": \"udplb\",\n  \"engine\": \"" << EngineName(a.cfg.engine) << "\",\n";
  udplb::WriteUdplbCounterStats(j, c);  // generated from rtl/lb/data/udplb.json
  j << "  \"cycles\": " << r.run.cycles << ",\n  \"in_beats\": " << r.run.in_beats << ",\n";
  j << "  \"out_beats\": " << r.run.out_beats << ",\n";
  j << "  \"input_stall_cycles\": " << r.run.input_stall_cycles << ",\n";
  j << "  \"latency_cycles\": {\"min\": " << r.latency_min << ", \"max\": " << r.latency_max
    << ", \"mean\": " << r.latency_mean << "},\n";
  j << "  \"packets_offered\": " << packets << ",\n";
  j << "  \"mismatches\": " << (r.mismatch_text.empty() ? 0 : 1) << ",\n";
  j << "  \"hang\": " << (r.run.hang ? "true" : "false") << ",\n";
  j << "  \"conservation_ok\": " << (r.conservation_ok ? "true" : "false") << "\n}\n";
  return j.str();
}

// `nettwin lb --program udplb`: every engine holds the capture in memory (the seed program's fast engine
// streams it; udplb's replies and host frames make its output more than a rewrite in place).
// The end of both programs' runs: a divergence, then the packet model disagreeing with the cycle engine, then
// a hang (how long without progress) or the accounting.
int LbExit(const std::string& mismatch_text, const std::string& fast_mismatch, const tb::RunOptions& opt,
           const tb::RunResult& run, bool conservation_ok, const std::string& accounting, int argc, char** argv) {
  if (auto exit = DivergenceExit("lb", mismatch_text, opt, run, argc, argv)) return *exit;
  if (!fast_mismatch.empty()) {
    std::cerr << "nettwin lb: MODEL INCONSISTENCY: " << fast_mismatch << "\n";
    return 1;
  }
  const std::string hang = "no progress for " + std::to_string(opt.idle_limit) + " cycles at cycle " +
                           std::to_string(run.cycles);
  return RunExit("lb", "", opt, run, conservation_ok, run.hang ? hang : accounting, argc, argv);
}

int RunUdplbCommand(Args& a, int argc, char** argv) {
  std::vector<Segment> script;
  std::vector<Packet> packets;
  try {
    script = udplb::LoadScript(a.tables, a.udplb_opt);
    packets = a.c.ReadInput();
  } catch (const std::exception& e) {
    return InputError("lb", e, "");
  }
  udplb::UdplbRunConfig cfg;
  cfg.engine = a.cfg.engine;
  cfg.opt = a.cfg.opt;
  cfg.in_port = a.ingress_port;
  cfg.mismatch_trace = a.cfg.mismatch_trace;
  udplb::UdplbRunReport r;
  try {
    r = udplb::RunUdplb(script, packets, cfg);
    a.c.WriteCapture(a.c.out, r.run.out);
    if (!a.meta_out.empty()) {
      std::string meta;
      for (uint8_t port : r.out_ports) meta += udplb::MetaLine(a.ingress_port, port) + "\n";
      nettwin::WriteTextFile<std::runtime_error>(a.meta_out, meta);
    }
    if (!a.c.stats.empty()) {
      nettwin::WriteTextFile<std::runtime_error>(a.c.stats, UdplbStatsJson(a, r, packets.size()));
    }
  } catch (const std::exception& e) {
    return InputError("lb", e, "");
  }
  const uint64_t dropped = udplb::UdplbDropped(r.counters);
  std::printf("lb udplb %s: %zu packets in, %u out (%u replies, %u to host), %llu dropped, %llu cycles\n",
              EngineName(a.cfg.engine), packets.size(), r.counters.packets_out, r.counters.replies,
              r.counters.to_host, static_cast<unsigned long long>(dropped),
              static_cast<unsigned long long>(r.run.cycles));
  return LbExit(r.mismatch_text, r.fast_mismatch, cfg.opt, r.run, r.conservation_ok,
                "packets_in " + std::to_string(r.counters.packets_in) + " (offered " + std::to_string(packets.size()) +
                    ") != packets_out " + std::to_string(r.counters.packets_out) + " + drops " + std::to_string(dropped),
                argc, argv);
}

}  // namespace

int LbCommand(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      std::cout << Help();
      return 0;
    }
  }
  Args a;
  std::vector<Segment> script;
  std::vector<Packet> packets;
  std::optional<PcapReader> reader;  // the fast engine streams from it
  try {
    a = ParseArgs(argc, argv);
  } catch (const std::exception& e) {
    return InputError("lb", e, Help());
  }
  if (a.udplb) return RunUdplbCommand(a, argc, argv);
  try {
    try {
      script = LoadScript(a.tables);
    } catch (const ScriptError& e) {
      // A udplb script given to the seed program: say which option reads it.
      const std::string msg = e.what();
      for (const char* t : {"mac_dst_filter_table", "ip_dst_filter_table", "l2_iface_table", "ipv4_src_filter_table",
                            "ipv6_src_filter_table"}) {
        if (msg.find(std::string("token '") + t + "': unknown table") != std::string::npos) {
          throw ScriptError(msg + " (a table of the udplb program: add --program udplb)");
        }
      }
      throw;
    }
    if (a.cfg.engine == Engine::kFast) reader.emplace(a.c.in);
    else packets = a.c.ReadInput();
    if (reader) a.c.in_format = reader->format();
  } catch (const std::exception& e) {
    return InputError("lb", e, Help());
  }
  const CaptureFormat out_format = OutputFormat(a.c.out_format, a.c.in_format);
  LbRunReport r;
  uint64_t offered = packets.size();
  bool streaming = false;
  try {
    if (reader) {
      PcapWriter w(a.c.out, out_format);
      streaming = true;  // from here a failure leaves a partial file of ours behind
      r = RunLbStream(script, &*reader, &w);
      w.Close();
      offered = reader->packets_read();
    } else {
      r = RunLb(script, packets, a.cfg);
      WritePcap(a.c.out, r.run.out, out_format);
    }
    if (!a.c.stats.empty()) {
      nettwin::WriteTextFile<std::runtime_error>(a.c.stats, StatsJson(a, r, offered));
    }
  } catch (const std::exception& e) {
    // A golden output cut short must not look complete; never remove what was there (a directory --out).
    if (streaming) std::remove(a.c.out.c_str());
    return InputError("lb", e, "");
  }
  const uint64_t dropped = LbDropped(r.counters);
  std::printf("lb %s: %llu packets in, %u out, %llu dropped, %llu cycles\n", EngineName(a.cfg.engine),
              static_cast<unsigned long long>(offered),
              r.counters.packets_out, static_cast<unsigned long long>(dropped),
              static_cast<unsigned long long>(r.run.cycles));
  return LbExit(r.mismatch_text, r.fast_mismatch, a.cfg.opt, r.run, r.conservation_ok,
                "packets_in " + std::to_string(r.counters.packets_in) + " (offered " + std::to_string(offered) +
                    ") != packets_out " + std::to_string(r.counters.packets_out) + " + drops " + std::to_string(dropped),
                argc, argv);
}

}  // namespace nettwin::lb
