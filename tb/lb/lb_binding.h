// How lb plugs into the generic harness: its stream ports, output comparison, packet accounting, and the
// side channel that feeds the control-plane script into the programming port.
#pragma once

#include <optional>
#include <vector>

#include "model/lb/lb_script.h"
#include "model/lb/lb_types.h"
#include "tb/common/harness.h"

namespace nettwin::lb {

struct LbBinding {
  using In = LbIn;
  using Out = LbOut;
  static StreamPort* Source(In* in) { return &in->s; }
  static bool SourceReady(const Out& o) { return o.s_ready; }
  static void SetSinkReady(In* in, bool r) { in->m_ready = r; }
  static bool SinkReady(const In& in) { return in.m_ready; }
  static const StreamPort& Sink(const Out& o) { return o.m; }
  static std::optional<tb::SignalDiff> Compare(const Out& rtl, const Out& model);
  static tb::Accounting Account(const Out& o);
};

// Applies each script segment's writes (one per cycle) once every packet of the previous segment has left
// the block or been dropped, holding the source meanwhile: so each packet sees exactly the tables of its
// segment and golden outputs do not depend on pipeline timing (docs/lb.md).
class LbTableFeeder : public tb::SideChannel<LbIn, LbOut> {
 public:
  LbTableFeeder(std::vector<Segment> segments, size_t packet_count);
  bool Drive(uint64_t cycle, size_t next_packet, const tb::Accounting& acc, LbIn* in) override;
  bool Busy() const override;

 private:
  std::vector<Segment> segs_;
  std::vector<size_t> start_;  // first packet of each segment
  size_t seg_ = 0, write_ = 0;
};

}  // namespace nettwin::lb
