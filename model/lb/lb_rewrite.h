// What the rewrite stage does to a forwarded packet: new header fields, incrementally updated checksums
// (RFC 1624 eqn. 3, RFC 768 for UDP's zero), and the removal of the 12-byte LB header.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "model/lb/lb_parse.h"
#include "model/lb/lb_types.h"

namespace nettwin::lb {

struct Rewrite {
  bool forward = false;
  DropReason reason = DropReason::kNone;
  bool is_v6 = false;
  uint8_t l4_off = 0;
  uint64_t mac_da = 0, mac_sa = 0;
  U128 ip_dst;
  uint16_t ip_len = 0, ip_csum = 0;
  uint16_t udp_port = 0, udp_len = 0, udp_csum = 0;

  int lb_off() const { return l4_off + 8; }
  bool operator==(const Rewrite& o) const;
};

// `member` is only read when p.reason is kNone (the packet is forwarded).
Rewrite ComputeRewrite(const ParseInfo& p, const MemberEntry& member);

// Overwrites the rewritten header fields of the bytes at frame offsets [base, base + n) held in `bytes`.
// Every rewritten field lies before the LB header, so this never touches bytes the removal shifts.
void OverwriteFields(const Rewrite& rw, int base, uint8_t* bytes, int n);

// Whole-packet rewrite (packet-at-a-time path).
std::vector<uint8_t> ApplyRewrite(const Rewrite& rw, const std::vector<uint8_t>& in);

}  // namespace nettwin::lb
