#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "model/common/pcap.h"

namespace nettwin {
namespace {

std::string TempPath(const std::string& name) { return ::testing::TempDir() + "/" + name; }

std::string ReadAll(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteAll(const std::string& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }

TEST(Pcap, RoundTripKeepsBytesAndNanosecondTimes) {
  const std::string p = TempPath("rt.pcap");
  std::vector<Packet> in = {{{1, 2, 3}, 1000000123}, {std::vector<uint8_t>(9000, 0xAB), 2000000456}};
  WritePcap(p, in);
  const auto out = ReadPcap(p);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].bytes, in[0].bytes);
  EXPECT_EQ(out[1].bytes, in[1].bytes);
  EXPECT_EQ(out[0].time_ns, 1000000123u);
  EXPECT_EQ(out[1].time_ns, 2000000456u);
}

TEST(Pcap, TruncatedFileHeaderIsAClearError) {
  const std::string p = TempPath("short.pcap");
  WriteAll(p, std::string("\xd4\xc3\xb2\xa1\x02\x00", 6));
  try {
    ReadPcap(p);
    FAIL();
  } catch (const PcapError& e) {
    EXPECT_NE(std::string(e.what()).find("truncated pcap file header"), std::string::npos) << e.what();
  }
}

TEST(Pcap, TruncatedPacketDataNamesThePacket) {
  const std::string p = TempPath("trunc.pcap");
  WritePcap(p, {{std::vector<uint8_t>(100, 1), 0}, {std::vector<uint8_t>(100, 2), 0}});
  std::string s = ReadAll(p);
  WriteAll(p, s.substr(0, s.size() - 10));
  try {
    ReadPcap(p);
    FAIL();
  } catch (const PcapError& e) {
    EXPECT_NE(std::string(e.what()).find("packet 2: truncated packet data (90 of 100 bytes)"), std::string::npos)
        << e.what();
  }
}

TEST(Pcap, SnaplenTruncatedRecordIsRejected) {
  const std::string p = TempPath("snap.pcap");
  WritePcap(p, {{std::vector<uint8_t>(64, 1), 0}});
  std::string s = ReadAll(p);
  s[24 + 12] = 100;  // orig_len 100 > incl_len 64
  WriteAll(p, s);
  EXPECT_THROW(ReadPcap(p), PcapError);
}

TEST(Pcap, RejectsNonPcapAndNonEthernet) {
  const std::string p = TempPath("bad.pcap");
  WriteAll(p, std::string(24, 'x'));
  EXPECT_THROW(ReadPcap(p), PcapError);
  WritePcap(p, {});
  std::string s = ReadAll(p);
  s[20] = 101;  // LINKTYPE_RAW
  WriteAll(p, s);
  EXPECT_THROW(ReadPcap(p), PcapError);
  EXPECT_THROW(ReadPcap(TempPath("does-not-exist.pcap")), PcapError);
}

TEST(Pcap, ReadsMicrosecondBigEndianFiles) {
  const std::string p = TempPath("be.pcap");
  std::string s("\xa1\xb2\xc3\xd4\x00\x02\x00\x04", 8);
  s += std::string(8, '\0') + std::string("\x00\x00\xff\xff\x00\x00\x00\x01", 8);
  s += std::string("\x00\x00\x00\x02\x00\x00\x00\x05\x00\x00\x00\x03\x00\x00\x00\x03", 16) + "abc";
  WriteAll(p, s);
  const auto v = ReadPcap(p);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].time_ns, 2000005000u);
  EXPECT_EQ(std::string(v[0].bytes.begin(), v[0].bytes.end()), "abc");
}

}  // namespace
}  // namespace nettwin
