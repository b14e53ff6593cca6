// The source-ToR block's RTL and cycle model in lockstep behind one ClockedBlock: both get the same inputs
// every cycle and every output (ready, stream, path, idle, all counters) is compared every cycle; the
// model's outputs drive the rest of the testbench. The first difference is kept, with its cycle.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>

#include "model/reroute/reroute_model.h"
#include "tb/reroute/reroute_rtl.h"

namespace nettwin::reroute {

class RerouteLockstep : public ClockedBlock<RerouteIn, RerouteOut> {
 public:
  void Reset() override {
    model_.Reset();
    rtl_.Reset();
    cycle_ = 0;
    mismatches_ = 0;
    first_.clear();
  }
  const RerouteOut& Eval(const RerouteIn& in) override {
    const RerouteOut& m = model_.Eval(in);
    const RerouteOut& r = rtl_.Eval(in);
    std::string what;
    if (inject_ && m.m.valid) {  // --inject-divergence: the model's beat compared with bit 0 of byte 0 flipped
      inject_ = false;
      what = "m (stream, injected bit flip)";
    }
    if (!what.empty()) {
    } else if (m.s_ready != r.s_ready) what = "s_ready";
    else if (m.r_ready != r.r_ready) what = "r_ready";
    else if (!(m.m == r.m)) what = "m (stream)";
    else if (m.m.valid && m.m_path != r.m_path) what = "m_path";
    else if (m.idle != r.idle) what = "idle";
    else if (!(m.cnt == r.cnt)) what = "counters";
    if (!what.empty()) {
      if (mismatches_++ == 0) {
        first_cycle_ = cycle_;
        std::ostringstream os;
        os << "cycle " << cycle_ << ": " << what << " differs (model in " << m.cnt.in << " out " << m.cnt.out
           << " ctrl " << m.cnt.ctrl_in << " reroutes " << m.cnt.reroutes << " / rtl in " << r.cnt.in << " out "
           << r.cnt.out << " ctrl " << r.cnt.ctrl_in << " reroutes " << r.cnt.reroutes << ")";
        first_ = os.str();
      }
    }
    return m;
  }
  void Tick() override {
    model_.Tick();
    rtl_.Tick();
    // An RTL assertion (docs/assertions.md) is a mismatch too; at the cycle of the first divergence or
    // before it, it is the first one reported (it names the cause).
    if (auto a = rtl_.TakeAssertion()) {
      if (mismatches_ == 0 || first_cycle_ == cycle_) {
        std::string also = mismatches_ == 0 ? "" : " (lockstep diverges in the same cycle: " + first_ + ")";
        first_ = "cycle " + std::to_string(cycle_) + ": RTL ASSERTION FAILED: " + *a + also;
        first_cycle_ = cycle_;
      }
      ++mismatches_;
    }
    ++cycle_;
  }
  // Self-test of the comparison: the next output beat of the model is compared as if one bit differed.
  void InjectFlip() { inject_ = true; }
  uint64_t mismatches() const { return mismatches_; }
  const std::string& first_mismatch() const { return first_; }
  const RerouteModel& model() const { return model_; }

 private:
  RerouteModel model_;
  RerouteRtl rtl_;
  uint64_t cycle_ = 0, mismatches_ = 0, first_cycle_ = 0;
  bool inject_ = false;
  std::string first_;
};

}  // namespace nettwin::reroute
