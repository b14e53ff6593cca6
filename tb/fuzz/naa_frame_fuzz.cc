// Client frames, whole, through the CM frame parser (ParseCm) and the endpoint's cycle model (front end, CM,
// responder, requester, controller), configured from vectors/naa/naa_ctl.txt (a ctl line: MRSP and RPC) and
// already connected (the block is built once: REQ, RTU, then copied per input), so the fuzzer's SENDs reach the
// controller as MRSP requests and its WRITE_WITH_IMMs as RPCs. The host memory keeps what is written (the
// controller reads the request the responder wrote). The input's first byte says before which frames the
// client waits for the endpoint to go quiet (bit i: before frame i + 1), as a client waits for the MRSP
// answer before it WRITEs into the regions; the rest is the frames. Kernels give up after 2,000 cycles and the
// requester retries once after 300, so every input drains quickly. Besides the sanitizers: every frame is counted in by
// the CM, the responder or the requester, and every controller event is handled or dropped with a reason.
#include <algorithm>

#include "model/naa/naa_config.h"
#include "model/naa/naa_mad.h"
#include "model/naa/naa_cycle_model.h"
#include "tb/fuzz/fuzz_util.h"
#include "tb/tests/naa_frames.h"

using namespace nettwin;
using namespace nettwin::naa;

namespace {

NaaConfig FuzzConfig() {
  NaaConfig c = LoadNaaConfig(std::string(NT_SOURCE_DIR) + "/vectors/naa/naa_ctl.txt");
  c.ctl.budget = 2000;
  c.req.timeout = 300;
  c.req.retry = 1;
  c.req.rnr_retry = 1;
  return c;
}

fuzz::MemHost Memory(const NaaConfig& c) {
  fuzz::MemHost h;
  for (const rdma::MemInit& m : c.rdma.memory) h.Write(m.pa, m.bytes.data(), m.bytes.size());
  return h;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const NaaConfig config = FuzzConfig();
  if (size < 1) return 0;
  const uint8_t waits = data[0];
  const auto frames = fuzz::Frames(data + 1, size - 1, 6);
  // Nothing offered, nothing to check (the checks below read the last cycle's counters, and there is none).
  if (frames.empty()) return 0;
  for (const auto& f : frames) {
    CmFrameBytes b{};
    std::copy(f.begin(), f.begin() + std::min(f.size(), b.size()), b.begin());
    (void)ParseCm(b, static_cast<int>(f.size()), f.size() > b.size(), 0, config.rdma.responder);
  }
  NaaCycleModel& m = fuzz::Pristine<NaaCycleModel>([] {
    NaaCycleModel fresh;
    fresh.Reset();
    for (const CfgWrite& w : config.Writes()) {
      NaaIn in;
      in.cfg = w;
      fresh.Eval(in);
      fresh.Tick();
    }
    // The client of tb/tests/naa_frames.h connects (naa_ctl.txt: the same addresses, port and comm_id).
    const std::vector<std::vector<uint8_t>> connect = {
        test::ReqFrame(test::kClientComm, 7471, 0, 3),
        test::SealAt(test::ClientMad(attr::kRtu, test::kClientComm, test::kCommBase), kCmIcrcAt)};
    fuzz::ZeroHost host;
    bool connected = false;
    // The copy must not hold a host read in flight: the MemHost of each input never saw it and would leave
    // the responder waiting for its data forever. Since receive WQEs are prefetched (issue 25 item 2), reads
    // start on their own after the connect, so "quiet" is 64 cycles with no request and nothing owed.
    int calm = 0;
    fuzz::Drive(&fresh, NaaIn{}, connect, 4000, [&](NaaIn* in, const NaaOut& out) {
      in->m_ready = true;
      host.Serve(in);
      host.Observe(out.dma_req);
      connected = out.conn.connected;
      calm = out.dma_req.valid || !host.Idle() ? 0 : calm + 1;
      return connected && !out.cm_busy && calm >= 64;
    });
    if (!connected) __builtin_trap();  // the fuzz setup itself is broken
    return fresh;
  });
  fuzz::MemHost host = Memory(config);
  NaaOut last;
  uint64_t still = 0;  // cycles since a counter last changed
  size_t offered = 0;  // frames offered so far
  auto counted_in = [&offered](const NaaOut& o) {
    return o.rdma.packets_in + o.cm.packets_in + o.req.packets_in - 2 == offered;  // - the REQ and RTU
  };
  // Each group of frames is offered back to back; the drain after it (bound 20,000 cycles) ends when no read
  // is owed, nothing is offered on either port, no part is busy, every frame is counted in and no counter
  // moved for 200 cycles. Between groups the requester may still wait for the client's ACK (and the
  // controller for its completion): the client answers it in the next group.
  for (size_t i = 0; i < frames.size();) {
    size_t j = i + 1;
    while (j < frames.size() && !(j <= 8 && (waits >> (j - 1) & 1))) ++j;
    const std::vector<std::vector<uint8_t>> group(frames.begin() + static_cast<long>(i),
                                                  frames.begin() + static_cast<long>(j));
    const bool final_group = j == frames.size();
    offered = j;
    fuzz::Drive(&m, NaaIn{}, group, 20000, [&](NaaIn* in, const NaaOut& out) {
      in->m_ready = true;
      host.Serve(in);
      host.Observe(out.dma_req);
      const bool same = out.rdma == last.rdma && out.cm == last.cm && out.ctl == last.ctl &&
                        out.req.cnt == last.req.cnt && out.req.packets_in == last.req.packets_in;
      still = same ? still + 1 : 0;
      last = out;
      const bool waits_for_ack = !final_group && (!out.ctl_busy || out.ctl.state == CtlState::kCplWait);
      return host.Idle() && !out.dma_req.valid && !out.m.valid && !out.busy && !out.cm_busy &&
             ((!out.req_busy && !out.ctl_busy) || waits_for_ack) && still > 200 && counted_in(last);
    });
    i = j;
  }
  if (!counted_in(last)) __builtin_trap();                       // a frame was lost
  if (!last.ctl_busy && !CtlBalanced(last.ctl)) __builtin_trap();  // a controller event neither handled nor dropped
  return 0;
}
