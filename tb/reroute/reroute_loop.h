// The closed loop of issue 26 at cycle level, shared by the model tests and the lockstep tests: hosts'
// flows -> the source ToR under test (`Src`: RerouteCycleModel, or the lockstep pair) -> a 4-path fabric (per-path
// FIFO, 5 us, +60 us and CE marks on the congested path; the congestion moves from path 0 to path 2 at
// 1.2 ms) -> the destination ToR's cycle model (reorder::ReorderCycleModel) -> hosts; reorder's control packets go
// back through the fabric in 2 us. 250 MHz, the microsecond clock = cycle / 250.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <deque>
#include <map>
#include <random>
#include <vector>

#include "model/common/bytes.h"
#include "model/common/checksum.h"
#include "model/reorder/reorder_frame.h"
#include "model/reorder/reorder_cycle_model.h"
#include "model/reroute/reroute_types.h"
#include "tb/reorder/reorder_frames.h"

namespace nettwin::reroute {

// What the destination ToR mirrors back for a fabric frame (the reorder block's own builder), optionally with
// another PathID (a NOTIFY for that path); p4: in conweave-p4's wire format (docs/reorder.md "Two wire
// formats"), the seed's epoch given as for the seed's format.
inline std::vector<uint8_t> MirrorControl(const std::vector<uint8_t>& fabric, uint8_t op, uint8_t epoch,
                                          int path = -1, bool p4 = false) {
  std::array<uint8_t, reorder::kHdrBytes> hdr{};
  for (size_t i = 0; i < hdr.size() && i < fabric.size(); ++i) hdr[i] = fabric[i];
  const bool v6 = Load16(&fabric[12]) == 0x86DD;
  if (path >= 0) hdr[(v6 ? 62 : 42) + 4] = static_cast<uint8_t>(path);
  reorder::CtrlFrame c = reorder::BuildControl(hdr, v6, op, epoch, p4);
  return std::vector<uint8_t>(c.bytes.begin(), c.bytes.begin() + c.len);
}

struct LoopResult {
  RerouteCounters src;
  reorder::ReorderCounters dst;
  int max_paths = 0;   // most paths one flow had packets in flight on at once
  int packets = 0;
  bool delivered_ok = true;  // every flow: exactly the NIC frames sent, in order
  std::vector<uint32_t> bad_flows;
};

// bp: probability that the fabric does not take the source's output beat in a cycle. p4: both ToRs in
// conweave-p4's wire format (`wire_format conweave-p4`), else the seed's.
template <class Src>
LoopResult RunClosedLoop(Src* src, double bp, uint64_t seed, bool p4 = false) {
  std::mt19937_64 rng(seed);
  RerouteOut so_last;
  constexpr int kClockMhz = 250;
  reorder::ReorderCycleModel dst;
  RerouteIn si;
  si.cfg.paths = 4;
  si.cfg.p4_format = p4;
  reorder::ReorderIn di;
  di.cfg.flows_mask = reorder::kFlows - 1;
  di.cfg.queues = 32;
  di.cfg.buffer_cells = 4096;
  di.cfg.margin_us = 16;
  di.cfg.default_hold_us = 200;
  di.cfg.flow_idle_us = 2000;
  di.cfg.p4_format = p4;
  src->Reset();
  dst.Reset();

  constexpr int kFlowsN = 12, kPkts = 120;
  struct HostFlow {
    uint32_t src, qp;
    int sent = 0;
    uint64_t next_us;
  };
  std::vector<HostFlow> hf;
  for (int i = 0; i < kFlowsN; ++i) hf.push_back({0x0a000002u + static_cast<uint32_t>(i % 3), 0x100u + i, 0, 5u + i});
  std::map<std::pair<uint32_t, uint32_t>, std::vector<std::vector<uint8_t>>> sent, delivered;
  std::deque<std::vector<uint8_t>> host_q;  // frames waiting for the source ToR
  struct InFlight {
    uint64_t at;
    std::vector<uint8_t> f;
  };
  std::deque<InFlight> to_dst, to_src;  // kept in arrival order (per-path FIFO merged below)
  std::array<uint64_t, 4> path_last{};
  std::map<std::pair<uint32_t, uint32_t>, std::map<int, int>> inflight_paths;  // flow -> path -> packets
  int max_paths = 0;
  auto flow_of = [](const std::vector<uint8_t>& f) {
    return std::make_pair(Load32(&f[26]), Load32(&f[42 + 4]) & 0xFFFFFF);
  };
  std::vector<Beat> s_beats, d_beats, r_beats;
  size_t s_bi = 0, d_bi = 0, r_bi = 0;
  std::vector<uint8_t> m_part, d_part, c_part;
  uint8_t m_path = 0;
  std::vector<InFlight> arrivals_sorted;
  int congested = 0;
  const uint64_t kEnd = 3000;  // us
  for (uint64_t cyc = 0; cyc < kEnd * kClockMhz; ++cyc) {
    const uint64_t us = cyc / kClockMhz;
    congested = us < 1200 ? 0 : 2;  // the congestion event moves from path 0 to path 2
    if (cyc % kClockMhz == 0) {
      for (auto& h : hf) {
        if (h.sent < kPkts && us >= h.next_us) {
          auto f = reorder::NicWrite(h.src, h.qp, static_cast<uint32_t>(h.sent), 200);
          sent[{h.src, h.qp}].push_back(f);
          host_q.push_back(f);
          ++h.sent;
          h.next_us = us + 8;
        }
      }
    }
    // Source ToR.
    si.now_us = static_cast<uint16_t>(us);
    si.s = StreamPort{};
    if (s_beats.empty() && !host_q.empty()) {
      s_beats = ToBeats(host_q.front());
      host_q.pop_front();
      s_bi = 0;
    }
    if (!s_beats.empty()) {
      si.s.valid = true;
      si.s.beat = s_beats[s_bi];
    }
    si.r = StreamPort{};
    if (r_beats.empty() && !to_src.empty() && to_src.front().at <= us) {
      r_beats = ToBeats(to_src.front().f);
      to_src.pop_front();
      r_bi = 0;
    }
    if (!r_beats.empty()) {
      si.r.valid = true;
      si.r.beat = r_beats[r_bi];
    }
    si.m_ready = bp <= 0 || std::uniform_real_distribution<double>(0, 1)(rng) >= bp;
    const RerouteOut& so = src->Eval(si);
    if (si.s.valid && so.s_ready && ++s_bi == s_beats.size()) s_beats.clear();
    if (si.r.valid && so.r_ready && ++r_bi == r_beats.size()) r_beats.clear();
    so_last = so;
    if (so.m.valid && si.m_ready) {
      if (m_part.empty()) m_path = so.m_path;
      AppendBeat(so.m.beat, &m_part);
      if (so.m.beat.last) {
        // The fabric: per-path FIFO, 5 us base, +60 us and CE on the congested path.
        const bool cong = m_path == congested;
        uint64_t at = us + 5 + (cong ? 60 : 0);
        at = std::max(at, path_last[m_path]);
        path_last[m_path] = at;
        if (cong) {  // IPv4 ECN CE, checksum kept valid (the fabric marks, the host sees the mark)
          const uint16_t old = Load16(&m_part[14]);
          m_part[15] |= 3;
          ChecksumDelta d;
          d.Replace(old, Load16(&m_part[14]));
          Store16(&m_part[24], d.Apply(Load16(&m_part[24])));
        }
        auto& ip = inflight_paths[flow_of(m_part)];
        ++ip[m_path];
        int n = 0;
        for (auto& kv : ip) n += kv.second > 0;
        max_paths = std::max(max_paths, n);
        arrivals_sorted.push_back({at, m_part});
        std::stable_sort(arrivals_sorted.begin(), arrivals_sorted.end(),
                         [](const InFlight& a, const InFlight& b) { return a.at < b.at; });
        m_part.clear();
      }
    }
    src->Tick();
    // Destination ToR.
    di.now_us = static_cast<uint16_t>(us);
    di.s = StreamPort{};
    if (d_beats.empty() && !arrivals_sorted.empty() && arrivals_sorted.front().at <= us) {
      const auto& f = arrivals_sorted.front().f;
      d_beats = ToBeats(f);
      --inflight_paths[flow_of(f)][f[42 + 4]];
      arrivals_sorted.erase(arrivals_sorted.begin());
      d_bi = 0;
    }
    if (!d_beats.empty()) {
      di.s.valid = true;
      di.s.beat = d_beats[d_bi];
    }
    di.m_ready = true;
    di.c_ready = true;
    const reorder::ReorderOut& dout = dst.Eval(di);
    if (di.s.valid && dout.s_ready && ++d_bi == d_beats.size()) d_beats.clear();
    if (dout.m.valid) {
      AppendBeat(dout.m.beat, &d_part);
      if (dout.m.beat.last) {
        // The host sees the CE mark the fabric set: compare without it.
        auto f = d_part;
        if ((f[15] & 3) == 3) {
          const uint16_t old = Load16(&f[14]);
          f[15] &= static_cast<uint8_t>(~3);
          ChecksumDelta d;
          d.Replace(old, Load16(&f[14]));
          Store16(&f[24], d.Apply(Load16(&f[24])));
        }
        delivered[flow_of(f)].push_back(f);
        d_part.clear();
      }
    }
    if (dout.c.valid) {
      AppendBeat(dout.c.beat, &c_part);
      if (dout.c.beat.last) {
        to_src.push_back({us + 2, c_part});
        c_part.clear();
      }
    }
    dst.Tick();
  }
  LoopResult res;
  res.src = so_last.cnt;
  res.dst = dst.Eval(di).cnt;
  res.max_paths = max_paths;
  res.packets = kFlowsN * kPkts;
  for (auto& kv : sent) {
    if (delivered[kv.first] != kv.second) {
      res.delivered_ok = false;
      res.bad_flows.push_back(kv.first.second);
    }
  }
  return res;
}

inline void ExpectLoopOk(const LoopResult& r) {
  const RerouteCounters& n = r.src;
  EXPECT_EQ(n.in, static_cast<uint32_t>(r.packets));
  EXPECT_EQ(n.out, n.in);
  EXPECT_GT(n.reroutes, 0u);
  EXPECT_GT(n.rtt_replies, 0u);
  EXPECT_GT(n.notifies, 0u);
  EXPECT_GT(n.clears, 0u);
  EXPECT_EQ(n.bad_control, 0u);
  EXPECT_LE(r.max_paths, 2);  // condition (iii): never more than two paths in flight per flow
  EXPECT_TRUE(r.delivered_ok) << r.bad_flows.size() << " flows not delivered exactly and in order";
  EXPECT_EQ(r.dst.drop_malformed, 0u);
  EXPECT_EQ(r.dst.delivered, n.out);
  std::printf("closed loop: %u packets, %u reroutes, %u RTT requests, %u replies (%u stale), %u NOTIFYs, "
              "%u CLEARs (%u stale), %u blocked by (iii), %u without a path; max paths in flight per flow %d; "
              "reorder held %u, released by TAIL %u, by timeout %u\n",
              n.in, n.reroutes, n.rtt_requests, n.rtt_replies, n.stale_replies, n.notifies, n.clears,
              n.stale_clears, n.reroute_blocked_clear, n.reroute_no_path, r.max_paths, r.dst.held,
              r.dst.released_by_tail, r.dst.released_by_timeout);
}

}  // namespace nettwin::reroute
