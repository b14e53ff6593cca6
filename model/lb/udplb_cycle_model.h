// Cycle-accurate model of rtl/lb/udplb_top.sv (the udplb program). Same ports (UdplbIn/UdplbOut), same stages,
// same ready/valid behaviour; the harness steps it in lockstep with the Verilated RTL.
//
// Pipeline (docs/lb-microarchitecture.md "udplb_top micro-architecture"):
//   H  lookahead: holds a beat until its successor is offered (or it is last); a beat leaves H with the first
//      48 bytes of its successor, a first beat also with the two-beat window the parser reads
//   S1 parse  S2 L2 iface  S3 MAC DA + IP DA filters  S4 ip_sa, source filters, L3 answers, epoch TCAM groups
//   S5 epoch reduce, slot, epoch map  S6 calendar RAM  S7 member RAM  S8 output header bytes and checksums
//   O  output register (beat formed from S8: shifted by Li - Lo, header bytes overlaid) + skid register;
//      an extra output beat (a frame that grows past its last input beat) holds the pipeline one cycle.
#pragma once

#include <array>
#include <cstdint>

#include "model/common/clocked_block.h"
#include "model/lb/udplb_stages.h"

namespace nettwin::lb::udplb {

constexpr int kNext = 48;  // successor bytes a beat carries: the largest shift (d = 48) reads that far

class UdplbCycleModel : public ClockedBlock<UdplbIn, UdplbOut> {
 public:
  void Reset() override;
  const UdplbOut& Eval(const UdplbIn& in) override;
  void Tick() override;

  const UdplbTables& tables() const { return tables_; }

 private:
  struct PipeBeat {
    bool valid = false;
    Beat beat;
    bool sop = false;
    uint8_t idx = 0;  // beat number within the frame, saturating at 2 (only beats 0 and 1 hold header bytes)
    uint8_t port = 0;
    std::array<uint8_t, kNext> next{};
    uint8_t next_n = 0;  // valid bytes of the successor beat (0: this beat is last)
    bool next_last = false;
  };
  struct Stage {
    PipeBeat b;
    Parsed p;
    Lookup l;
    Verdict v;
  };
  struct HeldBeat {
    bool valid = false;
    Beat beat;
    uint8_t idx = 0, port = 0;
  };
  struct Formed {
    StreamPort beat, extra;
  };

  Stage FromLookahead() const;
  static Formed Form(const PipeBeat& b, const Verdict& v, const std::array<uint8_t, kBeatBytes>& prev);

  UdplbIn in_;
  UdplbOut out_;
  UdplbTables tables_;
  uint8_t in_idx_ = 0;
  HeldBeat h_;
  Stage s1_, s2_, s3_, s4_, s5_, s6_, s7_, s8_;
  Verdict ctx_;  // verdict of the frame whose beats are leaving S8
  uint8_t ctx_port_ = 0;
  std::array<uint8_t, kBeatBytes> prev_{};  // the previous beat of that frame
  StreamPort o_, skid_, extra_;
  uint8_t o_port_ = 0, skid_port_ = 0, extra_port_ = 0;
  UdplbCounters counters_;
};

}  // namespace nettwin::lb::udplb
