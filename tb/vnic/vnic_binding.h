// How the VNIC block plugs into the generic harness (both directions have the same ports): the stream
// ports, output comparison and accounting (generated from rtl/vnic/data/vnic.json), and the side channel that
// programs the tables before the first frame and drives each input frame's VNIC port sideband.
#pragma once

#include <vector>

#include "model/vnic/vnic_types.h"
#include "tb/common/harness.h"
#include "vnic_compare.h"  // NOLINT(build/include_subdir): generated from rtl/vnic/data/vnic.json

namespace nettwin::vnic {

using VnicBinding = VnicBindingPorts;  // generated: streams s -> m, Compare, accounting

class VnicSide : public tb::SideChannel<VnicIn, VnicOut> {
 public:
  // in_ports: the VNIC port of each input frame (encapsulation; empty: port 0 for all).
  VnicSide(std::vector<CfgWrite> writes, std::vector<uint8_t> in_ports)
      : writes_(std::move(writes)), in_ports_(std::move(in_ports)) {}
  bool Drive(uint64_t cycle, size_t next_packet, const tb::Accounting& acc, VnicIn* in) override;
  void Observe(uint64_t cycle, const VnicIn& in, const VnicOut& out) override;
  bool Busy() const override { return next_write_ < writes_.size(); }
  const std::vector<uint8_t>& out_ports() const { return out_ports_; }  // one per output frame

 private:
  std::vector<CfgWrite> writes_;
  std::vector<uint8_t> in_ports_;
  size_t next_write_ = 0;
  bool m_in_frame_ = false;
  std::vector<uint8_t> out_ports_;
};

}  // namespace nettwin::vnic
