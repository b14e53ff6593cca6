// Helpers of the Verilator differential harnesses (scripts/udplb_*_diff.sh): a seeded splitmix64 stream and
// a print of the 32-bit words where two wide outputs differ.
#ifndef NETTWIN_TB_COMMON_DIFF_HARNESS_H_
#define NETTWIN_TB_COMMON_DIFF_HARNESS_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>

namespace nt_diff {

inline uint64_t& State() {
  static uint64_t state = 1;
  return state;
}

inline uint64_t Next() {  // splitmix64
  uint64_t z = (State() += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

template <typename W>
void Fill(W& w) {
  for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); ++i) w[i] = static_cast<uint32_t>(Next());
}

// Prints the words of a Verilator wide value (VlWide) where old and new differ.
template <typename W>
void PrintDiff(const W& old_w, const W& new_w) {
  for (size_t k = 0; k < sizeof(old_w) / sizeof(old_w[0]); ++k) {
    if (old_w[k] != new_w[k]) std::printf("  word %zu: old %08x new %08x\n", k, old_w[k], new_w[k]);
  }
}

}  // namespace nt_diff

#endif  // NETTWIN_TB_COMMON_DIFF_HARNESS_H_
