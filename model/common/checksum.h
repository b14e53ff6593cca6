// One's-complement Internet checksum arithmetic (RFC 1071) and incremental update (RFC 1624).
#pragma once

#include <cstddef>
#include <cstdint>

namespace nettwin {

// End-around-carry addition; 0xFFFF and 0x0000 both stand for zero, as in RFC 1071.
inline uint16_t OnesAdd(uint16_t a, uint16_t b) {
  uint32_t s = uint32_t{a} + b;
  return static_cast<uint16_t>((s & 0xFFFF) + (s >> 16));
}

// Accumulates the sum of (~old + new) over changed words; Apply() gives RFC 1624 eqn. 3:
// HC' = ~(~HC + ~m + m'). Removed words are Remove(w) (their new value is zero).
class ChecksumDelta {
 public:
  void Replace(uint16_t old_word, uint16_t new_word) {
    sum_ = OnesAdd(OnesAdd(sum_, static_cast<uint16_t>(~old_word)), new_word);
  }
  void Remove(uint16_t old_word) { sum_ = OnesAdd(sum_, static_cast<uint16_t>(~old_word)); }
  void Add(const ChecksumDelta& other) { sum_ = OnesAdd(sum_, other.sum_); }
  uint16_t Apply(uint16_t checksum) const {
    return static_cast<uint16_t>(~OnesAdd(static_cast<uint16_t>(~checksum), sum_));
  }
  uint16_t sum() const { return sum_; }

 private:
  uint16_t sum_ = 0;
};

// One's-complement sum of a byte range (odd length padded with a zero byte), not inverted.
inline uint16_t OnesSum(const uint8_t* p, size_t n, uint16_t start = 0) {
  uint16_t s = start;
  for (size_t i = 0; i + 1 < n; i += 2) s = OnesAdd(s, static_cast<uint16_t>((p[i] << 8) | p[i + 1]));
  if (n & 1) s = OnesAdd(s, static_cast<uint16_t>(p[n - 1] << 8));
  return s;
}

}  // namespace nettwin
