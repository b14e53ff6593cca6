// The destination-ToR reorder block's RTL and cycle model in lockstep behind one ClockedBlock (for closed
// loops that drive it cycle by cycle themselves, docs/cwloop.md): both get the same inputs every cycle, every
// output is compared with ReorderBinding::Compare (the harness's own comparison), and the model's outputs drive
// the rest of the testbench. The first difference is kept, with its cycle.
#pragma once

#include <cstdint>
#include <string>

#include "model/reorder/reorder_model.h"
#include "tb/reorder/reorder_binding.h"
#include "tb/reorder/reorder_rtl.h"

namespace nettwin::reorder {

class ReorderLockstep : public ClockedBlock<ReorderIn, ReorderOut> {
 public:
  void Reset() override {
    model_.Reset();
    rtl_.Reset();
    cycle_ = 0;
    mismatches_ = 0;
    first_.clear();
  }
  const ReorderOut& Eval(const ReorderIn& in) override {
    const ReorderOut& m = model_.Eval(in);
    const ReorderOut& r = rtl_.Eval(in);
    if (auto d = ReorderBinding::Compare(r, m)) {
      if (mismatches_++ == 0) {
        first_ = "cycle " + std::to_string(cycle_) + ": " + d->signal + " differs (rtl " + d->rtl + " / model " +
                 d->model + ")";
      }
    }
    return m;
  }
  void Tick() override {
    model_.Tick();
    rtl_.Tick();
    ++cycle_;
  }
  uint64_t mismatches() const { return mismatches_; }
  const std::string& first_mismatch() const { return first_; }

 private:
  ReorderModel model_;
  ReorderRtl rtl_;
  uint64_t cycle_ = 0, mismatches_ = 0;
  std::string first_;
};

}  // namespace nettwin::reorder
