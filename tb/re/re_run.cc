#include "tb/re/re_run.h"

#include <memory>
#include <stdexcept>

#include "tb/re/re_rtl.h"

namespace nettwin::re {
namespace {

tb::RunResult RunOnce(const std::vector<Packet>& segments, const ReRunConfig& rc, const tb::RunOptions& opt,
                      ReRunReport* rep) {
  std::unique_ptr<tb::RtlBlock<ReIn, ReOut>> rtl;
  std::unique_ptr<ReCycleModel> model;
  if (rc.engine != Engine::kModel) rtl = MakeReRtl();
  if (rc.engine != Engine::kRtl) model = std::make_unique<ReCycleModel>();
  tb::Harness<ReBinding> h(rtl.get(), model.get());
  std::unique_ptr<tb::HostMemory> mem;
  if (rc.cfg.buffer == BufferMode::kHost)
    mem = std::make_unique<tb::HostMemory>(1, rc.host_write_latency, rc.host_max_outstanding, opt.clock_mhz);
  ReSide side(&segments, rc.cfg, mem.get());
  tb::RunResult r = h.Run(segments, &side, opt);
  if (rep != nullptr) {
    rep->counters = h.last_out().cnt;
    rep->reports = side.reports();
    rep->host_events = side.host_events();
    if (mem) rep->dma_writes = mem->writes(), rep->dma_write_bytes = mem->write_bytes();
  }
  return r;
}

}  // namespace

ReRunReport RunRe(const std::vector<Packet>& segments, const ReRunConfig& rc) {
  if (const std::string e = ReStaticError(rc.cfg); !e.empty()) throw std::invalid_argument(e);
  ReRunReport rep;
  rep.run = RunOnce(segments, rc, rc.opt, &rep);
  if (rep.run.mismatch) {
    const tb::Mismatch& m = *rep.run.mismatch;
    rep.mismatch_text = tb::MismatchReport(m, "segment", "event");
    if (!rc.mismatch_trace.empty() && rc.opt.trace_path.empty()) {
      RunOnce(segments, rc, tb::ReplayAround(rc.opt, m, rc.mismatch_trace), nullptr);
      rep.mismatch_text += "  waveform: " + rc.mismatch_trace + "\n";
    }
  }
  const ReCycleCounters& c = rep.counters;
  rep.conservation_ok = !rep.run.mismatch && !rep.run.hang && c.in == segments.size() && c.in == c.used + ReDropped(c) &&
                        rep.run.out.size() == c.out && c.out == c.completed && rep.reports.size() == c.timed_out &&
                        (rc.cfg.buffer != BufferMode::kHost || rep.host_events.size() == c.out);
  return rep;
}

}  // namespace nettwin::re
