#include "tb/reorder/reorder_binding.h"

#include <cmath>

namespace nettwin::reorder {

uint64_t ReorderSide::TimeNs(uint64_t cycle) const {
  return t0_ns_ + static_cast<uint64_t>(std::llround(static_cast<double>(cycle) * 1000.0 / clock_mhz_));
}

bool ReorderSide::Drive(uint64_t cycle, size_t, const tb::Accounting&, ReorderIn* in) {
  in->cfg = cfg_;
  in->now_us = static_cast<uint16_t>((TimeNs(cycle) / 1000) & 0xFFFF);
  in->c_ready = ctrl_.Ready();
  return true;
}

void ReorderSide::Observe(uint64_t cycle, const ReorderIn& in, const ReorderOut& out) {
  ctrl_.Observe(cycle, out.c);
  if (out.m.valid && in.m_ready) {
    if (!m_in_frame_) holds_.push_back(HoldRecord{out.m_held, out.m_hold_us});
    m_in_frame_ = !out.m.beat.last;
  }
  idle_ = out.idle;
}

}  // namespace nettwin::reorder
