// A frame as it appears on the wire (no FCS) with its arrival or departure time.
#pragma once

#include <cstdint>
#include <vector>

namespace nettwin {

struct Packet {
  std::vector<uint8_t> bytes;
  uint64_t time_ns = 0;
};

}  // namespace nettwin
