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
#include "tb/common/harness.h"

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
    cycle_ = mismatches_ = 0;
    first_.reset();
  }
  const Out& Eval(const In& in) override {
    const Out& m = model_.Eval(in);
    const Out& r = rtl_.Eval(in);
    if (!trace_path_.empty()) {
      const bool on = cycle_ >= trace_from_ && cycle_ <= trace_to_;
      rtl_.SetTracing(on);
      if (on) rtl_.ShowModel(m);  // a second RTL evaluation, only while traced
    }
    if (std::optional<SignalDiff> d = Differ(m, r)) {
      if (mismatches_++ == 0) {
        first_ = Mismatch{};
        first_->cycle = cycle_;
        first_->diff = std::move(*d);
      }
    }
    return m;
  }
  void Tick() override {
    model_.Tick();
    rtl_.Tick();
    if (std::optional<std::string> a = rtl_.TakeAssertion()) {
      if (mismatches_ == 0 || first_->cycle == cycle_) {  // a divergence in this same cycle stays as its diff
        if (!first_) first_ = Mismatch{};
        first_->cycle = cycle_;
        first_->assertion = std::move(*a);
      }
      ++mismatches_;
    }
    ++cycle_;
  }
  uint64_t mismatches() const { return mismatches_; }
  // The first divergence or RTL assertion (cycle, diff, assertion; the frame positions are the caller's to
  // fill, it drives the frames), for MismatchReport.
  const std::optional<Mismatch>& first_mismatch() const { return first_; }
  // The same on one line for a closed loop's summary: "cycle N: signal S rtl = A, model = B", or "cycle N: RTL
  // ASSERTION FAILED: NAME" (with the divergence of that cycle in parentheses); "" when there was none.
  std::string FirstMismatchLine() const {
    if (!first_) return "";
    const std::string diff =
        first_->diff.signal.empty()
            ? ""
            : "signal " + first_->diff.signal + " rtl = " + first_->diff.rtl + ", model = " + first_->diff.model;
    const std::string at = "cycle " + std::to_string(first_->cycle) + ": ";
    if (first_->assertion.empty()) return at + diff;
    return at + "RTL ASSERTION FAILED: " + first_->assertion +
           (diff.empty() ? "" : " (lockstep diverges in the same cycle: " + diff + ")");
  }
  const Model& model() const { return model_; }

 protected:
  // What differs between the model's and the RTL's outputs this cycle (the block's Compare, tb/common/compare.h's
  // format), or nothing.
  virtual std::optional<SignalDiff> Differ(const Out& model, const Out& rtl) = 0;

 private:
  Model model_;
  Rtl rtl_;
  uint64_t cycle_ = 0, mismatches_ = 0;
  std::optional<Mismatch> first_;
  std::string trace_path_;
  uint64_t trace_from_ = 0, trace_to_ = 0;
};

}  // namespace nettwin::tb
