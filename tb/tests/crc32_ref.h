// CRC-32 (IEEE 802.3, reflected 0xEDB88320, as zlib.crc32), bit by bit: the tests' independent reference for
// the CRC kernels, written here so no expected value comes from the code under test (known-answer checked
// in NaaRpc.Crc32ReferenceKnownAnswer and NaaCtl's kernel test).
#pragma once

#include <cstdint>
#include <vector>

namespace nettwin::test {

inline uint32_t Crc32(const std::vector<uint8_t>& d) {
  uint32_t c = 0xFFFFFFFFu;
  for (uint8_t b : d) {
    c ^= b;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
  }
  return ~c;
}

}  // namespace nettwin::test
