#include "model/re/re_packet_model.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "model/common/file_io.h"
#include "model/common/text_lines.h"
#include "nt_params.h"

namespace nettwin::re {

ReConfig ParseReConfig(const std::string& text, const std::string& file_name) {
  ReConfig c;
  TextLines lines(text);
  while (lines.Next()) {
    const int n = lines.number();
    const std::vector<std::string>& w = lines.words();
    if (w.empty()) continue;
    auto fail = [&](const std::string& tok, const std::string& msg) {
      throw std::runtime_error(nettwin::TokenMessage(file_name, n, tok, msg));
    };
    const std::string& key = w[0];
    if (w.size() < 2) fail(key, "expected a value");
    if (w.size() > 2) fail(w[2], "unexpected extra token");
    const std::string& val = w[1];
    // A word setting: `first` or `second`, else the message.
    auto word = [&](const char* first, const char* second, const char* msg) {
      if (val != first && val != second) fail(val, msg);
      return val == second;
    };
    if (key == "header") {
      c.format = word("evio6", "e2sar", "header must be evio6 (the seed's 8-byte header) or e2sar (E2SAR's 20-byte REHdr)")
                     ? HeaderFormat::kE2sar
                     : HeaderFormat::kEvio6;
      continue;
    }
    if (key == "buffer") {
      c.buffer = word("onchip", "host", "buffer must be onchip (the engine's buffers) or host (DMA to host memory)")
                     ? BufferMode::kHost
                     : BufferMode::kOnChip;
      continue;
    }
    if (key == "host_base") {
      char* e = nullptr;
      const unsigned long long b = std::strtoull(val.c_str(), &e, 0);
      if (val.empty() || *e != '\0' || val[0] == '-' || b % 4096 != 0 || b >= (uint64_t{1} << 48))
        fail(val, "host_base must be a multiple of 4096 below 2^48");
      c.host_base = b;
      continue;
    }
    if (key == "lb_header") {
      c.lb_header = word("skip", "drop", "lb_header must be skip or drop") ? LbHeaderMode::kDrop : LbHeaderMode::kSkip;
      continue;
    }
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
    } else if (key == "version") {
      if (!(v >= 0 && v <= 15) || v != static_cast<int>(v)) fail(val, "version must be an integer in 0..15");
      c.version = static_cast<int>(v);
    } else {
      fail(key, "unknown setting (contexts, buffer_bytes, timeout_us, header, version, lb_header, buffer, host_base)");
    }
  }
  return c;
}

void RePacketModel::Expire(uint64_t now_ns) {
  const int64_t timeout_ns = std::llround(cfg_.timeout_us * 1000);
  std::vector<Key> gone;
  for (const auto& [key, c] : open_) {
    if (static_cast<int64_t>(now_ns - c.first_ns) > timeout_ns) gone.push_back(key);
  }
  std::sort(gone.begin(), gone.end(), [&](const Key& a, const Key& b) {
    return open_[a].first_ns != open_[b].first_ns ? open_[a].first_ns < open_[b].first_ns : a < b;
  });
  for (const Key& key : gone) {
    const Context& c = open_[key];
    if (c.done) {
      open_.erase(key);
      continue;
    }
    timeouts_.push_back(ReTimeout{static_cast<uint16_t>(c.event_num), c.data_id, c.event_num, c.received, c.segments,
                                  c.end_known, c.length, false});
    ++counters_.events_timed_out;
    open_.erase(key);
  }
}

void RePacketModel::Push(const Packet& p) {
  ++counters_.segments_in;
  const uint64_t ts = p.time_ns;
  Expire(ts);
  const std::vector<uint8_t>& b = p.bytes;
  const Segment s = ParseSegment(b, cfg_.Parse());
  if (!s.ok) return CountDrop(s.drop);
  // `last`: the segment declares the event's end `ev_end` (evio6: its Last flag, its own end; e2sar: every
  // segment, the header's event length).
  const bool last = s.last;
  const uint64_t offset = s.offset, end = s.End(), ev_end = s.event_end;
  const uint32_t len = s.len;
  const Key key{s.event_num, s.data_id};
  auto it = open_.find(key);
  if (it != open_.end()) {
    const Context& c = it->second;
    if (c.done) return CountDrop(Drop::kDuplicate);
    const uint64_t max_end = c.ranges.empty() ? 0 : std::prev(c.ranges.end())->second;
    if (last && ((c.end_known && ev_end != c.length) || (!c.end_known && max_end > ev_end)))
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
    // A range that joins no received one needs a free entry in the context's range table (nt_pkg ReRanges).
    const bool joins = c.ranges.count(static_cast<uint32_t>(end)) > 0 ||
                       std::any_of(c.ranges.begin(), c.ranges.end(), [&](const auto& r) { return r.second == offset; });
    if (len > 0 && !joins && c.ranges.size() >= params::kReRanges) return CountDrop(Drop::kNoRange);
  } else {
    if (static_cast<int>(open_.size()) >= cfg_.contexts) return CountDrop(Drop::kNoContext);
    Context c;
    c.event_num = s.event_num;
    c.data_id = s.data_id;
    c.mac_dst = s.mac_dst;
    c.mac_src = s.mac_src;
    c.first_ns = ts;
    it = open_.emplace(key, std::move(c)).first;
  }
  Context& c = it->second;
  ++counters_.segments_used;
  ++c.segments;
  if (c.data.size() < end) c.data.resize(end);
  std::copy(b.begin() + s.data_at, b.begin() + s.data_at + len, c.data.begin() + static_cast<long>(offset));
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
    c.length = static_cast<uint32_t>(ev_end);
  }
  if (c.end_known && c.received == c.length) {
    c.data.resize(c.length);
    events_.push_back(
        ReEvent{static_cast<uint16_t>(c.event_num), c.data_id, c.event_num, c.mac_dst, c.mac_src, c.segments,
                c.first_ns, ts, std::move(c.data)});
    ++counters_.events_completed;
    c.done = true;
    c.data = {};
    c.ranges.clear();
  }
}

void RePacketModel::Finish() {
  std::vector<std::pair<uint64_t, Key>> order;
  for (const auto& [key, c] : open_) {
    if (!c.done) order.emplace_back(c.first_ns, key);
  }
  std::sort(order.begin(), order.end());
  for (const auto& [ts, key] : order) {
    const Context& c = open_[key];
    timeouts_.push_back(ReTimeout{static_cast<uint16_t>(c.event_num), c.data_id, c.event_num, c.received, c.segments,
                                  c.end_known, c.length, true});
    ++counters_.events_timed_out;
  }
  open_.clear();
}

uint32_t EventHeaderBytes(HeaderFormat format) {
  return format == HeaderFormat::kE2sar ? params::kReOutHdrBytesE2sar : params::kReOutHdrBytes;
}

namespace {

// The output header (EventHeaderBytes) with `length` in its length field.
Packet EventHeader(const ReEvent& e, uint64_t length, HeaderFormat format) {
  Packet p;
  auto put = [&p](uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) p.bytes.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  put(e.mac_dst, 6);
  put(e.mac_src, 6);
  put(0x88B5, 2);
  if (format == HeaderFormat::kE2sar)
    put(e.event_num, 8);
  else
    put(e.tick16, 2);
  put(e.data_id, 2);
  put(length, 4);
  put(e.segments, 4);
  p.time_ns = e.done_ns;
  return p;
}

}  // namespace

Packet EventFrame(const ReEvent& e, HeaderFormat format) {
  Packet p = EventHeader(e, e.data.size(), format);
  p.bytes.insert(p.bytes.end(), e.data.begin(), e.data.end());
  return p;
}

Packet EventRecord(const ReEvent& e, uint32_t length, uint64_t host_addr, HeaderFormat format) {
  Packet p = EventHeader(e, length, format);
  for (int i = 7; i >= 0; --i) p.bytes.push_back(static_cast<uint8_t>(host_addr >> (8 * i)));
  return p;
}

}  // namespace nettwin::re
