// The reassembly engine's inputs (`nettwin re`): the configuration text (up to the first NUL byte, parsed
// or rejected with a file:line error) and then segments with fuzzed arrival gaps. A segment whose first
// byte is odd is built as a well-formed IPv4/UDP RE segment from the fuzzed tick, data_id, offset, last
// flag and payload, so overlaps, duplicates, inconsistent ends and context exhaustion are reached; the
// others are raw frames for the header parser. Besides the sanitizers: every segment is used or dropped for
// one reason, and at the end of input every event opened is completed or reported incomplete.
#include <cstring>
#include <set>
#include <stdexcept>

#include "model/re/re_packet_model.h"
#include "tb/fuzz/fuzz_util.h"

using namespace nettwin;
using namespace nettwin::re;

namespace {

std::vector<uint8_t> WellFormedSegment(const std::vector<uint8_t>& f) {
  std::vector<uint8_t> g(f.begin() + 1, f.end());
  g.resize(std::max<size_t>(g.size(), 8));
  const uint8_t tick_lo = g[0] & 3, data_id = g[1] & 3, last = g[2] & 1;
  const uint32_t offset = (uint32_t{g[3]} << 8 | g[4]) % 70000;
  const size_t len = g.size() - 8;
  std::vector<uint8_t> p(14 + 20 + 8 + 16 + len);
  p[12] = 0x08;
  p[14] = 0x45;
  const size_t ip_len = 20 + 8 + 16 + len;
  p[16] = static_cast<uint8_t>(ip_len >> 8), p[17] = static_cast<uint8_t>(ip_len);
  p[22] = 64, p[23] = 17;
  uint8_t* u = &p[34];
  u[0] = 0x12, u[1] = tick_lo;  // source port = tick[15:0]
  const size_t udp_len = 8 + 16 + len;
  u[4] = static_cast<uint8_t>(udp_len >> 8), u[5] = static_cast<uint8_t>(udp_len);
  u[8] = 0x10, u[9] = last;
  u[11] = data_id;
  u[12] = 0, u[13] = static_cast<uint8_t>(offset >> 16), u[14] = static_cast<uint8_t>(offset >> 8);
  u[15] = static_cast<uint8_t>(offset);
  std::memcpy(u + 24, g.data() + 8, len);
  return p;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const uint8_t* nul = static_cast<const uint8_t*>(std::memchr(data, 0, size));
  const size_t text_len = nul ? static_cast<size_t>(nul - data) : size;
  ReConfig cfg;
  try {
    cfg = ParseReConfig(fuzz::Text(data, text_len), "fuzz.txt");
  } catch (const std::runtime_error&) {
    return 0;
  }
  if (!nul) return 0;
  cfg.buffer_bytes = std::min<uint32_t>(cfg.buffer_bytes, 1 << 17);  // keep each execution cheap
  RePacketModel m(cfg);
  uint64_t t = 0;
  std::set<uint32_t> keys;
  for (const auto& f : fuzz::Frames(nul + 1, size - text_len - 1, 16, 2000)) {
    Packet p;
    p.bytes = !f.empty() && (f[0] & 1) ? WellFormedSegment(f) : f;
    t += f.empty() ? 0 : uint64_t{f[0]} * 10000;  // 0 .. 2.55 ms between segments
    p.time_ns = t;
    m.Push(p);
  }
  m.Finish();
  const ReCounters& c = m.counters();
  uint64_t drops = 0;
  for (uint64_t d : c.drops) drops += d;
  if (c.segments_in != c.segments_used + drops) __builtin_trap();  // a segment neither used nor dropped
  if (c.events_completed != m.events().size() || c.events_timed_out != m.timeouts().size()) __builtin_trap();
  for (const ReEvent& e : m.events()) {
    if (e.data.size() > cfg.buffer_bytes) __builtin_trap();  // an event larger than its buffer
  }
  return 0;
}
