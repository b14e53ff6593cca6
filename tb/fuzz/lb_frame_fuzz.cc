// LB frames, whole, through both C++ paths: the packet-at-a-time model (ProcessPacket) and the cycle
// model's ingress (beats on the stream port), with the spec's tables. Besides the sanitizers, the two must
// forward the same bytes, drop for the same reasons and conserve every frame.
#include <array>
#include <map>

#include "model/lb/lb_cycle_model.h"
#include "model/lb/lb_packet_model.h"
#include "model/lb/lb_script.h"
#include "tb/fuzz/fuzz_util.h"

using namespace nettwin;
using namespace nettwin::lb;

namespace {

const std::vector<CfgWrite>& SpecWrites() {
  static const std::vector<CfgWrite> writes = [] {
    std::vector<CfgWrite> w;
    for (const Segment& s : LoadScript(std::string(NT_SOURCE_DIR) + "/vectors/lb/spec/runsim.txt")) {
      w.insert(w.end(), s.writes.begin(), s.writes.end());
    }
    return w;
  }();
  return writes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto frames = fuzz::Frames(data, size);
  // The spec's tables, in the packet model's tables and programmed into the cycle model once, then copied.
  const LbTables& tables = fuzz::Pristine<LbTables>([] {
    LbTables t;
    for (const CfgWrite& w : SpecWrites()) t.Apply(w);
    return t;
  });
  LbCycleModel& cyc = fuzz::Pristine<LbCycleModel>([] {
    LbCycleModel m;
    m.Reset();
    fuzz::Program<LbIn>(&m, SpecWrites());
    return m;
  });
  std::vector<std::vector<uint8_t>> want;
  std::map<int, uint32_t> want_drops;
  for (const auto& f : frames) {
    const Verdict v = ProcessPacket(tables, f);
    if (v.rewrite.reason == DropReason::kNone) {
      want.push_back(v.out);
    } else {
      ++want_drops[static_cast<int>(v.rewrite.reason)];
    }
  }
  std::vector<std::vector<uint8_t>> got;
  std::vector<uint8_t> cur;
  LbCounters last;
  fuzz::Drive(&cyc, LbIn{}, frames, 64, [&](LbIn* in, const LbOut& out) {
    in->m_ready = true;
    last = out.counters;
    if (!out.m.valid) return;
    AppendBeat(out.m.beat, &cur);
    if (out.m.beat.last) got.push_back(std::move(cur)), cur.clear();
  });
  if (got != want) __builtin_trap();  // the cycle model forwards other bytes than the packet model
  uint32_t drops = 0;
  for (size_t r = 1; r < last.drops.size(); ++r) {
    drops += last.drops[r];
    const auto it = want_drops.find(static_cast<int>(r));
    if (last.drops[r] != (it == want_drops.end() ? 0u : it->second)) __builtin_trap();  // other drop reason
  }
  if (last.packets_in != frames.size() || last.packets_in != last.packets_out + drops) __builtin_trap();
  return 0;
}
