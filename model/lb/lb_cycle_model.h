// Cycle-accurate model of rtl/lb/lb_top.sv. Same ports (LbIn/LbOut), same stages, same ready/valid
// behaviour; the harness steps it in lockstep with the Verilated RTL.
//
// Pipeline (docs/lb-microarchitecture.md):
//   H  lookahead: holds a beat until the next beat of its packet is offered (or it is the last), so every
//      beat leaves H together with the 12 bytes of its successor that the LB-header removal pulls in, and a
//      first beat leaves with the 128-byte window the parser needs
//   S1 parse   S2 filter CAM and epoch TCAM matches (every entry's)   S3 filter verdict + epoch TCAM winner
//   per group   S4 epoch reduce + calendar epoch row + calendar RAM (all rows at the slot)   S5 member RAM,
//   rewrite fields and checksum terms   S6 checksums folded   S7 rewrite held
//   O  output register (beat formed from S7: realigned, fields overwritten) with a skid register behind it
// All stages advance together while the skid register is empty; s_ready = skid empty (a register).
#pragma once

#include <array>
#include <cstdint>

#include "model/common/clocked_block.h"
#include "model/lb/lb_parse.h"
#include "model/lb/lb_rewrite.h"
#include "model/lb/lb_tables.h"
#include "model/lb/lb_types.h"

namespace nettwin::lb {

class LbCycleModel : public ClockedBlock<LbIn, LbOut> {
 public:
  void Reset() override;
  const LbOut& Eval(const LbIn& in) override;
  void Tick() override;

  const LbTables& tables() const { return tables_; }

 private:
  struct PipeBeat {
    bool valid = false;
    Beat beat;
    bool sop = false;
    uint8_t idx = 0;  // beat number within the packet, saturating at 2 (only beats 0 and 1 hold headers)
    std::array<uint8_t, kLbHdr> next12{};
    uint8_t next_n = 0;  // valid bytes of the successor beat
    bool fold = false;   // successor is the last beat and fits in the 12 bytes this beat pulls in
  };
  struct Stage {
    PipeBeat b;
    ParseInfo p;
    uint32_t flt_matches = 0;  // S2: the filter CAM's and the epoch TCAM's matching entries
    EpochMatch ep_matches{};
    std::array<EpochHit, kEpochGroups> groups{};
    EpochHit epoch;
    int row = -1;
    CalendarEntry cal;
    MemberEntry member;
    Rewrite rw;
  };
  struct HeldBeat {
    bool valid = false;
    Beat beat;
    uint8_t idx = 0;
  };

  // Each step updates its stage in place (the stages rotate through stage_, no Stage is copied).
  void FromLookahead(Stage* s) const;
  void Step2(Stage* s) const;
  void Step3(Stage* s) const;
  void Step4(Stage* s) const;
  void Step5(Stage* s) const;
  // Stage k (1..7) of the pipeline: a ring of seven, rotated by one slot each time the pipeline advances.
  Stage& S(int k) { return stage_[(head_ + kStages - (k - 1)) % kStages]; }
  const Stage& S(int k) const { return stage_[(head_ + kStages - (k - 1)) % kStages]; }
  static StreamPort Form(const PipeBeat& b, const Rewrite& rw);

  LbIn in_;
  LbOut out_;
  LbTables tables_;
  uint8_t in_idx_ = 0;
  HeldBeat h_;
  static constexpr int kStages = 7;
  std::array<Stage, kStages> stage_{};
  int head_ = 0;  // slot of S1
  Rewrite ctx_;  // rewrite of the packet whose non-first beats are leaving S7
  StreamPort o_, skid_;
  LbCounters counters_;
};

}  // namespace nettwin::lb
