#include "tb/reorder/reorder_run.h"

#include <memory>
#include <sstream>

#include "model/reorder/reorder_model.h"
#include "tb/reorder/reorder_rtl.h"

namespace nettwin::reorder {
namespace {

tb::RunOptions Options(const ReorderRunConfig& rc) {
  tb::RunOptions o = rc.opt;
  o.timed = !rc.untimed;
  // The longest legitimate wait: a resume deadline half the 16-bit microsecond clock away.
  o.idle_limit = std::max<uint64_t>(o.idle_limit, static_cast<uint64_t>(33000.0 * o.clock_mhz));
  return o;
}

uint64_t T0(const std::vector<Packet>& packets) { return packets.empty() ? 0 : packets[0].time_ns; }

}  // namespace

ReorderRunReport RunReorder(const ReorderCfg& cfg, const std::vector<Packet>& packets, const ReorderRunConfig& rc) {
  ReorderRunReport rep;
  const tb::RunOptions opt = Options(rc);
  std::unique_ptr<ReorderRtl> rtl;
  std::unique_ptr<ReorderModel> model;
  if (rc.engine != Engine::kModel) rtl = std::make_unique<ReorderRtl>();
  if (rc.engine != Engine::kRtl) model = std::make_unique<ReorderModel>();
  tb::Harness<ReorderBinding> h(rtl.get(), model.get());
  ReorderSide side(cfg, T0(packets), opt.clock_mhz, rc.ctrl_backpressure, opt.seed * 2 + 3);
  rep.run = h.Run(packets, &side, opt);
  rep.counters = h.last_out().cnt;
  rep.holds = side.holds();
  rep.ctrl = std::move(side.ctrl_frames());
  for (size_t i = 0; i < rep.ctrl.size(); ++i) rep.ctrl[i].time_ns = side.TimeNs(side.ctrl_first_cycles()[i]);
  if (rep.run.mismatch) {
    const tb::Mismatch& m = *rep.run.mismatch;
    std::ostringstream os;
    os << tb::MismatchReport(m, "arrival", "delivered frame");
    if (!rc.mismatch_trace.empty() && opt.trace_path.empty()) {
      ReorderRtl rtl2;
      ReorderModel model2;
      tb::Harness<ReorderBinding> replay(&rtl2, &model2);
      ReorderSide side2(cfg, T0(packets), opt.clock_mhz, rc.ctrl_backpressure, opt.seed * 2 + 3);
      const tb::RunOptions o = tb::ReplayAround(opt, m, rc.mismatch_trace);
      replay.Run(packets, &side2, o);
      os << "  waveform of cycles " << o.trace_from << ".." << m.cycle
         << " (RTL; model_* inputs = the model's outputs): " << rc.mismatch_trace << "\n";
    }
    rep.mismatch_text = os.str();
  }
  const ReorderCounters& c = rep.counters;
  rep.conservation_ok = !rep.run.hang && !rep.run.mismatch && c.in == packets.size() &&
                        c.in == c.delivered + ReorderDropped(c) && c.held_now == 0 &&
                        c.delivered == rep.run.out.size() && c.ctrl_out == rep.ctrl.size() &&
                        rep.holds.size() == rep.run.out.size();
  return rep;
}

}  // namespace nettwin::reorder
