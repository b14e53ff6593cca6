// Receives a stream output: drives ready (not ready in a random `backpressure` fraction of cycles) and
// reassembles frames, stamping each with the cycle of its first beat.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "model/common/packet.h"
#include "model/common/stream.h"

namespace nettwin::tb {

class StreamSink {
 public:
  StreamSink(double backpressure, uint64_t seed) : backpressure_(backpressure), rng_(seed) {}

  bool Ready() {
    ready_ = !(backpressure_ > 0 && std::uniform_real_distribution<double>(0, 1)(rng_) < backpressure_);
    return ready_;
  }
  void Observe(uint64_t cycle, const StreamPort& port);

  std::vector<Packet>& frames() { return frames_; }
  const std::vector<uint64_t>& first_beat_cycles() const { return first_cycles_; }
  uint64_t out_beats() const { return out_beats_; }
  size_t frames_done() const { return frames_.size(); }
  size_t beat_in_frame() const { return cur_.size() / kBeatBytes; }

 private:
  double backpressure_;
  std::mt19937_64 rng_;
  bool ready_ = true;
  std::vector<uint8_t> cur_;
  bool in_frame_ = false;
  uint64_t out_beats_ = 0;
  std::vector<Packet> frames_;
  std::vector<uint64_t> first_cycles_;
};

}  // namespace nettwin::tb
