// Drives parse_diff_top with N structured random windows (argv[1], default 1,000,000; seed argv[2]): tagged or
// not; IPv4 of every version and IHL, IPv6, ARP, slow protocols, LLDP, tag-in-tag and unknown EtherTypes; UDP
// with and without the LB port, magic and version; ICMPv4 / ICMPv6 of the types the parser reads; lengths 0..128
// biased to the parser's thresholds, bytes past the length random (the upper beat zero when the first beat is
// the frame's last, as lb_lookahead forms the window). Counts the windows where the old and new parses differ
// in any bit; exit 1 on any difference.
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "Vparse_diff_top.h"
#include "tb/common/diff_harness.h"
#include "verilated.h"

namespace {

using nt_diff::Next;

unsigned R(unsigned n) { return static_cast<unsigned>(Next() % n); }
bool P(unsigned pct) { return R(100) < pct; }

constexpr int kBytes = 128;
using Frame = std::array<uint8_t, kBytes>;

void Put16(Frame& f, int off, unsigned v) {
  if (off >= 0 && off + 1 < kBytes) {
    f[off] = static_cast<uint8_t>(v >> 8);
    f[off + 1] = static_cast<uint8_t>(v);
  }
}
void Put8(Frame& f, int off, unsigned v) {
  if (off >= 0 && off < kBytes) f[off] = static_cast<uint8_t>(v);
}

// UDP (and an LB header) at l4.
void Udp(Frame& f, int l4) {
  if (P(60)) Put16(f, l4 + 2, 0x4000 | R(0x4000));
  if (P(85)) Put16(f, l4 + 8, 0x4c42);
  const unsigned v = R(100);
  if (v < 45) Put8(f, l4 + 10, 2);
  else if (v < 90) Put8(f, l4 + 10, 3);
}

// Builds one frame; returns the length to use (biased to the thresholds after l4 when there is one).
int Build(Frame& f) {
  for (auto& b : f) b = static_cast<uint8_t>(Next());
  int pos = 12;
  if (P(35)) {
    Put16(f, 12, 0x8100);
    pos = 16;
  }
  static const unsigned kEt[] = {0x0800, 0x0800, 0x0800, 0x0800, 0x86dd, 0x86dd, 0x86dd, 0x0806,
                                 0x8809, 0x88cc, 0x8100, 0x0000};
  unsigned et = kEt[R(12)];
  if (et == 0) et = static_cast<unsigned>(Next()) & 0xffff;
  Put16(f, pos, et);
  const int l3 = pos + 2;
  int l4 = -1;
  static const int kAfter[] = {0, 1, 4, 8, 12, 24, 32, 44, 52, 24 + 2, 24 + 8, 40};
  if (et == 0x0800) {
    const unsigned ver = P(92) ? 4 : R(16);
    const unsigned ihl = P(50) ? 5 : R(16);
    Put8(f, l3, (ver << 4) | ihl);
    const unsigned pr = R(100);
    const unsigned proto = pr < 50 ? 17 : pr < 88 ? 1 : R(256);
    Put8(f, l3 + 9, proto);
    l4 = l3 + 4 * static_cast<int>(ihl);
    if (proto == 17) {
      Udp(f, l4);
    } else {
      const unsigned t = R(100);
      Put8(f, l4, t < 40 ? 3 : t < 85 ? 8 : R(256));
      if (P(80)) Put8(f, l4 + 1, 0);
      if (P(50)) Put8(f, l4 + 13, 17);
    }
  } else if (et == 0x86dd) {
    Put8(f, l3, (P(92) ? 0x60 : R(16) << 4) | (f[l3] & 0x0f));
    const unsigned pr = R(100);
    const unsigned nh = pr < 40 ? 17 : pr < 92 ? 58 : R(256);
    Put8(f, l3 + 6, nh);
    Put16(f, l3 + 4, P(40) ? 24 : R(64));
    l4 = l3 + 40;
    if (nh == 17) {
      Udp(f, l4);
    } else {
      const unsigned t = R(100);
      Put8(f, l4, t < 30 ? 1 : t < 60 ? 128 : t < 92 ? 135 : R(256));
      if (P(85)) Put8(f, l4 + 1, 0);
      if (P(50)) Put8(f, l4 + 10, 17);   // the embedded IPv6 header's next header
      if (P(60)) Put8(f, l4 + 24, 1);    // ND option: source link-layer address
    }
  } else if (et == 0x0806) {
    if (P(80)) {
      Put16(f, l3, 1);
      Put16(f, l3 + 2, 0x0800);
      Put8(f, l3 + 4, 6);
      Put8(f, l3 + 5, 4);
      Put16(f, l3 + 6, 1);
      if (P(30)) Put8(f, l3 + R(8), R(256));
    }
  } else if (et == 0x8809) {
    if (P(60)) Put8(f, l3, 1);
  }
  const unsigned lc = R(100);
  int len;
  if (lc < 35) {
    len = kBytes;
  } else if (lc < 75 && l4 >= 0) {
    len = l4 + kAfter[R(12)] + static_cast<int>(R(3)) - 1;
  } else if (lc < 85) {
    len = l3 + static_cast<int>(R(45)) - 1;
  } else {
    len = static_cast<int>(R(kBytes + 1));
  }
  if (len < 0) len = 0;
  if (len > kBytes) len = kBytes;
  return len;
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  nt_diff::State() = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  auto ctx = std::make_unique<VerilatedContext>();
  auto top = std::make_unique<Vparse_diff_top>(ctx.get());
  uint64_t differ = 0;
  std::array<uint64_t, 12> cov{};
  uint64_t clean = 0, clean_lb = 0, clean_v3 = 0, clean_tag = 0;
  Frame f{};
  for (uint64_t i = 0; i < n; ++i) {
    const int len = Build(f);
    if (len <= 64) {
      for (int b = 64; b < kBytes; ++b) f[b] = 0;  // the first beat is the frame's last: no successor
    }
    for (int w = 0; w < kBytes / 4; ++w) {
      top->window_i[w] = static_cast<uint32_t>(f[4 * w]) | static_cast<uint32_t>(f[4 * w + 1]) << 8 |
                         static_cast<uint32_t>(f[4 * w + 2]) << 16 | static_cast<uint32_t>(f[4 * w + 3]) << 24;
    }
    for (int w = 0; w < kBytes / 32; ++w) {
      const int bits = len - 32 * w;
      top->keep_i[w] = bits >= 32 ? 0xffffffffu : bits <= 0 ? 0u : (1u << bits) - 1u;
    }
    top->en_i = P(97);
    top->eval();
    const unsigned c = top->cov_o;
    for (int k = 0; k < 12; ++k) cov[k] += (c >> k) & 1;
    if (top->en_i && !(c & 0x800)) {
      ++clean;
      clean_lb += (c >> 8) & 1;
      clean_v3 += (c >> 7) & 1;
      clean_tag += (c >> 10) & 1;
    }
    if (top->differ_o) {
      if (differ < 5) {
        std::printf("window %llu differs (len %d)\n", static_cast<unsigned long long>(i), len);
        nt_diff::PrintDiff(top->old_o, top->new_o);
      }
      ++differ;
    }
  }
  // cov bits (old parse): 11 perr, 10 vlan, 9 arp, 8 lb, 7 lb_v3, 6 icmp4_echo, 5 icmp4_emb, 4 icmp6_echo,
  // 3 icmp6_emb, 2 ns, 1 ns_ll, 0 ipv6.
  std::printf("%llu windows, %llu differ; parse error %llu, clean %llu (tagged %llu, LB %llu, LB v3 %llu); "
              "ARP %llu, ICMPv4 echo %llu / unreachable %llu, ICMPv6 echo %llu / unreachable %llu, NS %llu "
              "(link-layer option %llu), IPv6 %llu\n",
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(differ),
              static_cast<unsigned long long>(cov[11]), static_cast<unsigned long long>(clean),
              static_cast<unsigned long long>(clean_tag), static_cast<unsigned long long>(clean_lb),
              static_cast<unsigned long long>(clean_v3), static_cast<unsigned long long>(cov[9]),
              static_cast<unsigned long long>(cov[6]), static_cast<unsigned long long>(cov[5]),
              static_cast<unsigned long long>(cov[4]), static_cast<unsigned long long>(cov[3]),
              static_cast<unsigned long long>(cov[2]), static_cast<unsigned long long>(cov[1]),
              static_cast<unsigned long long>(cov[0]));
  return differ == 0 ? 0 : 1;
}
