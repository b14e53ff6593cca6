// The one stream interface shared by every block: 512-bit data, byte keep, last, valid/ready.
// Byte 0 of a frame is data byte 0 (AXI4-Stream lane order). keep is contiguous from byte 0 and all ones on
// every beat but the last; bytes outside keep are zero. The RTL ports have exactly these fields.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "nt_params.h"

namespace nettwin {

constexpr int kBeatBytes = static_cast<int>(params::kStreamBytes);

struct Beat {
  std::array<uint8_t, kBeatBytes> data{};
  uint64_t keep = 0;
  bool last = false;

  int Bytes() const { return __builtin_popcountll(keep); }
  bool operator==(const Beat& o) const { return data == o.data && keep == o.keep && last == o.last; }
  bool operator!=(const Beat& o) const { return !(*this == o); }
};

// One direction of a stream port for one cycle; ready travels the other way and lives in the block's ports.
struct StreamPort {
  bool valid = false;
  Beat beat;
  bool operator==(const StreamPort& o) const { return valid == o.valid && (!valid || beat == o.beat); }
};

inline uint64_t KeepMask(int n) { return n >= 64 ? ~uint64_t{0} : ((uint64_t{1} << n) - 1); }

// Splits a frame into beats. An empty frame becomes one beat with keep = 0 and last set, so the block still
// sees (and must account for) it.
std::vector<Beat> ToBeats(const std::vector<uint8_t>& bytes);
// Concatenates the kept bytes of beats.
void AppendBeat(const Beat& b, std::vector<uint8_t>* bytes);

}  // namespace nettwin
