// Fabric frames, whole, through the reorder block's header parser (ParseCw) and the cycle model's ingress
// (beats on the stream port, both outputs always ready, the microsecond clock running fast so held
// packets time out). Besides the sanitizers: every frame is counted in.
#include "model/reorder/reorder_config.h"
#include "model/reorder/reorder_frame.h"
#include "model/reorder/reorder_cycle_model.h"
#include "tb/fuzz/fuzz_util.h"

using namespace nettwin;
using namespace nettwin::reorder;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto frames = fuzz::Frames(data, size, 6);
  for (const auto& f : frames) {
    std::array<uint8_t, kWindowBytes> win{};
    std::copy(f.begin(), f.begin() + std::min<size_t>(f.size(), win.size()), win.begin());
    const int known = f.size() <= win.size() ? static_cast<int>(f.size()) : -1;
    const CwMeta m = ParseCw(win.data(), known);
    (void)FlowHash(m.key);
  }
  ReorderCycleModel& model = fuzz::Pristine<ReorderCycleModel>([] {
    ReorderCycleModel fresh;
    fresh.Reset();
    return fresh;
  });
  ReorderIn in0;
  in0.cfg = ReorderCfg{};
  uint64_t cycle = 0;
  ReorderCounters last;
  // The drain ends once nothing is in flight or held (3,000 cycles: the bound within which every hold
  // times out at 1 us per cycle).
  fuzz::Drive(&model, in0, frames, 3000, [&](ReorderIn* in, const ReorderOut& out) {
    in->m_ready = true;
    in->c_ready = true;
    in->now_us = static_cast<uint16_t>(++cycle);  // 1 us per cycle: every hold times out within the drain
    last = out.cnt;
    return out.idle && out.cnt.held_now == 0 && !out.m.valid && !out.c.valid && out.cnt.in == frames.size();
  });
  if (last.in != frames.size()) __builtin_trap();  // a frame was lost at the ingress
  return 0;
}
