// The source-ToR block's RTL and cycle model in lockstep behind one ClockedBlock (tb::ClockedLockstep): every
// output (ready, streams, path, idle, all counters) is compared every cycle.
#pragma once

#include <optional>
#include <string>

#include "model/reroute/reroute_cycle_model.h"
#include "reroute_compare.h"
#include "tb/common/clocked_lockstep.h"
#include "tb/reroute/reroute_rtl.h"

namespace nettwin::reroute {

class RerouteLockstep : public tb::ClockedLockstep<RerouteCycleModel, RerouteRtl, RerouteIn, RerouteOut> {
 public:
  // Self-test of the comparison: the next output beat of the model is compared as if one bit differed.
  void InjectFlip() { inject_ = true; }

 private:
  // Every output compared by the generated CompareRerouteOut (rtl/reroute/data/reroute.json), in
  // tb/common/compare.h's format, as ReorderLockstep does.
  std::optional<tb::SignalDiff> Differ(const RerouteOut& m, const RerouteOut& r) override {
    if (inject_ && m.m.valid) {  // --inject-divergence: the model's beat compared with bit 0 of byte 0 flipped
      inject_ = false;
      RerouteOut flipped = m;
      flipped.m.beat.data[0] ^= 1;
      return CompareRerouteOut(r, flipped);
    }
    return CompareRerouteOut(r, m);
  }

  bool inject_ = false;
};

}  // namespace nettwin::reroute
