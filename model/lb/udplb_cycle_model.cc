#include "model/lb/udplb_cycle_model.h"

#include <algorithm>

namespace nettwin::lb::udplb {

void UdplbCycleModel::Reset() { *this = UdplbCycleModel(); }

const UdplbOut& UdplbCycleModel::Eval(const UdplbIn& in) {
  in_ = in;
  out_.s_ready = !skid_.valid && !extra_.valid;
  out_.m = o_;
  out_.m_port = o_.valid ? o_port_ : 0;
  out_.counters = counters_;
  return out_;
}

UdplbCycleModel::Stage UdplbCycleModel::FromLookahead() const {
  Stage s;
  const bool emit = h_.valid && (h_.beat.last || in_.s.valid);
  if (!emit) return s;
  PipeBeat& b = s.b;
  b.valid = true;
  b.beat = h_.beat;
  b.idx = h_.idx;
  b.sop = h_.idx == 0;
  b.port = h_.port;
  uint8_t window[kParseWindow] = {};
  std::copy(h_.beat.data.begin(), h_.beat.data.end(), window);
  int len = h_.beat.Bytes();
  if (!h_.beat.last) {
    const Beat& nx = in_.s.beat;
    std::copy_n(nx.data.begin(), kNext, b.next.begin());
    b.next_n = static_cast<uint8_t>(nx.Bytes());
    b.next_last = nx.last;
    std::copy(nx.data.begin(), nx.data.end(), window + kBeatBytes);
    len = kBeatBytes + nx.Bytes();
  }
  if (b.sop) s.p = Parse(window, len);
  return s;
}

UdplbCycleModel::Formed UdplbCycleModel::Form(const PipeBeat& b, const Verdict& v,
                                              const std::array<uint8_t, kBeatBytes>& prev) {
  Formed f;
  if (!b.valid || v.kind == Kind::kDrop) return f;
  const int n = b.beat.Bytes();
  int count;  // bytes of the output beat this input beat forms
  bool last;
  int extra = 0;  // bytes of an extra output beat behind it
  if (b.beat.last) {
    count = n - v.d;
    last = true;
    if (count <= 0) return f;  // folded into the previous output beat
    if (count > kBeatBytes) {
      extra = count - kBeatBytes;
      count = kBeatBytes;
      last = false;
    }
  } else if (b.next_last && b.next_n <= v.d) {
    count = kBeatBytes + b.next_n - v.d;
    last = true;
  } else {
    count = kBeatBytes;
    last = false;
  }
  const int base = kBeatBytes * b.idx;
  for (int j = 0; j < count; ++j) {
    const int p = base + j;
    uint8_t byte;
    if (p < v.lo) {
      byte = v.hdr[p];
    } else {
      const int off = j + v.d;
      byte = off < 0 ? prev[kBeatBytes + off] : off < kBeatBytes ? b.beat.data[off] : b.next[off - kBeatBytes];
    }
    f.beat.beat.data[j] = byte;
  }
  f.beat.valid = true;
  f.beat.beat.keep = KeepMask(count);
  f.beat.beat.last = last;
  if (extra > 0) {
    // Output bytes past this beat come from its own tail (d < 0 here, so off = 64 + j + d < 64).
    for (int j = 0; j < extra; ++j) f.extra.beat.data[j] = b.beat.data[kBeatBytes + j + v.d];
    f.extra.valid = true;
    f.extra.beat.keep = KeepMask(extra);
    f.extra.beat.last = true;
  }
  return f;
}

void UdplbCycleModel::Tick() {
  const bool adv = !skid_.valid && !extra_.valid;
  const bool out_fire = o_.valid && in_.m_ready;
  if (out_fire && o_.beat.last) ++counters_.packets_out;
  if (adv) {
    const bool in_fire = in_.s.valid;  // s_ready == adv
    if (s8_.b.valid && s8_.b.sop) {
      ctx_ = s8_.v;
      CountVerdict(s8_.v, &counters_);
    }
    const Formed formed = Form(s8_.b, ctx_, prev_);
    if (s8_.b.valid) prev_ = s8_.b.beat.data;
    const uint8_t port = ctx_.port;
    if (o_.valid && !in_.m_ready) {
      skid_ = formed.beat;
      skid_port_ = port;
    } else {
      o_ = formed.beat;
      o_port_ = port;
    }
    extra_ = formed.extra;
    extra_port_ = port;
    Stage s8 = s7_;
    if (s8.b.valid && s8.b.sop) {
      uint8_t w[kParseWindow] = {};
      std::copy(s8.b.beat.data.begin(), s8.b.beat.data.end(), w);
      std::copy(s8.b.next.begin(), s8.b.next.end(), w + kBeatBytes);
      s8.v = BuildVerdict(s8.p, s8.l, w);
    }
    s8_ = s8;
    s7_ = s6_;
    if (s7_.b.valid && s7_.b.sop) StageMember(s7_.p, tables_, &s7_.l);
    s6_ = s5_;
    if (s6_.b.valid && s6_.b.sop) StageCalendar(tables_, &s6_.l);
    s5_ = s4_;
    if (s5_.b.valid && s5_.b.sop) StageEpoch(s5_.p, tables_, &s5_.l);
    s4_ = s3_;
    if (s4_.b.valid && s4_.b.sop) StageEjfat(s4_.p, tables_, &s4_.l);
    s3_ = s2_;
    if (s3_.b.valid && s3_.b.sop) StageL3(s3_.p, tables_, &s3_.l);
    s2_ = s1_;
    if (s2_.b.valid && s2_.b.sop) s2_.l = StageL2(s2_.p, tables_, s2_.b.port);
    s1_ = FromLookahead();
    if (in_fire) {
      if (in_idx_ == 0) ++counters_.packets_in;
      h_ = HeldBeat{true, in_.s.beat, in_idx_, in_.s_port};
      in_idx_ = in_.s.beat.last ? 0 : static_cast<uint8_t>(std::min(in_idx_ + 1, 2));
    } else if (s1_.b.valid) {
      h_.valid = false;
    }
  } else if (skid_.valid) {
    if (in_.m_ready) {
      o_ = skid_;
      o_port_ = skid_port_;
      skid_.valid = false;
    }
  } else if (!o_.valid || in_.m_ready) {
    o_ = extra_;
    o_port_ = extra_port_;
    extra_.valid = false;
  }
  tables_.Apply(in_.cfg);
}

}  // namespace nettwin::lb::udplb
