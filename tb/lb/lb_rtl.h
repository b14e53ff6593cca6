// The Verilated lb_top behind the ClockedBlock interface the harness steps.
#pragma once

#include <memory>
#include <string>

#include "model/lb/lb_types.h"
#include "tb/common/harness.h"

class Vlb_tb_top;
class VerilatedContext;
class VerilatedFstC;

namespace nettwin::lb {

class LbRtl : public tb::RtlBlock<LbIn, LbOut> {
 public:
  LbRtl();
  ~LbRtl() override;
  void Reset() override;
  const LbOut& Eval(const LbIn& in) override;
  void Tick() override;
  void OpenTrace(const std::string& path) override;
  void SetTracing(bool on) override { tracing_ = on; }
  void ShowModel(const LbOut& model_out) override;

 private:
  void Dump();
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vlb_tb_top> top_;
  std::unique_ptr<VerilatedFstC> fst_;
  bool tracing_ = false;
  uint64_t half_cycles_ = 0;
  LbOut out_;
};

}  // namespace nettwin::lb
