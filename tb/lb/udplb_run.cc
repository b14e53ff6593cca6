#include "tb/lb/udplb_run.h"

#include <algorithm>
#include <cstdio>
#include <memory>

#include "model/lb/udplb_cycle_model.h"
#include "model/lb/udplb_engine.h"
#include "tb/lb/udplb_binding.h"
#include "tb/lb/udplb_rtl.h"

namespace nettwin::lb::udplb {
namespace {

uint64_t BeatCount(size_t bytes) { return bytes == 0 ? 1 : (bytes + kBeatBytes - 1) / kBeatBytes; }

UdplbRunReport RunFast(const std::vector<Segment>& script, const std::vector<Packet>& packets, uint8_t in_port) {
  UdplbRunReport rep;
  UdplbPacketEngine engine(script, in_port);
  for (const Packet& p : packets) {
    FrameResult r = engine.Process(p.bytes);
    rep.fate.push_back(static_cast<int>(r.verdict.reason));
    rep.run.in_beats += BeatCount(p.bytes.size());
    if (r.verdict.kind != Kind::kDrop) {
      rep.run.out_beats += BeatCount(r.out.size());
      rep.run.out.push_back(Packet{std::move(r.out), p.time_ns});
      rep.out_ports.push_back(r.verdict.port);
    }
  }
  rep.counters = engine.counters();
  return rep;
}

void CrossCheck(const UdplbRunReport& fast, UdplbRunReport* rep) {
  rep->fate = fast.fate;
  rep->fast_mismatch = FrameDifference(fast.run.out, rep->run.out, "packet engine", "sends", [&](size_t k) {
    return fast.run.out[k].bytes == rep->run.out[k].bytes && fast.out_ports[k] == rep->out_ports[k];
  });
  if (!rep->fast_mismatch.empty()) return;
  if (!(fast.counters == rep->counters)) {
    rep->fast_mismatch = "counters differ between packet engine and cycle engine";
    return;
  }
  FillLatency(fast.fate, rep);
}

}  // namespace

std::string MetaLine(uint8_t in_port, uint8_t out_port) {
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "smartnic_metadata.timestamp_ns=0000000000000000 smartnic_metadata.pid=0000 "
                "smartnic_metadata.ingress_port=%02x smartnic_metadata.egress_port=%02x "
                "smartnic_metadata.truncate_enable=00 smartnic_metadata.truncate_length=0000 "
                "smartnic_metadata.rss_enable=00 smartnic_metadata.rss_entropy=0000 "
                "smartnic_metadata.drop_reason=00 smartnic_metadata.scratch=00000000 ;",
                in_port, out_port);
  return buf;
}

UdplbRunReport RunUdplb(const std::vector<Segment>& script, const std::vector<Packet>& packets,
                        const UdplbRunConfig& cfg) {
  UdplbRunReport rep;
  if (cfg.engine == Engine::kFast) {
    rep = RunFast(script, packets, cfg.in_port);
  } else {
    const tb::ReplaySpec spec{"input packet", "output packet", cfg.mismatch_trace,
                              cfg.trace_window, " (RTL; model_* signals = the model's outputs)"};
    auto b = tb::RunBlock<UdplbBinding, UdplbFeeder>(
        cfg.engine, [] { return std::make_unique<UdplbRtl>(); }, [] { return std::make_unique<UdplbCycleModel>(); },
        [&](bool) { return std::make_unique<UdplbFeeder>(script, packets.size(), cfg.in_port); }, packets, cfg.opt,
        spec);
    rep.run = std::move(b.run);
    rep.counters = b.last.counters;
    rep.out_ports = b.side->out_ports();
    rep.mismatch_text = std::move(b.mismatch_text);
    if (!rep.run.mismatch && !rep.run.hang) {
      CrossCheck(RunFast(script, packets, cfg.in_port), &rep);
    }
  }
  const UdplbCounters& c = rep.counters;
  rep.conservation_ok = !rep.run.hang && !rep.run.mismatch && c.packets_in == packets.size() &&
                        c.packets_in == c.packets_out + UdplbDropped(c) && c.packets_out == rep.run.out.size();
  return rep;
}

}  // namespace nettwin::lb::udplb
