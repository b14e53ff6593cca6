// Client frames, whole, through the CM frame parser (ParseCm) and the endpoint's cycle model (front end, CM,
// responder; DMA reads answered with zeros), configured from vectors/naa/naa.txt. Besides the sanitizers:
// every frame is counted in by the CM or the responder.
#include <algorithm>
#include "model/naa/naa_config.h"
#include "model/naa/naa_mad.h"
#include "model/naa/naa_model.h"
#include "tb/fuzz/fuzz_util.h"

using namespace nettwin;
using namespace nettwin::naa;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const NaaConfig config = LoadNaaConfig(std::string(NT_SOURCE_DIR) + "/vectors/naa/naa.txt");
  const auto frames = fuzz::Frames(data, size, 6);
  for (const auto& f : frames) {
    CmFrameBytes b{};
    std::copy(f.begin(), f.begin() + std::min(f.size(), b.size()), b.begin());
    (void)ParseCm(b, static_cast<int>(f.size()), f.size() > b.size(), 0, config.rdma.responder);
  }
  NaaModel& m = fuzz::Pristine<NaaModel>([] {
    NaaModel fresh;
    fresh.Reset();
    for (const CfgWrite& w : config.Writes()) {
      NaaIn in;
      in.cfg = w;
      fresh.Eval(in);
      fresh.Tick();
    }
    return fresh;
  });
  fuzz::ZeroHost host;
  NaaOut last;
  uint64_t still = 0;  // cycles since a counter last changed
  // The drain (bound 4,000 cycles) ends as rdma_frame's does: no read owed, nothing offered on either port,
  // neither the responder nor the CM busy, every frame counted in and no counter moved for 200 cycles.
  fuzz::Drive(&m, NaaIn{}, frames, 4000, [&](NaaIn* in, const NaaOut& out) {
    in->m_ready = true;
    host.Serve(in);
    host.Observe(out.dma_req);
    still = out.rdma == last.rdma && out.cm == last.cm ? still + 1 : 0;
    last = out;
    return host.Idle() && !out.dma_req.valid && !out.m.valid && !out.busy && !out.cm_busy && still > 200 &&
           last.rdma.packets_in + last.cm.packets_in == frames.size();
  });
  if (last.rdma.packets_in + last.cm.packets_in != frames.size()) __builtin_trap();  // a frame was lost
  return 0;
}
