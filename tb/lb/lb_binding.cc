#include "tb/lb/lb_binding.h"

#include <string>

namespace nettwin::lb {

std::optional<tb::SignalDiff> LbBinding::Compare(const Out& r, const Out& m) {
  const auto diff = tb::DiffValues;  // tb/common/compare.h: the one message format
  if (r.s_ready != m.s_ready) return diff("s_ready_o", r.s_ready, m.s_ready);
  if (!(r.m == m.m)) return tb::DiffStream("m", r.m, m.m);
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
