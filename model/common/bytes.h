// Big-endian field access on byte buffers: network headers are big-endian.
#pragma once

#include <cstddef>
#include <cstdint>

namespace nettwin {

inline uint16_t Load16(const uint8_t* p) { return static_cast<uint16_t>((p[0] << 8) | p[1]); }
inline uint32_t Load32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}
inline uint64_t Load64(const uint8_t* p) {
  return (uint64_t{Load32(p)} << 32) | Load32(p + 4);
}
inline void Store16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}
inline void Store32(uint8_t* p, uint32_t v) {
  Store16(p, static_cast<uint16_t>(v >> 16));
  Store16(p + 2, static_cast<uint16_t>(v));
}
// Host memory of an x86 host is little-endian: 64-bit atomic operands are stored least significant first.
inline uint64_t LoadLe64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
inline void StoreLe64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline uint64_t LoadBe(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v = (v << 8) | p[i];
  return v;
}
inline void StoreBe(uint8_t* p, size_t n, uint64_t v) {
  for (size_t i = n; i-- > 0;) {
    p[i] = static_cast<uint8_t>(v);
    v >>= 8;
  }
}

}  // namespace nettwin
