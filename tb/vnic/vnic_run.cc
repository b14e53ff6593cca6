#include "tb/vnic/vnic_run.h"

#include <memory>

#include "model/vnic/vnic_config.h"
#include "model/vnic/vnic_model.h"
#include "tb/vnic/vnic_binding.h"
#include "tb/vnic/vnic_rtl.h"

namespace nettwin::vnic {
namespace {

tb::RunResult RunOnce(const Tables& tables, const std::vector<Packet>& packets, const std::vector<uint8_t>& ports,
                      const VnicRunConfig& rc, const tb::RunOptions& opt, VnicRunReport* rep) {
  std::unique_ptr<tb::RtlBlock<VnicIn, VnicOut>> rtl;
  std::unique_ptr<VnicModel> model;
  if (rc.engine != Engine::kModel) rtl = MakeVnicRtl(rc.dir);
  if (rc.engine != Engine::kRtl) model = std::make_unique<VnicModel>(rc.dir);
  tb::Harness<VnicBinding> h(rtl.get(), model.get());
  VnicSide side(ConfigWrites(tables), ports);
  tb::RunResult r = h.Run(packets, &side, opt);
  if (rep != nullptr) {
    rep->counters = h.last_out().cnt;
    rep->out_ports = side.out_ports();
  }
  return r;
}

}  // namespace

VnicRunReport RunVnic(const Tables& tables, const std::vector<Packet>& packets, const std::vector<uint8_t>& in_ports,
                      const VnicRunConfig& rc) {
  VnicRunReport rep;
  rep.run = RunOnce(tables, packets, in_ports, rc, rc.opt, &rep);
  if (rep.run.mismatch) {
    const tb::Mismatch& m = *rep.run.mismatch;
    const bool enc = rc.dir == Direction::kEncap;
    rep.mismatch_text = tb::MismatchReport(m, enc ? "Ethernet frame" : "16B packet", enc ? "16B packet" : "frame");
    if (!rc.mismatch_trace.empty() && rc.opt.trace_path.empty()) {
      RunOnce(tables, packets, in_ports, rc, tb::ReplayAround(rc.opt, m, rc.mismatch_trace), nullptr);
      rep.mismatch_text += "  waveform: " + rc.mismatch_trace + "\n";
    }
  }
  const tb::Accounting acc{rep.counters.in, rep.counters.out, VnicDropped(rep.counters)};
  rep.conservation_ok = !rep.run.mismatch && !rep.run.hang && acc.in == packets.size() && acc.Drained() &&
                        rep.run.out.size() == rep.counters.out;
  return rep;
}

}  // namespace nettwin::vnic
