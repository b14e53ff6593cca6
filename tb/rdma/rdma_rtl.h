// The Verilated rdma_top behind the ClockedBlock interface.
#pragma once

#include <memory>
#include <string>

#include "model/rdma/rdma_types.h"
#include "tb/common/harness.h"

class Vrdma_top;
class VerilatedContext;
class VerilatedFstC;

namespace nettwin::rdma {

class RdmaRtl : public tb::RtlBlock<RdmaIn, RdmaOut> {
 public:
  RdmaRtl();
  ~RdmaRtl() override;
  void Reset() override;
  const RdmaOut& Eval(const RdmaIn& in) override;
  void Tick() override;
  void OpenTrace(const std::string& path) override;
  void SetTracing(bool on) override { tracing_ = on; }
  void ShowModel(const RdmaOut&) override {}

 private:
  void Dump();
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vrdma_top> top_;
  std::unique_ptr<VerilatedFstC> fst_;
  bool tracing_ = false;
  uint64_t half_cycles_ = 0;
  RdmaOut out_;
};

}  // namespace nettwin::rdma
