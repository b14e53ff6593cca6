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
  NaaModel m;
  m.Reset();
  for (const CfgWrite& w : config.Writes()) {
    NaaIn in;
    in.cfg = w;
    m.Eval(in);
    m.Tick();
  }
  fuzz::ZeroHost host;
  NaaOut last;
  fuzz::Drive(&m, NaaIn{}, frames, 4000, [&](NaaIn* in, const NaaOut& out) {
    in->m_ready = true;
    host.Serve(in);
    host.Observe(out.dma_req);
    last = out;
  });
  if (last.rdma.packets_in + last.cm.packets_in != frames.size()) __builtin_trap();  // a frame was lost
  return 0;
}
