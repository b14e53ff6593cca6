// Known-answer tests of the primitives every block and every C++ test builds on: the ones' complement sum
// (RFC 1071), CRC-32 and CRC-16/CCITT-FALSE (their catalogue check values) and the RoCEv2 ICRC (frames and
// ICRCs computed by Scapy's BTH.compute_icrc). Test frames are built and checked with these functions, so
// they must be right on their own, not only agree with each other.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/common/checksum.h"
#include "model/common/crc32.h"
#include "model/common/stream.h"
#include "model/rdma/rdma_packet.h"
#include "model/reorder/reorder_frame.h"

namespace nettwin {
namespace {

std::vector<uint8_t> FromHex(const std::string& h) {
  std::vector<uint8_t> v;
  for (size_t i = 0; i + 1 < h.size(); i += 2) v.push_back(static_cast<uint8_t>(std::stoi(h.substr(i, 2), nullptr, 16)));
  return v;
}

// RFC 1071 section 3's worked example: the words 0001 f203 f4f5 f6f7 sum to ddf2 (checksum 220d).
TEST(PrimitivesKat, OnesSumRfc1071Example) {
  const uint8_t data[8] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
  EXPECT_EQ(OnesSum(data, 8), 0xddf2);
  EXPECT_EQ(static_cast<uint16_t>(~OnesSum(data, 8)), 0x220d);
  // Odd length: the last byte is padded with a zero byte on the right (RFC 1071 section 4.1).
  const uint8_t odd[3] = {0x12, 0x34, 0x56};
  EXPECT_EQ(OnesSum(odd, 3), 0x1234 + 0x5600);
}

// A captured IPv4 header (192.168.0.1 -> 192.168.0.199, checksum b861): it verifies, and recomputing
// its checksum with the field zeroed gives b861 again.
TEST(PrimitivesKat, OnesSumOfARealIpv4Header) {
  auto h = FromHex("4500007300004000" "4011b861c0a80001" "c0a800c7");
  ASSERT_EQ(h.size(), 20u);
  EXPECT_EQ(OnesSum(h.data(), h.size()), 0xFFFF);
  h[10] = h[11] = 0;
  EXPECT_EQ(static_cast<uint16_t>(~OnesSum(h.data(), h.size())), 0xb861);
}

// The CRC catalogue's check value: CRC-32 (IEEE, as zlib.crc32) of "123456789" is cbf43926.
TEST(PrimitivesKat, Crc32CheckValue) {
  uint32_t crc = 0xFFFFFFFFu;
  for (char c : std::string("123456789")) crc = Crc32Byte(crc, static_cast<uint8_t>(c));
  EXPECT_EQ(~crc, 0xCBF43926u);
}

// CRC-16/CCITT-FALSE (poly 1021, init ffff, no reflection) of "123456789" is 29b1.
TEST(PrimitivesKat, Crc16CcittFalseCheckValue) {
  const std::string s = "123456789";
  EXPECT_EQ(reorder::Crc16CcittFalse(reinterpret_cast<const uint8_t*>(s.data()), s.size()), 0x29B1);
}

// RoCEv2 IPv4 frames built by Scapy (scapy.contrib.roce): Ether/IP/UDP(4791)/BTH/payload with the ICRC
// Scapy computed. The middle one has TOS, TTL and a UDP checksum set (all masked to ones in the ICRC);
// the last one spans five 64-byte beats.
TEST(PrimitivesKat, IcrcEqualsScapy) {
  const char* frames[] = {
    "02000000000102000000000208004500005800014000401126920a0000020a000001c00012b7004416580a00ffff0000001180123456000102030405060708090a0b0c0d0e0f00000000000000000000000000000000000000000000000000000000e3fa279f",
    "0200000000010200000000020800452b0030000140001111558f0a0000020a000001c00012b7001c447e1100ffff0000002280ffffff00000000e3f25e69",
    "020000000001020000000002080045fe012800014000011163c40a0000020a000001c00012b7011472020a00ffff00000011800000016a0512507a081c4bbc7a3badeeb68fc886b07569b5a0729cd776e9d6fa28ecb8e0a1e6cf21fb096447580892fd4d333bca1825ef97cd765bb528789e9f54a2c6f3ace2258bf2483bfcc7c007852f932015e61e8251fff6ff161ff229ec76e5822b041caac2deb11c9ae49f0fdcc507b2c60149807fffa9a67ca1fba301b573ae1e5837ccab41ab32a1afeaf73ec902334fec5164a4bccf773bef50adebd00e8bac428bb65f1eee6c3222806924e35275a4501cbcd673d657be4b58f5f2efef57dd23d88ce27e0ce7aacf561101ebe30face6ed86c7e8e2cf3f55a0e6f5a9ef2b6d7057cc37cca9a5e6825a8ad43d9b708a5385944de57b4cf63d7c6e605345e3",
  };
  for (const char* hex : frames) {
    const std::vector<uint8_t> f = FromHex(hex);
    const int len = static_cast<int>(f.size());
    const uint32_t crc = rdma::FrameIcrc(f, len - 4);  // IcrcSeed, then IcrcBeat per beat
    const uint32_t carried = f[len - 4] | (f[len - 3] << 8) | (f[len - 2] << 16) | (uint32_t{f[len - 1]} << 24);
    EXPECT_EQ(crc, carried) << "frame of " << len << " bytes";
  }
}

}  // namespace
}  // namespace nettwin
