// CRC-32 (IEEE 802.3 polynomial, reflected, as zlib.crc32) for the InfiniBand ICRC.
#pragma once

#include <cstdint>

namespace nettwin {

// Running register, without the final inversion: start at 0xFFFFFFFF, finish with ~.
inline uint32_t Crc32Byte(uint32_t crc, uint8_t b) {
  crc ^= b;
  for (int i = 0; i < 8; ++i) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  return crc;
}

}  // namespace nettwin
