// A small leaf-spine fabric between one source ToR and one destination ToR, for the ConWeave closed loop
// (docs/cwloop.md): `paths` uplink paths, each a FIFO link with a rate, a base one-way delay and ECN marking
// on queueing, plus congestion events (a path's rate cut, extra delay, CE on every packet, random loss) that
// move from path to path during a run. The reverse direction (control packets back to the source ToR) has the
// same paths, never congested, with its own loss probability. Packet-level, seeded, deterministic.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace nettwin::reroute {

struct CongestionEvent {
  uint64_t from_ns = 0, to_ns = 0;  // active for packets entering the path in [from_ns, to_ns)
  uint8_t path = 0;
  uint32_t extra_ns = 0;     // added one-way delay
  double rate_factor = 1.0;  // the path's rate is multiplied by this (background traffic takes the rest)
  double loss = 0;           // probability that a data packet entering the path is lost
};

struct FabricCfg {
  int paths = 8;
  uint32_t base_ns = 2000;  // path p's one-way delay is base_ns + p * step_ns (plus serialization)
  uint32_t step_ns = 250;
  double gbps = 25;              // each path's rate
  uint32_t ecn_queue_ns = 5000;  // CE mark when a packet waited longer than this in the path's queue
  double ctrl_loss = 0;          // probability that a control packet is lost on the way back
  std::vector<CongestionEvent> events;
  uint64_t seed = 1;
};

struct FabricVerdict {
  bool lost = false;
  bool ce = false;
  uint64_t at_ns = 0;  // arrival at the far ToR (meaningless when lost)
};

class Fabric {
 public:
  explicit Fabric(const FabricCfg& cfg);
  // A data frame of `bytes` entering path `path` toward the destination ToR at t_ns.
  FabricVerdict Forward(uint8_t path, uint64_t t_ns, size_t bytes);
  // A control frame back toward the source ToR on path `path` (mod paths).
  FabricVerdict Reverse(uint8_t path, uint64_t t_ns, size_t bytes);
  // The congestion event active on `path` at t_ns, or nullptr.
  const CongestionEvent* Active(uint8_t path, uint64_t t_ns) const;
  uint64_t forward_lost() const { return forward_lost_; }
  uint64_t reverse_lost() const { return reverse_lost_; }
  uint64_t ce_marked() const { return ce_marked_; }

 private:
  struct Link {
    uint64_t free_ns = 0;  // when the link has sent everything queued
    uint64_t last_arrival_ns = 0;
  };
  FabricVerdict Send(Link* l, uint8_t path, uint64_t t_ns, size_t bytes, const CongestionEvent* ev, double loss);
  FabricCfg cfg_;
  std::vector<Link> fwd_, rev_;
  std::mt19937_64 rng_;
  uint64_t forward_lost_ = 0, reverse_lost_ = 0, ce_marked_ = 0;
};

// Sets ECN CE (IPv4 keeps a valid header checksum, RFC 1624) in an Ethernet frame; false if not IP.
bool MarkCe(std::vector<uint8_t>* frame);
// Seeded congestion schedule: the run [0, run_ns) cut into `moves` equal spans; in each span `congested`
// distinct paths (never all the same ones as in the span before) are congested with the given parameters.
std::vector<CongestionEvent> MovingCongestion(uint64_t seed, int paths, int congested, int moves, uint64_t run_ns,
                                              uint32_t extra_ns, double rate_factor, double loss);

}  // namespace nettwin::reroute
