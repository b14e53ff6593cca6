// The Verilated reroute_top (rtl/reroute/reroute_top.sv) behind ClockedBlock, for lockstep with
// model/reroute/reroute_model.h.
#pragma once

#include "Vreroute_top.h"
#include "model/reroute/reroute_types.h"
#include "tb/common/verilated_block.h"

namespace nettwin::reroute {

class RerouteRtl : public tb::VerilatedBlock<Vreroute_top, RerouteIn, RerouteOut> {
 public:
  RerouteRtl() : VerilatedBlock("reroute_top") {}
  const RerouteOut& Eval(const RerouteIn& in) override;

 private:
  void IdleInputs() override;
  RerouteOut out_;
};

}  // namespace nettwin::reroute
