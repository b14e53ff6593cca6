// The udplb program's parser (docs/lb-udplb.md "Parser"): what P4's ParserImpl extracts from the first bytes
// of a frame. Every header it extracts ends by byte 110, inside the two-beat window.
#pragma once

#include <cstdint>

#include "model/common/bits.h"

namespace nettwin::lb::udplb {

constexpr int kParseWindow = 128;  // two beats
constexpr int kMaxExtract = 112;   // the header builder reads input bytes [0, 112): beat 0 + 48 of beat 1

struct Parsed {
  bool error = false;
  int li = 0;  // bytes extracted (valid when !error)
  // Valid headers and their offsets in the frame.
  bool vlan = false, lldp = false, slow = false, lacp = false, arp = false, ipv4 = false, ipv6 = false;
  bool icmp4 = false, icmp4_echo = false, icmp4_unreach = false;
  bool icmp6 = false, icmp6_echo = false, icmp6_unreach = false, ns = false, ns_opt = false, ns_lladdr = false;
  bool udp = false, lb = false, lb_v3 = false;
  int l3 = 0;       // offset of the ARP / IPv4 / IPv6 header (14, or 18 behind a VLAN tag)
  int l3_len = 0;   // IPv4 header incl. options, 40 for IPv6, 28 for ARP
  int l4 = 0;       // offset of the ICMP or UDP header
  uint64_t mac_da = 0, mac_sa = 0;
  uint16_t ethertype = 0;  // of the Ethernet header (0x8100 on a tagged frame)
  uint16_t vid = 0;
  U128 ip_src, ip_dst;     // IPv4 in the low 32 bits; ARP: SPA / TPA
  uint8_t ttl = 0;         // IPv4 TTL or IPv6 hop limit
  U128 ns_target;          // the neighbour solicitation's target
  uint64_t ns_lladdr_mac = 0;  // its source link-layer address option (type 1)
  uint16_t udp_dport = 0;
  uint64_t tick = 0;
  uint16_t slot_select = 0, port_select = 0;
};

// `w` holds the first `len` bytes of the frame, at most kParseWindow.
Parsed Parse(const uint8_t* w, int len);

inline uint16_t Be16(const uint8_t* p) { return static_cast<uint16_t>((p[0] << 8) | p[1]); }
inline uint32_t Be32(const uint8_t* p) { return (uint32_t{Be16(p)} << 16) | Be16(p + 2); }
inline uint64_t Be48(const uint8_t* p) { return (uint64_t{Be16(p)} << 32) | Be32(p + 2); }
inline uint64_t Be64(const uint8_t* p) { return (uint64_t{Be32(p)} << 32) | Be32(p + 4); }
inline U128 Be128(const uint8_t* p) { return U128{Be64(p), Be64(p + 8)}; }

}  // namespace nettwin::lb::udplb
