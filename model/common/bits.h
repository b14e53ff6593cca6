// Fixed-width bit vectors for table-programming words and wide keys, with the same bit numbering as the
// SystemVerilog packed vectors they mirror (bit 0 = LSB of word 0).
#pragma once

#include <array>
#include <cstdint>

namespace nettwin {

struct U128 {
  uint64_t hi = 0;
  uint64_t lo = 0;
  bool operator==(const U128& o) const { return hi == o.hi && lo == o.lo; }
  bool operator!=(const U128& o) const { return !(*this == o); }
  uint16_t Word(int i) const {  // 16-bit word i counted from the most significant end (network order)
    const uint64_t half = i < 4 ? hi : lo;
    return static_cast<uint16_t>(half >> (48 - 16 * (i % 4)));
  }
};

template <int kBits>
class Bits {
 public:
  static constexpr int kWords = (kBits + 63) / 64;
  uint64_t Get(int lsb, int width) const {
    uint64_t v = 0;
    for (int i = 0; i < width; ++i) v |= uint64_t{Bit(lsb + i)} << i;
    return v;
  }
  void Set(int lsb, int width, uint64_t v) {
    for (int i = 0; i < width; ++i) SetBit(lsb + i, (v >> i) & 1);
  }
  U128 Get128(int lsb) const { return U128{Get(lsb + 64, 64), Get(lsb, 64)}; }
  void Set128(int lsb, const U128& v) {
    Set(lsb, 64, v.lo);
    Set(lsb + 64, 64, v.hi);
  }
  bool Bit(int i) const { return (w_[i / 64] >> (i % 64)) & 1; }
  void SetBit(int i, bool b) {
    if (b) {
      w_[i / 64] |= uint64_t{1} << (i % 64);
    } else {
      w_[i / 64] &= ~(uint64_t{1} << (i % 64));
    }
  }
  uint32_t Word32(int i) const { return static_cast<uint32_t>(w_[i / 2] >> (32 * (i % 2))); }
  void SetWord32(int i, uint32_t v) { Set(32 * i, 32, v); }
  bool operator==(const Bits& o) const { return w_ == o.w_; }

 private:
  std::array<uint64_t, kWords> w_{};
};

}  // namespace nettwin
