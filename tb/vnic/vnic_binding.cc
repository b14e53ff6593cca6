#include "tb/vnic/vnic_binding.h"

namespace nettwin::vnic {

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
