#include "model/lb/lb_cycle_model.h"

#include <algorithm>

namespace nettwin::lb {

void LbCycleModel::Reset() { *this = LbCycleModel(); }

const LbOut& LbCycleModel::Eval(const LbIn& in) {
  in_ = in;
  out_.s_ready = !skid_.valid;
  out_.m = o_;
  out_.counters = counters_;
  return out_;
}

LbCycleModel::Stage LbCycleModel::FromLookahead() const {
  Stage s;
  const bool emit = h_.valid && (h_.beat.last || in_.s.valid);
  if (!emit) return s;
  PipeBeat& b = s.b;
  b.valid = true;
  b.beat = h_.beat;
  b.idx = h_.idx;
  b.sop = h_.idx == 0;
  uint8_t window[kParseWindow] = {};
  std::copy(h_.beat.data.begin(), h_.beat.data.end(), window);
  int len = h_.beat.Bytes();
  if (!h_.beat.last) {
    const Beat& nx = in_.s.beat;
    std::copy_n(nx.data.begin(), kLbHdr, b.next12.begin());
    b.next_n = static_cast<uint8_t>(nx.Bytes());
    b.fold = nx.last && b.next_n <= kLbHdr;
    std::copy(nx.data.begin(), nx.data.end(), window + kBeatBytes);
    len = kBeatBytes + nx.Bytes();
  }
  if (b.sop) s.p = Parse(window, len);
  return s;
}

LbCycleModel::Stage LbCycleModel::Step2(Stage s) const {
  if (!s.b.valid || !s.b.sop) return s;
  if (s.p.reason == DropReason::kNone) {
    bool hit, drop;
    tables_.LookupFilter(s.p.key, &hit, &drop);
    if (!hit) s.p.reason = DropReason::kFilterMiss;
    else if (drop) s.p.reason = DropReason::kFilterDrop;
  }
  s.groups = tables_.EpochGroups(s.p.tick);
  return s;
}

LbCycleModel::Stage LbCycleModel::Step3(Stage s) const {
  if (!s.b.valid || !s.b.sop) return s;
  s.epoch = LbTables::ReduceEpoch(s.groups);
  s.row = tables_.EpochRow(s.epoch.epoch);
  if (s.p.reason == DropReason::kNone) {
    if (!s.epoch.hit) s.p.reason = DropReason::kEpochMiss;
    else if (s.epoch.drop) s.p.reason = DropReason::kEpochDrop;
  }
  return s;
}

LbCycleModel::Stage LbCycleModel::Step4(Stage s) const {
  if (!s.b.valid || !s.b.sop) return s;
  if (s.p.reason == DropReason::kNone) {
    if (s.row < 0) {
      s.p.reason = DropReason::kCalendarMiss;
    } else {
      s.cal = tables_.Calendar(s.row, static_cast<int>(s.p.tick % kCalendarSlots));
      if (!s.cal.valid) s.p.reason = DropReason::kCalendarMiss;
      else if (s.cal.drop) s.p.reason = DropReason::kCalendarDrop;
    }
  }
  return s;
}

LbCycleModel::Stage LbCycleModel::Step5(Stage s) const {
  if (!s.b.valid || !s.b.sop) return s;
  if (s.p.reason == DropReason::kNone) {
    s.member = tables_.Member(MemberSlot(s.p.is_v6, s.cal.member));
    if (!s.member.valid || s.member.tag != (s.cal.member >> 9)) s.p.reason = DropReason::kMemberMiss;
    else if (s.member.drop) s.p.reason = DropReason::kMemberDrop;
  }
  return s;
}

StreamPort LbCycleModel::Form(const PipeBeat& b, const Rewrite& rw) {
  StreamPort o;
  if (!b.valid || !rw.forward) return o;
  const int n = b.beat.Bytes();
  if (b.beat.last && n <= kLbHdr) return o;  // its bytes already left with the previous beat
  const int out_n = b.beat.last ? n - kLbHdr : (b.fold ? kBeatBytes - kLbHdr + b.next_n : kBeatBytes);
  const int base = kBeatBytes * b.idx;
  for (int i = 0; i < out_n; ++i) {
    if (base + i < rw.lb_off()) {
      o.beat.data[i] = b.beat.data[i];
    } else {
      const int src = i + kLbHdr;
      o.beat.data[i] = src < kBeatBytes ? b.beat.data[src] : b.next12[src - kBeatBytes];
    }
  }
  OverwriteFields(rw, base, o.beat.data.data(), out_n);
  o.valid = true;
  o.beat.keep = KeepMask(out_n);
  o.beat.last = b.beat.last || b.fold;
  return o;
}

void LbCycleModel::Tick() {
  const bool adv = !skid_.valid;
  const bool out_fire = o_.valid && in_.m_ready;
  if (out_fire && o_.beat.last) ++counters_.packets_out;
  if (adv) {
    const bool in_fire = in_.s.valid;  // s_ready == adv
    const Rewrite& rw = s6_.b.sop ? s6_.rw : ctx_;
    const StreamPort formed = Form(s6_.b, rw);
    if (s6_.b.valid && s6_.b.sop) {
      ctx_ = s6_.rw;
      if (!s6_.rw.forward) ++counters_.drops[static_cast<int>(s6_.rw.reason)];
    }
    if (o_.valid && !in_.m_ready) {
      skid_ = formed;
    } else {
      o_ = formed;
    }
    Stage s6 = s5_;
    if (s6.b.valid && s6.b.sop) s6.rw = ComputeRewrite(s6.p, s6.member);
    s6_ = s6;
    s5_ = Step5(s4_);
    s4_ = Step4(s3_);
    s3_ = Step3(s2_);
    s2_ = Step2(s1_);
    s1_ = FromLookahead();
    if (in_fire) {
      if (in_idx_ == 0) ++counters_.packets_in;
      h_ = HeldBeat{true, in_.s.beat, in_idx_};
      in_idx_ = in_.s.beat.last ? 0 : static_cast<uint8_t>(std::min(in_idx_ + 1, 2));
    } else if (s1_.b.valid) {
      h_.valid = false;
    }
  } else if (in_.m_ready) {
    o_ = skid_;
    skid_.valid = false;
  }
  tables_.Apply(in_.cfg);
}

}  // namespace nettwin::lb
