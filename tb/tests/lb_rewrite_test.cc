// Forwarded frames are verified the way a receiver does: full checksum recomputation, field by field.
#include <gtest/gtest.h>

#include <random>

#include "model/common/bytes.h"
#include "model/lb/lb_packet_model.h"
#include "model/lb/lb_script.h"
#include "tb/tests/lb_frames.h"

namespace nettwin::lb {
namespace {

using testing::BuildFrame;
using testing::FrameSpec;
using testing::FullIpv4Checksum;
using testing::UdpVerify;

class LbRewrite : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const Segment& s : ParseScript(testing::FullTables(), "full")) {
      for (const CfgWrite& w : s.writes) tables_.Apply(w);
    }
  }
  Verdict Run(const std::vector<uint8_t>& f) { return ProcessPacket(tables_, f); }
  LbTables tables_;
};

TEST_F(LbRewrite, Ipv4FieldsAndChecksums) {
  std::mt19937_64 rng(1);
  FrameSpec s;
  s.payload = testing::RandomPayload(rng, 100);
  const auto in = BuildFrame(s);
  const Verdict v = Run(in);
  ASSERT_TRUE(v.rewrite.forward) << ReasonName(v.rewrite.reason);
  const auto& o = v.out;
  ASSERT_EQ(o.size(), in.size() - 12);
  const int member = (10 * 7) % 4;  // calendar epoch 0 slot 10
  EXPECT_EQ(LoadBe(&o[0], 6), 0x020000000010ull + member);
  EXPECT_EQ(LoadBe(&o[6], 6), s.mac_da);
  EXPECT_EQ(Load16(&o[16]), Load16(&in[16]) - 12);
  EXPECT_EQ(Load32(&o[30]), 0xc0a80000u + member + 1);
  EXPECT_EQ(Load16(&o[36]), 20000 + member);
  EXPECT_EQ(Load16(&o[38]), Load16(&in[38]) - 12);
  EXPECT_EQ(Load16(&o[34]), s.sport);
  EXPECT_EQ(FullIpv4Checksum(&o[14], 20), 0);
  EXPECT_EQ(UdpVerify(o), 0);
  EXPECT_TRUE(std::equal(o.begin() + 42, o.end(), in.begin() + 54));  // payload intact, LB header gone
}

TEST_F(LbRewrite, Ipv6AndAllOptionLengthsAndJumbo) {
  std::mt19937_64 rng(2);
  for (int ihl = 5; ihl <= 15; ++ihl) {
    for (size_t len : {0u, 1u, 51u, 52u, 53u, 1500u, 8958u}) {
      for (bool v6 : {false, true}) {
        FrameSpec s;
        s.v6 = v6;
        s.ihl = ihl;
        s.tick = rng();
        s.payload = testing::RandomPayload(rng, len);
        const auto in = BuildFrame(s);
        const Verdict v = Run(in);
        ASSERT_TRUE(v.rewrite.forward) << ReasonName(v.rewrite.reason);
        const auto& o = v.out;
        ASSERT_EQ(o.size(), in.size() - 12);
        if (!v6) EXPECT_EQ(FullIpv4Checksum(&o[14], 4 * ihl), 0) << "ihl " << ihl << " len " << len;
        EXPECT_EQ(UdpVerify(o), 0) << "ihl " << ihl << " len " << len << " v6 " << v6;
        const int lb = v6 ? 62 : 14 + 4 * ihl + 8;
        EXPECT_TRUE(std::equal(o.begin() + lb, o.end(), in.begin() + lb + 12));
      }
    }
  }
}

TEST_F(LbRewrite, JumboFrameOf9000Bytes) {
  std::mt19937_64 rng(3);
  FrameSpec s;
  s.payload = testing::RandomPayload(rng, 9000 - 54);
  const auto in = BuildFrame(s);
  ASSERT_EQ(in.size(), 9000u);
  const Verdict v = Run(in);
  ASSERT_TRUE(v.rewrite.forward);
  EXPECT_EQ(v.out.size(), 8988u);
  EXPECT_EQ(UdpVerify(v.out), 0);
}

TEST_F(LbRewrite, ZeroUdpChecksumOverIpv4StaysZero) {
  FrameSpec s;
  s.udp_csum = false;
  const Verdict v = Run(BuildFrame(s));
  ASSERT_TRUE(v.rewrite.forward);
  EXPECT_EQ(Load16(&v.out[40]), 0);
  EXPECT_EQ(FullIpv4Checksum(&v.out[14], 20), 0);
}

// Search payloads until the rewritten UDP checksum computes to zero: it must then be sent as 0xFFFF.
TEST_F(LbRewrite, ComputedZeroIsSentAsAllOnes) {
  for (bool v6 : {false, true}) {
    FrameSpec s;
    s.v6 = v6;
    s.payload = {0, 0};
    const auto probe = Run(BuildFrame(s));
    ASSERT_TRUE(probe.rewrite.forward);
    // Payload word p adds p to the sum; choose it so that the output datagram sums to 0xFFFF.
    const int udp = v6 ? 54 : 34;
    std::vector<uint8_t> o = probe.out;
    Store16(&o[udp + 6], 0);
    const uint16_t sum_without = static_cast<uint16_t>(~UdpVerify(o));
    const uint16_t word = static_cast<uint16_t>(~sum_without);
    s.payload = {static_cast<uint8_t>(word >> 8), static_cast<uint8_t>(word)};
    const Verdict v = Run(BuildFrame(s));
    ASSERT_TRUE(v.rewrite.forward);
    EXPECT_EQ(Load16(&v.out[udp + 6]), 0xFFFF) << "v6 " << v6;
    EXPECT_EQ(UdpVerify(v.out), 0);
  }
}

TEST_F(LbRewrite, InputChecksumOfAllOnesIsHandled) {
  // With a zero payload word the checksum is C = ~S; a payload word equal to C makes the sum 0xFFFF, so
  // the sender computes 0 and transmits 0xFFFF (RFC 768).
  for (bool v6 : {false, true}) {
    FrameSpec s;
    s.v6 = v6;
    s.payload = {0, 0};
    const int csum_at = v6 ? 60 : 40;
    const uint16_t c = Load16(&BuildFrame(s)[csum_at]);
    s.payload = {static_cast<uint8_t>(c >> 8), static_cast<uint8_t>(c)};
    const auto in = BuildFrame(s);
    ASSERT_EQ(Load16(&in[csum_at]), 0xFFFF);
    const Verdict v = Run(in);
    ASSERT_TRUE(v.rewrite.forward);
    EXPECT_EQ(UdpVerify(v.out), 0) << "v6 " << v6;
  }
}

TEST_F(LbRewrite, CorruptedChecksumsStayCorruptedBySameAmount) {
  FrameSpec s;
  s.payload = {1, 2, 3, 4};
  auto in = BuildFrame(s);
  in[25] ^= 0x01;  // IP header checksum off by one bit
  in[41] ^= 0x10;  // UDP checksum off
  const Verdict v = Run(in);
  ASSERT_TRUE(v.rewrite.forward);
  EXPECT_NE(FullIpv4Checksum(&v.out[14], 20), 0);
  EXPECT_NE(UdpVerify(v.out), 0);
  // RFC 1624 keeps the receiver's verification residue: it is the same before and after the LB.
  EXPECT_EQ(FullIpv4Checksum(&v.out[14], 20), FullIpv4Checksum(&in[14], 20));
  EXPECT_EQ(UdpVerify(v.out), UdpVerify(in));
}

TEST_F(LbRewrite, PaddingAfterTheDatagramIsKept) {
  FrameSpec s;  // 54-byte frame padded to 60
  const auto in = BuildFrame(s);
  ASSERT_EQ(in.size(), 60u);
  const Verdict v = Run(in);
  ASSERT_TRUE(v.rewrite.forward);
  EXPECT_EQ(v.out.size(), 48u);
  EXPECT_EQ(UdpVerify(v.out), 0);
}

}  // namespace
}  // namespace nettwin::lb
