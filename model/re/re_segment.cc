#include "model/re/re_segment.h"

#include <algorithm>
#include <cstddef>

namespace nettwin::re {
namespace {

uint64_t Be(const std::vector<uint8_t>& b, size_t o, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | b[o + static_cast<size_t>(i)];
  return v;
}

Segment Dropped(Drop d) {
  Segment s;
  s.drop = d;
  return s;
}

}  // namespace

const char* DropName(int d) {
  static const char* const kNames[kNumDrops] = {"runt",     "not_ip",     "truncated",   "not_udp",  "empty",
                                                "too_big",  "inconsistent", "duplicate", "overlap",  "no_context",
                                                "no_range", "bad_version",  "lb_header"};
  return d >= 0 && d < kNumDrops ? kNames[d] : "?";
}

Segment ParseSegment(const std::vector<uint8_t>& b, const ParseConfig& cfg) {
  if (b.size() < 14) return Dropped(Drop::kRunt);
  const uint64_t et = Be(b, 12, 2);
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
  if (b.size() < l4 + 8) return Dropped(Drop::kTruncated);
  const size_t udp_len = Be(b, l4 + 4, 2);
  if (udp_len < 8 || l4 + udp_len > b.size()) return Dropped(Drop::kTruncated);
  const size_t p = l4 + 8, pay = udp_len - 8;
  // An LB header still in front ("LB" magic): an RE header never starts with 0x4C (version 4) in either format.
  size_t skip = 0;
  if (pay >= 2 && Be(b, p, 2) == 0x4C42) {
    const int v = pay >= 3 ? b[p + 2] : -1;
    skip = (v == 2 || v == 3) ? 16 : v == 1 ? 12 : 0;
    if (cfg.lb_header == LbHeaderMode::kDrop || skip == 0) return Dropped(Drop::kLbHeader);
  }
  const bool e2sar = cfg.format == HeaderFormat::kE2sar;
  const size_t hdr = e2sar ? 20 : 8;
  if (pay < skip + hdr) return Dropped(Drop::kTruncated);
  const size_t h = p + skip;
  if (e2sar ? (b[h] != (cfg.version << 4) || b[h + 1] != 0) : (b[h] >> 4) != cfg.version)
    return Dropped(Drop::kBadVersion);
  Segment s;
  s.mac_dst = Be(b, 0, 6);
  s.mac_src = Be(b, 6, 6);
  s.data_id = static_cast<uint16_t>(Be(b, h + 2, 2));
  s.offset = static_cast<uint32_t>(Be(b, h + 4, 4));
  s.len = static_cast<uint32_t>(pay - skip - hdr);
  s.data_at = static_cast<uint32_t>(h + hdr);
  if (e2sar) {
    s.last = true;
    s.event_end = Be(b, h + 8, 4);
    s.event_num = Be(b, h + 12, 8);
  } else {
    s.last = b[h + 1] & 1;
    s.event_end = s.End();
    s.event_num = Be(b, l4, 2);
  }
  if (s.len == 0 && !(s.last && s.event_end == s.End())) return Dropped(Drop::kEmpty);
  if (std::max(s.End(), s.event_end) > cfg.buffer_bytes ||
      (cfg.max_frame_data != 0 && uint64_t{s.data_at} + s.len > cfg.max_frame_data))
    return Dropped(Drop::kTooBig);
  if (s.End() > s.event_end) return Dropped(Drop::kInconsistent);  // e2sar only: data past the event's length
  s.ok = true;
  return s;
}

}  // namespace nettwin::re
