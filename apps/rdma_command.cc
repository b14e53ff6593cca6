// `nettwin rdma` (responses and final memory for a request pcap) and `nettwin rdma-latency` (the spec's
// atomic retransmit scenario, measured in cycles on the RTL with the model in lockstep).
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "apps/commands.h"
#include "apps/host_memory_options.h"
#include "model/common/file_io.h"
#include "model/common/pcap.h"
#include "rdma_counter_stats.h"
#include "tb/rdma/rdma_latency.h"
#include "tb/rdma/rdma_run.h"

namespace nettwin::rdma {
namespace {

constexpr const char* kHelp =
    "usage: nettwin rdma --config responder.txt --in requests.pcap --out responses.pcap [options]\n"
    "  Runs the RoCEv2 responder on the request frames and writes its response frames.\n"
    "  --config FILE   responder, QP, MR and initial host memory directives (docs/rdma.md \"Configuration\").\n"
    "  --in FILE       request frames (pcap or pcapng, Ethernet).\n"
    "  --out FILE      response frames, one per response in the order they left.\n"
    "  --engine E      model, rtl or lockstep (default lockstep: both, compared every cycle).\n"
    "  --mem-out FILE  the MRs' final contents as JSON {rkey: hex bytes} (default: not written).\n"
    "  --stats FILE    counters as JSON: packets, drops by reason, ACK/NAK, DMA requests, cycles.\n"
    "  --trace FILE    FST waveform of the RTL (rtl or lockstep; default none). Without it a lockstep\n"
    "                  mismatch writes the cycles around it to OUT.mismatch.fst.\n"
    "  --clock-mhz F   clock in MHz (default 250): request timestamps, the default link bandwidth.\n"
    "  --aq-linear     scan the ACK queue linearly for a duplicate atomic (default: grouped lookup).\n"
    "  --backpressure P  probability 0..0.99 that the output is not ready in a cycle (default 0).\n"
    "  --seed N        seed of the backpressure pattern (default 1).\n";
constexpr const char* kLatencyHelp =
    "usage: nettwin rdma-latency [options]\n"
    "  Runs one Fetch-and-Add after 255 earlier atomics (so the AQ holds 4 groups), loses its ACK and\n"
    "  retransmits it at once (answered from the on-chip store of recent atomic results), then again after\n"
    "  enough further atomics to push it out of that store (answered from the AQ: one grouped host read);\n"
    "  RTL and model in lockstep. Latency = cycles from the request's last beat in to the response's first\n"
    "  beat out.\n"
    "  --clock-mhz F   clock in MHz (default 900, the paper's).\n"
    "  --json          print one JSON object instead of the table.\n"
    "  The host-memory options below, except: --mem-read-cycles defaults to 1 us at the clock (900 cycles at\n"
    "  900 MHz) and --mem-write-cycles to a tenth of the read cycles.\n";

std::string HexBytes(const std::vector<uint8_t>& b) {
  static const char* kDigits = "0123456789abcdef";
  std::string s;
  for (uint8_t x : b) {
    s += kDigits[x >> 4];
    s += kDigits[x & 15];
  }
  return s;
}

void WriteMemJson(const std::string& path, const RdmaConfig& c, const tb::HostMemory& mem) {
  std::ofstream o(path);
  if (!o) throw std::runtime_error(nettwin::CannotCreate(path));
  o << "{";
  for (size_t i = 0; i < c.mrs.size(); ++i) {
    std::vector<uint8_t> bytes(c.mrs[i].len);
    if (!bytes.empty()) mem.Read(c.mrs[i].pa, bytes.data(), bytes.size());
    o << (i ? ",\n " : "\n ") << "\"" << c.mrs[i].rkey << "\": \"" << HexBytes(bytes) << "\"";
  }
  o << "\n}\n";
  if (!o) throw std::runtime_error(path + ": write failed");
}

std::string StatsJson(const RdmaRunReport& r) {
  const RdmaCounters& c = r.counters;
  std::ostringstream j;
  j << "{\n";
  WriteRdmaCounterStats(j, c);  // generated from rtl/rdma/data/rdma.json
  j << "  \"cycles\": " << r.run.cycles
    << ",\n  \"mismatches\": " << (r.mismatch_text.empty() ? 0 : 1)
    << ",\n  \"conservation_ok\": " << (r.conservation_ok ? "true" : "false") << "\n}\n";
  return j.str();
}

}  // namespace

int RdmaCommand(int argc, char** argv) {
  std::string config_path, mem_out;
  CommonOptions common(kOptBlockRun | kOptOutFormat);
  RdmaRunConfig cfg;
  RdmaConfig config;
  std::vector<Packet> packets;
  const std::string help = std::string(kHelp) + kOutFormatHelp + kInjectHelp + kHostMemoryHelp;
  try {
    const bool run = ForEachOption(argc, argv, help.c_str(), [&](const std::string& o, const auto& val) {
      if (common.Parse(o, val) || ParseHostMemoryOption(o, val, &cfg)) return;
      if (o == "--config") config_path = val();
      else if (o == "--mem-out") mem_out = val();
      else if (o == "--aq-linear") cfg.aq_linear = true;
      else throw std::invalid_argument("unknown option '" + o + "'");
    });
    if (!run) return 0;
    common.Check();
    RequireOptions({{"--config", &config_path}, {"--in", &common.in}, {"--out", &common.out}});
    config = LoadConfig(config_path);
    packets = common.ReadInput();
  } catch (const std::exception& e) {
    return InputError("rdma", e, help);
  }
  common.Configure(&cfg);
  const RdmaRunReport r = RunRdma(config, packets, cfg);
  try {
    common.WriteCapture(common.out, r.run.out);
    if (!mem_out.empty()) WriteMemJson(mem_out, config, *r.memory);
    if (!common.stats.empty()) nettwin::WriteTextFile<std::runtime_error>(common.stats, StatsJson(r));
  } catch (const std::exception& e) {
    return InputError("rdma", e, "");
  }
  std::printf("rdma: %zu requests, %u responses, %u dropped, %llu cycles\n", packets.size(), r.counters.responses,
              r.counters.packets_in - r.counters.processed, static_cast<unsigned long long>(r.run.cycles));
  return RunExit("rdma", r.mismatch_text, cfg.opt, r.run, r.conservation_ok,
                 "packets_in " + std::to_string(r.counters.packets_in) + ", processed " +
                     std::to_string(r.counters.processed),
                 argc, argv);
}

int RdmaLatencyCommand(int argc, char** argv) {
  double clock_mhz = 900;
  bool json = false, read_set = false, write_set = false;
  RdmaRunConfig host;
  const std::string help = std::string(kLatencyHelp) + kHostMemoryHelp;
  try {
    const bool run = ForEachOption(argc, argv, help.c_str(), [&](const std::string& o, const auto& val) {
      if (ParseHostMemoryOption(o, val, &host)) {
        read_set |= o == "--mem-read-cycles";
        write_set |= o == "--mem-write-cycles";
      } else if (o == "--clock-mhz") {
        clock_mhz = ParseNumber(o, val(), 1, 100000);
      } else if (o == "--json") {
        json = true;
      } else {
        throw std::invalid_argument("unknown option '" + o + "'");
      }
    });
    if (!run) return 0;
  } catch (const std::exception& e) {
    std::cerr << "nettwin rdma-latency: " << e.what() << "\n" << help;
    return 2;
  }
  // A host read of about 1 us, as in the paper; posted writes complete in a tenth of that.
  if (!read_set) host.mem.read_latency = static_cast<uint32_t>(clock_mhz);
  if (!write_set) host.mem.write_latency = host.mem.read_latency / 10;
  const uint32_t rd = host.mem.read_latency, wr = host.mem.write_latency;
  const LatencyResult g = MeasureLatency(clock_mhz, host, false);
  const LatencyResult l = MeasureLatency(clock_mhz, host, true);
  if (!g.error.empty() || !l.error.empty()) {
    std::cerr << "nettwin rdma-latency: " << (g.error.empty() ? l.error : g.error) << "\n";
    return 1;
  }
  const bool once = g.orig_first == kMem && g.orig_retransmit == kMem && g.orig_recent == kMem &&
                    g.final_value == kMem + kAdd && l.final_value == kMem + kAdd && l.orig_retransmit == kMem &&
                    l.orig_recent == kMem;
  auto us = [clock_mhz](uint64_t c) { return static_cast<double>(c) / clock_mhz; };
  if (json) {
    std::printf(
        "{\"clock_mhz\": %g, \"mem_read_cycles\": %u, \"mem_write_cycles\": %u, \"first_atomic_cycles\": %llu, "
        "\"first_atomic_us\": %.3f, \"first_atomic_host_reads\": %llu, \"retransmit_cycles\": %llu, "
        "\"retransmit_us\": %.3f, \"retransmit_host_reads\": %llu, \"recent_retransmit_cycles\": %llu, "
        "\"recent_retransmit_us\": %.3f, \"recent_retransmit_host_reads\": %llu, \"linear_retransmit_cycles\": %llu, "
        "\"linear_retransmit_us\": %.3f, \"linear_retransmit_host_reads\": %llu, \"at_most_once\": %s, "
        "\"spec_first_atomic_us\": 3.19, \"spec_retransmit_us\": 1.0}\n",
        clock_mhz, rd, wr, static_cast<unsigned long long>(g.first_cycles), us(g.first_cycles),
        static_cast<unsigned long long>(g.first_reads), static_cast<unsigned long long>(g.retransmit_cycles),
        us(g.retransmit_cycles), static_cast<unsigned long long>(g.retransmit_reads),
        static_cast<unsigned long long>(g.recent_cycles), us(g.recent_cycles),
        static_cast<unsigned long long>(g.recent_reads), static_cast<unsigned long long>(l.retransmit_cycles), us(l.retransmit_cycles),
        static_cast<unsigned long long>(l.retransmit_reads), once ? "true" : "false");
  } else {
    std::printf("RDMA atomic latency, RTL with the model in lockstep, clock %g MHz, host read %u cycles (%.3f us), "
                "write %u cycles\n",
                clock_mhz, rd, us(rd), wr);
    // One line per measurement: its cycles, in us, and the host reads it took; `paper` = the figure it is held to.
    auto row = [&us](const char* what, int width, uint64_t cycles, uint64_t reads, const char* paper) {
      std::printf("  %s%*llu cycles = %.3f us, %llu host read(s)%s\n", what, width,
                  static_cast<unsigned long long>(cycles), us(cycles), static_cast<unsigned long long>(reads), paper);
    };
    row("first FAA:            ", 6, g.first_cycles, g.first_reads, "   (paper: ~3.19 us)");
    row("retransmitted at once (recent, on chip): ", 0, g.recent_cycles, g.recent_reads, "");
    row("retransmitted later (grouped AQ): ", 0, g.retransmit_cycles, g.retransmit_reads, "   (paper: ~1 us)");
    row("same, AQ scanned linearly: ", 0, l.retransmit_cycles, l.retransmit_reads, "");
    std::printf("  at most once: %s (returned 0x%016llx three times, memory now 0x%016llx)\n", once ? "yes" : "NO",
                static_cast<unsigned long long>(g.orig_retransmit), static_cast<unsigned long long>(g.final_value));
  }
  return once ? 0 : 1;
}

}  // namespace nettwin::rdma
