// OPA VNIC: the 16B format and ICRC, the round-trip property over every frame length and pad count, the
// config parser's errors, and both directions in lockstep at line rate (RTL = model every cycle).
#include <gtest/gtest.h>

#include <array>
#include <random>
#include <string>
#include <vector>

#include "model/common/crc32.h"
#include "model/vnic/vnic_config.h"
#include "model/vnic/vnic_format.h"
#include "tb/tests/error_message.h"
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
    return ErrorMessage<ConfigError>([&] { ParseConfig(text, "v.txt"); }, "no error");
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
  // zero is not a virtual switch or a LID (Linux's hfi1_vnic_up refuses vesw_id 0; docs/vnic.md "Drops")
  EXPECT_EQ(err("port 1 veswid 0 pkey 0x8001 slid 1\n"),
            "v.txt:1: token 'port': veswid 0 is not a virtual switch (Linux refuses it)");
  EXPECT_EQ(err("port 1 veswid 1 pkey 0x8001 slid 0\n"), "v.txt:1: token 'port': slid 0 is not a LID");
  EXPECT_EQ(err("port 1 veswid 1 pkey 0x8001 slid 1\nmac 1 02:00:00:00:00:01 0\n"),
            "v.txt:2: token '0': dlid 0 is not a LID (Linux treats such an entry as absent)");
  EXPECT_EQ(err("port 1 veswid 1 pkey 0x8001 slid 1 profile linux rc 3\n"),
            "v.txt:1: token 'rc': rc is computed per frame in profile linux (rc_word, flow hash)");
  EXPECT_EQ(err("port 1 veswid 1 pkey 0x8001 slid 1 rc_word 3\n"),
            "v.txt:1: token 'rc_word': rc_word is a profile linux key");
  EXPECT_EQ(err("port 1 veswid 1 pkey 0x8001 slid 1 profile linux pcp_sc_uc 1,2,3\n"),
            "v.txt:1: token '1,2,3': pcp_sc_uc wants eight SCs separated by commas (PCP 0 first)");
  EXPECT_EQ(err("port 1 veswid 1 pkey 0x8001 slid 1 profile bsd\n"), "v.txt:1: token 'bsd': profile is nettwin or linux");
}

// Profile linux (Linux opa_vnic's rules, docs/vnic.md "Encapsulation profiles"), packet by packet: the DLID
// of a locally administered MAC is its bytes 5, 4, 3; a universally administered unknown MAC takes the
// default DLID; the MAC table and group MACs as in Linux; SC by PCP; RC by protocol class; the tail byte
// without LT bits; a zero DLID dropped. Then the same frames through both engines in lockstep.
TEST(VnicLockstep, LinuxProfileInBothEngines) {
  const Tables t = ParseConfig(
      "port 2 veswid 9 pkey 0xffff slid 0x000102 sc 3 ucast_dlid 0x000777 mcast_dlid 0x00c001 profile linux "
      "sc_mc 4 pcp_sc_uc 10,11,12,13,14,15,16,17 pcp_sc_mc 20,21,22,23,24,25,26,27 rc_word 0x07654321\n"
      "mac 2 02:00:00:00:00:05 0x000555\n",
      "t");
  auto frame = [](std::vector<uint8_t> head, size_t len) {
    head.resize(len, 0x5A);
    return head;
  };
  const std::vector<uint8_t> laa = {0x02, 0, 0, 0x34, 0x12, 0x0B, 0, 0, 0, 0, 0, 1, 0x08, 0x00,
                                    0x45, 0, 0, 40, 0, 0, 0, 0, 64, 6};  // IPv4 TCP
  const std::vector<uint8_t> uaa = {0x00, 0x1b, 0x21, 1, 2, 3, 0, 0, 0, 0, 0, 1, 0x81, 0x00, 0xA0, 0x05,
                                    0x86, 0xDD, 0x60, 0, 0, 0, 0, 8, 17};  // 802.1Q PCP 5, IPv6 UDP
  const std::vector<uint8_t> grp = {0x01, 0, 0x5e, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0x88, 0xA8, 0x20, 0x07,
                                    0x81, 0x00, 0, 1, 0x08, 0x00};  // QinQ PCP 1, IPv4 (protocol byte 0)
  const std::vector<uint8_t> tbl = {0x02, 0, 0, 0, 0, 0x05, 0, 0, 0, 0, 0, 1, 0x08, 0x06};  // ARP
  const std::vector<uint8_t> zero = {0x02, 0x77, 0x66, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0x08, 0x06};
  struct Want {
    uint32_t dlid;
    uint8_t sc, rc;
  };
  // rc_word 0x07654321: DEFAULT 1, IPV4 2, IPV4_UDP 3, IPV4_TCP 4, IPV6 5, IPV6_TCP 6, IPV6_UDP 7
  const std::vector<std::pair<std::vector<uint8_t>, Want>> cases = {
      {frame(laa, 100), {0x0B1234, 3, 4}},   // LAA: bytes 5,4,3; untagged unicast: sc; IPv4 TCP
      {frame(uaa, 64), {0x000777, 15, 7}},   // UAA unknown: default; PCP 5 unicast; IPv6 UDP
      {frame(grp, 300), {0x00c001, 21, 2}},  // group: mcast; PCP 1 multicast; IPv4 behind two tags
      {frame(tbl, 61), {0x000555, 3, 1}},    // the MAC table; ARP: DEFAULT
  };
  std::vector<Packet> in;
  std::vector<std::vector<uint8_t>> want;
  for (const auto& [f, w] : cases) {
    const EncapResult r = Encapsulate(f, 2, t);
    ASSERT_EQ(r.drop, 0);
    const Header16B h = UnpackHeader(r.pkt.data());
    EXPECT_EQ(h.dlid, w.dlid);
    EXPECT_EQ(h.sc, w.sc);
    EXPECT_EQ(h.rc, w.rc);
    uint32_t crc = 0xFFFFFFFFu;
    for (int i = 0; i < 14; ++i) crc = Crc32Byte(crc, f[static_cast<size_t>(i)]);
    crc = ~crc;
    EXPECT_EQ(h.entropy, (crc ^ crc >> 8 ^ crc >> 16 ^ crc >> 24) & 0xFF);  // opa_vnic_calc_entropy's fold
    EXPECT_EQ(r.pkt.back(), PadBytes(f.size()));  // tail: the pad count alone
    EXPECT_EQ(Decapsulate(r.pkt, t).frame, f);
    in.push_back(Packet{f, 0});
    want.push_back(r.pkt);
  }
  // Edges where the first beat ends early or the tags go deep: RTL = model in lockstep decides these.
  const std::vector<uint8_t> tag = {0x02, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0x81, 0x00, 0xE0, 0x01};
  std::vector<uint8_t> deep = {0x02, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1};
  for (int i = 0; i < 9; ++i) deep.insert(deep.end(), {0x88, 0xA8, 0x20, 0x00});  // 9 tags: "other"
  deep.insert(deep.end(), {0x08, 0x00});
  std::vector<uint8_t> eight(deep.begin(), deep.begin() + 12 + 32);  // 8 tags, then IPv4 UDP
  eight.insert(eight.end(), {0x08, 0x00, 0x45, 0, 0, 0, 0, 0, 0, 0, 0, 17});
  for (const std::vector<uint8_t>& f :
       {frame(tag, 14), frame(tag, 15), frame(tag, 16), frame(tag, 17), frame(tag, 19), frame(laa, 23),
        frame(laa, 24), frame(uaa, 24), frame(uaa, 25), deep, frame(deep, 200), eight, frame(eight, 70)}) {
    const EncapResult e = Encapsulate(f, 2, t);
    ASSERT_EQ(e.drop, 0);
    in.push_back(Packet{f, 0});
    want.push_back(e.pkt);
  }
  EXPECT_EQ(UnpackHeader(Encapsulate(frame(tag, 15), 2, t).pkt.data()).sc, 3);  // TCI cut: untagged
  EXPECT_EQ(UnpackHeader(Encapsulate(frame(tag, 16), 2, t).pkt.data()).sc, 17);  // PCP 7
  EXPECT_EQ(UnpackHeader(Encapsulate(frame(laa, 23), 2, t).pkt.data()).rc, 2);  // protocol byte cut: IPv4
  EXPECT_EQ(UnpackHeader(Encapsulate(deep, 2, t).pkt.data()).rc, 1);            // 9 tags: DEFAULT
  EXPECT_EQ(UnpackHeader(Encapsulate(eight, 2, t).pkt.data()).rc, 3);           // 8 tags: IPv4 UDP
  EXPECT_EQ(Encapsulate(frame(zero, 80), 2, t).drop, static_cast<int>(params::kVnicEncDropDlidZero));
  in.insert(in.begin() + 2, Packet{frame(zero, 80), 0});
  VnicRunConfig rc;
  rc.opt.gaps = 0.2;
  rc.opt.backpressure = 0.3;
  const VnicRunReport r = RunVnic(t, in, std::vector<uint8_t>(in.size(), 2), rc);
  ASSERT_EQ(r.mismatch_text, "");
  ASSERT_TRUE(r.conservation_ok);
  EXPECT_EQ(r.counters.drops[params::kVnicEncDropDlidZero], 1u);
  ASSERT_EQ(r.run.out.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(r.run.out[i].bytes, want[i]) << i;
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
  // LT 0b10 / 0b11 with any count, LT 0b00 / 0b01 with counts 8..63, and one count too long (LT 0b00 with
  // 0..7 is Linux's tail byte: delivered).
  EXPECT_EQ(drops[params::kVnicDecDropPad], 2u * 64 + 2u * 56 + 1);
  for (uint32_t reason : {params::kVnicDecDropRunt, params::kVnicDecDropBadL2, params::kVnicDecDropBadL4,
                          params::kVnicDecDropLength, params::kVnicDecDropIcrc, params::kVnicDecDropPad,
                          params::kVnicDecDropVeswid, params::kVnicDecDropPkey}) {
    EXPECT_GE(drops[reason], 1u) << reason;
    EXPECT_EQ(r.counters.drops[reason], drops[reason]) << reason;
  }
  EXPECT_EQ(drops[params::kVnicDecDropPkey], 2u);  // another partition; two limited members
}

TEST(VnicLockstep, LinuxTailByteWithoutLinkTypeBitsIsDeliveredInBothEngines) {
  // Linux hfi1 (vnic_sdma.c hfi1_vnic_update_pad) writes the tail byte as the pad count alone and reads it
  // with & 7 (vnic_main.c): such packets were dropped as bad_pad. Every pad count, both tail conventions.
  const Tables t = TwoPorts();
  std::mt19937_64 rng(21);
  std::vector<Packet> in;
  std::vector<std::vector<uint8_t>> want;
  for (size_t len = 14; len < 14 + 16; ++len) {
    const auto f = Frame(len, rng);
    auto p = Encapsulate(f, static_cast<uint8_t>(len % 2 ? 0 : 3), t).pkt;
    ASSERT_FALSE(p.empty());
    p.back() &= 0x3F;  // LT bits 0: ICRC unchanged (the tail byte is not covered)
    ASSERT_EQ(Decapsulate(p, t).drop, 0) << len;
    in.push_back(Packet{p, 0});
    want.push_back(f);
  }
  VnicRunConfig rc;
  rc.dir = Direction::kDecap;
  const VnicRunReport r = RunVnic(t, in, {}, rc);
  ASSERT_EQ(r.mismatch_text, "");
  ASSERT_TRUE(r.conservation_ok);
  ASSERT_EQ(r.run.out.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(r.run.out[i].bytes, want[i]) << i;
}

}  // namespace
}  // namespace nettwin::vnic
