// How lb plugs into the generic harness: its stream ports, output comparison, packet accounting, and the
// side channel that feeds the control-plane script into the programming port.
#pragma once

#include <optional>
#include <vector>

#include "model/lb/lb_script.h"
#include "lb_compare.h"
#include "model/lb/lb_types.h"
#include "tb/common/harness.h"
#include "tb/lb/segment_feeder.h"

namespace nettwin::lb {

struct LbBinding {
  using In = LbIn;
  using Out = LbOut;
  static StreamPort* Source(In* in) { return &in->s; }
  static bool SourceReady(const Out& o) { return o.s_ready; }
  static void SetSinkReady(In* in, bool r) { in->m_ready = r; }
  static bool SinkReady(const In& in) { return in.m_ready; }
  static const StreamPort& Sink(const Out& o) { return o.m; }
  // Generated from rtl/lb/data/lb.json: every output, the first difference in tb/common/compare.h's format.
  static std::optional<tb::SignalDiff> Compare(const Out& rtl, const Out& model) { return CompareLbOut(rtl, model); }
  static tb::Accounting Account(const Out& o) { return AccountLb(o); }
};

using LbTableFeeder = SegmentFeeder<LbIn, LbOut>;

}  // namespace nettwin::lb
