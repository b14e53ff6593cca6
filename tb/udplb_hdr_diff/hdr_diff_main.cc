// Drives hdr_diff_top with N random vectors (argv[1], default 1,000,000; seed argv[2]) and counts the
// vectors where the old and the new S8 outputs differ. Exit 1 on any difference.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>

#include "Vhdr_diff_top.h"
#include "tb/common/diff_harness.h"
#include "verilated.h"

using nt_diff::Fill;
using nt_diff::Next;

int main(int argc, char** argv) {
  const uint64_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  nt_diff::State() = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1;
  auto ctx = std::make_unique<VerilatedContext>();
  auto top = std::make_unique<Vhdr_diff_top>(ctx.get());
  uint64_t differ = 0;
  std::map<unsigned, uint64_t> cases;
  for (uint64_t i = 0; i < n; ++i) {
    Fill(top->raw_p_i);
    Fill(top->raw_hw_i);
    Fill(top->raw_c_i);
    top->ctl_i = Next();
    top->eval();
    ++cases[top->case_o];
    if (top->differ_o) {
      if (differ < 5) {
        std::printf("vector %llu differs (case 0x%02x)\n", static_cast<unsigned long long>(i), top->case_o);
        nt_diff::PrintDiff(top->old_o, top->new_o);
      }
      ++differ;
    }
  }
  // Sent frames by case: bit 7 send, 6 forward, 5 ipv4, 4:3 kind, 2 arp, 1 icmp4 echo, 0 icmp6 echo.
  uint64_t fwd4 = 0, fwd6 = 0, icmp4 = 0, icmp6 = 0, nd = 0, arp = 0, host = 0, drop = 0;
  for (const auto& [k, v] : cases) {
    const bool send = k & 0x80, fwd = k & 0x40, v4 = k & 0x20;
    const unsigned kind = (k >> 3) & 3;
    if (!send) drop += v;
    else if (fwd) (v4 ? fwd4 : fwd6) += v;
    else if (kind == 2) host += v;
    else if (k & 4) arp += v;
    else if (k & 2) icmp4 += v;
    else if (k & 1) icmp6 += v;
    else nd += v;
  }
  std::printf("%llu vectors, %llu differ; sent: forward v4 %llu, v6 %llu, ICMPv4 echo %llu, ICMPv6 echo %llu, "
              "ND %llu, ARP %llu, host %llu; not sent %llu\n",
              static_cast<unsigned long long>(n), static_cast<unsigned long long>(differ),
              static_cast<unsigned long long>(fwd4), static_cast<unsigned long long>(fwd6),
              static_cast<unsigned long long>(icmp4), static_cast<unsigned long long>(icmp6),
              static_cast<unsigned long long>(nd), static_cast<unsigned long long>(arp),
              static_cast<unsigned long long>(host), static_cast<unsigned long long>(drop));
  return differ == 0 ? 0 : 1;
}
