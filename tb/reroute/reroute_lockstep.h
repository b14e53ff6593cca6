// The source-ToR block's RTL and cycle model in lockstep behind one ClockedBlock (tb::ClockedLockstep): every
// output (ready, stream, path, idle, all counters) is compared every cycle.
#pragma once

#include <optional>
#include <sstream>
#include <string>

#include "model/reroute/reroute_model.h"
#include "tb/common/clocked_lockstep.h"
#include "tb/reroute/reroute_rtl.h"

namespace nettwin::reroute {

class RerouteLockstep : public tb::ClockedLockstep<RerouteModel, RerouteRtl, RerouteIn, RerouteOut> {
 public:
  // Self-test of the comparison: the next output beat of the model is compared as if one bit differed.
  void InjectFlip() { inject_ = true; }

 private:
  std::optional<std::string> Differ(const RerouteOut& m, const RerouteOut& r) override {
    std::string what;
    if (inject_ && m.m.valid) {  // --inject-divergence: the model's beat compared with bit 0 of byte 0 flipped
      inject_ = false;
      what = "m (stream, injected bit flip)";
    } else if (m.s_ready != r.s_ready) what = "s_ready";
    else if (m.r_ready != r.r_ready) what = "r_ready";
    else if (!(m.m == r.m)) what = "m (stream)";
    else if (m.m.valid && m.m_path != r.m_path) what = "m_path";
    else if (m.idle != r.idle) what = "idle";
    else if (!(m.cnt == r.cnt)) what = "counters";
    if (what.empty()) return std::nullopt;
    std::ostringstream os;
    os << what << " differs (model in " << m.cnt.in << " out " << m.cnt.out << " ctrl " << m.cnt.ctrl_in
       << " reroutes " << m.cnt.reroutes << " / rtl in " << r.cnt.in << " out " << r.cnt.out << " ctrl "
       << r.cnt.ctrl_in << " reroutes " << r.cnt.reroutes << ")";
    return os.str();
  }

  bool inject_ = false;
};

}  // namespace nettwin::reroute
