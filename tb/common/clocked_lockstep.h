// A block's RTL and cycle model in lockstep behind one ClockedBlock, for closed loops that drive blocks cycle
// by cycle themselves (docs/cwloop.md): both get the same inputs every cycle, the block's Differ compares
// every output, and the model's outputs drive the rest of the testbench. The first difference is kept with its
// cycle; an RTL assertion (docs/assertions.md) counts as one and, at or before the cycle of the first
// divergence, is the one reported (it names the cause). Traced (Trace), the RTL's FST has the model's outputs
// on the tb top's model_* inputs for the traced cycles, RTL and model side by side.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "model/common/clocked_block.h"

namespace nettwin::tb {

template <class Model, class Rtl, class In, class Out>
class ClockedLockstep : public ClockedBlock<In, Out> {
 public:
  // Before Reset: an FST of the cycles [from, to] of the next run (path empty: none), as the harness's
  // RunOptions::trace_path / trace_from / trace_to.
  void Trace(const std::string& path, uint64_t from = 0, uint64_t to = std::numeric_limits<uint64_t>::max()) {
    trace_path_ = path;
    trace_from_ = from;
    trace_to_ = to;
  }
  void Reset() override {
    model_.Reset();
    rtl_.Reset();
    if (!trace_path_.empty()) rtl_.OpenTrace(trace_path_);
    cycle_ = first_cycle_ = mismatches_ = 0;
    first_.clear();
  }
  const Out& Eval(const In& in) override {
    const Out& m = model_.Eval(in);
    const Out& r = rtl_.Eval(in);
    if (!trace_path_.empty()) {
      const bool on = cycle_ >= trace_from_ && cycle_ <= trace_to_;
      rtl_.SetTracing(on);
      if (on) rtl_.ShowModel(m);  // a second RTL evaluation, only while traced
    }
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
  uint64_t first_mismatch_cycle() const { return first_cycle_; }
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
  std::string trace_path_;
  uint64_t trace_from_ = 0, trace_to_ = 0;
};

}  // namespace nettwin::tb
