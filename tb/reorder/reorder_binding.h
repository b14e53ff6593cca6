// How the ConWeave reorder block plugs into the generic harness: the fabric and host streams are the
// harness's source and sink; the control stream, the microsecond clock and the configuration go through
// the side channel, which also collects the control packets and each delivered packet's hold time.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "model/reorder/reorder_types.h"
#include "reorder_compare.h"
#include "tb/common/harness.h"
#include "tb/common/stream_sink.h"

namespace nettwin::reorder {

struct ReorderBinding {
  using In = ReorderIn;
  using Out = ReorderOut;
  static StreamPort* Source(In* in) { return &in->s; }
  static bool SourceReady(const Out& o) { return o.s_ready; }
  static void SetSinkReady(In* in, bool r) { in->m_ready = r; }
  static bool SinkReady(const In& in) { return in.m_ready; }
  static const StreamPort& Sink(const Out& o) { return o.m; }
  // Both generated from rtl/reorder/data/reorder.json (docs/blockgen.md).
  static std::optional<tb::SignalDiff> Compare(const Out& rtl, const Out& model) { return CompareReorderOut(rtl, model); }
  static tb::Accounting Account(const Out& o) { return AccountReorder(o); }
};

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
