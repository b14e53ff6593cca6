#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <string>

#include "model/common/pcap.h"
#include "tb/tests/error_message.h"

namespace nettwin {
namespace {

std::string TempPath(const std::string& name) { return ::testing::TempDir() + "/" + name; }

std::string ReadAll(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteAll(const std::string& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }

// What ReadPcap says of the file at p ("(no error)" when it reads it).
std::string PcapErrorOf(const std::string& p) {
  return ErrorMessage<PcapError>([&] { ReadPcap(p); }, "(no error)");
}

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
  EXPECT_NE(PcapErrorOf(p).find("truncated pcap file header"), std::string::npos)
      << PcapErrorOf(p);
}

TEST(Pcap, TruncatedPacketDataNamesThePacket) {
  const std::string p = TempPath("trunc.pcap");
  WritePcap(p, {{std::vector<uint8_t>(100, 1), 0}, {std::vector<uint8_t>(100, 2), 0}});
  std::string s = ReadAll(p);
  WriteAll(p, s.substr(0, s.size() - 10));
  EXPECT_NE(PcapErrorOf(p).find("packet 2: truncated packet data (90 of 100 bytes)"), std::string::npos)
      << PcapErrorOf(p);
}

// Records are read in 64 KB steps as the bytes arrive (not sized from the length field first): a record
// spanning several steps reads back whole, and one cut short says how many of its bytes were there.
TEST(Pcap, RecordsLongerThanOneReadStepReadWholeOrNameWhatIsMissing) {
  const std::string p = TempPath("long.pcap");
  std::vector<uint8_t> big(200000);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<uint8_t>(i * 7 + i / 251);
  WritePcap(p, {{big, 5}, {std::vector<uint8_t>(70000, 3), 6}});
  const auto out = ReadPcap(p);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].bytes, big);
  EXPECT_EQ(out[1].bytes, std::vector<uint8_t>(70000, 3));
  const std::string s = ReadAll(p);
  WriteAll(p, s.substr(0, s.size() - 4465));
  EXPECT_NE(PcapErrorOf(p).find("packet 2: truncated packet data (65535 of 70000 bytes)"), std::string::npos)
      << PcapErrorOf(p);
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

// ---- pcapng ----

// Little builder for hand-made pcapng blocks in either byte order.
struct Ng {
  bool be = false;
  std::string s;
  void U16(uint16_t v) {
    for (int i = 0; i < 2; ++i) s += static_cast<char>(be ? v >> (8 * (1 - i)) : v >> (8 * i));
  }
  void U32(uint32_t v) {
    for (int i = 0; i < 4; ++i) s += static_cast<char>(be ? v >> (8 * (3 - i)) : v >> (8 * i));
  }
  // A block: type, total length, body (padded to 4), total length.
  void Block(uint32_t type, const std::string& body) {
    std::string b = body;
    while (b.size() % 4) b += '\0';
    U32(type);
    U32(static_cast<uint32_t>(b.size() + 12));
    s += b;
    U32(static_cast<uint32_t>(b.size() + 12));
  }
  std::string Body(const std::function<void(Ng&)>& f) {
    Ng n{be, ""};
    f(n);
    return n.s;
  }
  void Shb() {
    Block(0x0A0D0D0A, Body([](Ng& n) {
            n.U32(0x1A2B3C4D);
            n.U16(1);
            n.U16(0);
            n.U32(0xFFFFFFFF);
            n.U32(0xFFFFFFFF);
          }));
  }
  void Idb(uint16_t link, int tsresol = -1) {
    Block(1, Body([&](Ng& n) {
            n.U16(link);
            n.U16(0);
            n.U32(65535);
            if (tsresol >= 0) {
              n.U16(9);
              n.U16(1);
              n.s += std::string(1, static_cast<char>(tsresol)) + std::string(3, '\0');
              n.U32(0);  // opt_endofopt
            }
          }));
  }
  void Epb(uint32_t iface, uint64_t ts, const std::string& data) {
    Block(6, Body([&](Ng& n) {
            n.U32(iface);
            n.U32(static_cast<uint32_t>(ts >> 32));
            n.U32(static_cast<uint32_t>(ts));
            n.U32(static_cast<uint32_t>(data.size()));
            n.U32(static_cast<uint32_t>(data.size()));
            n.s += data;
          }));
  }
};

TEST(Pcapng, WriterRoundTripKeepsResolution) {
  const std::string p = TempPath("rt.pcapng");
  std::vector<Packet> in = {{{1, 2, 3}, 1000000123}, {std::vector<uint8_t>(9001, 0xAB), 2000000456}};
  WritePcap(p, in, {PcapFormat::kPcapng, true});
  CaptureFormat f;
  auto out = ReadPcap(p, &f);
  EXPECT_EQ(f.container, PcapFormat::kPcapng);
  EXPECT_TRUE(f.nanos);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].bytes, in[1].bytes);
  EXPECT_EQ(out[0].time_ns, 1000000123u);
  WritePcap(p, in, {PcapFormat::kPcapng, false});
  out = ReadPcap(p, &f);
  EXPECT_FALSE(f.nanos);
  EXPECT_EQ(out[0].time_ns, 1000000000u);  // microseconds
  EXPECT_EQ(out[1].time_ns, 2000000000u);
  WritePcap(p, in, {PcapFormat::kPcap, false});
  out = ReadPcap(p, &f);
  EXPECT_EQ(f.container, PcapFormat::kPcap);
  EXPECT_FALSE(f.nanos);
  EXPECT_EQ(out[1].time_ns, 2000000000u);
}

TEST(Pcapng, SectionsInterfacesResolutionsAndByteOrders) {
  for (bool be : {false, true}) {
    Ng n{be, ""};
    n.Shb();
    n.Idb(1, 9);             // ns
    n.Idb(1);                // default us
    n.Block(4, "\0\0\0\0");  // a name resolution block: skipped
    n.Epb(0, 5000000001ull, "first");
    n.Epb(1, 7000001ull, "second");
    n.Block(3, [&] {         // simple packet block on interface 0: keeps the previous time
      Ng b{be, ""};
      b.U32(5);
      b.s += "third";
      return b.s;
    }());
    n.Shb();                 // a new section: interface ids start again
    n.Idb(1, 0x80 | 10);     // 2^-10 s
    n.Epb(0, 1024 * 3, "fourth");
    const std::string p = TempPath(be ? "be.pcapng" : "le.pcapng");
    WriteAll(p, n.s);
    CaptureFormat f;
    const auto v = ReadPcap(p, &f);
    EXPECT_TRUE(f.nanos);
    ASSERT_EQ(v.size(), 4u) << be;
    EXPECT_EQ(std::string(v[0].bytes.begin(), v[0].bytes.end()), "first");
    EXPECT_EQ(v[0].time_ns, 5000000001ull);
    EXPECT_EQ(v[1].time_ns, 7000001000ull);
    EXPECT_EQ(std::string(v[2].bytes.begin(), v[2].bytes.end()), "third");
    EXPECT_EQ(v[2].time_ns, v[1].time_ns);
    EXPECT_EQ(v[3].time_ns, 3000000000ull);
  }
}

TEST(Pcapng, TruncatedBlockNamesBlockOffsetAndPacket) {
  const std::string p = TempPath("trunc.pcapng");
  WritePcap(p, {{std::vector<uint8_t>(100, 1), 0}, {std::vector<uint8_t>(100, 2), 0}}, {PcapFormat::kPcapng, true});
  const std::string s = ReadAll(p);
  WriteAll(p, s.substr(0, s.size() - 10));
  // SHB 28 B + IDB 32 B + EPB 132 B: the second EPB starts at byte 192.
  EXPECT_NE(PcapErrorOf(p).find("trunc.pcapng: block 4 at byte 192 (Enhanced Packet Block, packet 2): "
                                "truncated block (122 of 132 bytes)"),
            std::string::npos)
      << PcapErrorOf(p);
  WriteAll(p, s.substr(0, 192 + 5));
  EXPECT_NE(PcapErrorOf(p).find("packet 2): truncated block header (5 of 8 bytes)"), std::string::npos)
      << PcapErrorOf(p);
  WriteAll(p, s.substr(0, 20));
  EXPECT_NE(PcapErrorOf(p).find("block 1 at byte 0 (Section Header Block): truncated block (20 of 28 bytes)"),
            std::string::npos)
      << PcapErrorOf(p);
}

TEST(Pcapng, CorruptBlocksAreClearErrors) {
  Ng n;
  n.Shb();
  n.Idb(101);  // LINKTYPE_RAW
  n.Epb(0, 0, "x");
  const std::string p = TempPath("bad.pcapng");
  WriteAll(p, n.s);
  EXPECT_NE(PcapErrorOf(p).find("packet 1): interface 0 has link type 101, not Ethernet (1)"), std::string::npos)
      << PcapErrorOf(p);

  Ng m;
  m.Shb();
  m.Idb(1);
  m.Epb(3, 0, "x");
  WriteAll(p, m.s);
  EXPECT_NE(PcapErrorOf(p).find("interface 3 is not described (the section has 1 interfaces)"), std::string::npos)
      << PcapErrorOf(p);

  Ng ok;
  ok.Shb();
  ok.Idb(1);
  ok.Epb(0, 0, "x");
  std::string s = ok.s;
  s[28 + 4] = 13;  // IDB length not a multiple of 4
  WriteAll(p, s);
  EXPECT_NE(PcapErrorOf(p).find("(Interface Description Block): block length 13 is corrupt"), std::string::npos)
      << PcapErrorOf(p);

  s = ok.s;
  s[s.size() - 4] = 99;  // trailing length of the EPB
  WriteAll(p, s);
  EXPECT_NE(PcapErrorOf(p).find("trailing block length 99 differs from the leading"), std::string::npos)
      << PcapErrorOf(p);

  s = ok.s;
  s[8] = 0;  // byte-order magic
  WriteAll(p, s);
  EXPECT_NE(PcapErrorOf(p).find("bad byte-order magic"), std::string::npos) << PcapErrorOf(p);
}

TEST(Pcapng, SnaplenTruncatedFrameIsRejected) {
  Ng n;
  n.Shb();
  n.Idb(1);
  n.Block(6, [&] {
    Ng b;
    for (uint32_t v : {0u, 0u, 0u, 3u, 60u}) b.U32(v);
    b.s += "abc";
    return b.s;
  }());
  const std::string p = TempPath("snap.pcapng");
  WriteAll(p, n.s);
  EXPECT_NE(PcapErrorOf(p).find("captured 3 of 60 bytes"), std::string::npos) << PcapErrorOf(p);
}

TEST(Pcap, ReaderWorksOnAnInMemoryStream) {
  Ng n;
  n.Shb();
  n.Idb(1);
  n.Epb(0, 1, "abcd");
  std::FILE* f = fmemopen(n.s.data(), n.s.size(), "rb");
  ASSERT_NE(f, nullptr);
  {
    PcapReader r(f, "fuzz-input");
    Packet pk;
    ASSERT_TRUE(r.Next(&pk));
    EXPECT_EQ(pk.bytes.size(), 4u);
    EXPECT_FALSE(r.Next(&pk));
  }
  std::fclose(f);
  std::string junk = "\x0a\x0d\x0d\x0a\xff";
  f = fmemopen(junk.data(), junk.size(), "rb");
  EXPECT_THROW(PcapReader(f, "fuzz-input"), PcapError);
  std::fclose(f);
}

}  // namespace
}  // namespace nettwin
