#include "tb/lb/udplb_binding.h"

#include <string>

namespace nettwin::lb::udplb {
namespace {

const auto Diff = tb::DiffValues;  // tb/common/compare.h: the one message format

std::optional<tb::SignalDiff> DiffInstances(const char* sig, const InstanceCounts& r, const InstanceCounts& m) {
  for (int i = 0; i < kInstances; ++i) {
    if (auto d = Diff(std::string(sig) + "[" + std::to_string(i) + "]", r[i], m[i])) return d;
  }
  return std::nullopt;
}

}  // namespace

std::optional<tb::SignalDiff> UdplbBinding::Compare(const Out& r, const Out& m) {
  if (auto d = Diff("s_ready_o", r.s_ready, m.s_ready)) return d;
  if (!(r.m == m.m)) return tb::DiffStream("m", r.m, m.m);
  if (r.m.valid) {
    if (auto d = Diff("m_port_o", r.m_port, m.m_port)) return d;
  }
  const UdplbCounters& a = r.counters;
  const UdplbCounters& b = m.counters;
  if (auto d = Diff("pkts_in_o", a.packets_in, b.packets_in)) return d;
  if (auto d = Diff("pkts_out_o", a.packets_out, b.packets_out)) return d;
  if (auto d = Diff("to_host_o", a.to_host, b.to_host)) return d;
  if (auto d = Diff("replies_o", a.replies, b.replies)) return d;
  for (int i = 1; i < kNumReasons; ++i) {
    if (auto d = Diff(std::string("drops_o[") + ReasonName(i) + "]", a.drops[i], b.drops[i])) return d;
  }
  if (auto d = DiffInstances("inst_rx_o", a.rx, b.rx)) return d;
  if (auto d = DiffInstances("inst_rx_v2_o", a.rx_v2, b.rx_v2)) return d;
  if (auto d = DiffInstances("inst_rx_v3_o", a.rx_v3, b.rx_v3)) return d;
  if (auto d = DiffInstances("inst_tx_o", a.tx, b.tx)) return d;
  return DiffInstances("inst_drops_o", a.inst_drops, b.inst_drops);
}

tb::Accounting UdplbBinding::Account(const Out& o) {
  tb::Accounting a;
  a.in = o.counters.packets_in;
  a.out = o.counters.packets_out;
  a.dropped = o.counters.TotalDrops();
  return a;
}

}  // namespace nettwin::lb::udplb
