// Frames through the VNIC cycle model, either direction: Ethernet frames to encapsulate (from the fuzzed
// VNIC port) or 16B packets to decapsulate (a few are the encapsulation of a fuzzed frame, so the deeper
// checks are reached), with a fixed configuration and the output always ready. Besides the sanitizers: the
// cycle model sends the bytes and counts the drop reasons of the packet-at-a-time functions, and every
// frame is counted in and then out or dropped.
#include <map>

#include "model/vnic/vnic_config.h"
#include "model/vnic/vnic_format.h"
#include "model/vnic/vnic_cycle_model.h"
#include "tb/fuzz/fuzz_util.h"

using namespace nettwin;
using namespace nettwin::vnic;

namespace {

// Ports 0..2 configured (a limited-membership pkey on port 2), port 3 not; a few MACs.
const Tables& Config() {
  static const Tables t = ParseConfig(
      "port 0 veswid 0x10 pkey 0x8001 slid 0x100001 sc 3 rc 1 ucast_dlid 0x100002 mcast_dlid 0xfffff entropy 7\n"
      "port 1 veswid 0x11 pkey 0xffff slid 0x1 ucast_dlid 0x2 mcast_dlid 0x3\n"
      "port 2 veswid 0x12 pkey 0x0005 slid 0xabcdef\n"
      "mac 0 02:00:00:00:00:01 0x100010\n"
      "mac 1 02:aa:bb:cc:dd:ee 0x20\n"
      "mac 2 00:11:22:33:44:55 0x30\n",
      "fuzz_config");
  return t;
}

VnicCycleModel Programmed(Direction dir, const Tables& t) {
  VnicCycleModel m(dir);
  m.Reset();
  fuzz::Program<VnicIn>(&m, ConfigWrites(t));
  return m;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const bool encap = data[0] & 1;
  const uint8_t port0 = static_cast<uint8_t>(data[0] >> 1);
  auto frames = fuzz::Frames(data + 1, size - 1, 6, static_cast<size_t>(kMaxEthBytes) + 64);
  const Tables& t = Config();
  if (!encap) {  // every other frame: the encapsulation of the fuzzed bytes, then maybe one byte flipped
    for (size_t i = 1; i < frames.size(); i += 2) {
      const EncapResult e = Encapsulate(frames[i], static_cast<uint8_t>(i % 3), t);
      if (e.drop == 0 && !frames[i].empty()) {
        const uint8_t flip = frames[i][0];
        frames[i] = e.pkt;
        if (flip & 1) frames[i][(flip >> 1) % frames[i].size()] ^= 0x40;
      }
    }
  }
  std::vector<std::vector<uint8_t>> want;
  std::vector<uint8_t> want_ports;
  std::map<int, uint32_t> want_drops;
  for (size_t i = 0; i < frames.size(); ++i) {
    const uint8_t port = static_cast<uint8_t>((port0 + i) % kPorts);
    int drop;
    if (encap) {
      EncapResult r = Encapsulate(frames[i], port, t);
      drop = r.drop;
      if (!drop) want.push_back(std::move(r.pkt)), want_ports.push_back(port);
    } else {
      DecapResult r = Decapsulate(frames[i], t);
      drop = r.drop;
      if (!drop) want.push_back(std::move(r.frame)), want_ports.push_back(r.port);
    }
    if (drop) ++want_drops[drop];
  }
  VnicCycleModel& model = encap ? fuzz::Pristine<VnicCycleModel, 1>([&t] { return Programmed(Direction::kEncap, t); })
                            : fuzz::Pristine<VnicCycleModel, 0>([&t] { return Programmed(Direction::kDecap, t); });
  std::vector<std::vector<uint8_t>> got;
  std::vector<uint8_t> got_ports, cur;
  Counters last;
  size_t sent = 0;  // frames whose last beat was taken
  size_t beats = 0;
  for (const auto& f : frames) beats += f.size() / kBeatBytes + 2;
  VnicIn in0;
  in0.s_port = static_cast<uint8_t>(port0 % kPorts);
  // Store and forward: after the last input beat, up to every stored beat (and one more per frame for the
  // header) is still to leave, one per cycle.
  fuzz::Drive(&model, in0, frames, beats + 8, [&](VnicIn* in, const VnicOut& out) {
    if (in->s.valid && out.s_ready && in->s.beat.last) ++sent;
    in->s_port = static_cast<uint8_t>((port0 + sent) % kPorts);  // sampled with the next frame's first beat
    in->m_ready = true;
    last = out.cnt;
    if (!out.m.valid) return;
    AppendBeat(out.m.beat, &cur);
    if (out.m.beat.last) got.push_back(std::move(cur)), got_ports.push_back(out.m_port), cur.clear();
  });
  if (got != want || got_ports != want_ports) __builtin_trap();  // other bytes or ports than the functions
  for (size_t r = 1; r < last.drops.size(); ++r) {
    const auto it = want_drops.find(static_cast<int>(r));
    if (last.drops[r] != (it == want_drops.end() ? 0u : it->second)) __builtin_trap();  // other drop reason
  }
  if (last.in != frames.size() || last.in != last.out + VnicDropped(last)) __builtin_trap();  // conservation
  return 0;
}
