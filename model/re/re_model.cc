#include "model/re/re_model.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace nettwin::re {
namespace {

uint32_t Be(const std::vector<uint8_t>& b, size_t o, int n) {
  uint32_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | b[o + i];
  return v;
}

uint64_t Mac(const std::vector<uint8_t>& b, size_t o) {
  uint64_t v = 0;
  for (int i = 0; i < 6; ++i) v = (v << 8) | b[o + i];
  return v;
}

}  // namespace

const char* DropName(int d) {
  static const char* const kNames[kNumDrops] = {"runt",    "not_ip",       "truncated", "not_udp", "empty",
                                                "too_big", "inconsistent", "duplicate", "overlap", "no_context"};
  return d >= 0 && d < kNumDrops ? kNames[d] : "?";
}

ReConfig ParseReConfig(const std::string& text, const std::string& file_name) {
  ReConfig c;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (auto h = line.find('#'); h != std::string::npos) line.resize(h);
    std::istringstream w(line);
    std::string key, val, extra;
    if (!(w >> key)) continue;
    auto fail = [&](const std::string& tok, const std::string& msg) {
      throw std::runtime_error(file_name + ":" + std::to_string(n) + ": token '" + tok + "': " + msg);
    };
    if (!(w >> val)) fail(key, "expected a value");
    if (w >> extra) fail(extra, "unexpected extra token");
    char* end = nullptr;
    const double v = std::strtod(val.c_str(), &end);
    if (*end != '\0' || val.empty()) fail(val, "not a number");
    // Range first, written so that NaN fails it too: converting NaN or an out-of-range double to an integer
    // is undefined behaviour (found by tb/fuzz/re_fuzz: "contexts nan").
    if (key == "contexts") {
      if (!(v >= 1 && v <= 4096) || v != static_cast<int>(v)) fail(val, "contexts must be an integer in 1..4096");
      c.contexts = static_cast<int>(v);
    } else if (key == "buffer_bytes") {
      if (!(v >= 1 && v <= (1 << 24)) || v != static_cast<uint32_t>(v))
        fail(val, "buffer_bytes must be an integer in 1..16777216");
      c.buffer_bytes = static_cast<uint32_t>(v);
    } else if (key == "timeout_us") {
      if (!(v > 0 && v <= 1e9)) fail(val, "timeout_us must be in (0, 1e9]");
      c.timeout_us = v;
    } else {
      fail(key, "unknown setting (contexts, buffer_bytes, timeout_us)");
    }
  }
  return c;
}

void ReModel::Expire(uint64_t now_ns) {
  const int64_t timeout_ns = std::llround(cfg_.timeout_us * 1000);
  std::vector<uint32_t> gone;
  for (const auto& [key, c] : open_) {
    if (static_cast<int64_t>(now_ns - c.first_ns) > timeout_ns) gone.push_back(key);
  }
  std::sort(gone.begin(), gone.end(), [&](uint32_t a, uint32_t b) {
    return open_[a].first_ns != open_[b].first_ns ? open_[a].first_ns < open_[b].first_ns : a < b;
  });
  for (uint32_t key : gone) {
    const Context& c = open_[key];
    if (c.done) {
      open_.erase(key);
      continue;
    }
    timeouts_.push_back(ReTimeout{c.tick16, c.data_id, c.received, c.segments, c.end_known, c.length, false});
    ++counters_.events_timed_out;
    open_.erase(key);
  }
}

void ReModel::Push(const Packet& p) {
  ++counters_.segments_in;
  const uint64_t ts = p.time_ns;
  Expire(ts);
  const std::vector<uint8_t>& b = p.bytes;
  if (b.size() < 14) return CountDrop(Drop::kRunt);
  const uint32_t et = Be(b, 12, 2);
  size_t l4;
  if (et == 0x0800) {
    if (b.size() < 34) return CountDrop(Drop::kTruncated);
    const size_t ihl = (b[14] & 0xF) * 4u;
    if ((b[14] >> 4) != 4 || ihl < 20) return CountDrop(Drop::kNotIp);
    if (b[23] != 17 || (Be(b, 20, 2) & 0x3FFF) != 0) return CountDrop(Drop::kNotUdp);  // not UDP, or a fragment
    l4 = 14 + ihl;
  } else if (et == 0x86DD) {
    if (b.size() < 54) return CountDrop(Drop::kTruncated);
    if ((b[14] >> 4) != 6) return CountDrop(Drop::kNotIp);
    if (b[20] != 17) return CountDrop(Drop::kNotUdp);
    l4 = 54;
  } else {
    return CountDrop(Drop::kNotIp);
  }
  if (b.size() < l4 + 16) return CountDrop(Drop::kTruncated);
  const uint32_t udp_len = Be(b, l4 + 4, 2);
  if (udp_len < 16 || l4 + udp_len > b.size()) return CountDrop(Drop::kTruncated);
  const uint16_t tick16 = static_cast<uint16_t>(Be(b, l4, 2));
  const uint32_t flags = Be(b, l4 + 8, 2);
  const bool last = flags & 1;
  const uint16_t data_id = static_cast<uint16_t>(Be(b, l4 + 10, 2));
  const uint64_t offset = Be(b, l4 + 12, 4);
  const uint32_t len = udp_len - 16;
  const uint64_t end = offset + len;
  if (len == 0 && !last) return CountDrop(Drop::kEmpty);
  if (end > cfg_.buffer_bytes) return CountDrop(Drop::kTooBig);
  const uint32_t key = (uint32_t{tick16} << 16) | data_id;
  auto it = open_.find(key);
  if (it != open_.end()) {
    const Context& c = it->second;
    if (c.done) return CountDrop(Drop::kDuplicate);
    const uint64_t max_end = c.ranges.empty() ? 0 : std::prev(c.ranges.end())->second;
    if (last && ((c.end_known && end != c.length) || (!c.end_known && max_end > end)))
      return CountDrop(Drop::kInconsistent);
    if (c.end_known && end > c.length) return CountDrop(Drop::kInconsistent);
    uint64_t covered = 0;
    for (const auto& [lo, hi] : c.ranges) {
      const uint64_t a = std::max<uint64_t>(lo, offset), z = std::min<uint64_t>(hi, end);
      if (a < z) covered += z - a;
    }
    if (len > 0 && covered == len) return CountDrop(Drop::kDuplicate);
    if (len == 0 && c.end_known) return CountDrop(Drop::kDuplicate);
    if (covered > 0) return CountDrop(Drop::kOverlap);
  } else {
    if (static_cast<int>(open_.size()) >= cfg_.contexts) return CountDrop(Drop::kNoContext);
    Context c;
    c.tick16 = tick16;
    c.data_id = data_id;
    c.mac_dst = Mac(b, 0);
    c.mac_src = Mac(b, 6);
    c.first_ns = ts;
    it = open_.emplace(key, std::move(c)).first;
  }
  Context& c = it->second;
  ++counters_.segments_used;
  ++c.segments;
  if (c.data.size() < end) c.data.resize(end);
  std::copy(b.begin() + static_cast<long>(l4 + 16), b.begin() + static_cast<long>(l4 + udp_len),
            c.data.begin() + static_cast<long>(offset));
  if (len > 0) {
    auto& r = c.ranges;
    uint32_t lo = static_cast<uint32_t>(offset), hi = static_cast<uint32_t>(end);
    auto next = r.lower_bound(lo);
    if (next != r.begin() && std::prev(next)->second == lo) lo = (--next)->first, next = r.erase(next);
    if (next != r.end() && next->first == hi) hi = next->second, r.erase(next);
    r[lo] = hi;
    c.received += len;
  }
  if (last) {
    c.end_known = true;
    c.length = static_cast<uint32_t>(end);
  }
  if (c.end_known && c.received == c.length) {
    c.data.resize(c.length);
    events_.push_back(
        ReEvent{c.tick16, c.data_id, c.mac_dst, c.mac_src, c.segments, c.first_ns, ts, std::move(c.data)});
    ++counters_.events_completed;
    c.done = true;
    c.data = {};
    c.ranges.clear();
  }
}

void ReModel::Finish() {
  std::vector<std::pair<uint64_t, uint32_t>> order;
  for (const auto& [key, c] : open_) {
    if (!c.done) order.emplace_back(c.first_ns, key);
  }
  std::sort(order.begin(), order.end());
  for (const auto& [ts, key] : order) {
    const Context& c = open_[key];
    timeouts_.push_back(ReTimeout{c.tick16, c.data_id, c.received, c.segments, c.end_known, c.length, true});
    ++counters_.events_timed_out;
  }
  open_.clear();
}

Packet EventFrame(const ReEvent& e) {
  Packet p;
  auto put = [&p](uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) p.bytes.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  put(e.mac_dst, 6);
  put(e.mac_src, 6);
  put(0x88B5, 2);
  put(e.tick16, 2);
  put(e.data_id, 2);
  put(e.data.size(), 4);
  put(e.segments, 4);
  p.bytes.insert(p.bytes.end(), e.data.begin(), e.data.end());
  p.time_ns = e.done_ns;
  return p;
}

}  // namespace nettwin::re
