// How the udplb program's top (udplb_top) plugs into the generic harness: its stream ports, the comparison of
// every output (stream, egress port, every counter), packet accounting, and the script feeder that also
// drives the ingress port.
#pragma once

#include <optional>
#include <vector>

#include "model/lb/udplb_types.h"
#include "tb/common/harness.h"
#include "udplb_compare.h"
#include "tb/lb/segment_feeder.h"

namespace nettwin::lb::udplb {

struct UdplbBinding {
  using In = UdplbIn;
  using Out = UdplbOut;
  static StreamPort* Source(In* in) { return &in->s; }
  static bool SourceReady(const Out& o) { return o.s_ready; }
  static void SetSinkReady(In* in, bool r) { in->m_ready = r; }
  static bool SinkReady(const In& in) { return in.m_ready; }
  static const StreamPort& Sink(const Out& o) { return o.m; }
  // Generated from rtl/lb/data/udplb.json: every output, the first difference in tb/common/compare.h's format.
  static std::optional<tb::SignalDiff> Compare(const Out& rtl, const Out& model) {
    return CompareUdplbOut(rtl, model);
  }
  static tb::Accounting Account(const Out& o) { return AccountUdplb(o); }
};

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
