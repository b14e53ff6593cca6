// The udplb program packet at a time (`--engine fast`): the same stage functions as the cycle model, back to
// back, for golden outputs at full speed. A test proves it produces what the cycle model produces.
#pragma once

#include <cstdint>
#include <vector>

#include "model/lb/lb_script.h"
#include "model/lb/udplb_stages.h"

namespace nettwin::lb::udplb {

struct FrameResult {
  Verdict verdict;
  std::vector<uint8_t> out;  // the frame that leaves (empty when dropped)
};

FrameResult ProcessFrame(const UdplbTables& tables, const std::vector<uint8_t>& frame, uint8_t in_port);

// Frames in input order; each script segment's writes are applied before its first frame.
class UdplbPacketEngine {
 public:
  UdplbPacketEngine(std::vector<Segment> script, uint8_t in_port) : script_(std::move(script)), port_(in_port) {}
  FrameResult Process(const std::vector<uint8_t>& frame);
  const UdplbCounters& counters() const { return counters_; }

 private:
  std::vector<Segment> script_;
  uint8_t port_;
  size_t seg_ = 0;
  int64_t left_ = 0;
  UdplbTables tables_;
  UdplbCounters counters_;
};

}  // namespace nettwin::lb::udplb
