#include "model/reroute/fabric.h"

#include <algorithm>

#include "model/common/bytes.h"
#include "model/common/checksum.h"

namespace nettwin::reroute {

Fabric::Fabric(const FabricCfg& cfg)
    : cfg_(cfg), fwd_(static_cast<size_t>(cfg.paths)), rev_(static_cast<size_t>(cfg.paths)), rng_(cfg.seed) {}

const CongestionEvent* Fabric::Active(uint8_t path, uint64_t t_ns) const {
  for (const CongestionEvent& e : cfg_.events) {
    if (e.path == path && t_ns >= e.from_ns && t_ns < e.to_ns) return &e;
  }
  return nullptr;
}

FabricVerdict Fabric::Send(Link* l, uint8_t path, uint64_t t_ns, size_t bytes, const CongestionEvent* ev, double loss) {
  FabricVerdict v;
  // Every packet draws, lossy path or not, so one path's loss does not shift another's draws.
  const double u = std::uniform_real_distribution<double>(0, 1)(rng_);
  if (u < loss) {
    v.lost = true;
    return v;
  }
  const double gbps = cfg_.gbps * (ev ? ev->rate_factor : 1.0);
  const uint64_t start = std::max(t_ns, l->free_ns);
  const uint64_t ser = static_cast<uint64_t>(static_cast<double>(bytes) * 8.0 / gbps + 0.5);
  l->free_ns = start + ser;
  uint64_t at = start + ser + cfg_.base_ns + uint64_t{path} * cfg_.step_ns + (ev ? ev->extra_ns : 0);
  at = std::max(at, l->last_arrival_ns);  // a link is a FIFO: the end of an event never lets one overtake
  l->last_arrival_ns = at;
  v.at_ns = at;
  v.ce = ev != nullptr || start - t_ns > cfg_.ecn_queue_ns;
  return v;
}

FabricVerdict Fabric::Forward(uint8_t path, uint64_t t_ns, size_t bytes) {
  const uint8_t p = static_cast<uint8_t>(path % cfg_.paths);
  const CongestionEvent* ev = Active(p, t_ns);
  FabricVerdict v = Send(&fwd_[p], p, t_ns, bytes, ev, ev ? ev->loss : 0.0);
  forward_lost_ += v.lost;
  ce_marked_ += !v.lost && v.ce;
  return v;
}

FabricVerdict Fabric::Reverse(uint8_t path, uint64_t t_ns, size_t bytes) {
  const uint8_t p = static_cast<uint8_t>(path % cfg_.paths);
  FabricVerdict v = Send(&rev_[p], p, t_ns, bytes, nullptr, cfg_.ctrl_loss);
  v.ce = false;
  reverse_lost_ += v.lost;
  return v;
}

bool MarkCe(std::vector<uint8_t>* frame) {
  std::vector<uint8_t>& f = *frame;
  if (f.size() < 34) return false;
  const uint16_t et = Load16(&f[12]);
  if (et == 0x0800) {
    const uint16_t old = Load16(&f[14]);
    f[15] |= 3;
    ChecksumDelta d;
    d.Replace(old, Load16(&f[14]));
    Store16(&f[24], d.Apply(Load16(&f[24])));
    return true;
  }
  if (et == 0x86DD) {
    f[15] |= 0x30;  // traffic class bits 1..0 = ECN (version 4 bits, TC 8 bits)
    return true;
  }
  return false;
}

std::vector<CongestionEvent> MovingCongestion(uint64_t seed, int paths, int congested, int moves, uint64_t run_ns,
                                              uint32_t extra_ns, double rate_factor, double loss) {
  std::mt19937_64 rng(seed * 7919 + 17);
  std::vector<CongestionEvent> ev;
  std::vector<int> prev;
  for (int m = 0; m < moves; ++m) {
    std::vector<int> cur;
    for (int tries = 0; static_cast<int>(cur.size()) < congested && tries < 1000; ++tries) {
      const int p = static_cast<int>(rng() % static_cast<uint64_t>(paths));
      if (std::find(cur.begin(), cur.end(), p) != cur.end()) continue;
      if (std::find(prev.begin(), prev.end(), p) != prev.end() && tries < 500) continue;  // the event moves
      cur.push_back(p);
    }
    for (int p : cur) {
      CongestionEvent e;
      e.from_ns = run_ns * static_cast<uint64_t>(m) / static_cast<uint64_t>(moves);
      e.to_ns = run_ns * static_cast<uint64_t>(m + 1) / static_cast<uint64_t>(moves);
      e.path = static_cast<uint8_t>(p);
      e.extra_ns = extra_ns;
      e.rate_factor = rate_factor;
      e.loss = loss;
      ev.push_back(e);
    }
    prev = cur;
  }
  return ev;
}

}  // namespace nettwin::reroute
