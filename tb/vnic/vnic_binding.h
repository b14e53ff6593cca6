// How the VNIC block plugs into the generic harness (both directions have the same ports): the stream
// ports, output comparison and accounting (generated from rtl/vnic/data/vnic.json), and the side channel that
// programs the tables before the first frame and drives each input frame's VNIC port sideband.
#pragma once

#include <optional>
#include <vector>

#include "model/vnic/vnic_types.h"
#include "tb/common/harness.h"
#include "vnic_compare.h"  // NOLINT(build/include_subdir): generated from rtl/vnic/data/vnic.json

namespace nettwin::vnic {

struct VnicBinding {
  using In = VnicIn;
  using Out = VnicOut;
  static StreamPort* Source(In* in) { return &in->s; }
  static bool SourceReady(const Out& o) { return o.s_ready; }
  static void SetSinkReady(In* in, bool r) { in->m_ready = r; }
  static bool SinkReady(const In& in) { return in.m_ready; }
  static const StreamPort& Sink(const Out& o) { return o.m; }
  static std::optional<tb::SignalDiff> Compare(const Out& rtl, const Out& model) { return CompareVnicOut(rtl, model); }
  static tb::Accounting Account(const Out& o) { return AccountVnic(o); }
};

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
