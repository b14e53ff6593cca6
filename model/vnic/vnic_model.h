// Cycle-accurate model of rtl/vnic/vnic_encap_top.sv and vnic_decap_top.sv (one class, a direction each).
// Same ports (VnicIn/VnicOut), same ready/valid behaviour and latency; the frame contents come from the
// packet-at-a-time functions of vnic_format.h, the RTL computes them beat by beat, lockstep compares them.
//
// Both directions are store and forward (docs/vnic-microarchitecture.md): the encapsulated header carries
// the packet length and decapsulation decides on ICRC, length and pad at the last byte. The write side
// stores beats in a VnicBufBeats buffer and, at a frame's last beat, drops it (rewinding the buffer) or
// queues a descriptor; the read side sends one beat per cycle from the descriptor at the head.
//   s_ready = buffer not full (stored beats, including the frame being written, < VnicBufBeats)
//             and fewer than VnicDescFifo descriptors waiting
//   m_valid = a descriptor is waiting; its first beat leaves the cycle after the input's last beat
#pragma once

#include <cstddef>
#include <deque>
#include <vector>

#include "model/common/clocked_block.h"
#include "model/vnic/vnic_types.h"

namespace nettwin::vnic {

class VnicModel : public ClockedBlock<VnicIn, VnicOut> {
 public:
  explicit VnicModel(Direction dir) : dir_(dir) {}
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
  Counters cnt_;
};

}  // namespace nettwin::vnic
