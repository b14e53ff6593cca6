// A block's RTL and cycle model in lockstep behind one ClockedBlock, for closed loops that drive blocks cycle
// by cycle themselves (docs/cwloop.md): both get the same inputs every cycle, the block's Differ compares
// every output, and the model's outputs drive the rest of the testbench. The first difference is kept with its
// cycle; an RTL assertion (docs/assertions.md) counts as one and, at or before the cycle of the first
// divergence, is the one reported (it names the cause).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "model/common/clocked_block.h"

namespace nettwin::tb {

template <class Model, class Rtl, class In, class Out>
class ClockedLockstep : public ClockedBlock<In, Out> {
 public:
  void Reset() override {
    model_.Reset();
    rtl_.Reset();
    cycle_ = first_cycle_ = mismatches_ = 0;
    first_.clear();
  }
  const Out& Eval(const In& in) override {
    const Out& m = model_.Eval(in);
    const Out& r = rtl_.Eval(in);
    if (std::optional<std::string> what = Differ(m, r)) {
      if (mismatches_++ == 0) {
        first_cycle_ = cycle_;
        first_ = "cycle " + std::to_string(cycle_) + ": " + *what;
      }
    }
    return m;
  }
  void Tick() override {
    model_.Tick();
    rtl_.Tick();
    if (std::optional<std::string> a = rtl_.TakeAssertion()) {
      if (mismatches_ == 0 || first_cycle_ == cycle_) {
        const std::string also = mismatches_ == 0 ? "" : " (lockstep diverges in the same cycle: " + first_ + ")";
        first_ = "cycle " + std::to_string(cycle_) + ": RTL ASSERTION FAILED: " + *a + also;
        first_cycle_ = cycle_;
      }
      ++mismatches_;
    }
    ++cycle_;
  }
  uint64_t mismatches() const { return mismatches_; }
  const std::string& first_mismatch() const { return first_; }
  const Model& model() const { return model_; }

 protected:
  // What differs between the model's and the RTL's outputs this cycle ("signal differs (...)"), or nothing.
  virtual std::optional<std::string> Differ(const Out& model, const Out& rtl) = 0;

 private:
  Model model_;
  Rtl rtl_;
  uint64_t cycle_ = 0, first_cycle_ = 0, mismatches_ = 0;
  std::string first_;
};

}  // namespace nettwin::tb
