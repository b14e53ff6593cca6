#include "model/re/re_segment.h"

#include <cstddef>

namespace nettwin::re {
namespace {

uint32_t Be(const std::vector<uint8_t>& b, size_t o, int n) {
  uint32_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | b[o + i];
  return v;
}

Segment Dropped(Drop d) {
  Segment s;
  s.drop = d;
  return s;
}

}  // namespace

const char* DropName(int d) {
  static const char* const kNames[kNumDrops] = {"runt",    "not_ip",     "truncated",    "not_udp",
                                                "empty",   "too_big",    "inconsistent", "duplicate",
                                                "overlap", "no_context", "no_range"};
  return d >= 0 && d < kNumDrops ? kNames[d] : "?";
}

Segment ParseSegment(const std::vector<uint8_t>& b, uint32_t buffer_bytes) {
  if (b.size() < 14) return Dropped(Drop::kRunt);
  const uint32_t et = Be(b, 12, 2);
  size_t l4;
  if (et == 0x0800) {
    if (b.size() < 34) return Dropped(Drop::kTruncated);
    const size_t ihl = (b[14] & 0xF) * 4u;
    if ((b[14] >> 4) != 4 || ihl < 20) return Dropped(Drop::kNotIp);
    if (b[23] != 17 || (Be(b, 20, 2) & 0x3FFF) != 0) return Dropped(Drop::kNotUdp);  // not UDP, or a fragment
    l4 = 14 + ihl;
  } else if (et == 0x86DD) {
    if (b.size() < 54) return Dropped(Drop::kTruncated);
    if ((b[14] >> 4) != 6) return Dropped(Drop::kNotIp);
    if (b[20] != 17) return Dropped(Drop::kNotUdp);
    l4 = 54;
  } else {
    return Dropped(Drop::kNotIp);
  }
  if (b.size() < l4 + 16) return Dropped(Drop::kTruncated);
  const uint32_t udp_len = Be(b, l4 + 4, 2);
  if (udp_len < 16 || l4 + udp_len > b.size()) return Dropped(Drop::kTruncated);
  Segment s;
  s.mac_dst = (uint64_t{Be(b, 0, 2)} << 32) | Be(b, 2, 4);
  s.mac_src = (uint64_t{Be(b, 6, 2)} << 32) | Be(b, 8, 4);
  s.tick16 = static_cast<uint16_t>(Be(b, l4, 2));
  s.last = Be(b, l4 + 8, 2) & 1;
  s.data_id = static_cast<uint16_t>(Be(b, l4 + 10, 2));
  s.offset = Be(b, l4 + 12, 4);
  s.len = udp_len - 16;
  s.data_at = static_cast<uint32_t>(l4 + 16);
  if (s.len == 0 && !s.last) return Dropped(Drop::kEmpty);
  if (s.End() > buffer_bytes) return Dropped(Drop::kTooBig);
  s.ok = true;
  return s;
}

}  // namespace nettwin::re
