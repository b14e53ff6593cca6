#include "model/lb/udplb_engine.h"

#include <algorithm>

namespace nettwin::lb::udplb {

FrameResult ProcessFrame(const UdplbTables& t, const std::vector<uint8_t>& frame, uint8_t in_port) {
  uint8_t w[kParseWindow] = {};
  const int len = static_cast<int>(frame.size());
  std::copy_n(frame.begin(), std::min(len, kParseWindow), w);
  const Parsed p = Parse(w, std::min(len, kParseWindow));
  Lookup l = StageL2(p, t, in_port);
  StageL3(p, t, &l);
  StageEjfat(p, t, &l);
  StageEpoch(p, t, &l);
  StageCalendar(t, &l);
  StageMember(p, t, &l);
  std::fill(w + std::min(len, kMaxExtract), w + kParseWindow, 0);  // S8 sees beat 0 and 48 bytes of beat 1
  FrameResult r;
  r.verdict = BuildVerdict(p, l, w);
  if (r.verdict.kind != Kind::kDrop) {
    r.out.assign(r.verdict.hdr.begin(), r.verdict.hdr.begin() + r.verdict.lo);
    r.out.insert(r.out.end(), frame.begin() + p.li, frame.end());
  }
  return r;
}

FrameResult UdplbPacketEngine::Process(const std::vector<uint8_t>& frame) {
  while (left_ == 0 && seg_ < script_.size()) {
    for (const CfgWrite& w : script_[seg_].writes) tables_.Apply(w);
    left_ = script_[seg_].run_count;
    ++seg_;
  }
  if (left_ > 0) --left_;
  ++counters_.packets_in;
  FrameResult r = ProcessFrame(tables_, frame, port_);
  CountVerdict(r.verdict, &counters_);
  if (r.verdict.kind != Kind::kDrop) ++counters_.packets_out;
  return r;
}

}  // namespace nettwin::lb::udplb
