// Packet-level golden model of the ConWeave source-ToR rerouting block (docs/reroute.md): the per-flow
// state, the path-status table and the decisions one packet makes, with no notion of cycles. The cycle model
// (reroute_cycle_model.h) calls it once per decision, so both give the same packets by construction; tests also
// drive it directly, packet by packet.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "model/reorder/reorder_frame.h"
#include "model/reorder/reorder_types.h"
#include "model/reroute/reroute_types.h"

namespace nettwin::reroute {

constexpr int kKeyBytes = reorder::kKeyBytes;
using FlowKey = std::array<uint8_t, kKeyBytes>;

// d = (now - t) mod 2^16 with its MSB as the wrap bit: at least `thr` us have passed, or t is more than
// 32.8 ms away (docs/reroute.md "Timestamps").
inline bool Elapsed(uint16_t now, uint16_t t, uint16_t thr) {
  const uint16_t d = static_cast<uint16_t>(now - t);
  return (d & 0x8000) != 0 || d >= thr;
}

// What one host frame became.
struct DataResult {
  bool ok = false;  // false: malformed, dropped
  std::vector<uint8_t> frame;  // the fabric frame
  uint8_t path = 0, op = 0, epoch = 0;
  bool rerouted = false, tail = false;
  uint16_t tx_ts = 0, tail_tx_ts = 0;
  bool fallback = false;  // ECMP fallback (flow table full)
  bool reroute = false;   // this packet is the TAIL of a reroute; the flow now uses new_path
  uint8_t new_path = 0;
  std::array<uint8_t, 2> candidates{};  // the two paths sampled (when condition i held and iii held)
};

enum class CtrlResult : uint8_t { kBad, kReply, kStaleReply, kNotify, kClear, kStaleClear };

class RerouteCore {
 public:
  struct Flow {
    bool valid = false;
    FlowKey key{};
    uint8_t path = 0, epoch = 0;
    bool rerouted = false, req_wait = false;
    uint16_t tail_ts = 0, req_ts = 0, last_us = 0;
  };
  struct PathStatus {
    bool busy = false;
    uint16_t ts = 0;
  };

  RerouteCore() { Reset(); }
  void Reset();
  void SetConfig(const RerouteCfg& cfg) { cfg_ = cfg; }

  // A host frame (whole). Counts in / out / malformed and the decision counters.
  DataResult Data(const uint8_t* frame, int len, uint16_t now);
  // A control packet: `win` = its first kCtrlBytes bytes (zero beyond the frame), `len` its length.
  CtrlResult Control(const uint8_t* win, int len, uint16_t now);
  // The path-status expiry scan's visit of path `p`.
  void Scan(int p, uint16_t now);

  bool Congested(int p, uint16_t now) const;
  const Flow& flow(int idx) const { return flows_[idx]; }
  const PathStatus& path(int p) const { return paths_[p]; }
  const RerouteCounters& counters() const { return cnt_; }
  const RerouteCfg& cfg() const { return cfg_; }

 private:
  RerouteCfg cfg_;
  std::vector<Flow> flows_;
  std::array<PathStatus, kPaths> paths_{};
  RerouteCounters cnt_;
};

// BTH byte 8 of a fabric frame (docs/reroute.md "Wire format"): the seed's AckReq | op(3) | epoch(2) |
// REROUTED | TAIL, or (p4) conweave-p4's AckReq | opcode 1 DATA | phase | epoch(2) | ask_reply | tail, the
// inverse of the reorder block's mapping (docs/reorder.md "Two wire formats").
uint8_t EncodeByte8(uint8_t nic_b8, uint8_t op, uint8_t epoch, bool rerouted, bool tail, bool p4);
// A control packet parsed in the seed's format, re-read as conweave-p4's: REPLY phase 0 = RTT_REPLY, REPLY
// phase 1 = CLEAR, NOTIFY = NOTIFY (op 0 otherwise: bad_control), epoch = conweave-p4's epoch + phase.
void MapP4Control(reorder::CwMeta& m);

// The candidates a flow with hash h samples at time now (docs/reroute.md "Candidates"), and its ECMP path.
std::array<uint8_t, 2> Candidates(uint16_t h, uint16_t now, int paths);
inline uint8_t EcmpPath(uint16_t h, int paths) { return static_cast<uint8_t>((h >> 4) & (paths - 1)); }

}  // namespace nettwin::reroute
