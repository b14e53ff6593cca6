// How the ConWeave reorder block plugs into the generic harness: the fabric and host streams are the
// harness's source and sink; the control stream, the microsecond clock and the configuration go through
// the side channel, which also collects the control packets and each delivered packet's hold time.
#pragma once

#include <cstdint>
#include <vector>

#include "model/reorder/reorder_types.h"
#include "reorder_compare.h"  // NOLINT(build/include_subdir): generated from rtl/reorder/data/reorder.json
#include "tb/common/harness.h"
#include "tb/common/stream_sink.h"

namespace nettwin::reorder {

using ReorderBinding = ReorderBindingPorts;  // generated: streams s -> m, Compare, accounting

struct HoldRecord {
  bool held = false;
  uint16_t hold_us = 0;
};

class ReorderSide : public tb::SideChannel<ReorderIn, ReorderOut> {
 public:
  // t0_ns: the time of cycle 0 (the first arrival); the block's clock is that time in us mod 2^16.
  ReorderSide(const ReorderCfg& cfg, uint64_t t0_ns, double clock_mhz, double ctrl_backpressure, uint64_t seed)
      : cfg_(cfg), t0_ns_(t0_ns), clock_mhz_(clock_mhz), ctrl_(ctrl_backpressure, seed) {}
  bool Drive(uint64_t cycle, size_t next_packet, const tb::Accounting& acc, ReorderIn* in) override;
  void Observe(uint64_t cycle, const ReorderIn& in, const ReorderOut& out) override;
  bool Busy() const override { return !idle_; }

  uint64_t TimeNs(uint64_t cycle) const;
  std::vector<Packet>& ctrl_frames() { return ctrl_.frames(); }
  const std::vector<uint64_t>& ctrl_first_cycles() const { return ctrl_.first_beat_cycles(); }
  const std::vector<HoldRecord>& holds() const { return holds_; }  // one per delivered frame, in order

 private:
  ReorderCfg cfg_;
  uint64_t t0_ns_;
  double clock_mhz_;
  tb::StreamSink ctrl_;
  bool idle_ = true;
  bool m_in_frame_ = false;
  std::vector<HoldRecord> holds_;
};

}  // namespace nettwin::reorder
