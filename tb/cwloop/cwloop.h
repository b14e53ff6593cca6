// The ConWeave closed loop (issue 26 item 3, docs/cwloop.md): hosts' flows -> the source ToR (reroute block)
// -> a fabric of several paths (model/reroute/fabric.h: per-path rate, delay, queueing, ECN, loss, congestion
// moving from path to path) -> the destination ToR (reorder block) -> hosts, with RTT_REPLY, NOTIFY and CLEAR
// carried back through the fabric's reverse direction. Both ToRs run cycle by cycle, each as its cycle model,
// its RTL, or both in lockstep. Every point is recorded with its time, for an independent checker.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/common/packet.h"
#include "model/reorder/reorder_types.h"
#include "model/reroute/fabric.h"
#include "model/reroute/reroute_types.h"

namespace nettwin::reroute {

enum class LoopEngine { kModel, kRtl, kLockstep };

struct CwloopConfig {
  LoopEngine engine = LoopEngine::kLockstep;
  uint64_t seed = 1;
  double clock_mhz = 250;
  // Hosts: `host_flows` RC connections (4 source hosts, one destination), each `packets` WRITEs of `payload`
  // bytes, one every `gap_ns` (+-25 % jitter), starting at a random time in [0, start_spread_ns).
  int host_flows = 24;
  int packets = 80;
  int payload = 1000;
  uint64_t gap_ns = 4000;
  uint64_t start_spread_ns = 100000;
  bool ipv6_some = false;  // every fourth flow over IPv6
  bool ecmp_only = false;  // the source ToR never reroutes (reply cutoff at its maximum): ECMP alone
  // Lockstep self-test: from this cycle on, the source ToR's next fabric beat is compared with one bit flipped
  // (RerouteLockstep::InjectFlip); the run must stop with the divergence.
  uint64_t inject_at = ~uint64_t{0};
  RerouteCfg src;
  reorder::ReorderCfg dst;
  FabricCfg fabric;
};

struct CwloopRecord {
  // Every capture is stamped with the time of the point it names (ns from the start of the run).
  std::vector<Packet> hosts;        // the hosts' NIC frames, when the NIC sent them (offered to the source ToR)
  std::vector<Packet> fabric_in;    // the source ToR's output, first beat (its path in BTH byte 4)
  std::vector<Packet> fabric_out;   // as the destination ToR took it (last beat in), CE set by the fabric
  std::vector<Packet> fabric_lost;  // data frames the fabric lost, at their entry
  std::vector<Packet> delivered;    // the destination ToR's host output, first beat
  std::vector<Packet> ctrl_dst;     // control frames out of the destination ToR, first beat
  std::vector<Packet> ctrl_src;     // control frames into the source ToR (last beat in)
  std::vector<Packet> ctrl_lost;    // control frames the fabric lost on the way back
  std::vector<int> hold_us;         // the destination's hold-time sideband, one per delivered frame (-1: not held)
  RerouteCounters src;
  reorder::ReorderCounters dst;
  uint64_t cycles = 0;
  bool hang = false;
  std::string mismatch;  // the first lockstep divergence (source or destination), empty if none
  // The destination's reorder-queue occupancy, sampled every microsecond.
  double mean_held_packets = 0, mean_held_cells = 0;
  uint32_t peak_held_packets = 0, peak_held_cells = 0;
};

CwloopRecord RunCwloop(const CwloopConfig& cfg);

}  // namespace nettwin::reroute
