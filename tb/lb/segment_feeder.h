// Feeds a control-plane script (segments of programming-port writes, each followed by a run of packets) into a
// block's programming port: each segment's writes (one per cycle) go in once every packet of the previous
// segment has left the block or been dropped, holding the source meanwhile. So each packet sees exactly the
// tables of its segment and golden outputs do not depend on pipeline timing (docs/lb.md). Shared by the
// load balancer's two programs (seed and udplb), whose ports both have a `cfg` CfgWrite.
#pragma once

#include <algorithm>
#include <vector>

#include "model/lb/lb_script.h"
#include "tb/common/harness.h"

namespace nettwin::lb {

template <class In, class Out>
class SegmentFeeder : public tb::SideChannel<In, Out> {
 public:
  SegmentFeeder(std::vector<Segment> segments, size_t packet_count) : segs_(std::move(segments)) {
    size_t start = 0;
    for (const Segment& s : segs_) {
      start_.push_back(start);
      start = s.run_count < 0 ? packet_count : std::min(packet_count, start + static_cast<size_t>(s.run_count));
    }
  }

  bool Drive(uint64_t, size_t next_packet, const tb::Accounting& acc, In* in) override {
    while (seg_ < segs_.size()) {
      if (next_packet < start_[seg_]) return true;
      if (write_ < segs_[seg_].writes.size()) {
        if (!acc.Drained() || acc.in < start_[seg_]) return false;  // previous segment still in flight
        in->cfg = segs_[seg_].writes[write_++];
        return false;
      }
      if (seg_ + 1 < segs_.size() && next_packet >= start_[seg_ + 1]) {
        ++seg_;
        write_ = 0;
        continue;
      }
      return true;
    }
    return true;
  }

  bool Busy() const override {
    for (size_t s = seg_; s < segs_.size(); ++s) {
      if ((s == seg_ ? write_ : 0) < segs_[s].writes.size()) return true;
    }
    return false;
  }

 private:
  std::vector<Segment> segs_;
  std::vector<size_t> start_;  // first packet of each segment
  size_t seg_ = 0, write_ = 0;
};

}  // namespace nettwin::lb
