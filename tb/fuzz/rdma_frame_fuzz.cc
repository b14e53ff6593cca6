// RoCEv2 request frames, whole, through the responder's header parser (ParseRequest) and the cycle
// model's ingress (beats on the stream port; DMA reads answered with zeros), configured from the atomic
// vector's responder.txt. Besides the sanitizers: every frame is counted in and the model drains.
#include "model/rdma/rdma_config.h"
#include "model/rdma/rdma_cycle_model.h"
#include "model/rdma/rdma_packet.h"
#include "tb/fuzz/fuzz_util.h"

using namespace nettwin;
using namespace nettwin::rdma;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const RdmaConfig config = LoadConfig(std::string(NT_SOURCE_DIR) + "/vectors/rdma/atomic/responder.txt");
  const auto frames = fuzz::Frames(data, size, 4);
  for (const auto& f : frames) {
    uint8_t hdr[kHdrWindow] = {};
    std::copy(f.begin(), f.begin() + std::min<size_t>(f.size(), kHdrWindow), hdr);
    (void)ParseRequest(hdr, static_cast<int>(f.size()), config.responder);
  }
  RdmaCycleModel& m = fuzz::Pristine<RdmaCycleModel>([] {
    RdmaCycleModel fresh;
    fresh.Reset();
    fuzz::Program<RdmaIn>(&fresh, config.Writes());
    return fresh;
  });
  fuzz::ZeroHost host;
  RdmaCounters last;
  uint64_t still = 0;  // cycles since a counter last changed
  // The drain (bound 4,000 cycles) ends when no read is owed, nothing is offered on either port and no
  // counter has moved for 200 cycles (longer than any step of the responder with a 1-cycle host).
  fuzz::Drive(&m, RdmaIn{}, frames, 4000, [&](RdmaIn* in, const RdmaOut& out) {
    in->m_ready = true;
    host.Serve(in);
    host.Observe(out.dma_req);
    still = out.counters == last ? still + 1 : 0;
    last = out.counters;
    return host.Idle() && !out.dma_req.valid && !out.m.valid && still > 200 &&
           last.packets_in == frames.size();
  });
  if (last.packets_in != frames.size()) __builtin_trap();  // a frame was lost at the ingress
  return 0;
}
