// OPA VNIC: the 16B format and ICRC, the round-trip property over every frame length and pad count, the
// config parser's errors, and both directions in lockstep at line rate (RTL = model every cycle).
#include <gtest/gtest.h>

#include <array>
#include <random>
#include <string>
#include <vector>

#include "model/vnic/vnic_config.h"
#include "model/vnic/vnic_format.h"
#include "tb/vnic/vnic_run.h"

namespace nettwin::vnic {
namespace {

Tables TwoPorts() {
  return ParseConfig(
      "port 0 veswid 7 pkey 0x8001 slid 0x123456 sc 9 rc 5 ucast_dlid 0xabcdef mcast_dlid 0xfedcba entropy 77\n"
      "port 3 veswid 0x900 pkey 0x8002 slid 2 ucast_dlid 0x100000\n"
      "mac 0 02:00:00:00:00:01 0x200001\n",
      "t");
}

std::vector<uint8_t> Frame(size_t len, std::mt19937_64& rng, uint8_t first = 0x02) {
  std::vector<uint8_t> f(len);
  for (auto& b : f) b = static_cast<uint8_t>(rng());
  if (len > 0) f[0] = first;
  return f;
}

// A 16B packet with its ICRC recomputed after an edit, so the edit reaches the checks behind the ICRC's.
std::vector<uint8_t> RefixIcrc(std::vector<uint8_t> p) {
  const uint32_t c = Icrc(p.data(), p.size() - 5);
  for (int j = 0; j < 4; ++j) p[p.size() - 5 + j] = static_cast<uint8_t>(c >> (8 * j));
  return p;
}

TEST(VnicFormat, IcrcIsCrc32OverTheBytesBeforeIt) {
  // zlib.crc32(b"123456789") = 0xCBF43926 (the CRC-32 check value); with BECN (byte 3 bit 7), SC (byte 6
  // bits 7:4, byte 7 bit 0) and FECN (byte 7 bit 4) read as ones it is zlib.crc32 of "123\xb456\xf7\x398".
  const std::string s = "123456789";
  const std::vector<uint8_t> b(s.begin(), s.end());
  EXPECT_EQ(Icrc(b.data(), b.size()), params::kVnicIcrcMaskVariant ? 0x5DF08AFFu : 0xCBF43926u);
}

TEST(VnicFormat, HeaderFieldsFollowTheSpecTable) {
  Header16B h;
  h.slid = 0xABCDEF;
  h.dlid = 0x123456;
  h.length_qw = 0x5A5;
  h.sc = 0x15;
  h.rc = 5;
  h.pkey = 0x8123;
  h.entropy = 0xBEEF;
  h.veswid = 0x4321;
  uint8_t b[20];
  PackHeader(h, b);
  uint64_t qw0 = 0, qw1 = 0;
  for (int i = 7; i >= 0; --i) qw0 = qw0 << 8 | b[i];
  for (int i = 15; i >= 8; --i) qw1 = qw1 << 8 | b[i];
  EXPECT_EQ(qw0 & 0xFFFFF, 0xBCDEFu);         // SLID[19:0] bits 0-19
  EXPECT_EQ(qw0 >> 20 & 0x7FF, 0x5A5u);       // length 20-30
  EXPECT_EQ(qw0 >> 32 & 0xFFFFF, 0x23456u);   // DLID[19:0] 32-51
  EXPECT_EQ(qw0 >> 52 & 0x1F, 0x15u);         // SC 52-56
  EXPECT_EQ(qw0 >> 57 & 7, 5u);               // RC 57-59
  EXPECT_EQ(qw0 >> 61, 0b110u);               // L2 (61-62) = 0b10, LT (63) = 1
  EXPECT_EQ(qw1 & 0xFF, 0x78u);               // L4 Ethernet
  EXPECT_EQ(qw1 >> 8 & 0xF, 0xAu);            // SLID[23:20]
  EXPECT_EQ(qw1 >> 12 & 0xF, 0x1u);           // DLID[23:20]
  EXPECT_EQ(qw1 >> 16 & 0xFFFF, 0x8123u);     // PKEY
  EXPECT_EQ(b[18] | b[19] << 8, 0x4321);      // QW2 bits 16-31: veswid
  const Header16B u = UnpackHeader(b);
  EXPECT_EQ(u.slid, h.slid);
  EXPECT_EQ(u.dlid, h.dlid);
  EXPECT_EQ(u.veswid, h.veswid);
  EXPECT_EQ(u.entropy, h.entropy);
}

// The property of the issue: every frame length 60..9018 (so every pad count, each many times) comes back
// byte for byte on the port it was sent from, and the packet is quadword aligned with the pad in its tail.
TEST(VnicFormat, RoundTripEveryLength60To9018) {
  const Tables t = TwoPorts();
  std::mt19937_64 rng(5);
  int pads[8] = {};
  for (size_t len = 60; len <= 9018; ++len) {
    const uint8_t port = (len & 1) ? 3 : 0;
    const auto f = Frame(len, rng, static_cast<uint8_t>(rng()));
    const EncapResult e = Encapsulate(f, port, t);
    ASSERT_EQ(e.drop, 0) << len;
    ASSERT_EQ(e.pkt.size() % 8, 0u);
    ++pads[e.pkt.back() & 7];
    const DecapResult d = Decapsulate(e.pkt, t);
    ASSERT_EQ(d.drop, 0) << len;
    ASSERT_EQ(d.port, port);
    ASSERT_EQ(d.frame, f) << len;
  }
  for (int p : pads) EXPECT_GT(p, 1000);
}

TEST(VnicFormat, DlidFromTheMacTable) {
  const Tables t = TwoPorts();
  std::mt19937_64 rng(1);
  auto f = Frame(64, rng);
  const uint8_t known[6] = {2, 0, 0, 0, 0, 1};
  std::copy(known, known + 6, f.begin());
  EXPECT_EQ(UnpackHeader(Encapsulate(f, 0, t).pkt.data()).dlid, 0x200001u);
  EXPECT_EQ(UnpackHeader(Encapsulate(f, 3, t).pkt.data()).dlid, 0x100000u);  // other port: unknown there
  f[5] = 2;
  EXPECT_EQ(UnpackHeader(Encapsulate(f, 0, t).pkt.data()).dlid, 0xABCDEFu);  // unknown unicast
  f[0] = 0xFF;
  EXPECT_EQ(UnpackHeader(Encapsulate(f, 0, t).pkt.data()).dlid, 0xFEDCBAu);  // broadcast
}

TEST(VnicFormat, EveryDecapDropReason) {
  const Tables t = TwoPorts();
  std::mt19937_64 rng(2);
  const auto good = Encapsulate(Frame(100, rng), 0, t).pkt;
  auto reason = [&](std::vector<uint8_t> p) { return static_cast<uint32_t>(Decapsulate(p, t).drop); };
  EXPECT_EQ(reason(good), 0u);
  EXPECT_EQ(reason({good.begin(), good.begin() + 39}), params::kVnicDecDropRunt);
  auto p = good;
  p[7] &= 0x9F;  // L2 = 00
  EXPECT_EQ(reason(p), params::kVnicDecDropBadL2);
  p = good;
  p[8] = 0x08;
  EXPECT_EQ(reason(p), params::kVnicDecDropBadL4);
  p = good;
  p.resize(p.size() + 8);
  EXPECT_EQ(reason(p), params::kVnicDecDropLength);
  p = good;
  p[40] ^= 1;
  EXPECT_EQ(reason(p), params::kVnicDecDropIcrc);
  p = good;
  p[3] ^= 0x80;  // BECN is not covered
  p[7] ^= 0x10;  // nor FECN
  EXPECT_EQ(reason(p), 0u);
  p = good;
  p.back() = 0x48;  // pad 8
  EXPECT_EQ(reason(p), params::kVnicDecDropPad);
  p = good;
  p[18] = 0x55;
  EXPECT_EQ(reason(RefixIcrc(p)), params::kVnicDecDropVeswid);
  p = good;
  p[10] = 0x03;  // pkey 0x8003: another partition
  EXPECT_EQ(reason(RefixIcrc(p)), params::kVnicDecDropPkey);
  EXPECT_FALSE(PkeyMatch(0x0002, 0x0002));  // two limited members
  EXPECT_TRUE(PkeyMatch(0x8002, 0x0002));
}

TEST(VnicConfig, ErrorsNameFileLineAndToken) {
  auto err = [](const std::string& text) {
    try {
      ParseConfig(text, "v.txt");
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(err("port 16 veswid 1 pkey 0x8001 slid 1\n"), "v.txt:1: token '16': port number must be at most 15");
  EXPECT_EQ(err("\nport 1 veswid 1 slid 1\n"), "v.txt:2: token 'port': port needs 'pkey'");
  EXPECT_EQ(err("port 1 veswid 1 pkey 0x8001 slid 1 sc 32\n"), "v.txt:1: token '32': sc must be at most 31");
  EXPECT_EQ(err("port 1 veswid 1 pkey 0x8001 slid 1\nport 2 veswid 1 pkey 0x8001 slid 1\n"),
            "v.txt:2: token 'port': veswid 1 is already port 1's (receive demultiplexes by veswid)");
  EXPECT_EQ(err("mac 1 02:00:00:00:00:01 5\n"), "v.txt:1: token '1': port 1 is not configured (yet)");
  EXPECT_EQ(err("port 1 veswid 1 pkey 0x8001 slid 1\nmac 1 02:00:00:00:01 5\n"),
            "v.txt:2: token '02:00:00:00:01': MAC address must be six hex byte pairs, aa:bb:cc:dd:ee:ff");
  EXPECT_EQ(err("port 1 veswid 012 pkey 0x8001 slid 1\n"),
            "v.txt:1: token '012': veswid is not a number (decimal or 0x-hex)");
  EXPECT_EQ(err("vlan 3\n"), "v.txt:1: token 'vlan': unknown line (port, mac)");
}

// Both directions in lockstep with random lengths incl. both extremes, back to back and with gaps and
// backpressure; the encapsulation output feeds the decapsulation, which must give every frame back.
class VnicLockstep : public ::testing::TestWithParam<int> {};

TEST_P(VnicLockstep, EncapThenDecapGivesEveryFrameBack) {
  const Tables t = TwoPorts();
  std::mt19937_64 rng(static_cast<uint64_t>(GetParam()));
  std::vector<Packet> frames;
  std::vector<uint8_t> ports;
  for (size_t len : {size_t{60}, size_t{9018}, size_t{16351}, size_t{14}, size_t{107}, size_t{108}}) {
    frames.push_back(Packet{Frame(len, rng), 0});
  }
  for (int i = 0; i < 150; ++i) {
    const size_t len = 60 + rng() % (i % 10 == 0 ? 8960 : 600);
    frames.push_back(Packet{Frame(len, rng, i % 4 == 0 ? 0xFF : 0x02), 0});
  }
  for (size_t i = 0; i < frames.size(); ++i) ports.push_back(i % 3 == 0 ? 3 : 0);
  VnicRunConfig rc;
  rc.opt.seed = static_cast<uint64_t>(GetParam());
  if (GetParam() % 2 == 0) {
    rc.opt.gaps = 0.3;
    rc.opt.backpressure = 0.4;
  }
  const VnicRunReport enc = RunVnic(t, frames, ports, rc);
  ASSERT_EQ(enc.mismatch_text, "");
  ASSERT_TRUE(enc.conservation_ok);
  ASSERT_EQ(enc.run.out.size(), frames.size());
  rc.dir = Direction::kDecap;
  const VnicRunReport dec = RunVnic(t, enc.run.out, {}, rc);
  ASSERT_EQ(dec.mismatch_text, "");
  ASSERT_TRUE(dec.conservation_ok);
  ASSERT_EQ(dec.run.out.size(), frames.size());
  for (size_t i = 0; i < frames.size(); ++i) {
    ASSERT_EQ(dec.run.out[i].bytes, frames[i].bytes) << i;
    ASSERT_EQ(dec.out_ports[i], ports[i]) << i;
    ASSERT_EQ(enc.out_ports[i], ports[i]) << i;
  }
  if (GetParam() % 2 == 1) {
    // Line rate: back to back, the encapsulator's output never idles once it has started (the 20-byte
    // realignment costs no bubble) except while waiting for a frame to be complete.
    EXPECT_LE(enc.run.cycles, enc.run.out_beats + enc.run.in_beats / 2 + 300);
    EXPECT_LE(dec.run.cycles, dec.run.in_beats + ConfigWrites(t).size() + 300);
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, VnicLockstep, ::testing::Values(1, 2, 3, 4));

TEST(VnicLockstep, EveryDropCountedInBothEngines) {
  const Tables t = TwoPorts();
  std::mt19937_64 rng(9);
  std::vector<Packet> frames = {Packet{{}, 0}, Packet{Frame(13, rng), 0}, Packet{Frame(16352, rng), 0},
                                Packet{Frame(64, rng), 0}, Packet{Frame(64, rng), 0}};
  const std::vector<uint8_t> ports = {0, 0, 0, 5, 3};
  const VnicRunReport r = RunVnic(t, frames, ports, VnicRunConfig{});
  ASSERT_EQ(r.mismatch_text, "");
  ASSERT_TRUE(r.conservation_ok);
  EXPECT_EQ(r.counters.drops[params::kVnicEncDropRunt], 2u);
  EXPECT_EQ(r.counters.drops[params::kVnicEncDropTooLong], 1u);
  EXPECT_EQ(r.counters.drops[params::kVnicEncDropPortDisabled], 1u);
  EXPECT_EQ(r.counters.out, 1u);
}

// The receive side's drop decisions in both engines, above all the pad field's edges: every value of the
// tail byte's 6-bit pad count (only 0..7 exist; 8 is the first that must drop), a pad longer than the
// Ethernet payload, and one packet of each other drop reason; each good packet in between keeps the
// pipeline busy around the drops.
TEST(VnicLockstep, EveryDecapDropReasonAndEveryPadValueInBothEngines) {
  // Port 5 is a limited member of its partition: a packet that is one too is dropped (IBTA P_Key rule).
  const Tables t = ParseConfig(
      "port 0 veswid 7 pkey 0x8001 slid 0x123456 ucast_dlid 0xabcdef\n"
      "port 5 veswid 0x905 pkey 0x0005 slid 3 ucast_dlid 0x100000\n",
      "t");
  std::mt19937_64 rng(11);
  const auto good = Encapsulate(Frame(100, rng), 0, t).pkt;
  const auto small = Encapsulate(Frame(14, rng), 0, t).pkt;  // 14-byte frame: the pad is all its padding
  std::vector<Packet> in;
  std::vector<uint32_t> want;  // the model's packet-level decision per input (0: delivered)
  auto add = [&](std::vector<uint8_t> p) {
    want.push_back(static_cast<uint32_t>(Decapsulate(p, t).drop));
    in.push_back(Packet{std::move(p), 0});
    in.push_back(Packet{good, 0});
    want.push_back(0);
  };
  for (int top = 0; top < 4; ++top) {
    for (int pad = 0; pad < 64; ++pad) {
      auto p = good;
      p.back() = static_cast<uint8_t>(top << 6 | pad);
      add(p);
    }
  }
  auto p = small;
  const int real_pad = small.back() & 7;
  ASSERT_LT(real_pad, 7);
  p.back() = static_cast<uint8_t>(0x40 | (real_pad + 1));  // one more pad byte than the packet has
  add(p);
  add({good.begin(), good.begin() + 39});
  p = good;
  p[7] &= 0x9F;
  add(p);
  p = good;
  p[8] = 0x08;
  add(p);
  p = good;
  p.resize(p.size() + 8);
  add(p);
  p = good;
  p[40] ^= 1;
  add(p);
  p = good;
  p[18] = 0x55;
  add(RefixIcrc(p));
  p = good;
  p[10] = 0x03;
  add(RefixIcrc(p));
  p = Encapsulate(Frame(80, rng), 5, t).pkt;  // limited member to limited member
  ASSERT_EQ(Decapsulate(p, t).drop, static_cast<int>(params::kVnicDecDropPkey));
  add(p);
  p[11] |= 0x80;  // the packet a full member of partition 5: delivered
  p = RefixIcrc(p);
  ASSERT_EQ(Decapsulate(p, t).drop, 0);
  add(p);
  VnicRunConfig rc;
  rc.dir = Direction::kDecap;
  const VnicRunReport r = RunVnic(t, in, {}, rc);
  ASSERT_EQ(r.mismatch_text, "");
  ASSERT_TRUE(r.conservation_ok);
  std::array<uint32_t, kNumReasons> drops{};
  size_t delivered = 0;
  for (uint32_t w : want) w == 0 ? ++delivered : ++drops[w];
  EXPECT_EQ(r.run.out.size(), delivered);
  EXPECT_EQ(drops[params::kVnicDecDropPad], 3u * 64 + 56 + 1);  // wrong top bits, pads 8..63, too long
  for (uint32_t reason : {params::kVnicDecDropRunt, params::kVnicDecDropBadL2, params::kVnicDecDropBadL4,
                          params::kVnicDecDropLength, params::kVnicDecDropIcrc, params::kVnicDecDropPad,
                          params::kVnicDecDropVeswid, params::kVnicDecDropPkey}) {
    EXPECT_GE(drops[reason], 1u) << reason;
    EXPECT_EQ(r.counters.drops[reason], drops[reason]) << reason;
  }
  EXPECT_EQ(drops[params::kVnicDecDropPkey], 2u);  // another partition; two limited members
}

}  // namespace
}  // namespace nettwin::vnic
