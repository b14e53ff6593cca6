// Packet-at-a-time load balancer: the same parse, lookups and rewrite as the cycle model, back to back,
// for golden outputs at full speed. A test proves it produces what the cycle model produces.
#pragma once

#include <cstdint>
#include <vector>

#include "model/lb/lb_rewrite.h"
#include "model/lb/lb_script.h"
#include "model/lb/lb_tables.h"

namespace nettwin::lb {

struct Verdict {
  Rewrite rewrite;                // rewrite.forward / rewrite.reason say what happened
  std::vector<uint8_t> out;       // the forwarded frame (empty when dropped)
};

// Parse + all lookups; the result's reason is kNone if the packet is to be forwarded.
Rewrite Decide(const LbTables& tables, const uint8_t* frame, int len);
Verdict ProcessPacket(const LbTables& tables, const std::vector<uint8_t>& frame);

// The packet-at-a-time engine over a control-plane script: frames come one at a time in input order, and
// each segment's table writes are applied before its first frame (the tables a frame sees depend only on
// its index, docs/lb.md). Keeps nothing per frame, so a capture of any size streams through it.
class LbPacketEngine {
 public:
  explicit LbPacketEngine(std::vector<Segment> script) : script_(std::move(script)) {}
  // Decides the next frame and counts it. When the result forwards, the output frame is
  // ApplyRewrite(result, frame): OverwriteFields on bytes [0, lb_off()) and the LB header removed.
  Rewrite Process(const uint8_t* frame, int len);
  const LbCounters& counters() const { return counters_; }

 private:
  std::vector<Segment> script_;
  size_t seg_ = 0;
  int64_t left_ = 0;  // frames still to run in the current segment; < 0: all the rest
  LbTables tables_;
  LbCounters counters_;
};

}  // namespace nettwin::lb
