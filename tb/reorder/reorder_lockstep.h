// The destination-ToR reorder block's RTL and cycle model in lockstep behind one ClockedBlock
// (tb::ClockedLockstep), every output compared with ReorderBinding::Compare (the harness's own comparison).
#pragma once

#include <optional>
#include <string>

#include "model/reorder/reorder_cycle_model.h"
#include "tb/common/clocked_lockstep.h"
#include "tb/reorder/reorder_binding.h"
#include "tb/reorder/reorder_rtl.h"

namespace nettwin::reorder {

class ReorderLockstep : public tb::ClockedLockstep<ReorderCycleModel, ReorderRtl, ReorderIn, ReorderOut> {
 private:
  std::optional<tb::SignalDiff> Differ(const ReorderOut& m, const ReorderOut& r) override {
    return ReorderBinding::Compare(r, m);
  }
};

}  // namespace nettwin::reorder
