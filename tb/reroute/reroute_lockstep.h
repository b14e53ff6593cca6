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
  std::optional<std::string> Differ(const RerouteOut& m, const RerouteOut& r) override {
    std::optional<tb::SignalDiff> d;
    if (inject_ && m.m.valid) {  // --inject-divergence: the model's beat compared with bit 0 of byte 0 flipped
      inject_ = false;
      RerouteOut flipped = m;
      flipped.m.beat.data[0] ^= 1;
      d = CompareRerouteOut(r, flipped);
    } else {
      d = CompareRerouteOut(r, m);
    }
    if (!d) return std::nullopt;
    return d->signal + " differs (rtl " + d->rtl + " / model " + d->model + ")";
  }

  bool inject_ = false;
};

}  // namespace nettwin::reroute
