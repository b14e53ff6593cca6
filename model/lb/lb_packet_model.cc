#include "model/lb/lb_packet_model.h"

#include <algorithm>

namespace nettwin::lb {

Rewrite Decide(const LbTables& t, const uint8_t* frame, int len) {
  ParseInfo p = Parse(frame, std::min(len, kParseWindow));
  MemberEntry member;
  if (p.reason == DropReason::kNone) {
    bool hit, drop;
    t.LookupFilter(p.key, &hit, &drop);
    if (!hit) p.reason = DropReason::kFilterMiss;
    else if (drop) p.reason = DropReason::kFilterDrop;
  }
  if (p.reason == DropReason::kNone) {
    const EpochHit e = t.LookupEpoch(p.tick);
    const int row = e.hit && !e.drop ? t.EpochRow(e.epoch) : -1;
    const int slot = static_cast<int>(p.tick % kCalendarSlots);
    if (!e.hit) p.reason = DropReason::kEpochMiss;
    else if (e.drop) p.reason = DropReason::kEpochDrop;
    else if (row < 0 || !t.Calendar(row, slot).valid) p.reason = DropReason::kCalendarMiss;
    else if (t.Calendar(row, slot).drop) p.reason = DropReason::kCalendarDrop;
    else {
      const uint16_t id = t.Calendar(row, slot).member;
      member = t.Member(MemberSlot(p.is_v6, id));
      if (!member.valid || member.tag != (id >> 9)) p.reason = DropReason::kMemberMiss;
      else if (member.drop) p.reason = DropReason::kMemberDrop;
    }
  }
  return ComputeRewrite(p, member);
}

Verdict ProcessPacket(const LbTables& t, const std::vector<uint8_t>& frame) {
  Verdict v;
  v.rewrite = Decide(t, frame.data(), static_cast<int>(frame.size()));
  if (v.rewrite.forward) v.out = ApplyRewrite(v.rewrite, frame);
  return v;
}

Rewrite LbPacketEngine::Process(const uint8_t* frame, int len) {
  while (left_ == 0 && seg_ < script_.size()) {
    for (const CfgWrite& w : script_[seg_].writes) tables_.Apply(w);
    left_ = script_[seg_].run_count;
    ++seg_;
  }
  if (left_ > 0) --left_;  // past the script's end (it always ends in a run-the-rest segment): keep the tables
  const Rewrite rw = Decide(tables_, frame, len);
  ++counters_.packets_in;
  if (rw.forward) ++counters_.packets_out;
  else ++counters_.drops[static_cast<int>(rw.reason)];
  return rw;
}

}  // namespace nettwin::lb
