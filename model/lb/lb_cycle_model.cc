#include "model/lb/lb_cycle_model.h"

#include <algorithm>
#include <cstring>

namespace nettwin::lb {

void LbCycleModel::Reset() { *this = LbCycleModel(); }

const LbOut& LbCycleModel::Eval(const LbIn& in) {
  in_ = in;
  out_.s_ready = !skid_.valid;
  out_.m = o_;
  out_.counters = counters_;
  return out_;
}

void LbCycleModel::FromLookahead(Stage* s) const {
  const bool emit = h_.valid && (h_.beat.last || in_.s.valid);
  PipeBeat& b = s->b;
  b = PipeBeat();
  if (!emit) return;
  b.valid = true;
  b.beat = h_.beat;
  b.idx = h_.idx;
  b.sop = h_.idx == 0;
  if (!h_.beat.last) {
    const Beat& nx = in_.s.beat;
    std::copy_n(nx.data.begin(), kLbHdr, b.next12.begin());
    b.next_n = static_cast<uint8_t>(nx.Bytes());
    b.fold = nx.last && b.next_n <= kLbHdr;
  }
  if (!b.sop) return;  // a later beat: the rest of the stage is only read for first beats
  const PipeBeat beat = b;
  *s = Stage();
  s->b = beat;
  uint8_t window[kParseWindow] = {};
  std::copy(h_.beat.data.begin(), h_.beat.data.end(), window);
  int len = h_.beat.Bytes();
  if (!h_.beat.last) {
    std::copy(in_.s.beat.data.begin(), in_.s.beat.data.end(), window + kBeatBytes);
    len = kBeatBytes + in_.s.beat.Bytes();
  }
  s->p = Parse(window, len);
}

// The RTL searches only for a clean parse (its lookup in S1); an unclean one keeps its reason, so what the
// searches would answer for it is never read.
void LbCycleModel::Step2(Stage* s) const {
  if (!s->b.valid || !s->b.sop || s->p.reason != DropReason::kNone) return;
  s->flt_matches = tables_.FilterMatches(s->p.key);
  s->ep_matches = tables_.EpochMatches(s->p.tick);
}

// The selections read the table as it is a cycle after the matches (RTL: lb_tables' flt_match_q, ep_match_q).
void LbCycleModel::Step3(Stage* s) const {
  if (!s->b.valid || !s->b.sop || s->p.reason != DropReason::kNone) return;
  bool hit, drop;
  tables_.FilterSelect(s->flt_matches, &hit, &drop);
  if (!hit) s->p.reason = DropReason::kFilterMiss;
  else if (drop) s->p.reason = DropReason::kFilterDrop;
  if (s->p.reason == DropReason::kNone) s->groups = tables_.EpochGroupsOf(s->ep_matches);
}

// The calendar's four rows are read at the slot in the same cycle as the epoch map is looked up (RTL: S3's
// read address), so the row's entry is the one of this cycle's table.
void LbCycleModel::Step4(Stage* s) const {
  if (!s->b.valid || !s->b.sop || s->p.reason != DropReason::kNone) return;
  s->epoch = LbTables::ReduceEpoch(s->groups);
  s->row = tables_.EpochRow(s->epoch.epoch);
  if (!s->epoch.hit) s->p.reason = DropReason::kEpochMiss;
  else if (s->epoch.drop) s->p.reason = DropReason::kEpochDrop;
  if (s->p.reason == DropReason::kNone) {
    if (s->row < 0) {
      s->p.reason = DropReason::kCalendarMiss;
    } else {
      s->cal = tables_.Calendar(s->row, static_cast<int>(s->p.tick % kCalendarSlots));
      if (!s->cal.valid) s->p.reason = DropReason::kCalendarMiss;
      else if (s->cal.drop) s->p.reason = DropReason::kCalendarDrop;
    }
  }
}

void LbCycleModel::Step5(Stage* s) const {
  if (!s->b.valid || !s->b.sop) return;
  if (s->p.reason == DropReason::kNone) {
    s->member = tables_.Member(MemberSlot(s->p.is_v6, s->cal.member));
    if (!s->member.valid || s->member.tag != (s->cal.member >> 9)) s->p.reason = DropReason::kMemberMiss;
    else if (s->member.drop) s->p.reason = DropReason::kMemberDrop;
  }
}

StreamPort LbCycleModel::Form(const PipeBeat& b, const Rewrite& rw) {
  StreamPort o;
  if (!b.valid || !rw.forward) return o;
  const int n = b.beat.Bytes();
  if (b.beat.last && n <= kLbHdr) return o;  // its bytes already left with the previous beat
  const int out_n = b.beat.last ? n - kLbHdr : (b.fold ? kBeatBytes - kLbHdr + b.next_n : kBeatBytes);
  const int base = kBeatBytes * b.idx;
  // Bytes before the LB header as they are, the rest from 12 further on (the beat, then its successor's
  // first 12 bytes): three block copies rather than a byte loop (docs/PERF.md).
  const int lo = std::clamp(rw.lb_off() - base, 0, out_n);
  const int mid = std::max(lo, std::min(out_n, kBeatBytes - kLbHdr));
  uint8_t* out = o.beat.data.data();
  std::memcpy(out, b.beat.data.data(), static_cast<size_t>(lo));
  if (mid > lo) std::memcpy(out + lo, b.beat.data.data() + lo + kLbHdr, static_cast<size_t>(mid - lo));
  if (out_n > mid) {
    std::memcpy(out + mid, b.next12.data() + (mid + kLbHdr - kBeatBytes), static_cast<size_t>(out_n - mid));
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
    const Stage& s7 = S(7);
    const Rewrite& rw = s7.b.sop ? s7.rw : ctx_;
    const StreamPort formed = Form(s7.b, rw);
    if (s7.b.valid && s7.b.sop) {
      ctx_ = s7.rw;
      if (!s7.rw.forward) ++counters_.drops[static_cast<int>(s7.rw.reason)];
    }
    if (o_.valid && !in_.m_ready) {
      skid_ = formed;
    } else {
      o_ = formed;
    }
    // Rotate: S6's slot becomes S7 and so on; S7's old slot becomes the new S1. The RTL computes the
    // rewrite over S5 (fields, checksum terms in carry-save pairs) and S6 (the checksums folded); it reads
    // nothing but the stage's own parse and member entry, so it is computed here once, as S7 is entered.
    head_ = (head_ + 1) % kStages;
    Stage& n7 = S(7);
    if (n7.b.valid && n7.b.sop) n7.rw = ComputeRewrite(n7.p, n7.member);
    Step5(&S(5));
    Step4(&S(4));
    Step3(&S(3));
    Step2(&S(2));
    FromLookahead(&S(1));
    if (in_fire) {
      if (in_idx_ == 0) ++counters_.packets_in;
      h_ = HeldBeat{true, in_.s.beat, in_idx_};
      in_idx_ = in_.s.beat.last ? 0 : static_cast<uint8_t>(std::min(in_idx_ + 1, 2));
    } else if (S(1).b.valid) {
      h_.valid = false;
    }
  } else if (in_.m_ready) {
    o_ = skid_;
    skid_.valid = false;
  }
  tables_.Apply(in_.cfg);
}

}  // namespace nettwin::lb
