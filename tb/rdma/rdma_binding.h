// How rdma plugs into the generic harness: stream ports, output comparison (packets, DMA requests,
// counters), accounting, and the side channel that programs the block and is its host memory.
#pragma once

#include <vector>

#include "model/rdma/rdma_config.h"
#include "model/rdma/rdma_types.h"
#include "tb/common/harness.h"
#include "tb/common/host_memory.h"
#include "rdma_compare.h"  // NOLINT(build/include_subdir): generated

namespace nettwin::rdma {

// The generated ports and Compare (rtl/rdma/data/rdma.json, "accounting": "custom") plus the responder's
// accounting (tb/rdma/rdma_binding.cc).
struct RdmaBinding : RdmaBindingPorts {
  static tb::Accounting Account(const Out& o);
};

// The responder's accounting (RdmaBinding::Account; naa's too, from its responder counters and busy_o).
tb::Accounting ResponderAccounting(const RdmaCounters& c, bool busy);

// Writes the configuration (one entry per cycle) before the first request and serves DMA from host memory.
// A template over the block's outputs so that a block built around the responder (naa) uses it too.
template <class Out>
class HostSide : public tb::SideChannel<RdmaIn, Out> {
 public:
  HostSide(std::vector<CfgWrite> writes, tb::HostMemory* memory) : writes_(std::move(writes)), mem_(memory) {}
  bool Drive(uint64_t cycle, size_t, const tb::Accounting&, RdmaIn* in) override {
    last_cycle_ = cycle;
    in->dma_ready = mem_->Ready(cycle);
    in->dma_rsp = mem_->Response(cycle);
    if (next_ < writes_.size()) {
      in->cfg = writes_[next_++];
      return false;
    }
    return true;
  }
  void Observe(uint64_t cycle, const RdmaIn& in, const Out& out) override {
    if (out.dma_req.valid && in.dma_ready) mem_->Accept(cycle, out.dma_req);
  }
  bool Busy() const override { return next_ < writes_.size() || mem_->Outstanding(last_cycle_ + 1) > 0; }

 private:
  std::vector<CfgWrite> writes_;
  size_t next_ = 0;
  tb::HostMemory* mem_;
  uint64_t last_cycle_ = 0;
};
using RdmaSide = HostSide<RdmaOut>;

}  // namespace nettwin::rdma
