#include "tb/reroute/reroute_rtl.h"

#include "reroute_rtl_ports.h"

namespace nettwin::reroute {

void RerouteRtl::IdleInputs() {
  top().s_valid_i = 0;
  top().r_valid_i = 0;
  top().m_ready_i = 0;
}

const RerouteOut& RerouteRtl::Eval(const RerouteIn& in) {
  Vreroute_top& t = top();
  t.clk_i = 0;
  DriveRerouteIn(t, in);  // generated from rtl/reroute/data/reroute.json, as SampleRerouteOut
  t.eval();
  SampleRerouteOut(t, &out_);
  return out_;
}

}  // namespace nettwin::reroute
