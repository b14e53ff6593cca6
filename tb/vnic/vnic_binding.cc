#include "tb/vnic/vnic_binding.h"

#include <string>

namespace nettwin::vnic {

std::optional<tb::SignalDiff> VnicBinding::Compare(const Out& r, const Out& m) {
  const auto diff = tb::DiffValues;
  if (auto d = diff("s_ready_o", r.s_ready, m.s_ready)) return d;
  if (!(r.m == m.m)) return tb::DiffStream("m", r.m, m.m);
  if (r.m.valid) {
    if (auto d = diff("m_port_o", r.m_port, m.m_port)) return d;
  }
  if (auto d = diff("cnt_in_o", r.cnt.in, m.cnt.in)) return d;
  if (auto d = diff("cnt_out_o", r.cnt.out, m.cnt.out)) return d;
  for (int i = 1; i < kNumReasons; ++i) {
    if (auto d = diff("cnt_drops_o[" + std::to_string(i) + "]", r.cnt.drops[static_cast<size_t>(i)],
                      m.cnt.drops[static_cast<size_t>(i)])) {
      return d;
    }
  }
  return std::nullopt;
}

tb::Accounting VnicBinding::Account(const Out& o) { return tb::Accounting{o.cnt.in, o.cnt.out, o.cnt.Dropped()}; }

bool VnicSide::Drive(uint64_t, size_t next_packet, const tb::Accounting&, VnicIn* in) {
  if (next_write_ < writes_.size()) {
    in->cfg = writes_[next_write_++];
    return false;  // the tables are loaded before the first frame
  }
  in->s_port = next_packet < in_ports_.size() ? in_ports_[next_packet] : 0;
  return true;
}

void VnicSide::Observe(uint64_t, const VnicIn& in, const VnicOut& out) {
  if (out.m.valid && in.m_ready) {
    if (!m_in_frame_) out_ports_.push_back(out.m_port);
    m_in_frame_ = !out.m.beat.last;
  }
}

}  // namespace nettwin::vnic
