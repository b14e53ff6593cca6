#include "tb/reorder/reorder_binding.h"

#include <cmath>
#include <sstream>
#include <string>

namespace nettwin::reorder {
namespace {

std::string Hex(const Beat& b) {
  std::ostringstream os;
  static const char* kDigits = "0123456789abcdef";
  os << "keep=0x" << std::hex << b.keep << std::dec << " last=" << b.last << " data=";
  for (int i = 0; i < kBeatBytes; ++i) os << kDigits[b.data[i] >> 4] << kDigits[b.data[i] & 15];
  return os.str();
}

std::string Port(const StreamPort& p) { return p.valid ? "valid " + Hex(p.beat) : "idle"; }

}  // namespace

std::optional<tb::SignalDiff> ReorderBinding::Compare(const Out& r, const Out& m) {
  auto diff = [](const char* name, auto a, auto b) -> std::optional<tb::SignalDiff> {
    if (a == b) return std::nullopt;
    return tb::SignalDiff{name, std::to_string(a), std::to_string(b)};
  };
  if (auto d = diff("s_ready_o", r.s_ready, m.s_ready)) return d;
  if (!(r.m == m.m)) return tb::SignalDiff{"m (host stream)", Port(r.m), Port(m.m)};
  if (r.m.valid) {
    if (auto d = diff("m_held_o", r.m_held, m.m_held)) return d;
    if (auto d = diff("m_hold_us_o", r.m_hold_us, m.m_hold_us)) return d;
  }
  if (!(r.c == m.c)) return tb::SignalDiff{"c (control stream)", Port(r.c), Port(m.c)};
  if (auto d = diff("idle_o", r.idle, m.idle)) return d;
  const ReorderCounters& a = r.cnt;
  const ReorderCounters& b = m.cnt;
#define NT_CNT(f) \
  if (auto d = diff("cnt_" #f "_o", a.f, b.f)) return d;
  NT_CNT(in)
  NT_CNT(delivered) NT_CNT(ctrl_out) NT_CNT(drop_malformed) NT_CNT(drop_buffer_full) NT_CNT(held)
      NT_CNT(released_by_tail) NT_CNT(released_by_timeout) NT_CNT(fallback_unordered) NT_CNT(fallback_collision)
          NT_CNT(epoch_jump) NT_CNT(held_now) NT_CNT(queues_now) NT_CNT(peak_queues) NT_CNT(held_cells)
              NT_CNT(peak_held_cells) NT_CNT(cells_used) NT_CNT(peak_cells_used)
#undef NT_CNT
                  return std::nullopt;
}

tb::Accounting ReorderBinding::Account(const Out& o) {
  return tb::Accounting{o.cnt.in, o.cnt.delivered, uint64_t{o.cnt.drop_malformed} + o.cnt.drop_buffer_full};
}

uint64_t ReorderSide::TimeNs(uint64_t cycle) const {
  return t0_ns_ + static_cast<uint64_t>(std::llround(static_cast<double>(cycle) * 1000.0 / clock_mhz_));
}

bool ReorderSide::Drive(uint64_t cycle, size_t, const tb::Accounting&, ReorderIn* in) {
  in->cfg = cfg_;
  in->now_us = static_cast<uint16_t>((TimeNs(cycle) / 1000) & 0xFFFF);
  in->c_ready = ctrl_.Ready();
  return true;
}

void ReorderSide::Observe(uint64_t cycle, const ReorderIn& in, const ReorderOut& out) {
  ctrl_.Observe(cycle, out.c);
  if (out.m.valid && in.m_ready) {
    if (!m_in_frame_) holds_.push_back(HoldRecord{out.m_held, out.m_hold_us});
    m_in_frame_ = !out.m.beat.last;
  }
  idle_ = out.idle;
}

}  // namespace nettwin::reorder
