// Smoke checks of the udplb RTL on its own (rtl/lb/udplb_top.sv): tables programmed through the cfg port,
// a few frames, and properties of the outputs that need no model: the rewritten fields the tables imply,
// lengths, egress ports, counters, and every IP/UDP/ICMP checksum verified from scratch over the output
// frame. The byte-exact comparison with the C++ model is the lockstep tests' job.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "Vudplb_tb_top.h"
#include "nt_params.h"
#include "tb/common/verilated_block.h"

namespace nettwin::lb {
namespace {

using Bytes = std::vector<uint8_t>;
using namespace params;  // NOLINT: the table ids and reasons

struct Frame {
  Bytes data;
  int port = 0;
};

// A 256-bit programming-port word.
struct CfgWord {
  uint32_t w[8] = {};
  CfgWord& Put(int lo, int n, uint64_t v) {
    for (int i = 0; i < n; ++i) {
      const uint32_t m = 1u << ((lo + i) % 32);
      if ((v >> i) & 1) w[(lo + i) / 32] |= m; else w[(lo + i) / 32] &= ~m;
    }
    return *this;
  }
  CfgWord& Put128(int lo, uint64_t hi, uint64_t low) { return Put(lo, 64, low).Put(lo + 64, 64, hi); }
};

class Dut {
 public:
  Dut() : ctx_(std::make_unique<VerilatedContext>()), top_(std::make_unique<Vudplb_tb_top>(ctx_.get(), "t")) {
    top_->rst_ni = 0;
    for (int i = 0; i < 3; ++i) Edge();
    top_->rst_ni = 1;
    top_->clk_i = 0;
    top_->eval();
  }
  ~Dut() { top_->final(); }
  Vudplb_tb_top& t() { return *top_; }

  void Cfg(int table, int index, const CfgWord& d) {
    top_->cfg_valid_i = 1;
    top_->cfg_table_i = table;
    top_->cfg_index_i = index;
    for (int i = 0; i < 8; ++i) top_->cfg_data_i[i] = d.w[i];
    Edge();
    top_->cfg_valid_i = 0;
  }

  // Sends the frames back to back (a new beat every cycle the block is ready) with the sink ready except
  // on cycles where stall(cycle) says otherwise; returns what leaves. Fails on an input stall if
  // `no_stall` (the block may only hold the source for an extra beat).
  std::vector<Frame> Run(const std::vector<Frame>& in, bool (*stall)(uint64_t) = nullptr,
                         uint64_t* in_stalls = nullptr) {
    std::vector<Frame> out;
    Frame cur;
    size_t f = 0, off = 0;
    uint64_t idle = 0;
    for (uint64_t cyc = 0; idle < 64; ++cyc) {
      auto& t = *top_;
      t.clk_i = 0;
      const bool have = f < in.size();
      t.s_valid_i = have;
      uint8_t beat[64] = {};
      int n = 0;
      if (have) {
        n = static_cast<int>(std::min<size_t>(64, in[f].data.size() - off));
        std::copy(in[f].data.begin() + off, in[f].data.begin() + off + n, beat);
      }
      tb::PutBytes(t.s_data_i, beat, 64);
      t.s_keep_i = n == 64 ? ~0ULL : ((1ULL << n) - 1);
      t.s_last_i = have && off + n == in[f].data.size();
      t.s_port_i = have ? in[f].port : 0;
      t.m_ready_i = stall == nullptr || !stall(cyc);
      t.eval();
      if (have && !t.s_ready_o && in_stalls) ++*in_stalls;
      bool progress = false;
      if (have && t.s_ready_o) {
        off += n;
        if (off == in[f].data.size()) {
          ++f;
          off = 0;
        }
        progress = true;
      }
      if (t.m_valid_o && t.m_ready_i) {
        uint8_t ob[64];
        tb::GetBytes(t.m_data_o, ob, 64);
        const int on = __builtin_popcountll(t.m_keep_o);
        EXPECT_EQ(t.m_keep_o, on == 64 ? ~0ULL : ((1ULL << on) - 1)) << "keep not contiguous";
        if (cur.data.empty()) cur.port = t.m_port_o;
        EXPECT_EQ(cur.port, t.m_port_o) << "port changed within a frame";
        cur.data.insert(cur.data.end(), ob, ob + on);
        if (t.m_last_o) {
          out.push_back(cur);
          cur = Frame{};
        }
        progress = true;
      }
      if (!t.m_valid_o) EXPECT_EQ(t.m_port_o, 0u);
      idle = progress || f < in.size() ? 0 : idle + 1;
      t.clk_i = 1;
      t.eval();
    }
    EXPECT_TRUE(cur.data.empty()) << "a frame left without its last beat";
    return out;
  }

  uint32_t Drops(int r) { return top_->drops_o[r]; }
  uint32_t Inst(const VlWide<8>& w, int i) { return w[i]; }

 private:
  void Edge() {
    top_->clk_i = 0;
    top_->eval();
    top_->clk_i = 1;
    top_->eval();
  }
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<Vudplb_tb_top> top_;
};

// ---- Frame building ----
void Put16(Bytes& b, size_t o, uint16_t v) { b[o] = v >> 8; b[o + 1] = v & 0xff; }
void Put32(Bytes& b, size_t o, uint32_t v) { Put16(b, o, v >> 16); Put16(b, o + 2, v & 0xffff); }
void Put48(Bytes& b, size_t o, uint64_t v) { Put16(b, o, v >> 32); Put32(b, o + 2, v & 0xffffffff); }
void Put64(Bytes& b, size_t o, uint64_t v) { Put32(b, o, v >> 32); Put32(b, o + 4, v & 0xffffffff); }
uint16_t Get16(const Bytes& b, size_t o) { return static_cast<uint16_t>(b[o] << 8 | b[o + 1]); }
uint32_t Get32(const Bytes& b, size_t o) { return uint32_t{Get16(b, o)} << 16 | Get16(b, o + 2); }
uint64_t Get48(const Bytes& b, size_t o) { return uint64_t{Get16(b, o)} << 32 | Get32(b, o + 2); }

// RFC 1071 sum of bytes [from, to) plus `extra`, folded (not complemented).
uint16_t Sum(const Bytes& b, size_t from, size_t to, uint32_t extra = 0) {
  uint64_t s = extra;
  for (size_t i = from; i < to; i += 2) s += (uint32_t{b[i]} << 8) | (i + 1 < to ? b[i + 1] : 0);
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return static_cast<uint16_t>(s);
}

constexpr uint64_t kMacFrom = 0x020000000099ULL, kMacUs = 0x001122334455ULL, kMacSa = 0x020000000001ULL;
constexpr uint64_t kMemberMac = 0x02aabbccdd05ULL;
constexpr uint32_t kUcIp = 0x0a000001, kSrcIp = 0xc0a80102, kMemberIp = 0x0a010005;

Bytes Eth(uint64_t da, uint64_t sa, uint16_t type, size_t len) {
  Bytes b(len, 0);
  Put48(b, 0, da);
  Put48(b, 6, sa);
  Put16(b, 12, type);
  for (size_t i = 14; i < len; ++i) b[i] = static_cast<uint8_t>(i * 7 + 3);
  return b;
}

void Ipv4(Bytes& b, uint8_t proto, uint32_t src, uint32_t dst) {
  b[14] = 0x45;
  b[15] = 0;
  Put16(b, 16, static_cast<uint16_t>(b.size() - 14));
  Put32(b, 18, 0x12340000);
  b[22] = 64;
  b[23] = proto;
  Put16(b, 24, 0);
  Put32(b, 26, src);
  Put32(b, 30, dst);
  Put16(b, 24, static_cast<uint16_t>(~Sum(b, 14, 34)));
}

uint32_t PseudoV4(const Bytes& b, uint16_t len) {
  return uint32_t{Sum(b, 26, 34)} + len + b[23];
}

// IPv4/UDP/LB v2 frame of `len` bytes (a valid UDP checksum).
Bytes LbFrame(size_t len, uint64_t tick, uint16_t entropy) {
  Bytes b = Eth(kMacUs, kMacFrom, 0x0800, len);
  Ipv4(b, 17, kSrcIp, kUcIp);
  Put16(b, 34, 1234);
  Put16(b, 36, 0x4c42);
  Put16(b, 38, static_cast<uint16_t>(len - 34));
  Put16(b, 40, 0);
  Put16(b, 42, 0x4c42);
  b[44] = 2;
  b[45] = 1;
  Put16(b, 46, 0);
  Put16(b, 48, entropy);
  Put64(b, 50, tick);
  Put16(b, 40, static_cast<uint16_t>(~Sum(b, 34, len, PseudoV4(b, static_cast<uint16_t>(len - 34)))));
  return b;
}

// Tables: no l2_iface entry (iface 0, MAC 0); our MAC DA sets the source MAC; 10.0.0.1 (IPv4 and ARP) and
// fd00::1 (IPv6) are instance 1; one sender; epoch 7 for every tick; calendar row 3 all -> member 0x45.
void Program(Dut& d) {
  d.Cfg(kUdplbTblMacDst, 0, CfgWord().Put(0, 1, 1).Put(9, 16, 10).Put(25, 48, kMacUs).Put(73, 1, 1)
                                .Put(74, 48, kMacSa));
  d.Cfg(kUdplbTblIpDst, 0, CfgWord().Put(0, 1, 1).Put(25, 16, 0x0800).Put128(41, 0, kUcIp).Put(169, 3, 1));
  d.Cfg(kUdplbTblIpSa, 0, CfgWord().Put128(0, 0, kUcIp));
  d.Cfg(kUdplbTblIpDst, 1, CfgWord().Put(0, 1, 1).Put(25, 16, 0x0806).Put128(41, 0, kUcIp).Put(169, 3, 1));
  d.Cfg(kUdplbTblIpSa, 1, CfgWord().Put128(0, 0, kUcIp));
  d.Cfg(kUdplbTblIpDst, 2, CfgWord().Put(0, 1, 1).Put(25, 16, 0x86dd).Put128(41, 0xfd00ULL << 48, 1)
                               .Put(169, 3, 1));
  d.Cfg(kUdplbTblIpSa, 2, CfgWord().Put128(0, 0xfd00ULL << 48, 1));
  // The solicited-node multicast address of fd00::1 (neighbour solicitations are sent to it).
  d.Cfg(kUdplbTblIpDst, 3, CfgWord().Put(0, 1, 1).Put(25, 16, 0x86dd).Put128(41, 0xff02ULL << 48, 0x1ff000001ULL)
                               .Put(169, 3, 1));
  d.Cfg(kUdplbTblIpSa, 3, CfgWord().Put128(0, 0xfd00ULL << 48, 1));
  d.Cfg(kUdplbTblSrc4, 0, CfgWord().Put(0, 1, 1).Put(1, 3, 1).Put(4, 32, kSrcIp));
  d.Cfg(kUdplbTblEpoch, 5, CfgWord().Put(0, 1, 1).Put(1, 3, 1).Put(68, 7, 0).Put(75, 32, 7).Put(107, 5, 9));
  d.Cfg(kUdplbTblEpochMap, 3, CfgWord().Put(0, 1, 1).Put(1, 3, 1).Put(4, 32, 7));
  for (int s = 0; s < 512; ++s) d.Cfg(kUdplbTblCalendar, 3 * 512 + s, CfgWord().Put(0, 1, 1).Put(1, 16, 0x45));
  d.Cfg(kUdplbTblMember, 1 * 128 + 0 * 64 + 5,
        CfgWord().Put(0, 1, 1).Put(3, 10, 0x45 >> 6).Put(13, 48, kMemberMac).Put128(61, 0, kMemberIp)
            .Put(189, 16, 20000).Put(205, 5, 2));
}

void ExpectLbForward(const Bytes& in, const Frame& o, int port) {
  ASSERT_EQ(o.data.size(), in.size() - 16);
  EXPECT_EQ(o.port, port);
  const Bytes& b = o.data;
  EXPECT_EQ(Get48(b, 0), kMemberMac);
  EXPECT_EQ(Get48(b, 6), kMacSa);
  EXPECT_EQ(Get16(b, 16), in.size() - 14 - 16);
  EXPECT_EQ(b[22], 63);
  EXPECT_EQ(Get32(b, 26), kUcIp);
  EXPECT_EQ(Get32(b, 30), kMemberIp);
  EXPECT_EQ(Sum(b, 14, 34), 0xffff) << "IPv4 header checksum";
  EXPECT_EQ(Get16(b, 36), 20000 + (Get16(in, 48) & 3));
  EXPECT_EQ(Get16(b, 38), in.size() - 34 - 16);
  EXPECT_EQ(Sum(b, 34, b.size(), PseudoV4(b, Get16(b, 38))), 0xffff) << "UDP checksum";
  EXPECT_TRUE(std::equal(b.begin() + 42, b.end(), in.begin() + 58)) << "payload after the LB header";
}

TEST(UdplbRtlSmoke, LbForwardAllLengthsBackToBack) {
  Dut d;
  Program(d);
  std::vector<Frame> in;
  for (size_t len = 58; len <= 200; ++len) in.push_back({LbFrame(len, 0x1000 + len, static_cast<uint16_t>(len)), 4});
  uint64_t stalls = 0;
  const auto out = d.Run(in, nullptr, &stalls);
  EXPECT_EQ(stalls, 0u);
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) ExpectLbForward(in[i].data, out[i], 4);
  EXPECT_EQ(d.t().pkts_in_o, in.size());
  EXPECT_EQ(d.t().pkts_out_o, in.size());
  EXPECT_EQ(d.t().inst_tx_o[1], in.size());
  EXPECT_EQ(d.t().inst_rx_v2_o[1], in.size());
}

bool EveryThird(uint64_t c) { return c % 3 != 0; }

TEST(UdplbRtlSmoke, BackpressureKeepsFrames) {
  Dut d;
  Program(d);
  std::vector<Frame> in;
  for (size_t len = 58; len <= 140; len += 3) in.push_back({LbFrame(len, len, 1), 1});
  const auto out = d.Run(in, EveryThird);
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) ExpectLbForward(in[i].data, out[i], 1);
}

TEST(UdplbRtlSmoke, DropsAndHost) {
  Dut d;
  Program(d);
  Bytes miss = LbFrame(80, 1, 1);
  Put48(miss, 0, 0x020000000777ULL);  // unknown MAC DA
  Bytes blocked = LbFrame(80, 1, 1);
  Ipv4(blocked, 17, 0xc0a80103, kUcIp);  // unknown sender
  Bytes lldp = Eth(0x0180c200000eULL, kMacFrom, 0x88cc, 60);
  Bytes runt(10, 0);
  const auto out = d.Run({{miss, 0}, {blocked, 0}, {lldp, 5}, {runt, 0}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].data, lldp);
  EXPECT_EQ(out[0].port, 5 | 2);
  EXPECT_EQ(d.Drops(kUdplbDropL2DstMiss), 1u);
  EXPECT_EQ(d.Drops(kUdplbDropSrcBlocked), 1u);
  EXPECT_EQ(d.Drops(kUdplbDropParseError), 1u);
  EXPECT_EQ(d.t().to_host_o, 1u);
  EXPECT_EQ(d.t().inst_rx_o[1], 1u);
  EXPECT_EQ(d.t().inst_drops_o[1], 1u);
  EXPECT_EQ(d.t().pkts_in_o, 4u);
  EXPECT_EQ(d.t().pkts_out_o, 1u);
}

TEST(UdplbRtlSmoke, ArpAndEchoReplies) {
  Dut d;
  Program(d);
  Bytes arp = Eth(kMacUs, kMacFrom, 0x0806, 60);
  Put16(arp, 14, 1);
  Put16(arp, 16, 0x0800);
  arp[18] = 6;
  arp[19] = 4;
  Put16(arp, 20, 1);
  Put48(arp, 22, kMacFrom);
  Put32(arp, 28, kSrcIp);
  Put48(arp, 32, 0);
  Put32(arp, 38, kUcIp);
  Bytes ping = Eth(kMacUs, kMacFrom, 0x0800, 98);
  Ipv4(ping, 1, kSrcIp, kUcIp);
  ping[34] = 8;
  ping[35] = 0;
  Put16(ping, 36, 0);
  Put32(ping, 38, 0xbeef0001);
  Put16(ping, 36, static_cast<uint16_t>(~Sum(ping, 34, ping.size())));
  const auto out = d.Run({{arp, 3}, {ping, 3}});
  ASSERT_EQ(out.size(), 2u);
  const Bytes& a = out[0].data;
  ASSERT_EQ(a.size(), arp.size());
  EXPECT_EQ(out[0].port, 3);
  EXPECT_EQ(Get48(a, 0), kMacFrom);
  EXPECT_EQ(Get48(a, 6), kMacSa);
  EXPECT_EQ(Get16(a, 20), 2);
  EXPECT_EQ(Get48(a, 22), kMacSa);
  EXPECT_EQ(Get32(a, 28), kUcIp);
  EXPECT_EQ(Get48(a, 32), kMacFrom);
  EXPECT_EQ(Get32(a, 38), kSrcIp);
  const Bytes& p = out[1].data;
  ASSERT_EQ(p.size(), ping.size());
  EXPECT_EQ(Get32(p, 26), kUcIp);
  EXPECT_EQ(Get32(p, 30), kSrcIp);
  EXPECT_EQ(p[34], 0);
  EXPECT_EQ(Sum(p, 14, 34), 0xffff);
  EXPECT_EQ(Sum(p, 34, p.size()), 0xffff) << "ICMP checksum";
  EXPECT_EQ(d.t().replies_o, 2u);
}

// An ND solicitation without option grows by 8 bytes (d = -8); with 57..64 bytes in its last beat the
// advertisement needs an extra output beat, which holds the source for one cycle per frame.
TEST(UdplbRtlSmoke, NeighbourAdvertisementExtraBeat) {
  Dut d;
  Program(d);
  std::vector<Frame> in;
  for (size_t len = 78; len <= 200; ++len) {
    Bytes b = Eth(kMacUs, kMacFrom, 0x86dd, len);
    b[14] = 0x60;
    b[15] = b[16] = b[17] = 0;
    Put16(b, 18, 24);
    b[20] = 58;
    b[21] = 255;
    Put64(b, 22, 0xfe80ULL << 48);
    Put64(b, 30, 0x99);
    Put64(b, 38, 0xff02ULL << 48);
    Put64(b, 46, 0x1ff000001ULL);
    b[54] = 135;
    b[55] = 0;
    Put32(b, 58, 0);
    Put64(b, 62, 0xfd00ULL << 48);
    Put64(b, 70, 1);
    in.push_back({b, 2});
  }
  uint64_t stalls = 0;
  const auto out = d.Run(in, nullptr, &stalls);
  ASSERT_EQ(out.size(), in.size());
  size_t extra = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const Bytes& o = out[i].data;
    const size_t len = in[i].data.size();
    ASSERT_EQ(o.size(), len + 8);
    if (((len - 1) % 64) + 1 > 56) ++extra;
    EXPECT_EQ(Get48(o, 0), kMacFrom);
    EXPECT_EQ(Get48(o, 6), kMacSa);
    EXPECT_EQ(Get16(o, 18), 32);
    EXPECT_EQ(o[21], 255);
    EXPECT_EQ(Get32(o, 22), 0xfd000000u);
    EXPECT_EQ(Get32(o, 38), 0xfe800000u);
    EXPECT_EQ(o[54], 136);
    EXPECT_EQ(o[58], 0x40);
    EXPECT_EQ(o[78], 2);
    EXPECT_EQ(Get48(o, 80), kMacSa);
    EXPECT_TRUE(std::equal(o.begin() + 86, o.end(), in[i].data.begin() + 78));
    // ICMPv6 checksum over the pseudo-header (payload length 32) and the 32 bytes of ICMPv6.
    const uint32_t pseudo = uint32_t{Sum(o, 22, 54)} + 32 + 58;
    EXPECT_EQ(Sum(o, 54, 86, pseudo), 0xffff);
  }
  // Each extra beat holds the source one cycle, unless the input has ended by then (the last few frames).
  EXPECT_LE(stalls, extra);
  EXPECT_GE(stalls + 4, extra);
  EXPECT_GT(extra, 10u);
  EXPECT_EQ(d.t().replies_o, in.size());
}

}  // namespace
}  // namespace nettwin::lb
