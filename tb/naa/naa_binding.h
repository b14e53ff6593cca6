// How naa plugs into the generic harness: the responder's ports and comparison plus the CM's counters; the
// side channel is the responder's (configuration writes, SystemC host memory).
#pragma once

#include <utility>
#include <vector>

#include "model/naa/naa_types.h"
#include "tb/common/harness.h"
#include "tb/naa/naa_gates.h"
#include "tb/rdma/rdma_binding.h"
#include "naa_compare.h"  // NOLINT(build/include_subdir): generated

namespace nettwin::naa {

// The generated ports and Compare (rtl/naa/data/naa.json, "accounting": "custom") plus naa's accounting
// (tb/naa/naa_binding.cc).
struct NaaBinding : NaaBindingPorts {
  static tb::Accounting Account(const Out& o);
};

// The responder's side channel (configuration writes, SystemC host memory) plus the client's gates: a frame
// is not offered before the endpoint has sent the frames it waits for (tb/naa/naa_gates.h). It stays busy
// while the requester or the controller has work, so a run is not over while the endpoint still retransmits,
// a kernel runs or a controller event is queued.
class NaaSide : public rdma::HostSide<NaaOut> {
 public:
  NaaSide(std::vector<CfgWrite> writes, tb::HostMemory* memory, Gates gates = {})
      : HostSide(std::move(writes), memory), gates_(std::move(gates)) {}
  bool Drive(uint64_t cycle, size_t next_packet, const tb::Accounting& acc, rdma::RdmaIn* in) override {
    const bool go = HostSide::Drive(cycle, next_packet, acc, in);
    return go && sent_ >= gates_.For(next_packet);
  }
  void Observe(uint64_t cycle, const rdma::RdmaIn& in, const NaaOut& out) override {
    HostSide::Observe(cycle, in, out);
    if (out.m.valid && in.m_ready && out.m.beat.last) ++sent_;
    work_busy_ = out.req_busy || out.ctl_busy;
  }
  bool Busy() const override { return HostSide::Busy() || work_busy_; }
  uint64_t sent() const { return sent_; }

 private:
  Gates gates_;
  uint64_t sent_ = 0;
  bool work_busy_ = false;
};

}  // namespace nettwin::naa
