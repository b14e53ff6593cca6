// ConWeave reorder queue benchmarks (docs/PERF.md "ConWeave reorder queue"):
//   1. line rate: back-to-back fabric traffic in which many flows reroute while the others pass; input
//      beats per cycle, and output bubbles while anything is waiting (expected: none);
//   2. how many flows can reorder at once for a given buffer, and where the 4-way queue allocation makes
//      the first flow fall back to unordered forwarding;
//   3. hold time against the old/new path delay difference, with its lower bound; with a new path that is
//      slower or equal (the TAIL first) nothing may be held and the CLEAR leaves at the TAIL.
// Prints Markdown tables and one JSON line per experiment.
//   build/reorder_bench [--engine model|rtl|lockstep] [--quick]
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/common/bytes.h"
#include "model/common/counters_json.h"
#include "model/reorder/reorder_frame.h"
#include "tb/reorder/reorder_frames.h"
#include "tb/reorder/reorder_run.h"

namespace nettwin::reorder {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double kClockMhz = 250;
// Start of every timed scenario: away from 0 so "send time - delay" never underflows; the block's clock is
// this time in us modulo 2^16, so wrap is not exercised here (the tests cover it).
constexpr uint64_t kT0Ns = 1'000'000;
constexpr uint32_t kDstIp = 0x0a000001;  // rdma::RequestSpec's default destination
constexpr int kCellBytes = 64;

double Seconds(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

int Beats(size_t bytes) { return static_cast<int>((bytes + kBeatBytes - 1) / kBeatBytes); }

// Beats of a WRITE ONLY fabric frame (NIC frame + 4-byte CW header) with this payload.
int FabricBeats(int payload) { return Beats(NicWrite(0x0a000002, 0x11, 0, payload).size() + 4); }

// ---------------------------------------------------------------- flows and scenarios

struct FlowAddr {
  uint32_t src_ip = 0, dqpn = 0;
  uint16_t hash = 0;  // the block's CRC-16 of the flow key
};

// The block's flow hash, computed the way the block does (parse the fabric frame, hash the key), so the
// benchmark can keep the flow table collision-free and study the queues and the buffer alone.
uint16_t HashOf(const FlowAddr& f) {
  const std::vector<uint8_t> fr = ToFabric(NicWrite(f.src_ip, f.dqpn, 0, 64), CwFields{});
  std::array<uint8_t, kWindowBytes> win{};
  std::copy_n(fr.begin(), std::min<size_t>(fr.size(), kWindowBytes), win.begin());
  const int known = fr.size() <= static_cast<size_t>(kWindowBytes) ? static_cast<int>(fr.size()) : -1;
  return FlowHash(ParseCw(win.data(), known).key);
}

// `n` flows with pseudo-random addresses (seeded) and distinct flow-table slots.
std::vector<FlowAddr> PickFlows(int n, uint64_t seed, const ReorderCfg& cfg) {
  std::mt19937_64 rng(seed);
  std::vector<bool> used(size_t{cfg.flows_mask} + 1, false);
  std::vector<FlowAddr> v;
  while (static_cast<int>(v.size()) < n) {
    FlowAddr f;
    f.src_ip = 0x0a000000u | static_cast<uint32_t>(rng() & 0xFFFFFF);
    if (f.src_ip == kDstIp) continue;
    f.dqpn = 0x100 + static_cast<uint32_t>(rng() & 0xFFFF);
    f.hash = HashOf(f);
    if (used[f.hash & cfg.flows_mask]) continue;
    used[f.hash & cfg.flows_mask] = true;
    v.push_back(f);
  }
  return v;
}

// One fabric frame of a scenario.
struct Pkt {
  int flow = 0;
  uint32_t psn = 0;
  int payload = 0;
  CwFields cw;
  uint64_t send_ns = 0, arrive_ns = 0;
  int tail = -1;     // a rerouted packet sent after a TAIL: that TAIL's index in arrival order
  int tail_id = -1;  // scenario-local id of that TAIL (resolved to `tail` after sorting)
  int id = -1;       // scenario-local id (creation order)
};

struct Scenario {
  std::vector<FlowAddr> flows;
  std::vector<Pkt> pkts;  // in arrival order once Finish() ran
};

// Sorts by arrival (ties: send order, so a TAIL arriving with a rerouted packet is ahead of it) and
// resolves the TAIL references to arrival indices.
void Finish(Scenario* s) {
  std::stable_sort(s->pkts.begin(), s->pkts.end(), [](const Pkt& a, const Pkt& b) {
    return a.arrive_ns != b.arrive_ns ? a.arrive_ns < b.arrive_ns : a.send_ns < b.send_ns;
  });
  std::unordered_map<int, int> index;
  for (size_t i = 0; i < s->pkts.size(); ++i) index[s->pkts[i].id] = static_cast<int>(i);
  for (Pkt& p : s->pkts) p.tail = p.tail_id >= 0 ? index.at(p.tail_id) : -1;
}

std::vector<Packet> Frames(const Scenario& s) {
  std::vector<Packet> v;
  v.reserve(s.pkts.size());
  for (const Pkt& p : s.pkts) {
    const FlowAddr& f = s.flows[p.flow];
    v.push_back(Packet{ToFabric(NicWrite(f.src_ip, f.dqpn, p.psn, p.payload), p.cw), p.arrive_ns});
  }
  return v;
}

uint16_t Us16(uint64_t ns) { return static_cast<uint16_t>((ns / 1000) & 0xFFFF); }

// A flow that sends `warm` packets on the old path, then the TAIL, then `after` rerouted packets on the new
// path, one every `gap_ns`, starting at `start_ns`.
void AddReroutedFlow(Scenario* s, int flow, uint64_t start_ns, uint64_t gap_ns, int warm, int after, uint64_t d_old_ns,
                     uint64_t d_new_ns, int payload) {
  int tail_id = -1;
  for (int k = 0; k <= warm + after; ++k) {
    Pkt p;
    p.id = static_cast<int>(s->pkts.size());
    p.flow = flow;
    p.psn = static_cast<uint32_t>(k);
    p.payload = payload;
    p.send_ns = start_ns + static_cast<uint64_t>(k) * gap_ns;
    p.cw.tx_ts = Us16(p.send_ns);
    if (k <= warm) {
      p.cw.epoch = 0;
      p.cw.tail = k == warm;
      p.arrive_ns = p.send_ns + d_old_ns;
      if (p.cw.tail) tail_id = p.id;
    } else {
      p.cw.epoch = 1;
      p.cw.rerouted = true;
      p.cw.path_id = 1;
      p.cw.tail_tx_ts = Us16(start_ns + static_cast<uint64_t>(warm) * gap_ns);
      p.arrive_ns = p.send_ns + d_new_ns;
      p.tail_id = tail_id;
    }
    s->pkts.push_back(p);
  }
}

// ---------------------------------------------------------------- running and checking

struct Outcome {
  ReorderRunReport rep;
  double wall_s = 0;
  std::vector<int> in_index;  // per delivered frame: its index in the scenario's arrival order (-1: unknown)
  uint64_t lost = 0;          // frames never delivered, beyond the number the block counts as dropped
  uint64_t duplicates = 0, unknown = 0;
  uint64_t order_violations = 0;  // delivered with a PSN below an earlier delivered PSN of the same flow
  bool ok = false;                // conservation, no mismatch, no hang, nothing lost or duplicated
  std::string problem;
};

Outcome Run(Engine engine, const ReorderCfg& cfg, const Scenario& s, bool untimed) {
  Outcome o;
  const std::vector<Packet> frames = Frames(s);
  ReorderRunConfig rc;
  rc.engine = engine;
  rc.untimed = untimed;
  rc.opt.clock_mhz = kClockMhz;
  const auto t0 = Clock::now();
  o.rep = RunReorder(cfg, frames, rc);
  o.wall_s = Seconds(t0);

  const auto flow_key = [](uint32_t src_ip, uint32_t dqpn) { return (uint64_t{src_ip} << 24) | (dqpn & 0xFFFFFF); };
  std::unordered_map<uint64_t, int> flow_of;
  for (size_t i = 0; i < s.flows.size(); ++i)
    flow_of[flow_key(s.flows[i].src_ip, s.flows[i].dqpn)] = static_cast<int>(i);
  std::unordered_map<uint64_t, int> index;  // (flow, psn) -> arrival index
  for (size_t i = 0; i < s.pkts.size(); ++i) {
    index[(uint64_t(s.pkts[i].flow) << 32) | s.pkts[i].psn] = static_cast<int>(i);
  }
  std::vector<int> seen(s.pkts.size(), 0);
  std::vector<int64_t> last_psn(s.flows.size(), -1);
  for (const Packet& p : o.rep.run.out) {
    int j = -1;
    if (p.bytes.size() >= 54) {
      const auto fi = flow_of.find(flow_key(Load32(&p.bytes[26]), Load32(&p.bytes[42 + 4])));
      if (fi != flow_of.end()) {
        const uint32_t psn = Load32(&p.bytes[42 + 8]) & 0xFFFFFF;
        const auto it = index.find((uint64_t(fi->second) << 32) | psn);
        if (it != index.end()) j = it->second;
      }
    }
    o.in_index.push_back(j);
    if (j < 0) {
      ++o.unknown;
      continue;
    }
    if (++seen[j] > 1) ++o.duplicates;
    const Pkt& q = s.pkts[j];
    if (static_cast<int64_t>(q.psn) < last_psn[q.flow]) ++o.order_violations;
    last_psn[q.flow] = std::max<int64_t>(last_psn[q.flow], q.psn);
  }
  const ReorderCounters& c = o.rep.counters;
  uint64_t never = 0;
  for (int v : seen) never += v == 0;
  const uint64_t dropped = ReorderDropped(c);
  o.lost = never > dropped ? never - dropped : 0;
  std::ostringstream why;
  if (!o.rep.mismatch_text.empty()) why << o.rep.mismatch_text;
  if (o.rep.run.hang)
    why << "HANG after " << o.rep.run.cycles << " cycles (in " << c.in << ", delivered " << c.delivered << ", held_now "
        << c.held_now << ")\n";
  if (!o.rep.conservation_ok) why << "conservation check failed\n";
  if (o.lost || o.duplicates || o.unknown) {
    why << "lost " << o.lost << ", duplicated " << o.duplicates << ", unknown " << o.unknown << "\n";
  }
  o.problem = why.str();
  o.ok = o.problem.empty();
  return o;
}

void Fail(const char* what, const Outcome& o) {
  std::printf("\n**RUN FAILED (%s)**:\n```\n%s```\n", what, o.problem.c_str());
}


// The block's latency from a frame's last input beat to its first output beat when nothing delays it: the
// smallest such latency over frames that were not held and found the output idle (a frame appended to a
// draining queue can leave a cycle sooner, straight behind the queue's last packet, so frames behind
// others do not count).
int64_t PipelineLatency(const Outcome& o) {
  const tb::RunResult& r = o.rep.run;
  int64_t best = std::numeric_limits<int64_t>::max();
  for (size_t i = 0; i < o.in_index.size(); ++i) {
    const int j = o.in_index[i];
    if (j < 0 || o.rep.holds[i].held) continue;
    const bool idle_before =
        i == 0 ||
        r.out_first_cycle[i - 1] + static_cast<uint64_t>(Beats(r.out[i - 1].bytes.size())) < r.out_first_cycle[i];
    if (!idle_before) continue;
    best = std::min(best, static_cast<int64_t>(r.out_first_cycle[i]) - static_cast<int64_t>(r.in_last_cycle[j]));
  }
  return best;
}

// ---------------------------------------------------------------- 1. line rate

// Back-to-back traffic of `n_flows` flows (round robin in a random order each round, `small` or `large`
// payloads, equally likely). A flow at rest starts a reroute with probability `p` per packet while fewer than
// `max_active` flows are rerouting: its next R (2..12) packets are rerouted (new epoch) and arrive before
// the old path's TAIL, which then arrives and releases them; its next 4 packets still carry REROUTED (the
// source has not seen the CLEAR yet).
Scenario LineRateScenario(int n_flows, int n_pkts, int small, int large, int max_active, double p, uint64_t seed,
                          const ReorderCfg& cfg) {
  Scenario s;
  s.flows = PickFlows(n_flows, seed, cfg);
  std::mt19937_64 rng(seed * 7 + 1);
  std::uniform_real_distribution<double> u(0, 1);
  enum class Phase { kNormal, kBeforeTail, kAfterTail };
  struct State {
    Phase phase = Phase::kNormal;
    uint32_t psn = 0, tail_psn = 0;
    uint8_t epoch = 0;
    int left = 0, tail_id = -1;
    std::vector<size_t> waiting;  // rerouted packets that need the TAIL's id
  };
  std::vector<State> st(static_cast<size_t>(n_flows));
  std::vector<int> order(static_cast<size_t>(n_flows));
  for (int i = 0; i < n_flows; ++i) order[static_cast<size_t>(i)] = i;
  int active = 0;
  while (static_cast<int>(s.pkts.size()) < n_pkts) {
    std::shuffle(order.begin(), order.end(), rng);
    for (int f : order) {
      State& x = st[static_cast<size_t>(f)];
      if (x.phase == Phase::kNormal && active < max_active && u(rng) < p) {
        x.phase = Phase::kBeforeTail;
        x.tail_psn = x.psn++;
        x.left = 2 + static_cast<int>(rng() % 11);
        ++active;
      }
      Pkt k;
      k.id = static_cast<int>(s.pkts.size());
      k.flow = f;
      k.payload = u(rng) < 0.5 ? small : large;
      const uint8_t next_epoch = static_cast<uint8_t>((x.epoch + 1) & 3);
      if (x.phase == Phase::kBeforeTail && x.left > 0) {
        k.psn = x.psn++;
        k.cw.epoch = next_epoch;
        k.cw.rerouted = true;
        x.waiting.push_back(s.pkts.size());
        --x.left;
      } else if (x.phase == Phase::kBeforeTail) {
        k.psn = x.tail_psn;
        k.cw.epoch = x.epoch;
        k.cw.tail = true;
        for (size_t w : x.waiting) s.pkts[w].tail_id = k.id;
        x.waiting.clear();
        x.epoch = next_epoch;
        x.phase = Phase::kAfterTail;
        x.left = 4;
        --active;
      } else if (x.phase == Phase::kAfterTail) {
        k.psn = x.psn++;
        k.cw.epoch = x.epoch;
        k.cw.rerouted = true;
        if (--x.left == 0) x.phase = Phase::kNormal;
      } else {
        k.psn = x.psn++;
        k.cw.epoch = x.epoch;
      }
      k.cw.path_id = k.cw.epoch;
      s.pkts.push_back(k);
    }
  }
  // Flows whose reroute was cut off by the end of the traffic: their TAIL comes last, so nothing waits
  // for a timeout.
  for (size_t f = 0; f < st.size(); ++f) {
    State& x = st[f];
    if (x.phase != Phase::kBeforeTail) continue;
    Pkt k;
    k.id = static_cast<int>(s.pkts.size());
    k.flow = static_cast<int>(f);
    k.payload = small;
    k.psn = x.tail_psn;
    k.cw.epoch = x.epoch;
    k.cw.path_id = x.epoch;
    k.cw.tail = true;
    for (size_t w : x.waiting) s.pkts[w].tail_id = k.id;
    s.pkts.push_back(k);
  }
  // Times: frames arrive back to back, one beat per cycle, so frame i starts at the cycle equal to the
  // beats before it. Every path has the same 20 us one-way delay, so a resume deadline (TAIL_TX_TSTAMP +
  // old-path delay + margin) falls a margin after the TAIL's arrival: all releases are by TAIL.
  uint64_t cycle = 0;
  for (Pkt& k : s.pkts) {
    k.arrive_ns = kT0Ns + static_cast<uint64_t>(static_cast<double>(cycle) * 1000.0 / kClockMhz);
    k.send_ns = k.arrive_ns - 20'000;
    k.cw.tx_ts = Us16(k.send_ns);
    const FlowAddr& f = s.flows[static_cast<size_t>(k.flow)];
    cycle += static_cast<uint64_t>(Beats(NicWrite(f.src_ip, f.dqpn, 0, k.payload).size() + 4));
  }
  for (Pkt& k : s.pkts) {
    if (k.tail_id >= 0) k.cw.tail_tx_ts = s.pkts[static_cast<size_t>(k.tail_id)].cw.tx_ts;
  }
  Finish(&s);  // already in arrival order; resolves the TAIL indices
  return s;
}

struct LineRateResult {
  std::string name;
  size_t frames = 0;
  uint64_t reroutes = 0, rerouted_early = 0;
  Outcome o;
  uint64_t in_span = 0, out_span = 0, idle = 0, waiting = 0, bubbles = 0, bubble_gaps = 0, drain_bubbles = 0;
  int64_t lat = 0, max_bubble = 0;
  uint64_t drains = 0, drain_beats = 0, drain_cycles = 0, unresolved = 0;
};

LineRateResult MeasureLineRate(Engine engine, const char* name, int small, int large, int n_pkts) {
  LineRateResult x;
  x.name = name;
  ReorderCfg cfg;  // defaults: 32 queues, 4096 cells (256 KiB) of reorder buffer, margin 16 us
  const Scenario s = LineRateScenario(64, n_pkts, small, large, 12, 0.03, 11, cfg);
  x.o = Run(engine, cfg, s, /*untimed=*/true);
  const Outcome& o = x.o;
  if (!o.ok) Fail(name, o);
  const tb::RunResult& r = o.rep.run;
  x.frames = s.pkts.size();
  for (const Pkt& k : s.pkts) {
    x.reroutes += k.cw.tail;
    x.rerouted_early += k.tail >= 0;
  }
  const size_t n = r.out.size();
  if (n == 0 || r.in_last_cycle.empty()) return x;
  // Input: beats over the cycles from the first beat offered to the last beat accepted.
  x.in_span = r.in_last_cycle.back() - r.in_first_cycle.front() + 1;
  // Output: the busy span, and its idle cycles. An idle cycle is a bubble if some frame not yet sent was
  // already available: a frame not held is available `lat` cycles after its last input beat (the
  // block's latency with nothing in its way); a held frame when its TAIL is.
  x.lat = PipelineLatency(o);
  std::vector<int64_t> avail(n), start(n), end(n);
  for (size_t i = 0; i < n; ++i) {
    start[i] = static_cast<int64_t>(r.out_first_cycle[i]);
    end[i] = start[i] + Beats(r.out[i].bytes.size());
    const int j = o.in_index[i];
    const int trigger = j < 0 ? -1 : o.rep.holds[i].held ? s.pkts[static_cast<size_t>(j)].tail : j;
    if (trigger < 0) {
      avail[i] = start[i];  // unknown frame, or held with no TAIL to wait for: not expected; no bubble counted
      ++x.unresolved;
    } else {
      avail[i] = static_cast<int64_t>(r.in_last_cycle[static_cast<size_t>(trigger)]) + x.lat;
    }
  }
  std::vector<int64_t> min_after(n + 1, std::numeric_limits<int64_t>::max());
  for (size_t i = n; i-- > 0;) min_after[i] = std::min(min_after[i + 1], avail[i]);
  for (size_t i = 0; i + 1 < n; ++i) {
    const int64_t gap = start[i + 1] - end[i];
    if (gap <= 0) continue;
    x.idle += static_cast<uint64_t>(gap);
    const int64_t b = std::max<int64_t>(0, start[i + 1] - std::max(end[i], min_after[i + 1]));
    if (b == 0) continue;
    x.bubbles += static_cast<uint64_t>(b);
    ++x.bubble_gaps;
    x.max_bubble = std::max(x.max_bubble, b);
    if (o.rep.holds[i].held || o.rep.holds[i + 1].held) x.drain_bubbles += static_cast<uint64_t>(b);
  }
  x.out_span = static_cast<uint64_t>(end[n - 1] - start[0]);
  x.waiting = r.out_beats + x.bubbles;  // cycles in which some frame was available or leaving
  // Queue drains: from the TAIL's first beat out to the end of the last held frame of its flow right
  // behind it.
  for (size_t i = 0; i + 1 < n; ++i) {
    const int j = o.in_index[i];
    if (j < 0 || !s.pkts[static_cast<size_t>(j)].cw.tail || !o.rep.holds[i + 1].held) continue;
    const int flow = s.pkts[static_cast<size_t>(j)].flow;
    size_t e = i + 1;
    while (e + 1 < n && o.rep.holds[e + 1].held && o.in_index[e + 1] >= 0 &&
           s.pkts[static_cast<size_t>(o.in_index[e + 1])].flow == flow) {
      ++e;
    }
    ++x.drains;
    for (size_t m = i; m <= e; ++m) x.drain_beats += static_cast<uint64_t>(Beats(r.out[m].bytes.size()));
    x.drain_cycles += static_cast<uint64_t>(end[e] - start[i]);
  }
  return x;
}

void LineRate(Engine engine, bool quick) {
  const int n_pkts = quick ? 4000 : 20000;
  std::vector<LineRateResult> v;
  v.push_back(MeasureLineRate(engine, "256 B / 1024 B", 256, 1024, n_pkts));
  v.push_back(MeasureLineRate(engine, "0 B / 64 B", 0, 64, n_pkts));
  std::printf("\n### 1. Line rate (%s engine)\n\n", EngineName(engine));
  std::printf(
      "Traffic: 64 flows back to back, WRITE ONLY frames with two payload sizes, equally likely (256 B / "
      "1024 B: %d / %d-beat fabric frames; 0 B / 64 B: %d / %d beats, the smallest). A flow starts a "
      "reroute with probability 0.03 per packet, at most 12 flows at once; 2 to 12 of its rerouted "
      "packets arrive before the TAIL. Default configuration (32 queues, 4096-cell buffer limit, margin "
      "16 us). Output always ready.\n\n",
      FabricBeats(256), FabricBeats(1024), FabricBeats(0), FabricBeats(64));
  auto row = [&](const char* what, const char* note, auto cell) {
    std::printf("| %s |", what);
    for (const LineRateResult& x : v) std::printf(" %s |", cell(x).c_str());
    std::printf(" %s |\n", note);
  };
  auto fmt = [](const char* f, auto... a) {
    char b[160];
    std::snprintf(b, sizeof b, f, a...);
    return std::string(b);
  };
  using ull = unsigned long long;
  std::printf("| payloads |");
  for (const LineRateResult& x : v) std::printf(" %s |", x.name.c_str());
  std::printf(" note |\n|---|");
  for (size_t i = 0; i < v.size(); ++i) std::printf("---|");
  std::printf("---|\n");
  row("frames, reroutes, rerouted frames ahead of their TAIL", "", [&](const LineRateResult& x) {
    return fmt("%zu, %llu, %llu", x.frames, ull(x.reroutes), ull(x.rerouted_early));
  });
  row("input beats / cycle (beats in cycles)", "1.000 = line rate", [&](const LineRateResult& x) {
    return fmt("%.4f (%llu in %llu)", double(x.o.rep.run.in_beats) / double(x.in_span), ull(x.o.rep.run.in_beats),
               ull(x.in_span));
  });
  row("input stall cycles", "expected 0",
      [&](const LineRateResult& x) { return fmt("%llu", ull(x.o.rep.run.input_stall_cycles)); });
  row("output: first to last beat", "idle = output had nothing it may send", [&](const LineRateResult& x) {
    return fmt("%llu cycles, %llu beats, %llu idle", ull(x.out_span), ull(x.o.rep.run.out_beats), ull(x.idle));
  });
  row("output beats / cycle while a frame was waiting", "1.000 = no bubble", [&](const LineRateResult& x) {
    return fmt("%.4f (%llu / %llu)", x.waiting ? double(x.o.rep.run.out_beats) / double(x.waiting) : 0.0,
               ull(x.o.rep.run.out_beats), ull(x.waiting));
  });
  row("bubbles: idle cycles with a frame available (gaps, longest; next to a held frame)",
      "available = last beat in + latency, or its TAIL's", [&](const LineRateResult& x) {
        return fmt("%llu (%llu, %lld; %llu)", ull(x.bubbles), ull(x.bubble_gaps), static_cast<long long>(x.max_bubble),
                   ull(x.drain_bubbles));
      });
  row("latency, last beat in to first beat out, unobstructed", "",
      [&](const LineRateResult& x) { return fmt("%lld cycles", static_cast<long long>(x.lat)); });
  row("queue drains: TAIL + released frames", "beats = cycles: 1 beat/cycle", [&](const LineRateResult& x) {
    return fmt("%llu drains, %llu beats in %llu cycles", ull(x.drains), ull(x.drain_beats), ull(x.drain_cycles));
  });
  row("held / released by TAIL / by timeout", "", [&](const LineRateResult& x) {
    const ReorderCounters& c = x.o.rep.counters;
    return fmt("%u / %u / %u", c.held, c.released_by_tail, c.released_by_timeout);
  });
  row("fallback unordered / collision / buffer_full drops", "", [&](const LineRateResult& x) {
    const ReorderCounters& c = x.o.rep.counters;
    return fmt("%u / %u / %u", c.fallback_unordered, c.fallback_collision, c.drop_buffer_full);
  });
  row("peak queues / held cells / cells in use", "", [&](const LineRateResult& x) {
    const ReorderCounters& c = x.o.rep.counters;
    return fmt("%u / %u / %u of %d", c.peak_queues, c.peak_held_cells, c.peak_cells_used, kCells);
  });
  row("per-flow order violations / lost / duplicated", "violations only from fallback", [&](const LineRateResult& x) {
    return fmt("%llu / %llu / %llu", ull(x.o.order_violations), ull(x.o.lost), ull(x.o.duplicates));
  });
  row("simulation", "", [&](const LineRateResult& x) {
    return fmt("%llu cycles, %.2f s, %.2f Mcycles/s", ull(x.o.rep.run.cycles), x.o.wall_s,
               double(x.o.rep.run.cycles) / x.o.wall_s / 1e6);
  });
  for (const LineRateResult& x : v) {
    const tb::RunResult& r = x.o.rep.run;
    std::printf(
        "\n{\"experiment\":\"line_rate\",\"engine\":\"%s\",\"payloads\":\"%s\",\"ok\":%s,\"frames\":%zu,"
        "\"reroutes\":%llu,\"in_beats\":%llu,\"in_span_cycles\":%llu,\"input_stall_cycles\":%llu,"
        "\"out_beats\":%llu,\"out_span_cycles\":%llu,\"out_idle_cycles\":%llu,\"bubble_cycles\":%llu,"
        "\"bubble_gaps\":%llu,\"drain_bubble_cycles\":%llu,\"latency_cycles\":%lld,\"drains\":%llu,"
        "\"drain_beats\":%llu,\"drain_cycles\":%llu,\"order_violations\":%llu,\"lost\":%llu,"
        "\"unresolved\":%llu,\"cycles\":%llu,\"wall_s\":%.3f,\"counters\":%s}\n",
        EngineName(engine), x.name.c_str(), x.o.ok ? "true" : "false", x.frames, ull(x.reroutes), ull(r.in_beats),
        ull(x.in_span), ull(r.input_stall_cycles), ull(r.out_beats), ull(x.out_span), ull(x.idle), ull(x.bubbles),
        ull(x.bubble_gaps), ull(x.drain_bubbles), static_cast<long long>(x.lat), ull(x.drains), ull(x.drain_beats),
        ull(x.drain_cycles), ull(x.o.order_violations), ull(x.o.lost), ull(x.unresolved), ull(r.cycles), x.o.wall_s,
        CountersJson(x.o.rep.counters, ",").c_str());
  }
}

// ---------------------------------------------------------------- 2. flows reordering at once

constexpr int kWarm = 25;  // old-path packets before the TAIL: > delay difference / gap, so the old path's
                           // delay is sampled before the first rerouted packet arrives
constexpr int kAfterHeld = 5;

// `n` flows reroute at once: each sends one packet every 1 us on the old path (30 us), the TAIL, then on
// the new path (10 us); flow i's sends are offset by i * 1000 / n ns so the flows interleave evenly. Each
// flow's rerouted packets sent in the 20 us before its TAIL arrives are held: 19 of them.
Scenario Simultaneous(const std::vector<FlowAddr>& flows, int n, int payload) {
  Scenario s;
  s.flows.assign(flows.begin(), flows.begin() + n);
  const uint64_t gap = 1000;
  const int held = 19;
  for (int i = 0; i < n; ++i) {
    AddReroutedFlow(&s, i, kT0Ns + static_cast<uint64_t>(i) * gap / static_cast<uint64_t>(n), gap, kWarm,
                    held + kAfterHeld, 30'000, 10'000, payload);
  }
  Finish(&s);
  return s;
}

struct SweepPoint {
  int n = 0;
  ReorderCounters c;
  bool ok = false;
  uint64_t order_violations = 0, cycles = 0;
  double tail_late_us = 0;  // the latest TAIL's wait on the input port (offered load above line rate)
};

// How long the TAILs waited behind other frames before the block took their first beat, at most.
double TailLateUs(const Scenario& s, const Outcome& o) {
  const tb::RunResult& r = o.rep.run;
  double late = 0;
  for (size_t i = 0; i < s.pkts.size() && i < r.in_first_cycle.size(); ++i) {
    if (!s.pkts[i].cw.tail) continue;
    const double due = static_cast<double>(s.pkts[i].arrive_ns - s.pkts[0].arrive_ns) * kClockMhz / 1000.0;
    late = std::max(late, (static_cast<double>(r.in_first_cycle[i]) - due) / kClockMhz);
  }
  return late;
}

void Buffers(Engine engine, bool quick) {
  ReorderCfg big;
  big.queues = 32;
  big.buffer_cells = static_cast<uint16_t>(262144 / kCellBytes);
  const std::vector<FlowAddr> flows = PickFlows(16, 21, big);
  // What one flow holds when nothing limits it.
  const Outcome one = Run(engine, big, Simultaneous(flows, 1, 1024), false);
  if (!one.ok) Fail("buffer sweep, one flow", one);
  const uint32_t per_flow = one.rep.counters.peak_held_cells;
  std::printf("\n### 2a. Flows reordering at once, per buffer size (%s engine)\n\n", EngineName(engine));
  std::printf(
      "Each flow: 1024 B payload (%d-beat fabric frame, %d cells held), 1 packet/us, old path 30 us, new "
      "path 10 us, so %u packets = %u cells = %u B held per flow. The N flows' sends are spread evenly "
      "over each microsecond; 32 queues; margin 16 us. N flows offer N x %.1f Gb/s per path, twice that "
      "while both paths deliver (line rate: 128 Gb/s).\n\n",
      FabricBeats(1024), FabricBeats(1024), one.rep.counters.held, per_flow, per_flow * kCellBytes,
      8.0 * static_cast<double>(NicWrite(0x0a000002, 0x11, 0, 1024).size() + 4) / 1000.0);
  std::printf(
      "| buffer_bytes (cells) | floor(cells / %u) | largest N: no drop, no fallback | first N with "
      "buffer_full drops (drops) | first N with fallback_unordered | first N with timeout releases "
      "(held packets) | peak held bytes at largest N |\n|---|---|---|---|---|---|---|\n",
      per_flow);
  const int max_n = quick ? 6 : 16;
  std::ostringstream json;
  json << "{\"experiment\":\"buffer_flows\",\"engine\":\"" << EngineName(engine)
       << "\",\"held_cells_per_flow\":" << per_flow << ",\"points\":[";
  bool first_json = true;
  for (int bytes : {16384, 65536, 262144}) {
    ReorderCfg cfg = big;
    cfg.buffer_cells = static_cast<uint16_t>(bytes / kCellBytes);
    std::vector<SweepPoint> pts;
    int first_drop = 0, first_fb = 0, largest_ok = 0;
    int first_timeout = 0;
    uint32_t drops_at_first = 0, timeouts_at_first = 0, peak_at_largest = 0;
    double late_at_first = 0;
    for (int n = 1; n <= max_n; ++n) {
      const Scenario sc = Simultaneous(flows, n, 1024);
      const Outcome o = Run(engine, cfg, sc, false);
      if (!o.ok) Fail("buffer sweep", o);
      const ReorderCounters& c = o.rep.counters;
      pts.push_back(SweepPoint{n, c, o.ok, o.order_violations, o.rep.run.cycles, TailLateUs(sc, o)});
      if (!first_timeout && c.released_by_timeout) {
        first_timeout = n;
        timeouts_at_first = c.released_by_timeout;
        late_at_first = pts.back().tail_late_us;
      }
      if (!first_drop && c.drop_buffer_full) {
        first_drop = n;
        drops_at_first = c.drop_buffer_full;
      }
      if (!first_fb && c.fallback_unordered) first_fb = n;
      if (!first_drop && !first_fb) {
        largest_ok = n;
        peak_at_largest = c.peak_held_cells;
      }
      if (first_drop && n >= first_drop + 2) break;  // past the limit: more flows only drop more
    }
    const int last_n = static_cast<int>(pts.size());
    char drop_s[48], fb_s[48], to_s[48];
    if (first_drop) {
      std::snprintf(drop_s, sizeof drop_s, "%d (%u)", first_drop, drops_at_first);
    } else {
      std::snprintf(drop_s, sizeof drop_s, "none up to %d", last_n);
    }
    if (first_fb) {
      std::snprintf(fb_s, sizeof fb_s, "%d", first_fb);
    } else {
      std::snprintf(fb_s, sizeof fb_s, "none up to %d", last_n);
    }
    if (first_timeout) {
      std::snprintf(to_s, sizeof to_s, "%d (%u; TAILs up to %.1f us late)", first_timeout, timeouts_at_first,
                    late_at_first);
    } else {
      std::snprintf(to_s, sizeof to_s, "none up to %d", last_n);
    }
    std::printf("| %d (%u) | %u | %d | %s | %s | %s | %u B |\n", bytes, cfg.buffer_cells, cfg.buffer_cells / per_flow,
                largest_ok, drop_s, fb_s, to_s, peak_at_largest * kCellBytes);
    for (const SweepPoint& p : pts) {
      json << (first_json ? "" : ",") << "{\"buffer_bytes\":" << bytes << ",\"n\":" << p.n
           << ",\"ok\":" << (p.ok ? "true" : "false") << ",\"order_violations\":" << p.order_violations
           << ",\"cycles\":" << p.cycles << ",\"tail_late_us\":" << p.tail_late_us
           << ",\"counters\":" << CountersJson(p.c, ",") << "}";
      first_json = false;
    }
  }
  json << "]}";
  std::printf("\n%s\n", json.str().c_str());
}

// One run of 40 flows (64 B payloads, so 40 flows stay under line rate) whose first rerouted packets arrive
// in flow order, 25 ns apart, while every earlier flow still holds its queue. The first flow whose first
// rerouted packet is delivered without being held is where the 4-way allocation first fell back.
void Allocation(Engine engine, bool quick) {
  const int sets = quick ? 4 : 20;
  const int n = 40;
  std::printf("\n### 2b. 4-way queue allocation, 32 queues (%s engine)\n\n", EngineName(engine));
  std::printf(
      "%d flow sets of %d flows (random addresses, distinct flow-table slots); the flows' reorder "
      "windows all overlap. Last column: the same traffic with `queue_allocation any` (first free queue of "
      "the pool), whose first fallback must be N = 33.\n\n",
      sets, n);
  std::printf(
      "| set | first N with fallback_unordered | queues used at N=40 | flows that fell back at N=40 | "
      "fallback packets | first N with fallback, `any` |\n|---|---|---|---|---|---|\n");
  std::vector<int> firsts;
  int any_min = n + 1, any_max = 0;
  std::ostringstream json;
  json << "{\"experiment\":\"allocation\",\"engine\":\"" << EngineName(engine) << "\",\"queues\":32,\"sets\":[";
  ReorderCfg cfg;
  cfg.queues = 32;
  for (int set = 0; set < sets; ++set) {
    const std::vector<FlowAddr> flows = PickFlows(n, 1000 + static_cast<uint64_t>(set), cfg);
    const Scenario s = Simultaneous(flows, n, 64);
    // Per flow: was its first rerouted packet (PSN kWarm + 1) held? Returns the first flow (1-based) that
    // was not, 0 if all were, and how many were not.
    auto first_fallback = [&](const Outcome& o, int* fell) {
      std::vector<int> first_held(static_cast<size_t>(n), -1);
      for (size_t i = 0; i < o.in_index.size(); ++i) {
        const int j = o.in_index[i];
        if (j < 0) continue;
        const Pkt& k = s.pkts[static_cast<size_t>(j)];
        if (k.psn == kWarm + 1) first_held[static_cast<size_t>(k.flow)] = o.rep.holds[i].held ? 1 : 0;
      }
      int first = 0;
      *fell = 0;
      for (int f = 0; f < n; ++f) {
        if (first_held[static_cast<size_t>(f)] == 0) {
          ++*fell;
          if (!first) first = f + 1;
        }
      }
      return first;
    };
    const Outcome o = Run(engine, cfg, s, false);
    if (!o.ok) Fail("allocation", o);
    int fell = 0, any_fell = 0;
    const int first = first_fallback(o, &fell);
    ReorderCfg any_cfg = cfg;
    any_cfg.any_queue = true;
    const Outcome oa = Run(engine, any_cfg, s, false);
    if (!oa.ok) Fail("allocation (any)", oa);
    const int any_first = first_fallback(oa, &any_fell);
    any_min = std::min(any_min, any_first ? any_first : n + 1);
    any_max = std::max(any_max, any_first ? any_first : n + 1);
    firsts.push_back(first ? first : n + 1);
    const ReorderCounters& c = o.rep.counters;
    std::printf("| %d | %s | %u | %d | %u | %s |\n", set, first ? std::to_string(first).c_str() : "none", c.peak_queues,
                fell, c.fallback_unordered, any_first ? std::to_string(any_first).c_str() : "none");
    json << (set ? "," : "") << "{\"set\":" << set << ",\"first_fallback_n\":" << first << ",\"fell_back\":" << fell
         << ",\"ok\":" << (o.ok ? "true" : "false") << ",\"counters\":" << CountersJson(c, ",") << "}";
  }
  std::sort(firsts.begin(), firsts.end());
  const size_t h = firsts.size() / 2;
  const double median = firsts.size() % 2 ? firsts[h] : (firsts[h - 1] + firsts[h]) / 2.0;
  double mean = 0;
  for (int f : firsts) mean += f;
  mean /= static_cast<double>(firsts.size());
  std::printf("\nFirst fallback at N: min %d, median %.1f, max %d, mean %.1f (over %d sets); with `any`: %d..%d.\n",
              firsts.front(), median, firsts.back(), mean, sets, any_min, any_max);
  json << "],\"first_fallback_min\":" << firsts.front() << ",\"first_fallback_median\":" << median
       << ",\"first_fallback_max\":" << firsts.back() << "}";
  std::printf("\n%s\n", json.str().c_str());
}

// ---------------------------------------------------------------- 3. hold time

void HoldTime(Engine engine, bool quick) {
  std::printf("\n### 3. Hold time vs path delay difference (%s engine, timed, 250 MHz)\n\n", EngineName(engine));
  std::printf(
      "One flow, 1024 B payloads (%d-beat frames), gap g = 1 us, old path 10 us + max(delta, 0), new path "
      "10 us + max(-delta, 0) (delta <= 0: the new path is slower or equal, the TAIL comes first); |delta| + 5 "
      "old-path packets, the TAIL, |delta| + 5 rerouted packets. Nominal lower bound for the first held packet: "
      "TAIL arrival - its arrival = delta - g (none when delta <= 0). Exact times from cycles (4 ns). CLEAR: "
      "its first beat out - the TAIL's last beat in, in cycles (the fixed latency is 6: docs/reorder-microarchitecture.md, Latency).\n\n",
      FabricBeats(1024));
  std::printf(
      "| delta (us) | held | first held: hold_us (block) | first held: exact (us) | lower bound delta - g "
      "(us) | max hold_us | max wait beyond TAIL + drain at 1 beat/cycle (cycles) | released by | timer "
      "releases | CLEAR after the TAIL (cycles) |\n"
      "|---|---|---|---|---|---|---|---|---|---|\n");
  std::ostringstream json;
  json << "{\"experiment\":\"hold_time\",\"engine\":\"" << EngineName(engine) << "\",\"gap_us\":1,\"points\":[";
  ReorderCfg cfg;
  std::vector<int> deltas = {-50, -20, -5, -1, 0, 2, 5, 10, 20, 50, 100};
  if (quick) deltas = {-20, 0, 2, 10, 50};
  bool first_json = true;
  for (int delta : deltas) {
    Scenario s;
    FlowAddr f{0x0a000002, 0x11, 0};
    f.hash = HashOf(f);
    s.flows = {f};
    const int warm = std::abs(delta) + 5;
    AddReroutedFlow(&s, 0, kT0Ns, 1000, warm, warm, 10'000 + static_cast<uint64_t>(std::max(delta, 0)) * 1000,
                    10'000 + static_cast<uint64_t>(std::max(-delta, 0)) * 1000, 1024);
    Finish(&s);
    const Outcome o = Run(engine, cfg, s, false);
    if (!o.ok) Fail("hold time", o);
    const tb::RunResult& r = o.rep.run;
    const int64_t lat = PipelineLatency(o);
    int held = 0, first_us = -1, max_us = 0;
    int64_t first_exact = -1, max_excess = 0;
    std::vector<size_t> out_of_in(s.pkts.size(), 0);
    for (size_t i = 0; i < o.in_index.size(); ++i) {
      if (o.in_index[i] >= 0) out_of_in[static_cast<size_t>(o.in_index[i])] = i;
    }
    for (size_t i = 0; i < o.in_index.size(); ++i) {
      if (!o.rep.holds[i].held || o.in_index[i] < 0) continue;
      const int j = o.in_index[i];
      const Pkt& k = s.pkts[static_cast<size_t>(j)];
      // Exact hold: from its decision (last beat in + the unobstructed latency) to its first beat out.
      const int64_t exact = static_cast<int64_t>(r.out_first_cycle[i]) - static_cast<int64_t>(r.in_last_cycle[j]) - lat;
      if (first_us < 0) {
        first_us = o.rep.holds[i].hold_us;
        first_exact = exact;
      }
      ++held;
      max_us = std::max<int>(max_us, o.rep.holds[i].hold_us);
      // The earliest it could leave: the TAIL's unobstructed departure plus the beats of everything the
      // release sends ahead of it (the TAIL, then the held packets in arrival order) at 1 beat/cycle.
      if (k.tail >= 0) {
        int64_t ideal = static_cast<int64_t>(r.in_last_cycle[static_cast<size_t>(k.tail)]) + lat;
        for (size_t m = out_of_in[static_cast<size_t>(k.tail)]; m < i; ++m) ideal += Beats(r.out[m].bytes.size());
        max_excess = std::max(max_excess, static_cast<int64_t>(r.out_first_cycle[i]) - ideal);
      }
    }
    const ReorderCounters& c = o.rep.counters;
    const char* by = c.released_by_timeout ? (c.released_by_tail ? "TAIL + timeout" : "timeout") : held ? "TAIL" : "-";
    // The CLEAR against the TAIL's last beat in (the run's cycle 0 is the first arrival).
    int64_t clear_after = -1;
    int tail_in = -1;
    for (size_t j = 0; j < s.pkts.size(); ++j) {
      if (s.pkts[j].cw.tail) tail_in = static_cast<int>(j);
    }
    if (o.rep.ctrl.size() == 1 && tail_in >= 0) {
      const double cyc = static_cast<double>(o.rep.ctrl[0].time_ns - s.pkts[0].arrive_ns) * kClockMhz / 1000;
      clear_after = std::llround(cyc) - static_cast<int64_t>(r.in_last_cycle[static_cast<size_t>(tail_in)]);
    }
    const std::string bound = delta > 0 ? std::to_string(delta - 1) : "-";
    char first[64] = "- | -";
    if (held > 0)
      std::snprintf(first, sizeof first, "%d | %.3f", first_us, static_cast<double>(first_exact) / kClockMhz);
    std::printf("| %d | %d | %s | %s | %d | %lld | %s | %u | %lld |\n", delta, held, first, bound.c_str(), max_us,
                static_cast<long long>(max_excess), by, c.released_by_timeout, static_cast<long long>(clear_after));
    json << (first_json ? "" : ",") << "{\"delta_us\":" << delta << ",\"held\":" << held
         << ",\"first_hold_us\":" << first_us << ",\"first_hold_exact_cycles\":" << first_exact
         << ",\"lower_bound_us\":" << std::max(delta - 1, 0) << ",\"max_hold_us\":" << max_us
         << ",\"clear_after_tail_cycles\":" << clear_after << ",\"controls\":" << o.rep.ctrl.size()
         << ",\"max_wait_beyond_drain_cycles\":" << max_excess << ",\"latency_cycles\":" << lat
         << ",\"ok\":" << (o.ok ? "true" : "false") << ",\"order_violations\":" << o.order_violations
         << ",\"counters\":" << CountersJson(c, ",") << "}";
    first_json = false;
  }
  json << "]}";
  std::printf("\n%s\n", json.str().c_str());
}

}  // namespace
}  // namespace nettwin::reorder

int main(int argc, char** argv) {
  using namespace nettwin::reorder;
  Engine engine = Engine::kLockstep;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--quick")) {
      quick = true;
    } else if (!std::strcmp(argv[i], "--engine") && i + 1 < argc) {
      const std::string e = argv[++i];
      if (e == "model") {
        engine = Engine::kModel;
      } else if (e == "rtl") {
        engine = Engine::kRtl;
      } else if (e == "lockstep") {
        engine = Engine::kLockstep;
      } else {
        std::fprintf(stderr, "unknown engine '%s' (model, rtl, lockstep)\n", e.c_str());
        return 2;
      }
    } else {
      std::fprintf(stderr, "usage: reorder_bench [--engine model|rtl|lockstep] [--quick]\n");
      return 2;
    }
  }
  const auto t0 = Clock::now();
  std::printf("## ConWeave reorder queue benchmark (engine %s%s)\n", EngineName(engine), quick ? ", quick" : "");
  LineRate(engine, quick);
  Buffers(engine, quick);
  Allocation(engine, quick);
  HoldTime(engine, quick);
  std::printf("\nTotal wall time: %.1f s\n", Seconds(t0));
  return 0;
}
