// Cycle-accurate model of the ConWeave source-ToR rerouting block (docs/reroute.md "Cycle behaviour"),
// clocked as the RTL (rtl/reroute/reroute_top.sv) is. Stages:
//   A  host ingress: takes one beat per cycle into a one-frame buffer (store-and-forward); s_ready is low
//      while it holds a complete frame the decision has not taken
//   K  control ingress: the same for the control input (first kCtrlBytes bytes kept), r_ready low while full
//   D  decision, one per cycle: a complete control packet first, else a complete host frame when the output
//      buffer is empty (RerouteCore::Control / Data on the state registered at the last edge)
//   O  output: one beat of the fabric frame per cycle while m_ready; m_path with every beat
//   S  path-status scan: one path per cycle, round robin, clears expired `busy` bits (before D in a cycle)
// Eval() only reads registers; Tick() applies S, D, O, A, K in that order, with `now` the now_us of the cycle
// before (sampled at the edge).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "model/common/clocked_block.h"
#include "model/reroute/reroute_core.h"
#include "model/reroute/reroute_types.h"

namespace nettwin::reroute {

class RerouteCycleModel : public ClockedBlock<RerouteIn, RerouteOut> {
 public:
  RerouteCycleModel() { Reset(); }
  void Reset() override;
  const RerouteOut& Eval(const RerouteIn& in) override;
  void Tick() override;

  // Every decision D took on a host frame, in order (for tests and the CLI's trace of choices).
  const std::vector<DataResult>& decisions() const { return decisions_; }
  const RerouteCore& core() const { return core_; }

 private:
  RerouteCore core_;
  RerouteIn in_;
  RerouteOut out_;
  // A
  std::vector<uint8_t> rx_;
  bool rx_full_ = false, rx_long_ = false;
  int rx_len_ = 0;
  // K
  std::array<uint8_t, kCtrlBytes> cx_{};
  bool cx_full_ = false;
  int cx_len_ = 0;
  // O
  std::vector<Beat> ob_;
  bool ob_valid_ = false;
  int ob_idx_ = 0;
  uint8_t ob_path_ = 0;
  // now_us sampled at the edge: every stage of a cycle reads the microsecond of the cycle before (the RTL's
  // now_q, which lets it register the path-busy checks a cycle ahead)
  uint16_t now_ = 0;
  // S
  int scan_ = 0;
  std::vector<DataResult> decisions_;
};

}  // namespace nettwin::reroute
