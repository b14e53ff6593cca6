// `nettwin reroute`: the ConWeave source-ToR rerouting block (docs/reroute.md) on timed host frames and
// control packets coming back (pcaps in -> fabric pcap out, each frame carrying its path in BTH byte 4), with
// the cycle model, the RTL, or both in lockstep.
#include <cstdio>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "apps/commands.h"
#include "apps/reroute_stats.h"
#include "model/common/file_io.h"
#include "model/common/pcap.h"
#include "model/reroute/reroute_cycle_model.h"
#include "tb/common/run_block.h"
#include "tb/reroute/reroute_lockstep.h"
#include "tb/reroute/reroute_rtl.h"

namespace nettwin::reroute {
namespace {

using tb::Engine;

constexpr const char* kHelp =
    "usage: nettwin reroute --in hosts.pcap [--ctrl-in control.pcap] --out fabric.pcap\n"
    "                       [--paths 4|8|16|32] [--flows N] [--reply-cutoff-us U] [--path-busy-us U]\n"
    "                       [--flow-idle-us U] [--wire-format seed|conweave-p4]\n"
    "                       [--engine model|rtl|lockstep] [--clock-mhz 250]\n"
    "                       [--stats stats.json] [--trace wave.fst] [--backpressure P] [--seed N]\n"
    "                       [--inject-divergence CYCLE]\n"
    "  --in FILE       host frames (pcap, Ethernet); --ctrl-in FILE: control packets from the destination\n"
    "                  ToRs (default: none); --out FILE: the frames sent to the fabric.\n"
    "  --paths N       uplink paths, 4, 8, 16 or 32 (default 8); --flows N: flow-table entries in use, a power\n"
    "                  of two 1..1024 (default 1024).\n"
    "  --reply-cutoff-us U  microseconds without RTT_REPLY before the path counts as congested (default 40).\n"
    "  --path-busy-us U     microseconds a NOTIFY keeps a path congested (default 100).\n"
    "  --flow-idle-us U     microseconds without a packet before a flow may be evicted (default 2000).\n"
    "  --wire-format F  the fabric frames' and control packets' layout: seed (default; docs/reorder.md \"Exact\n"
    "                  formats\") or conweave-p4 (BTH byte 8 as conweave-p4 lays it out, lengths not grown;\n"
    "                  docs/reroute.md \"Wire format\").\n"
    "  --engine E      model, rtl or lockstep (default lockstep); --clock-mhz F: clock in MHz (default 250).\n"
    "  --stats FILE    counters as JSON (default: none).\n"
    "  --trace FILE    FST of the whole run (rtl, lockstep; lockstep: the model's outputs beside the RTL's as\n"
    "                  model_* signals); without it a lockstep divergence writes OUT.mismatch.fst, the cycles\n"
    "                  before it replayed.\n"
    "  --backpressure P  output not ready in a random fraction P of cycles (0..0.99, default 0); --seed N:\n"
    "                  its seed (default 1).\n"
    "  Host frames (RoCEv2 from the NICs) and control packets (RTT_REPLY, NOTIFY, CLEAR from destination\n"
    "  ToRs) are offered at the cycle of their pcap timestamps (cycle 0 = the earliest); the block's\n"
    "  microsecond clock is that time in us mod 2^16. Output timestamps are departure times (first beat);\n"
    "  the path is BTH byte 4 of each output frame. Defaults: paths 8, flows 1024, reply-cutoff-us 40,\n"
    "  path-busy-us 100, flow-idle-us 2000, wire-format seed (conweave-p4: BTH byte 8 and the lengths as\n"
    "  conweave-p4's data plane, docs/reroute.md \"Wire format\"; the control input is read in the same\n"
    "  format). Exit: 0 ok, 1 lockstep mismatch / hang / conservation, 2 usage.\n"
    "  --inject-divergence CYCLE  self-test (lockstep only): the model's output beat at or after CYCLE is\n"
    "                compared with one bit flipped; the run must report the divergence and exit 1.\n";

struct RunResult {
  std::vector<Packet> out;
  RerouteCounters cnt;
  uint64_t cycles = 0, mismatches = 0;
  std::optional<tb::Mismatch> mismatch;  // the first divergence or RTL assertion (lockstep)
  bool hang = false;
};

// What a run traces: an FST of cycles [from, to] (path empty: none), and the cycle count at which it stops
// (a divergence replay stops just after the divergence).
struct TraceSpec {
  std::string path;
  uint64_t from = 0, to = ~uint64_t{0}, stop_after = ~uint64_t{0};
};

template <class Block>
RunResult Drive(Block* blk, const RerouteCfg& cfg, const std::vector<Packet>& host, const std::vector<Packet>& ctrl,
                double clock_mhz, double bp, uint64_t seed, uint64_t inject_at, const TraceSpec& trace = {}) {
  RunResult r;
  if constexpr (std::is_same_v<Block, RerouteLockstep>) blk->Trace(trace.path, trace.from, trace.to);
  blk->Reset();
  if constexpr (std::is_same_v<Block, RerouteRtl>) {
    if (!trace.path.empty()) {
      blk->OpenTrace(trace.path);
      blk->SetTracing(true);
    }
  }
  std::mt19937_64 rng(seed);
  uint64_t t0 = ~uint64_t{0};
  if (!host.empty()) t0 = host.front().time_ns;
  if (!ctrl.empty()) t0 = std::min(t0, ctrl.front().time_ns);
  if (host.empty() && ctrl.empty()) t0 = 0;
  auto offer_cycle = [&](const Packet& p) {
    return static_cast<uint64_t>(static_cast<double>(p.time_ns - t0) * clock_mhz / 1000.0);
  };
  RerouteIn in;
  in.cfg = cfg;
  size_t hi = 0, ci = 0, hb = 0, cb = 0, ob = 0;  // ob: beats of the output frame being received
  std::vector<Beat> hbeats, cbeats;
  std::vector<uint8_t> part;
  // Where the frames were when the lockstep first diverged (Mismatch's in_packet, out_packet, out_beat).
  std::optional<tb::Mismatch> at;
  auto note_mismatch = [&] {
    if constexpr (std::is_same_v<Block, RerouteLockstep>) {
      if (!at && blk->mismatches() > 0) at = tb::Mismatch{0, {}, hi, r.out.size(), ob, {}};
    }
  };
  uint64_t part_start = 0, idle_run = 0, last_progress = 0;
  bool injected = false;
  for (uint64_t cyc = 0; cyc < trace.stop_after; ++cyc) {
    const uint64_t ns = t0 + static_cast<uint64_t>(static_cast<double>(cyc) * 1000.0 / clock_mhz);
    in.now_us = static_cast<uint16_t>(ns / 1000);
    if (hbeats.empty() && hi < host.size() && offer_cycle(host[hi]) <= cyc) hbeats = ToBeats(host[hi].bytes);
    if (cbeats.empty() && ci < ctrl.size() && offer_cycle(ctrl[ci]) <= cyc) cbeats = ToBeats(ctrl[ci].bytes);
    in.s = StreamPort{};
    if (!hbeats.empty()) in.s = StreamPort{true, hbeats[hb]};
    in.r = StreamPort{};
    if (!cbeats.empty()) in.r = StreamPort{true, cbeats[cb]};
    in.m_ready = bp <= 0 || std::uniform_real_distribution<double>(0, 1)(rng) >= bp;
    RerouteOut o = blk->Eval(in);
    note_mismatch();
    if (in.s.valid && o.s_ready) {
      last_progress = cyc;
      if (++hb == hbeats.size()) hbeats.clear(), hb = 0, ++hi;
    }
    if (in.r.valid && o.r_ready) {
      last_progress = cyc;
      if (++cb == cbeats.size()) cbeats.clear(), cb = 0, ++ci;
    }
    if (o.m.valid && in.m_ready) {
      last_progress = cyc;
      if (part.empty()) part_start = ns;
      AppendBeat(o.m.beat, &part);
      ++ob;
      if (o.m.beat.last) {
        r.out.push_back(Packet{part, part_start});
        part.clear();
        ob = 0;
      }
    }
    if (!injected && cyc >= inject_at && o.m.valid) {
      injected = true;
      if constexpr (std::is_same_v<Block, RerouteLockstep>) blk->InjectFlip();
    }
    blk->Tick();
    note_mismatch();
    r.cnt = o.cnt;
    const bool done = hi == host.size() && ci == ctrl.size() && o.idle;
    idle_run = done ? idle_run + 1 : 0;
    if (idle_run > 4) {
      r.cycles = cyc + 1;
      break;
    }
    if (cyc - last_progress > 200000 && !done) {
      r.hang = true;
      r.cycles = cyc + 1;
      break;
    }
    if constexpr (std::is_same_v<Block, RerouteLockstep>) {
      if (blk->mismatches() > 0) {
        r.cycles = cyc + 1;
        break;
      }
    }
  }
  if constexpr (std::is_same_v<Block, RerouteLockstep>) {
    r.mismatches = blk->mismatches();
    if (at) {
      r.mismatch = blk->first_mismatch();  // cycle, diff and assertion as of the cycle it stopped in
      r.mismatch->in_packet = at->in_packet;
      r.mismatch->out_packet = at->out_packet;
      r.mismatch->out_beat = at->out_beat;
    }
  }
  return r;
}

}  // namespace

int RerouteCommand(int argc, char** argv) {
  std::string ctrl_in;
  CommonOptions common(kOptBlockRun);
  RerouteCfg cfg;
  std::vector<Packet> host, ctrl;
  try {
    const bool run = ForEachOption(argc, argv, kHelp, [&](const std::string& o, const auto& val) {
      if (common.Parse(o, val)) return;
      if (o == "--ctrl-in") ctrl_in = val();
      else if (o == "--paths") {
        const int p = static_cast<int>(ParseNumber(o, val(), 4, 32));
        if (p != 4 && p != 8 && p != 16 && p != 32) throw std::invalid_argument("--paths must be 4, 8, 16 or 32");
        cfg.paths = static_cast<uint8_t>(p);
      } else if (o == "--flows") {
        const int f = static_cast<int>(ParseNumber(o, val(), 1, kFlows));
        if ((f & (f - 1)) != 0) throw std::invalid_argument("--flows must be a power of two <= 1024");
        cfg.flows_mask = static_cast<uint16_t>(f - 1);
      } else if (o == "--reply-cutoff-us") cfg.reply_cutoff_us = static_cast<uint16_t>(ParseNumber(o, val(), 1, 32767));
      else if (o == "--path-busy-us") cfg.path_busy_us = static_cast<uint16_t>(ParseNumber(o, val(), 1, 32767));
      else if (o == "--flow-idle-us") cfg.flow_idle_us = static_cast<uint16_t>(ParseNumber(o, val(), 1, 32767));
      else if (o == "--wire-format") {
        const std::string f = val();
        if (f != "seed" && f != "conweave-p4") {
          throw std::invalid_argument("--wire-format must be seed or conweave-p4, got '" + f + "'");
        }
        cfg.p4_format = f == "conweave-p4";
      }
      else throw std::invalid_argument("unknown option '" + o + "'");
    });
    if (!run) return 0;
    common.Check();
    RequireOptions({{"--in", &common.in}, {"--out", &common.out}});
    host = common.ReadInput();
    if (!ctrl_in.empty()) ctrl = ReadPcap(ctrl_in);
    for (const auto* v : {&host, &ctrl}) {
      for (size_t i = 1; i < v->size(); ++i) {
        if ((*v)[i].time_ns < (*v)[i - 1].time_ns) {
          throw std::runtime_error((v == &host ? common.in : ctrl_in) + ": packet " + std::to_string(i + 1) +
                                   " is before packet " + std::to_string(i) + " (must be in time order)");
        }
      }
    }
  } catch (const std::exception& e) {
    return InputError("reroute", e, kHelp);
  }
  const Engine engine = common.engine;
  const double clock_mhz = common.opt.clock_mhz, bp = common.opt.backpressure;
  const uint64_t seed = common.opt.seed, inject_at = common.opt.inject_divergence_at;
  const std::string &out = common.out, &stats = common.stats;
  tb::RunOptions topt;
  std::string mismatch_trace;
  common.SetTracing(&topt, &mismatch_trace);
  TraceSpec whole;
  whole.path = topt.trace_path;
  RunResult r;
  std::string report;  // the divergence report (tb::DivergenceText), as every block's
  if (engine == Engine::kModel) {
    RerouteCycleModel m;
    r = Drive(&m, cfg, host, ctrl, clock_mhz, bp, seed, inject_at);
  } else if (engine == Engine::kRtl) {
    RerouteRtl m;
    r = Drive(&m, cfg, host, ctrl, clock_mhz, bp, seed, inject_at, whole);
  } else {
    {
      RerouteLockstep m;
      r = Drive(&m, cfg, host, ctrl, clock_mhz, bp, seed, inject_at, whole);
    }
    if (r.mismatch) {
      // The same seeded run again, traced only around the divergence (tb::ReplayAround's window), so the
      // waveform stays small however long the run was; with --trace the whole run is already in that file.
      const tb::ReplaySpec spec{"host frame", "output frame", mismatch_trace, 64,
                                " (RTL; model_* signals = the model's outputs)"};
      report = tb::DivergenceText(*r.mismatch, topt, spec, [&](const tb::RunOptions& o) {
        RerouteLockstep replay;
        Drive(&replay, cfg, host, ctrl, clock_mhz, bp, seed, inject_at,
              TraceSpec{o.trace_path, o.trace_from, o.trace_to, o.stop_after});
      });
    }
  }
  const RerouteCounters& c = r.cnt;
  const bool conservation_ok = !r.hang && r.mismatches == 0 && c.in == host.size() && c.in == c.out + c.drop_malformed &&
                               r.out.size() == c.out && c.ctrl_in == ctrl.size();
  try {
    common.WriteCapture(out, r.out);
    if (!stats.empty()) {
      nettwin::WriteTextFile<std::runtime_error>(
          stats, RerouteStatsJson(r.cnt, common.engine_name(), cfg.p4_format, r.cycles, r.mismatches, conservation_ok));
    }
  } catch (const std::exception& e) {
    return InputError("reroute", e, "");
  }
  std::printf("reroute: %zu host frames, %u out (%u reroutes, %u RTT requests, %u ECMP fallback), %u dropped; "
              "%zu control (%u replies, %u NOTIFYs, %u CLEARs, %u stale/bad); %llu cycles\n",
              host.size(), c.out, c.reroutes, c.rtt_requests, c.fallback_ecmp, c.drop_malformed, ctrl.size(),
              c.rtt_replies, c.notifies, c.clears, c.stale_replies + c.stale_clears + c.bad_control,
              static_cast<unsigned long long>(r.cycles));
  if (r.mismatches > 0) {
    // the report in every block's format (tb::MismatchReport), the waveform, the replay line
    return *DivergenceExit("reroute", report, topt, tb::RunResult{}, argc, argv);
  }
  if (inject_at != ~uint64_t{0}) {
    std::cerr << "nettwin reroute: --inject-divergence: no output beat at or after cycle " << inject_at << "\n";
    return 1;
  }
  if (!conservation_ok) {
    std::cerr << "nettwin reroute: " << (r.hang ? "HANG" : "CONSERVATION FAILED") << ": in " << c.in << ", out "
              << c.out << ", dropped " << c.drop_malformed << ", control " << c.ctrl_in << " of " << ctrl.size()
              << "\n";
    return 1;
  }
  return 0;
}

}  // namespace nettwin::reroute
