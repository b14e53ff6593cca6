// Cycle-accurate model of rtl/vnic/vnic_encap_top.sv and vnic_decap_top.sv (one class, a direction each).
// Same ports (VnicIn/VnicOut), same ready/valid behaviour and latency; the frame contents come from the
// packet-at-a-time functions of vnic_format.h, the RTL computes them beat by beat, lockstep compares them.
//
// Both directions are store and forward (docs/vnic-microarchitecture.md): the encapsulated header carries
// the packet length and decapsulation decides on ICRC, length and pad at the last byte. The write side
// stores beats in a VnicBufBeats buffer and, at a frame's last beat, drops it (rewinding the buffer) or
// queues a descriptor; the read side sends one beat per cycle from the descriptor at the head.
//   ready   = buffer not full (stored beats, including the frame being written, < VnicBufBeats)
//             and fewer than VnicDescFifo descriptors waiting
//   head    = a descriptor is waiting; the read side is at beat k_ of it
// Register stages (docs/vnic-microarchitecture.md "ICRC pipeline", "Input register"):
//   both directions: an input register. s_ready = it is empty or `ready`; its beat is written into the
//     buffer (as the input beat was before) when `ready`.
//   encapsulation: also an output register. The head beat moves into it when it is empty or its beat is
//     taken (then the head frame's buffer beats are released at its last beat); m_valid = the register is
//     full; the first beat leaves three cycles after the input's last beat; `out` counts at the last beat's
//     output.
//   decapsulation: m_valid = head; the first beat leaves two cycles after the input's last.
#pragma once

#include <cstddef>
#include <deque>
#include <vector>

#include "model/common/clocked_block.h"
#include "model/vnic/vnic_types.h"

namespace nettwin::vnic {

class VnicCycleModel : public ClockedBlock<VnicIn, VnicOut> {
 public:
  explicit VnicCycleModel(Direction dir) : dir_(dir) {}
  void Reset() override;
  const VnicOut& Eval(const VnicIn& in) override;
  void Tick() override;

 private:
  struct Desc {
    std::vector<uint8_t> bytes;  // the output frame
    int in_beats = 0;            // buffer beats it occupies
    uint8_t port = 0;
  };
  void EndOfFrame();
  void Accept(const Beat& beat, uint8_t s_port);

  struct Held {  // a beat in a register stage
    bool valid = false;
    Beat beat;
    uint8_t port = 0;
  };

  Direction dir_;
  Tables tables_;
  VnicIn in_;
  VnicOut out_;
  int used_ = 0;     // buffer beats in use, including the frame being written
  int written_ = 0;  // beats of the current frame stored (at most VnicMaxBeats)
  bool sop_ = true;
  uint8_t port_ = 0;
  std::vector<uint8_t> cur_;
  std::deque<Desc> desc_;
  size_t k_ = 0;  // beat of the head descriptor being sent
  Held in_reg_;   // the input register
  Held out_reg_;  // encapsulation: the output register
  Held head_;     // the head frame's beat k_ (valid: a descriptor is waiting), as of Eval
  bool ready_ = false;    // as of Eval: the buffer takes a beat
  bool advance_ = false;  // as of Eval: the read side moves past beat k_ at this edge
  Counters cnt_;
};

}  // namespace nettwin::vnic
