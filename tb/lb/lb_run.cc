#include "tb/lb/lb_run.h"

#include <algorithm>
#include <memory>

#include "model/lb/lb_cycle_model.h"
#include "model/lb/lb_packet_model.h"
#include "tb/lb/lb_binding.h"
#include "tb/lb/lb_rtl.h"

namespace nettwin::lb {

namespace {

uint64_t BeatCount(size_t bytes) { return bytes == 0 ? 1 : (bytes + kBeatBytes - 1) / kBeatBytes; }

LbRunReport RunFast(const std::vector<Segment>& script, const std::vector<Packet>& packets) {
  LbRunReport rep;
  LbPacketEngine engine(script);
  for (const Packet& p : packets) {
    const Rewrite rw = engine.Process(p.bytes.data(), static_cast<int>(p.bytes.size()));
    rep.out_reason.push_back(static_cast<int>(rw.reason));
    rep.run.in_beats += BeatCount(p.bytes.size());
    if (rw.forward) {
      rep.run.out.push_back(Packet{ApplyRewrite(rw, p.bytes), p.time_ns});
      rep.run.out_beats += BeatCount(rep.run.out.back().bytes.size());
    }
  }
  rep.counters = engine.counters();
  return rep;
}

// Compares the cycle engine's frames with the packet model's and fills the latency figures.
void CrossCheck(const LbRunReport& fast, LbRunReport* rep) {
  rep->out_reason = fast.out_reason;
  rep->fast_mismatch = FrameDifference(fast.run.out, rep->run.out, "packet model", "forwards",
                                       [&](size_t k) { return fast.run.out[k].bytes == rep->run.out[k].bytes; });
  if (!rep->fast_mismatch.empty()) return;
  FillLatency(fast.out_reason, rep);
}

}  // namespace

LbRunReport RunLbStream(const std::vector<Segment>& script, PcapReader* in, PcapWriter* out) {
  LbRunReport rep;
  LbPacketEngine engine(script);
  Packet p;  // one buffer for the whole capture
  while (in->Next(&p)) {
    const int len = static_cast<int>(p.bytes.size());
    const Rewrite rw = engine.Process(p.bytes.data(), len);
    rep.run.in_beats += BeatCount(p.bytes.size());
    if (!rw.forward) continue;
    // The rewrite in place, then the frame written around the removed LB header: no copy of the payload.
    const int head = rw.lb_off(), tail = head + static_cast<int>(kLbHdr);
    OverwriteFields(rw, 0, p.bytes.data(), head);
    out->Write(p.time_ns, p.bytes.data(), static_cast<size_t>(head), p.bytes.data() + tail,
               static_cast<size_t>(len - tail));
    rep.run.out_beats += BeatCount(static_cast<size_t>(len - static_cast<int>(kLbHdr)));
  }
  rep.counters = engine.counters();
  const uint64_t dropped = LbDropped(rep.counters);
  rep.conservation_ok = rep.counters.packets_in == in->packets_read() &&
                        rep.counters.packets_in == rep.counters.packets_out + dropped;
  return rep;
}

LbRunReport RunLb(const std::vector<Segment>& script, const std::vector<Packet>& packets, const LbRunConfig& cfg) {
  LbRunReport rep;
  if (cfg.engine == Engine::kFast) {
    rep = RunFast(script, packets);
  } else {
    const tb::ReplaySpec spec{"input packet", "output packet", cfg.mismatch_trace,
                              cfg.trace_window, " (RTL; model_* inputs = the model's outputs)"};
    auto b = tb::RunBlock<LbBinding, LbTableFeeder>(
        cfg.engine, [] { return std::make_unique<LbRtl>(); }, [] { return std::make_unique<LbCycleModel>(); },
        [&](bool) { return std::make_unique<LbTableFeeder>(script, packets.size()); }, packets, cfg.opt, spec);
    rep.run = std::move(b.run);
    rep.counters = b.last.counters;
    rep.mismatch_text = std::move(b.mismatch_text);
    if (!rep.run.mismatch && !rep.run.hang) {
      CrossCheck(RunFast(script, packets), &rep);
    }
  }
  const uint64_t dropped = LbDropped(rep.counters);
  rep.conservation_ok = !rep.run.hang && !rep.run.mismatch && rep.counters.packets_in == packets.size() &&
                        rep.counters.packets_in == rep.counters.packets_out + dropped &&
                        rep.counters.packets_out == rep.run.out.size();
  return rep;
}

}  // namespace nettwin::lb
