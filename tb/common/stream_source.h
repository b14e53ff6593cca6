// Drives a stream input from a list of frames: back to back, with random idle cycles (`gap` probability),
// or at the frames' own arrival cycles (timed). Valid never drops before its beat is accepted.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "model/common/packet.h"
#include "model/common/stream.h"

namespace nettwin::tb {

class StreamSource {
 public:
  StreamSource(const std::vector<Packet>* packets, double gap, uint64_t seed, bool timed, double clock_mhz)
      : packets_(packets), gap_(gap), rng_(seed), timed_(timed), clock_mhz_(clock_mhz) {}

  // Drives this cycle's port. `may_start` false holds back the next frame (a side channel is busy).
  void Drive(uint64_t cycle, bool may_start, StreamPort* port);
  // Called after the cycle with the block's ready.
  void Observe(uint64_t cycle, bool ready);

  bool Done() const { return next_ >= packets_->size() && beats_.empty(); }
  // Index of the frame now being offered, or else of the next one to start; also the number of frames
  // whose every beat has been accepted.
  size_t current() const { return beats_.empty() ? next_ : next_ - 1; }
  uint64_t in_beats() const { return in_beats_; }
  uint64_t stall_cycles() const { return stall_cycles_; }
  uint64_t ArrivalCycle(size_t i) const;
  const std::vector<uint64_t>& first_beat_cycles() const { return first_cycles_; }
  const std::vector<uint64_t>& last_beat_cycles() const { return last_cycles_; }

 private:
  const std::vector<Packet>* packets_;
  double gap_;
  std::mt19937_64 rng_;
  bool timed_;
  double clock_mhz_;
  size_t next_ = 0;
  std::vector<Beat> beats_;
  size_t beat_ = 0;
  bool presenting_ = false;
  uint64_t in_beats_ = 0, stall_cycles_ = 0;
  std::vector<uint64_t> first_cycles_, last_cycles_;
};

}  // namespace nettwin::tb
