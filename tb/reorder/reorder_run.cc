#include "tb/reorder/reorder_run.h"

#include <memory>

#include "model/reorder/reorder_cycle_model.h"
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
  const tb::RunOptions opt = Options(rc);
  const tb::ReplaySpec spec{"arrival", "delivered frame", rc.mismatch_trace,
                            64, " (RTL; model_* inputs = the model's outputs)"};
  auto b = tb::RunBlock<ReorderBinding, ReorderSide>(
      rc.engine, [] { return std::make_unique<ReorderRtl>(); }, [] { return std::make_unique<ReorderCycleModel>(); },
      [&](bool) {
        return std::make_unique<ReorderSide>(cfg, T0(packets), opt.clock_mhz, rc.ctrl_backpressure,
                                             opt.seed * 2 + 3);
      },
      packets, opt, spec);
  ReorderRunReport rep;
  rep.run = std::move(b.run);
  rep.counters = b.last.cnt;
  ReorderSide& side = *b.side;
  rep.holds = side.holds();
  rep.ctrl = std::move(side.ctrl_frames());
  for (size_t i = 0; i < rep.ctrl.size(); ++i) rep.ctrl[i].time_ns = side.TimeNs(side.ctrl_first_cycles()[i]);
  rep.mismatch_text = std::move(b.mismatch_text);
  const ReorderCounters& c = rep.counters;
  rep.conservation_ok = !rep.run.hang && !rep.run.mismatch && c.in == packets.size() &&
                        c.in == c.delivered + ReorderDropped(c) && c.held_now == 0 &&
                        c.delivered == rep.run.out.size() && c.ctrl_out == rep.ctrl.size() &&
                        rep.holds.size() == rep.run.out.size();
  return rep;
}

}  // namespace nettwin::reorder
