// Builds EJFAT LB frames for tests, with checksums computed from scratch (RFC 1071 over the whole header
// or datagram), independently of the incremental update the block performs.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "model/common/bytes.h"
#include "model/common/checksum.h"
#include "model/common/packet.h"
#include "model/lb/lb_types.h"

namespace nettwin::lb::testing {

struct FrameSpec {
  bool v6 = false;
  uint64_t mac_da = 0x00aabbccddee, mac_sa = 0x001122334455;
  uint32_t ip4_src = 0x0a010202, ip4_dst = 0x0a010203;
  U128 ip6_src{0xfe80000000000000ull, 1}, ip6_dst{0xfe80000000000000ull, 2};
  int ihl = 5;
  uint16_t sport = 50000, dport = 0x4c42;
  uint16_t magic = 0x4c42;
  uint8_t version = 1, proto = 1;
  uint64_t tick = 10;
  std::vector<uint8_t> payload;
  bool udp_csum = true;  // IPv4: false sends 0 (no checksum)
  int pad_to = 60;       // Ethernet minimum (without FCS)
};

inline uint16_t FullIpv4Checksum(const uint8_t* ip, int hdr_len) {
  return static_cast<uint16_t>(~OnesSum(ip, static_cast<size_t>(hdr_len)));
}

// UDP checksum over the pseudo-header and datagram, as a receiver verifies it (0 means valid).
inline uint16_t UdpVerify(const std::vector<uint8_t>& f) {
  const bool v6 = Load16(&f[12]) == kEthIpv6;
  const uint8_t* ip = &f[14];
  const int ip_hdr = v6 ? 40 : 4 * (ip[0] & 0xF);
  const uint8_t* udp = ip + ip_hdr;
  const uint16_t udp_len = Load16(udp + 4);
  uint16_t s = 0;
  if (v6) {
    s = OnesSum(ip + 8, 32);
  } else {
    s = OnesSum(ip + 12, 8);
  }
  s = OnesAdd(s, 17);
  s = OnesAdd(s, udp_len);
  s = OnesSum(udp, udp_len, s);
  return static_cast<uint16_t>(~s);
}

inline std::vector<uint8_t> BuildFrame(const FrameSpec& s) {
  std::vector<uint8_t> f(14);
  StoreBe(&f[0], 6, s.mac_da);
  StoreBe(&f[6], 6, s.mac_sa);
  Store16(&f[12], s.v6 ? kEthIpv6 : kEthIpv4);
  const int ip_hdr = s.v6 ? 40 : 4 * s.ihl;
  const int udp_len = 8 + 12 + static_cast<int>(s.payload.size());
  f.resize(14 + ip_hdr + udp_len);
  uint8_t* ip = &f[14];
  if (!s.v6) {
    ip[0] = static_cast<uint8_t>(0x40 | s.ihl);
    Store16(ip + 2, static_cast<uint16_t>(ip_hdr + udp_len));
    Store16(ip + 4, 0x1234);
    ip[8] = 64;
    ip[9] = 17;
    Store32(ip + 12, s.ip4_src);
    Store32(ip + 16, s.ip4_dst);
    for (int i = 20; i < ip_hdr; ++i) ip[i] = i == 20 ? 0x94 : static_cast<uint8_t>(i);  // opaque options
    if (ip_hdr > 20) {  // a well-formed option list: one Router Alert, then NOPs
      ip[20] = 0x94; ip[21] = 4; ip[22] = 0; ip[23] = 0;
      for (int i = 24; i < ip_hdr; ++i) ip[i] = 1;
    }
  } else {
    ip[0] = 0x60;
    Store16(ip + 4, static_cast<uint16_t>(udp_len));
    ip[6] = 17;
    ip[7] = 64;
    StoreBe(ip + 8, 8, s.ip6_src.hi);
    StoreBe(ip + 16, 8, s.ip6_src.lo);
    StoreBe(ip + 24, 8, s.ip6_dst.hi);
    StoreBe(ip + 32, 8, s.ip6_dst.lo);
  }
  uint8_t* udp = ip + ip_hdr;
  Store16(udp, s.sport);
  Store16(udp + 2, s.dport);
  Store16(udp + 4, static_cast<uint16_t>(udp_len));
  uint8_t* lb = udp + 8;
  Store16(lb, s.magic);
  lb[2] = s.version;
  lb[3] = s.proto;
  StoreBe(lb + 4, 8, s.tick);
  std::copy(s.payload.begin(), s.payload.end(), lb + 12);
  if (!s.v6) Store16(ip + 10, FullIpv4Checksum(ip, ip_hdr));
  if (s.v6 || s.udp_csum) {
    uint16_t c = UdpVerify(f);  // with the field still zero this is the checksum to send
    Store16(udp + 6, c == 0 ? 0xFFFF : c);
  }
  if (static_cast<int>(f.size()) < s.pad_to) f.resize(static_cast<size_t>(s.pad_to), 0);
  return f;
}

inline std::vector<uint8_t> RandomPayload(std::mt19937_64& rng, size_t n) {
  std::vector<uint8_t> p(n);
  for (auto& b : p) b = static_cast<uint8_t>(rng());
  return p;
}

// The spec's control-plane example plus a few wider entries used across tests.
inline const char* kSpecTables = R"(
table_add dst_filter_table NoAction 0x00aabbccddee 0x0800 0x0000000000000000000000000a010203 =>
table_add dst_filter_table NoAction 0x00aabbccddee 0x86dd 0xfe800000000000000000000000000002 =>
table_add epoch_assign_table do_assign_epoch 0x0000000000000000/0 => 0x00000000 64
table_add epoch_assign_table do_assign_epoch 0x0000000000000010/60 => 0x00000001 5
table_add load_balance_calendar_table do_assign_member 0x00000000 0x00a => 0x0000
table_add load_balance_calendar_table do_assign_member 0x00000001 0x014 => 0x0000
table_add member_info_lookup_table do_ipv4_member_rewrite 0x0800 0x0000 => 0x112233445566 0xaabbccdd 0x4556
table_add member_info_lookup_table do_ipv6_member_rewrite 0x86dd 0x0000 => 0x112233445566 0xfe800000000000000000000000000003 0x4556
run_traffic packets
)";

// Full calendars for epochs 0 and 1 over members 0..3, so any tick is forwarded.
inline std::string FullTables() {
  std::string s = R"(
table_add dst_filter_table NoAction 0x00aabbccddee 0x0800 10.1.2.3 =>
table_add dst_filter_table NoAction 00:aa:bb:cc:dd:ee 0x86dd fe80::2 =>
table_add epoch_assign_table do_assign_epoch 0/0 => 0
table_add epoch_assign_table do_assign_epoch 0x1000&&&0xF000 => 1 3
)";
  for (int e = 0; e < 2; ++e) {
    for (int slot = 0; slot < 512; ++slot) {
      s += "table_add load_balance_calendar_table do_assign_member " + std::to_string(e) + " " +
           std::to_string(slot) + " => " + std::to_string((slot * 7 + e) % 4) + "\n";
    }
  }
  for (int m = 0; m < 4; ++m) {
    s += "table_add member_info_lookup_table do_ipv4_member_rewrite 0x0800 " + std::to_string(m) +
         " => 0x0200000000" + std::to_string(10 + m) + " 192.168.0." + std::to_string(m + 1) + " " +
         std::to_string(20000 + m) + "\n";
    s += "table_add member_info_lookup_table do_ipv6_member_rewrite 0x86dd " + std::to_string(m) +
         " => 0x0200000000" + std::to_string(10 + m) + " 2001:db8:" + std::to_string(m) + "::" +
         std::to_string(m + 1) + " " + std::to_string(30000 + m) + "\n";
  }
  s += "run_traffic packets\n";
  return s;
}

}  // namespace nettwin::lb::testing

namespace nettwin::lb::testing {

// Mixed traffic for the FullTables() script: mostly forwarded frames of every size class, plus frames
// corrupted to hit each parse drop, misses and random garbage.
inline std::vector<Packet> RandomTraffic(std::mt19937_64& rng, size_t n) {
  std::vector<Packet> v;
  auto pick = [&](int k) { return static_cast<int>(rng() % static_cast<uint64_t>(k)); };
  for (size_t i = 0; i < n; ++i) {
    FrameSpec s;
    s.v6 = pick(2) == 0;
    s.ihl = pick(3) == 0 ? 5 + pick(11) : 5;
    s.tick = pick(4) == 0 ? (0x1000 | rng() % 0x1000) : rng() % 4096;
    const int size_class = pick(10);
    size_t len = size_class < 5 ? static_cast<size_t>(pick(40))               // minimum-size frames
                 : size_class < 8 ? static_cast<size_t>(pick(1500))           // typical
                 : size_class < 9 ? static_cast<size_t>(44 + pick(41))        // the 12-byte fold boundary
                                  : static_cast<size_t>(8000 + pick(946));    // jumbo
    s.payload = RandomPayload(rng, len);
    s.udp_csum = pick(8) != 0;
    std::vector<uint8_t> f = BuildFrame(s);
    switch (pick(14)) {
      case 0: f.resize(static_cast<size_t>(pick(60))); break;                         // runt / truncated
      case 1: f[12] = 0x81; break;                                                    // not IP
      case 2: f[23] ^= s.v6 ? 0 : 1; f[20] ^= s.v6 ? 1 : 0; break;                    // not UDP
      case 3: if (!s.v6) f[20] |= 0x20; break;                                        // fragment
      case 4: f[0] ^= 0x01; break;                                                    // filter miss
      case 5: for (auto& b : f) b = static_cast<uint8_t>(rng()); break;               // garbage
      default: break;
    }
    v.push_back(Packet{std::move(f), i * 1000});
  }
  return v;
}

}  // namespace nettwin::lb::testing
