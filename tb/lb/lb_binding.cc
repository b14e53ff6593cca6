#include "tb/lb/lb_binding.h"

#include <cstdio>
#include <string>

namespace nettwin::lb {
namespace {

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string Bytes(const Beat& b, int from, int n) {
  std::string s;
  for (int i = from; i < from + n && i < kBeatBytes; ++i) {
    char buf[4];
    std::snprintf(buf, sizeof buf, "%02x", b.data[i]);
    s += buf;
  }
  return s;
}

}  // namespace

std::optional<tb::SignalDiff> LbBinding::Compare(const Out& r, const Out& m) {
  auto diff = [](std::string sig, uint64_t a, uint64_t b) {
    return tb::SignalDiff{std::move(sig), Hex(a), Hex(b)};
  };
  if (r.s_ready != m.s_ready) return diff("s_ready_o", r.s_ready, m.s_ready);
  if (r.m.valid != m.m.valid) return diff("m_valid_o", r.m.valid, m.m.valid);
  if (r.m.valid) {
    if (r.m.beat.last != m.m.beat.last) return diff("m_last_o", r.m.beat.last, m.m.beat.last);
    if (r.m.beat.keep != m.m.beat.keep) return diff("m_keep_o", r.m.beat.keep, m.m.beat.keep);
    // Byte by byte only once the whole beat differs (one memcmp in the common case).
    for (int i = 0; i < kBeatBytes && r.m.beat.data != m.m.beat.data; ++i) {
      if (r.m.beat.data[i] != m.m.beat.data[i]) {
        const int from = i & ~7;
        return tb::SignalDiff{"m_data_o byte " + std::to_string(i) + " (bytes " + std::to_string(from) + ".." +
                                  std::to_string(from + 7) + " shown)",
                              Bytes(r.m.beat, from, 8), Bytes(m.m.beat, from, 8)};
      }
    }
  }
  if (r.counters.packets_in != m.counters.packets_in) {
    return diff("pkts_in_o", r.counters.packets_in, m.counters.packets_in);
  }
  if (r.counters.packets_out != m.counters.packets_out) {
    return diff("pkts_out_o", r.counters.packets_out, m.counters.packets_out);
  }
  for (int i = 1; i < kNumReasons; ++i) {
    if (r.counters.drops[i] != m.counters.drops[i]) {
      return diff(std::string("drops_o[") + ReasonName(i) + "]", r.counters.drops[i], m.counters.drops[i]);
    }
  }
  return std::nullopt;
}

tb::Accounting LbBinding::Account(const Out& o) {
  tb::Accounting a;
  a.in = o.counters.packets_in;
  a.out = o.counters.packets_out;
  for (int i = 1; i < kNumReasons; ++i) a.dropped += o.counters.drops[i];
  return a;
}

}  // namespace nettwin::lb
