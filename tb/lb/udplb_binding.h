// How the udplb program's top (udplb_top) plugs into the generic harness: its stream ports, the comparison of
// every output (stream, egress port, every counter) and packet accounting (generated from
// rtl/lb/data/udplb.json), and the script feeder that also drives the ingress port.
#pragma once

#include <vector>

#include "model/lb/udplb_types.h"
#include "tb/common/harness.h"
#include "tb/lb/segment_feeder.h"
#include "udplb_compare.h"  // NOLINT(build/include_subdir): generated

namespace nettwin::lb::udplb {

using UdplbBinding = UdplbBindingPorts;  // generated: streams s -> m, Compare, accounting

// The script's writes, and every frame offered on one ingress port.
class UdplbFeeder : public SegmentFeeder<UdplbIn, UdplbOut> {
 public:
  UdplbFeeder(std::vector<Segment> segments, size_t packet_count, uint8_t in_port)
      : SegmentFeeder(std::move(segments), packet_count), port_(in_port) {}
  bool Drive(uint64_t cycle, size_t next_packet, const tb::Accounting& acc, UdplbIn* in) override {
    in->s_port = port_;
    return SegmentFeeder::Drive(cycle, next_packet, acc, in);
  }
  // Records the egress port of every frame taken at the output.
  void Observe(uint64_t, const UdplbIn& in, const UdplbOut& out) override {
    if (!out.m.valid || !in.m_ready) return;
    if (!mid_frame_) out_ports_.push_back(out.m_port);
    mid_frame_ = !out.m.beat.last;
  }
  const std::vector<uint8_t>& out_ports() const { return out_ports_; }

 private:
  uint8_t port_;
  bool mid_frame_ = false;
  std::vector<uint8_t> out_ports_;
};

}  // namespace nettwin::lb::udplb
