// `nettwin re`: the EJFAT reassembly engine on a pcap of LB output for one compute node, with the RTL and its
// cycle model in lockstep (default), either alone, or the packet-at-a-time golden model (fast).
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "apps/commands.h"
#include "model/common/file_io.h"
#include "model/common/pcap.h"
#include "model/re/re_packet_model.h"
#include "tb/re/re_run.h"
// after re_run.h: re_ports.h needs the types model/re/re_cycle_model.h defines before including it
#include "re_counter_stats.h"  // NOLINT(build/include_order,build/include_subdir): generated

namespace nettwin::re {
namespace {

constexpr const char* kHelp =
    "usage: nettwin re --config re.txt --in segments.pcap --out events.pcap [--report report.json]\n"
    "                  [--engine lockstep|rtl|model|fast] [--trace wave.fst]\n"
    "                  [--gaps P] [--backpressure P] [--seed N]\n"
    "                  [--host-data events.bin] [--host-write-latency N] [--host-outstanding N]\n"
    "  --config  `contexts N`, `buffer_bytes N`, `timeout_us T` lines (defaults 16, 16384, 1000);\n"
    "            `header evio6|e2sar` (default evio6: the seed's 8-byte header, key (UDP source port, data_id);\n"
    "            e2sar: JeffersonLab/E2SAR's 20-byte REHdr, key (event number, data_id)), `version N` (the RE\n"
    "            header version accepted; default evio6 0, e2sar 1), `lb_header skip|drop` (a UDP payload\n"
    "            that still starts with an LB header: skip it (default) or drop the frame);\n"
    "            `buffer onchip|host` (host: the engine writes each event's bytes by DMA to its context's slot\n"
    "            in host memory, host_base + context x buffer_bytes rounded up to 4 KiB, and sends a\n"
    "            completion record; buffer_bytes up to 16 MiB), `host_base N` (default 0x100000000)\n"
    "  --in      the LB's output for one compute node (UDP + RE header segments, any order); each segment's\n"
    "            pcap timestamp is its arrival time (timeouts)\n"
    "  --out     one frame per completed event (EtherType 0x88B5, a 12-byte header (18 with e2sar), the\n"
    "            event's bytes); with `buffer host` one completion record per event (the same header, then\n"
    "            the 8-byte host address of the event's bytes) and --host-data is required\n"
    "  --host-data  `buffer host`: the bytes of every completed event, in record order, as the host read\n"
    "            them from its slot when the record arrived (concatenated; each record gives the length)\n"
    "  --host-write-latency, --host-outstanding  `buffer host`: the host memory's posted-write latency in\n"
    "            cycles (default 100) and write credits (default 128); fewer credits than the latency is\n"
    "            below line rate (input stalls)\n"
    "  --report  JSON: counters, drops by reason, every completed and every incomplete event; with a cycle\n"
    "            engine also cycles, beats, input stalls, mismatches, conservation_ok\n"
    "  --engine  lockstep (default): rtl/re and its cycle model compared every cycle; rtl or model alone;\n"
    "            fast: the packet-at-a-time golden model (no cycles; contexts up to 4096, buffer up to 16 MiB)\n"
    "            The RTL's limits are its parameters: contexts <= ReContexts, buffer_bytes <= ReBufBytes.\n"
    "  --trace   FST of the whole run (rtl, lockstep); without it a divergence writes OUT.mismatch.fst\n"
    "  --gaps, --backpressure  idle input cycles / output not-ready cycles, probability 0..0.99 (default 0)\n"
    "  --seed N  seed of the gap and backpressure patterns (default 1)\n"
    "  Exit status: 0 ok, 1 lockstep mismatch / hang / accounting failure, 2 bad usage or input.\n";

// What every engine reports, in the order the golden model and the checker use.
struct Outcome {
  ReCounters counters;
  std::vector<ReEvent> events;  // data only in the golden model; frames come from `frames`
  std::vector<Packet> frames;
  std::vector<ReTimeout> incomplete;
};

std::string Report(const Outcome& o, const char* engine, const ReRunReport* run, bool host) {
  std::ostringstream j;
  j << "{\n  \"engine\": \"" << engine << "\",\n";
  WriteReCounterStats(j, o.counters);  // generated from rtl/re/data/re.json (its `golden` member names)
  j << "  \"events\": [";
  for (size_t i = 0; i < o.events.size(); ++i) {
    const ReEvent& e = o.events[i];
    j << (i ? ",\n    " : "\n    ") << "{\"tick16\": " << e.tick16 << ", \"event_num\": " << e.event_num
      << ", \"data_id\": " << e.data_id
      << ", \"length\": " << e.data.size() << ", \"segments\": " << e.segments << "}";
  }
  j << "],\n  \"incomplete\": [";
  for (size_t i = 0; i < o.incomplete.size(); ++i) {
    const ReTimeout& t = o.incomplete[i];
    j << (i ? ",\n    " : "\n    ") << "{\"tick16\": " << t.tick16 << ", \"event_num\": " << t.event_num
      << ", \"data_id\": " << t.data_id
      << ", \"received_bytes\": " << t.received_bytes << ", \"segments\": " << t.segments
      << ", \"length\": " << (t.end_known ? std::to_string(t.length) : "null")
      << ", \"at_end_of_input\": " << (t.at_end_of_input ? "true" : "false") << "}";
  }
  j << "]";
  if (run == nullptr) {
    j << "\n}\n";
  } else {
    j << ",\n";
    // `buffer host`: the DMA writes the host accepted (each data byte once: re_check compares the bytes with the
    // data of the segments used)
    if (host) j << "  \"dma_writes\": " << run->dma_writes << ",\n  \"dma_write_bytes\": " << run->dma_write_bytes << ",\n";
    AppendRunStatsTail(j, *run);
  }
  return j.str();
}

Outcome RunFast(const ReConfig& cfg, const std::vector<Packet>& segs) {
  RePacketModel m(cfg);
  for (const Packet& p : segs) m.Push(p);
  m.Finish();
  Outcome o{m.counters(), m.events(), {}, m.timeouts()};
  for (const ReEvent& e : o.events) o.frames.push_back(EventFrame(e, cfg.format));
  return o;
}

// A cycle engine's run in the golden model's terms: counters, event list (from the output frames' headers)
// and the report port's records.
Outcome FromRun(const ReRunReport& r, HeaderFormat format, bool host) {
  Outcome o;
  o.counters = ReCountersOf(r.counters);  // generated from rtl/re/data/re.json
  o.frames = r.run.out;
  for (const Packet& f : o.frames) {
    ReEvent e;
    auto be = [&f](size_t at, int n) {
      uint64_t v = 0;
      for (int i = 0; i < n; ++i)
        v = (v << 8) | (at + static_cast<size_t>(i) < f.bytes.size() ? f.bytes[at + static_cast<size_t>(i)] : 0);
      return v;
    };
    const size_t hb = EventHeaderBytes(format), id_at = hb - 10;  // data_id, length, segments end the header
    e.event_num = format == HeaderFormat::kE2sar ? be(14, 8) : be(14, 2);
    e.tick16 = static_cast<uint16_t>(e.event_num);
    e.data_id = static_cast<uint16_t>(be(id_at, 2));
    // `buffer host`: a completion record; the length is its header's (the bytes are in host memory)
    e.data.resize(host ? be(id_at + 2, 4) : f.bytes.size() > hb ? f.bytes.size() - hb : 0);
    e.segments = static_cast<uint32_t>(be(id_at + 6, 4));
    o.events.push_back(std::move(e));
  }
  for (const ReReport& p : r.reports) {
    o.incomplete.push_back(
        ReTimeout{static_cast<uint16_t>(p.event_num), p.data_id, p.event_num, p.received, p.segments, p.end_known, p.length, p.at_end});
  }
  return o;
}

}  // namespace

int ReCommand(int argc, char** argv) {
  std::string config, report, host_data;
  CommonOptions common(kOptIn | kOptOut | kOptTrace | kOptEngine | kOptFastEngine | kOptGaps | kOptBackpressure |
                       kOptSeed | kOptInjectDivergence);
  ReConfig cfg;
  ReRunConfig rc;
  std::vector<Packet> segs;
  const std::string help = std::string(kHelp) + kInjectHelp;
  try {
    const bool run = ForEachOption(argc, argv, help.c_str(), [&](const std::string& o, const auto& val) {
      if (common.Parse(o, val))
        return;
      else if (o == "--config")
        config = val();
      else if (o == "--report")
        report = val();
      else if (o == "--host-data")
        host_data = val();
      else if (o == "--host-write-latency")
        rc.host_write_latency = static_cast<uint32_t>(ParseNumber(o, val(), 1, 100000));
      else if (o == "--host-outstanding")
        rc.host_max_outstanding = static_cast<uint32_t>(ParseNumber(o, val(), 1, 100000));
      else
        throw std::invalid_argument("unknown option '" + o + "'");
    });
    if (!run) return 0;
    RequireOptions({{"--in", &common.in}, {"--out", &common.out}});
    common.Check();
  } catch (const std::invalid_argument& e) {
    return InputError("re", e, help);
  }
  const bool fast = common.engine == Engine::kFast;
  const char* engine = common.engine_name();
  try {
    if (!config.empty()) {
      cfg = ParseReConfig(nettwin::ReadTextFile<std::runtime_error>(config), config);
    }
    rc.cfg = ReStatic{static_cast<uint32_t>(cfg.contexts), cfg.buffer_bytes,
                      static_cast<uint64_t>(std::llround(cfg.timeout_us * 1000)), cfg.format,
                      static_cast<uint8_t>(cfg.Version()), cfg.lb_header, cfg.buffer, cfg.host_base};
    if (cfg.buffer == BufferMode::kHost && fast)
      throw std::runtime_error("buffer host needs a cycle engine (lockstep, rtl or model): the golden model has no host memory");
    if (cfg.buffer == BufferMode::kHost && host_data.empty())
      throw std::runtime_error("buffer host: --host-data FILE is required (the events' bytes)");
    if (cfg.buffer != BufferMode::kHost && !host_data.empty())
      throw std::runtime_error("--host-data needs `buffer host` in the configuration");
    if (!fast) {
      if (const std::string e = ReStaticError(rc.cfg); !e.empty()) {
        throw std::runtime_error((config.empty() ? std::string("defaults") : config) + ": " + e +
                                 " (use --engine fast for larger configurations)");
      }
    }
    segs = ReadPcap(common.in);
  } catch (const std::exception& e) {
    return InputError("re", e, "");
  }
  Outcome o;
  ReRunReport r;
  rc.engine = common.engine;
  rc.opt = common.opt;
  if (fast) {
    o = RunFast(cfg, segs);
  } else {
    common.SetTracing(&rc.opt, &rc.mismatch_trace);
    r = RunRe(segs, rc);
    o = FromRun(r, cfg.format, cfg.buffer == BufferMode::kHost);
  }
  try {
    WritePcap(common.out, o.frames);
    if (!host_data.empty()) {
      std::ofstream f(host_data, std::ios::binary);
      for (const std::vector<uint8_t>& e : r.host_events)
        f.write(reinterpret_cast<const char*>(e.data()), static_cast<std::streamsize>(e.size()));
      if (!f) throw std::runtime_error(host_data + ": write failed");
    }
    if (!report.empty()) {
      nettwin::WriteTextFile<std::runtime_error>(
          report, Report(o, engine, fast ? nullptr : &r, cfg.buffer == BufferMode::kHost));
    }
  } catch (const std::exception& e) {
    return InputError("re", e, "");
  }
  const ReCounters& c = o.counters;
  uint64_t dropped = 0;
  for (uint64_t d : c.drops) dropped += d;
  std::printf("re %s: %llu segments in, %llu used, %llu dropped; %llu events completed, %llu incomplete",
              engine, static_cast<unsigned long long>(c.segments_in),
              static_cast<unsigned long long>(c.segments_used), static_cast<unsigned long long>(dropped),
              static_cast<unsigned long long>(c.events_completed), static_cast<unsigned long long>(c.events_timed_out));
  if (!fast) std::printf(", %llu cycles", static_cast<unsigned long long>(r.run.cycles));
  std::printf("\n");
  const bool ok = c.segments_in == c.segments_used + dropped && (fast || r.conservation_ok);
  return RunExit("re", r.mismatch_text, rc.opt, r.run, ok, "", argc, argv);
}

}  // namespace nettwin::re
