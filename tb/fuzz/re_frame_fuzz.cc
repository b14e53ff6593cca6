// Segments, whole, through the reassembly engine's golden model and its cycle model (beats on the stream
// port, output always ready, each frame 300 ns after the previous one with a 1 us timeout so contexts
// expire, few contexts and a small buffer so no_context and too_big happen), then flush; once with the seed's
// 8-byte RE header, once with E2SAR's 20-byte header (LB headers skipped) and once more with E2SAR's header and
// `buffer host` (event bytes as DMA writes; the host always ready). Besides the sanitizers: a
// differential check -- the two models' counters and drops must agree, and every frame is counted in and
// accounted for.
#include "model/re/re_cycle_model.h"
#include "model/re/re_packet_model.h"
#include "tb/fuzz/fuzz_util.h"

using namespace nettwin;
using namespace nettwin::re;

namespace {

void RunFormat(const std::vector<std::vector<uint8_t>>& frames, HeaderFormat format, bool host = false) {
  constexpr uint64_t kStepNs = 300;
  ReConfig cfg;
  cfg.format = format;
  cfg.contexts = 2;
  cfg.buffer_bytes = 2000;
  cfg.timeout_us = 1.0;
  if (host) cfg.buffer = BufferMode::kHost;
  RePacketModel golden(cfg);
  for (size_t i = 0; i < frames.size(); ++i) golden.Push(Packet{frames[i], i * kStepNs});
  golden.Finish();

  ReCycleModel& model = fuzz::Pristine<ReCycleModel>([] {
    ReCycleModel fresh;
    fresh.Reset();
    return fresh;
  });
  ReIn in0;
  in0.m_ready = true;
  in0.cfg_contexts = static_cast<uint32_t>(cfg.contexts);
  in0.cfg_buffer_bytes = cfg.buffer_bytes;
  in0.cfg_timeout_ns = 1000;
  in0.cfg_format = cfg.format;
  in0.cfg_version = static_cast<uint8_t>(cfg.Version());
  in0.cfg_lb_header = cfg.lb_header;
  in0.cfg_host = host;
  in0.dma_ready = true;
  size_t done_frames = 0;
  bool flushed = false, flush_taken = false;
  ReCycleCounters last;
  // The drain (bound 3,000 cycles) ends once the flush has been taken and the engine is not busy (no frame,
  // descriptor, write, event or report in flight): with no input and no free-running clock nothing can
  // happen after that.
  fuzz::Drive(&model, in0, frames, 3000, [&](ReIn* in, const ReOut& out) {
    const bool quiet = flush_taken && !out.busy && !out.m.valid && !out.report.valid;
    flush_taken = flush_taken || in->flush;  // this cycle's edge takes the flush pulse
    if (in->s.valid && out.s_ready && in->s.beat.last) ++done_frames;
    in->s_time_ns = done_frames * kStepNs;  // the next frame's arrival
    in->flush = !flushed && done_frames == frames.size();
    flushed = flushed || in->flush;
    last = out.cnt;
    return quiet;
  });
  const ReCounters& g = golden.counters();
  if (last.in != frames.size() || last.in != last.used + ReDropped(last)) __builtin_trap();
  if (last.used != g.segments_used || last.completed != g.events_completed || last.timed_out != g.events_timed_out ||
      last.out != g.events_completed) {
    __builtin_trap();
  }
  for (int d = 0; d < kNumDrops; ++d) {
    if (last.drops[static_cast<size_t>(d + 1)] != g.drops[static_cast<size_t>(d)]) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto frames = fuzz::Frames(data, size, 8);
  RunFormat(frames, HeaderFormat::kEvio6);
  RunFormat(frames, HeaderFormat::kE2sar);
  RunFormat(frames, HeaderFormat::kE2sar, true);
  return 0;
}
