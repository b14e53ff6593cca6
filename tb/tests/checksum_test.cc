#include <gtest/gtest.h>

#include <random>

#include "model/common/checksum.h"

namespace nettwin {
namespace {

TEST(Checksum, OnesAddWrapsTheCarryAround) {
  EXPECT_EQ(OnesAdd(0xFFFF, 0x0001), 0x0001);
  EXPECT_EQ(OnesAdd(0x8000, 0x8000), 0x0001);
  EXPECT_EQ(OnesAdd(0xFFFF, 0xFFFF), 0xFFFF);
  EXPECT_EQ(OnesAdd(0, 0), 0);
}

// RFC 1624's example: a checksum updated incrementally equals the one recomputed from scratch.
TEST(Checksum, IncrementalUpdateMatchesRecomputation) {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 20000; ++iter) {
    uint8_t hdr[20];
    for (auto& b : hdr) b = static_cast<uint8_t>(rng());
    hdr[10] = hdr[11] = 0;
    const uint16_t c = static_cast<uint16_t>(~OnesSum(hdr, 20));
    const int w = 2 * static_cast<int>(rng() % 10);
    if (w == 10) continue;  // the checksum field itself
    const uint16_t old_w = static_cast<uint16_t>((hdr[w] << 8) | hdr[w + 1]);
    const uint16_t new_w = static_cast<uint16_t>(rng());
    hdr[w] = static_cast<uint8_t>(new_w >> 8);
    hdr[w + 1] = static_cast<uint8_t>(new_w);
    ChecksumDelta d;
    d.Replace(old_w, new_w);
    const uint16_t inc = d.Apply(c);
    const uint16_t full = static_cast<uint16_t>(~OnesSum(hdr, 20));
    // Both are valid checksums: verifying the header sums to 0xFFFF (or 0x0000 only for an all-zero header).
    hdr[10] = static_cast<uint8_t>(inc >> 8);
    hdr[11] = static_cast<uint8_t>(inc);
    EXPECT_EQ(OnesSum(hdr, 20), 0xFFFF) << "iter " << iter;
    EXPECT_TRUE(inc == full || (inc ^ full) == 0xFFFF) << std::hex << inc << " vs " << full;
  }
}

TEST(Checksum, RemovingWordsEqualsRecomputationWithoutThem) {
  const uint8_t data[8] = {0x12, 0x34, 0xAB, 0xCD, 0x00, 0x01, 0xFF, 0xFE};
  const uint16_t c_all = static_cast<uint16_t>(~OnesSum(data, 8));
  ChecksumDelta d;
  d.Remove(0xABCD);
  d.Remove(0x0001);
  const uint8_t rest[4] = {0x12, 0x34, 0xFF, 0xFE};
  EXPECT_EQ(d.Apply(c_all), static_cast<uint16_t>(~OnesSum(rest, 4)));
}

}  // namespace
}  // namespace nettwin
