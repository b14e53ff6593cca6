// How lb plugs into the generic harness: its stream ports, output comparison and packet accounting (generated
// from rtl/lb/data/lb.json), and the side channel that feeds the control-plane script into the programming port.
#pragma once

#include "lb_compare.h"  // NOLINT(build/include_subdir): generated
#include "model/lb/lb_types.h"
#include "tb/common/harness.h"
#include "tb/lb/segment_feeder.h"

namespace nettwin::lb {

using LbBinding = LbBindingPorts;  // generated: streams s -> m, Compare, accounting

using LbTableFeeder = SegmentFeeder<LbIn, LbOut>;

}  // namespace nettwin::lb
