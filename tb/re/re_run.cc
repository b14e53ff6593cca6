#include "tb/re/re_run.h"

#include <memory>
#include <stdexcept>

#include "tb/re/re_rtl.h"

namespace nettwin::re {

ReRunReport RunRe(const std::vector<Packet>& segments, const ReRunConfig& rc) {
  if (const std::string e = ReStaticError(rc.cfg); !e.empty()) throw std::invalid_argument(e);
  std::unique_ptr<tb::HostMemory> mem, replay_mem;  // `buffer host`: the run's host memory, the replay's
  auto make_side = [&](bool replay) {
    std::unique_ptr<tb::HostMemory>& m = replay ? replay_mem : mem;
    if (rc.cfg.buffer == BufferMode::kHost) {
      m = std::make_unique<tb::HostMemory>(1, rc.host_write_latency, rc.host_max_outstanding, rc.opt.clock_mhz);
    }
    return std::make_unique<ReSide>(&segments, rc.cfg, m.get());
  };
  const tb::ReplaySpec spec{"segment", "event", rc.mismatch_trace};
  auto b = tb::RunBlock<ReBinding, ReSide>(
      rc.engine, [] { return MakeReRtl(); }, [] { return std::make_unique<ReCycleModel>(); }, make_side, segments,
      rc.opt, spec);
  ReRunReport rep;
  rep.run = std::move(b.run);
  rep.counters = b.last.cnt;
  rep.reports = b.side->reports();
  rep.host_events = b.side->host_events();
  if (mem) rep.dma_writes = mem->writes(), rep.dma_write_bytes = mem->write_bytes();
  rep.mismatch_text = std::move(b.mismatch_text);
  const ReCycleCounters& c = rep.counters;
  rep.conservation_ok = !rep.run.mismatch && !rep.run.hang && c.in == segments.size() && c.in == c.used + ReDropped(c) &&
                        rep.run.out.size() == c.out && c.out == c.completed && rep.reports.size() == c.timed_out &&
                        (rc.cfg.buffer != BufferMode::kHost || rep.host_events.size() == c.out);
  return rep;
}

}  // namespace nettwin::re
