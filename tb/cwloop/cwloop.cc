#include "tb/cwloop/cwloop.h"

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <random>

#include "model/common/bytes.h"
#include "model/reorder/reorder_cycle_model.h"
#include "model/reroute/reroute_cycle_model.h"
#include "tb/reorder/reorder_frames.h"
#include "tb/reorder/reorder_lockstep.h"
#include "tb/reorder/reorder_rtl.h"
#include "tb/reroute/reroute_lockstep.h"
#include "tb/reroute/reroute_rtl.h"

namespace nettwin::reroute {
namespace {

using SrcBlock = ClockedBlock<RerouteIn, RerouteOut>;
using DstBlock = ClockedBlock<reorder::ReorderIn, reorder::ReorderOut>;

// The hosts' traffic, in time order (stable for equal times: flow order).
std::vector<Packet> HostTraffic(const CwloopConfig& c) {
  std::mt19937_64 rng(c.seed * 1000003 + 11);
  std::vector<Packet> all;
  for (int f = 0; f < c.host_flows; ++f) {
    const uint32_t src = 0x0a000002u + static_cast<uint32_t>(f % 4);
    const uint32_t qp = 0x200u + static_cast<uint32_t>(f) * 7;
    uint64_t t = c.start_spread_ns ? rng() % c.start_spread_ns : 0;
    const uint32_t psn0 = static_cast<uint32_t>(rng() & 0xFFFFFF);
    const bool v6 = c.ipv6_some && f % 4 == 3;
    for (int i = 0; i < c.packets; ++i) {
      std::vector<uint8_t> fr = reorder::NicWrite(src, qp, (psn0 + static_cast<uint32_t>(i)) & 0xFFFFFF, c.payload);
      if (v6) fr = reorder::ToIpv6(fr);
      all.push_back(Packet{std::move(fr), t});
      const uint64_t j = c.gap_ns / 2;
      t += c.gap_ns - c.gap_ns / 4 + (j ? rng() % j : 0);
    }
  }
  std::stable_sort(all.begin(), all.end(), [](const Packet& a, const Packet& b) { return a.time_ns < b.time_ns; });
  return all;
}

// One input stream port fed from a queue of frames, one beat per cycle while ready.
struct Feeder {
  std::deque<Packet> q;
  std::vector<Beat> beats;
  size_t bi = 0;
  StreamPort Offer(uint64_t now_ns) {
    if (beats.empty() && !q.empty() && q.front().time_ns <= now_ns) {
      beats = ToBeats(q.front().bytes);
      bi = 0;
    }
    return beats.empty() ? StreamPort{} : StreamPort{true, beats[bi]};
  }
  // The port took the beat; returns the frame when its last beat went in.
  bool Took(Packet* done) {
    if (++bi < beats.size()) return false;
    *done = std::move(q.front());
    q.pop_front();
    beats.clear();
    return true;
  }
  bool Empty() const { return q.empty() && beats.empty(); }
};

// Frames in flight in the fabric, ordered by arrival time (ties: the order they entered).
struct InFlight {
  std::multimap<uint64_t, std::vector<uint8_t>> m;
  void Put(uint64_t at, std::vector<uint8_t> f) { m.emplace(at, std::move(f)); }
  // Moves every frame due by now_ns to the feeder's queue, stamped with its arrival.
  void Due(uint64_t now_ns, Feeder* to) {
    while (!m.empty() && m.begin()->first <= now_ns) {
      to->q.push_back(Packet{std::move(m.begin()->second), m.begin()->first});
      m.erase(m.begin());
    }
  }
};

struct Collector {
  std::vector<uint8_t> part;
  uint64_t first_ns = 0;
  // Appends a beat the sink took; returns true with the whole frame when it was the last.
  bool Add(const Beat& b, uint64_t now_ns, Packet* done) {
    if (part.empty()) first_ns = now_ns;
    AppendBeat(b, &part);
    if (!b.last) return false;
    *done = Packet{std::move(part), first_ns};
    part.clear();
    return true;
  }
};

uint8_t PathOf(const std::vector<uint8_t>& f) {
  const size_t bth = Load16(&f[12]) == 0x86DD ? 62 : 42;
  return f.size() > bth + 4 ? f[bth + 4] : 0;
}

}  // namespace

CwloopRecord RunCwloop(const CwloopConfig& cfg) {
  CwloopRecord rec;
  std::unique_ptr<SrcBlock> src;
  std::unique_ptr<DstBlock> dst;
  RerouteLockstep* src_ls = nullptr;
  reorder::ReorderLockstep* dst_ls = nullptr;
  switch (cfg.engine) {
    case LoopEngine::kModel:
      src = std::make_unique<RerouteCycleModel>();
      dst = std::make_unique<reorder::ReorderCycleModel>();
      break;
    case LoopEngine::kRtl:
      src = std::make_unique<RerouteRtl>();
      dst = std::make_unique<reorder::ReorderRtl>();
      break;
    case LoopEngine::kLockstep: {
      auto s = std::make_unique<RerouteLockstep>();
      auto d = std::make_unique<reorder::ReorderLockstep>();
      src_ls = s.get();
      dst_ls = d.get();
      src = std::move(s);
      dst = std::move(d);
      break;
    }
  }
  src->Reset();
  dst->Reset();
  Fabric fabric(cfg.fabric);
  rec.hosts = HostTraffic(cfg);
  Feeder host_in, fab_in, ctrl_in;
  for (const Packet& p : rec.hosts) host_in.q.push_back(p);
  InFlight forward, reverse;
  Collector m_col, d_col, c_col;
  uint8_t m_path = 0;
  RerouteIn si;
  si.cfg = cfg.src;
  si.cfg.paths = static_cast<uint8_t>(cfg.fabric.paths);
  if (cfg.ecmp_only) si.cfg.reply_cutoff_us = 32767;
  si.m_ready = true;
  reorder::ReorderIn di;
  di.cfg = cfg.dst;
  di.m_ready = true;
  di.c_ready = true;
  const uint64_t last_host_ns = rec.hosts.empty() ? 0 : rec.hosts.back().time_ns;
  const uint64_t limit_ns = last_host_ns + 40000000;  // 40 ms after the last host frame: a hang
  double sum_held = 0, sum_cells = 0;
  uint64_t samples = 0, idle_run = 0;
  for (uint64_t cyc = 0;; ++cyc) {
    const uint64_t ns = static_cast<uint64_t>(static_cast<double>(cyc) * 1000.0 / cfg.clock_mhz + 0.5);
    const uint16_t now_us = static_cast<uint16_t>(ns / 1000);
    // ---- source ToR ----
    si.now_us = now_us;
    si.s = host_in.Offer(ns);
    reverse.Due(ns, &ctrl_in);
    si.r = ctrl_in.Offer(ns);
    if (src_ls && cyc == cfg.inject_at) src_ls->InjectFlip();
    const RerouteOut& so = src->Eval(si);
    Packet done;
    if (si.s.valid && so.s_ready) host_in.Took(&done);
    if (si.r.valid && so.r_ready && ctrl_in.Took(&done)) rec.ctrl_src.push_back(Packet{std::move(done.bytes), ns});
    if (so.m.valid) {
      if (m_col.part.empty()) m_path = so.m_path;
      if (m_col.Add(so.m.beat, ns, &done)) {
        rec.fabric_in.push_back(done);
        FabricVerdict v = fabric.Forward(m_path, ns, done.bytes.size());
        if (v.lost) {
          rec.fabric_lost.push_back(Packet{done.bytes, ns});
        } else {
          if (v.ce) MarkCe(&done.bytes);
          forward.Put(v.at_ns, std::move(done.bytes));
        }
      }
    }
    rec.src = so.cnt;
    const bool src_idle = so.idle;
    src->Tick();
    // ---- destination ToR ----
    di.now_us = now_us;
    forward.Due(ns, &fab_in);
    di.s = fab_in.Offer(ns);
    const reorder::ReorderOut& dout = dst->Eval(di);
    if (di.s.valid && dout.s_ready && fab_in.Took(&done)) rec.fabric_out.push_back(Packet{std::move(done.bytes), ns});
    if (dout.m.valid) {
      if (d_col.part.empty()) rec.hold_us.push_back(dout.m_held ? dout.m_hold_us : -1);
      if (d_col.Add(dout.m.beat, ns, &done)) rec.delivered.push_back(std::move(done));
    }
    if (dout.c.valid && c_col.Add(dout.c.beat, ns, &done)) {
      rec.ctrl_dst.push_back(done);
      FabricVerdict v = fabric.Reverse(PathOf(done.bytes), ns, done.bytes.size());
      if (v.lost)
        rec.ctrl_lost.push_back(Packet{std::move(done.bytes), ns});
      else
        reverse.Put(v.at_ns, std::move(done.bytes));
    }
    rec.dst = dout.cnt;
    const bool dst_idle = dout.idle && dout.cnt.held_now == 0;
    if (cyc % static_cast<uint64_t>(cfg.clock_mhz) == 0) {
      sum_held += dout.cnt.held_now;
      sum_cells += dout.cnt.held_cells;
      ++samples;
      rec.peak_held_packets = std::max(rec.peak_held_packets, dout.cnt.held_now);
      rec.peak_held_cells = std::max(rec.peak_held_cells, dout.cnt.held_cells);
    }
    dst->Tick();
    rec.cycles = cyc + 1;
    if ((src_ls && src_ls->mismatches()) || (dst_ls && dst_ls->mismatches())) {
      rec.mismatch = src_ls->mismatches() ? "source ToR (reroute): " + src_ls->FirstMismatchLine()
                                          : "destination ToR (reorder): " + dst_ls->FirstMismatchLine();
      break;
    }
    const bool done_all = host_in.Empty() && fab_in.Empty() && ctrl_in.Empty() && forward.m.empty() &&
                          reverse.m.empty() && src_idle && dst_idle && m_col.part.empty() && d_col.part.empty() &&
                          c_col.part.empty();
    idle_run = done_all ? idle_run + 1 : 0;
    if (idle_run > 8) break;
    if (ns > limit_ns) {
      rec.hang = true;
      break;
    }
  }
  if (samples) {
    rec.mean_held_packets = sum_held / static_cast<double>(samples);
    rec.mean_held_cells = sum_cells / static_cast<double>(samples);
  }
  return rec;
}

}  // namespace nettwin::reroute
