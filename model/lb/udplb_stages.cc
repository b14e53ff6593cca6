#include "model/lb/udplb_stages.h"

#include <algorithm>

#include "model/common/checksum.h"

namespace nettwin::lb::udplb {
namespace {

bool Clean(const Lookup& l) { return l.reason == Reason::kNone && l.kind == Kind::kForward; }

uint16_t Mask16(int bits) { return bits >= 16 ? 0xFFFF : static_cast<uint16_t>((1u << bits) - 1); }

// P4 InternetChecksum as docs/lb-udplb.md defines it: a 16-bit end-around-carry state.
class InetCsum {
 public:
  void Add(uint16_t w) { s_ = OnesAdd(s_, w); }
  void Sub(uint16_t w) { s_ = OnesAdd(s_, static_cast<uint16_t>(~w)); }
  void AddBytes(const uint8_t* p, int n) {
    for (int i = 0; i < n; i += 2) Add(Be16(p + i));
  }
  void SubBytes(const uint8_t* p, int n) {
    for (int i = 0; i < n; i += 2) Sub(Be16(p + i));
  }
  uint16_t Get() const { return static_cast<uint16_t>(~s_); }

 private:
  uint16_t s_ = 0;
};

void Put16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}
void Put32(uint8_t* p, uint32_t v) {
  Put16(p, static_cast<uint16_t>(v >> 16));
  Put16(p + 2, static_cast<uint16_t>(v));
}
void Put48(uint8_t* p, uint64_t v) {
  Put16(p, static_cast<uint16_t>(v >> 32));
  Put32(p + 2, static_cast<uint32_t>(v));
}
void Put128(uint8_t* p, const U128& v) {
  Put32(p, static_cast<uint32_t>(v.hi >> 32));
  Put32(p + 4, static_cast<uint32_t>(v.hi));
  Put32(p + 8, static_cast<uint32_t>(v.lo >> 32));
  Put32(p + 12, static_cast<uint32_t>(v.lo));
}

// Appends the emitted headers in deparser order, remembering where each landed.
class Deparse {
 public:
  explicit Deparse(const uint8_t* w) : w_(w) {}
  int Copy(int off, int n) {
    const int at = n_;
    std::copy(w_ + off, w_ + off + n, h_.begin() + n_);
    n_ += n;
    return at;
  }
  int Zeros(int n) {
    const int at = n_;
    std::fill(h_.begin() + n_, h_.begin() + n_ + n, 0);
    n_ += n;
    return at;
  }
  uint8_t* at(int off) { return h_.data() + off; }
  int size() const { return n_; }
  const std::array<uint8_t, kParseWindow>& bytes() const { return h_; }

 private:
  const uint8_t* w_;
  std::array<uint8_t, kParseWindow> h_{};
  int n_ = 0;
};

}  // namespace

Lookup StageL2(const Parsed& p, const UdplbTables& t, uint8_t in_port) {
  Lookup l;
  l.in_port = in_port;
  if (p.error) {
    l.reason = Reason::kParseError;
  } else if (!p.vlan && (p.mac_da & 0xFFFFFFFFFFF0ULL) == 0x0180C2000000ULL) {
    l.kind = Kind::kToHost;
  } else {
    t.LookupL2Iface(p.vlan ? p.vid : 0, &l.iface, &l.uc_mac);
  }
  return l;
}

void StageL3(const Parsed& p, const UdplbTables& t, Lookup* l) {
  if (!Clean(*l)) return;
  const MacDstEntry* m = t.LookupMacDst(l->iface, p.mac_da);
  if (!m) {
    l->reason = Reason::kL2DstMiss;
    return;
  }
  if (m->set_mac) l->uc_mac = m->mac_sa;
  if (!p.ipv4 && !p.ipv6 && !p.arp) {
    l->reason = Reason::kNotIp;
    return;
  }
  l->ip_dst_idx = t.LookupIpDst(l->iface, p.ethertype, p.ip_dst);
  if (l->ip_dst_idx < 0) {
    l->reason = Reason::kL3DstMiss;
    return;
  }
  l->lb_id = t.ip_dst(l->ip_dst_idx).lb_id;
}

void StageEjfat(const Parsed& p, const UdplbTables& t, Lookup* l) {
  if (!Clean(*l)) return;
  l->uc_ip = t.ip_sa(l->ip_dst_idx);
  const uint32_t uc_ip4 = static_cast<uint32_t>(l->uc_ip.lo);
  if (p.arp) {
    if (p.ip_dst.lo != uc_ip4) l->reason = Reason::kArpMismatch;
    else l->kind = Kind::kReply;
    return;
  }
  if (p.icmp4) {
    if (p.icmp4_echo) {
      if (p.ip_dst.lo != uc_ip4) l->reason = Reason::kIcmpMismatch;
      else l->kind = Kind::kReply;
    } else {
      l->reason = p.icmp4_unreach ? Reason::kIcmpDestUnreach : Reason::kIcmpUnhandled;
    }
    return;
  }
  if (p.icmp6) {
    if (p.icmp6_echo) {
      l->kind = Kind::kReply;
    } else if (p.ns) {
      if (p.ns_target != l->uc_ip) l->reason = Reason::kNdMismatch;
      else l->kind = Kind::kReply;
    } else {
      l->reason = p.icmp6_unreach ? Reason::kIcmpDestUnreach : Reason::kIcmpUnhandled;
    }
    return;
  }
  // UDP: the EJFAT stage.
  l->ejfat = true;
  if (!t.SrcAllowed(p.ipv6, static_cast<uint8_t>(l->lb_id), p.ip_src)) {
    l->reason = Reason::kSrcBlocked;
    return;
  }
  if (!p.lb) {
    l->reason = Reason::kNoLbHeader;
    return;
  }
  l->lb_ok = true;
  l->ttl_decrement = t.ttl_decrement();
  if (l->ttl_decrement && p.ttl <= 1) {
    l->reason = Reason::kTtlExpired;
    return;
  }
  l->groups = t.EpochGroups(static_cast<uint8_t>(l->lb_id), p.tick);
}

void StageEpoch(const Parsed& p, const UdplbTables& t, Lookup* l) {
  if (!Clean(*l)) return;
  l->epoch = UdplbTables::ReduceEpoch(l->groups);
  if (!l->epoch.hit) {
    l->reason = Reason::kEpochMiss;
    return;
  }
  l->slot = static_cast<uint16_t>((p.slot_select ^ l->epoch.slot_xor) & Mask16(l->epoch.slot_bits));
  l->row = t.EpochRow(static_cast<uint8_t>(l->lb_id), l->epoch.epoch);
}

void StageCalendar(const UdplbTables& t, Lookup* l) {
  if (!Clean(*l)) return;
  if (l->row >= 0 && l->slot < kCalendarSlots) l->cal = t.Calendar(l->row * kCalendarSlots + l->slot);
  if (!l->cal.valid) l->reason = Reason::kCalendarMiss;
}

void StageMember(const Parsed& p, const UdplbTables& t, Lookup* l) {
  if (!Clean(*l)) return;
  const bool v4 = p.ethertype == 0x0800, v6 = p.ethertype == 0x86DD;
  if (v4 || v6) l->member = t.Member(MemberIndex(l->lb_id, v6, l->cal.member));
  // Action 3 is no action of udplb's (the driver never writes it): a miss, as in the RTL.
  if (!l->member.valid || l->member.tag != (l->cal.member >> 6) || static_cast<int>(l->member.action) > 2) {
    l->reason = Reason::kMemberMiss;
  } else if (l->member.action == MemberAction::kSoftEvicted) {
    l->reason = Reason::kMemberSoftEvicted;
  } else if (l->member.action == MemberAction::kDeregistered) {
    l->reason = Reason::kMemberDeregistered;
  }
}

Verdict BuildVerdict(const Parsed& p, const Lookup& l, const uint8_t* w) {
  Verdict v;
  v.reason = l.reason;
  v.lb_id = l.lb_id;
  v.ejfat = l.ejfat;
  v.lb_ok = l.lb_ok;
  v.lb_v3 = p.lb_v3;
  v.port = l.in_port;
  if (l.reason != Reason::kNone) return v;
  v.kind = l.kind;
  if (v.kind == Kind::kToHost) v.port = static_cast<uint8_t>(l.in_port | 2);
  const bool forward = v.kind == Kind::kForward;
  const bool na = v.kind == Kind::kReply && p.ns;
  const bool keep = forward && l.member.keep;

  Deparse h(w);
  h.Copy(0, 14);
  if (p.lldp) h.Copy(14, 2);
  if (p.slow) h.Copy(14, 1);
  if (p.lacp) h.Copy(15, 1);
  int h3 = -1, h4 = -1, hna = -1;
  if (p.arp || p.ipv4 || p.ipv6) h3 = h.Copy(p.l3, p.l3_len);
  if (p.icmp4 || p.icmp6) {
    h4 = h.Copy(p.l4, 4);
    if (p.icmp4_echo || p.icmp6_echo) h.Copy(p.l4 + 4, 4);
  }
  if (na) hna = h.Zeros(28);
  if (p.udp) h4 = h.Copy(p.l4, 8);
  if (p.lb && (!forward || keep)) h.Copy(p.l4 + 8, kLbHdr);
  v.lo = h.size();
  v.d = p.li - v.lo;

  const uint32_t uc_ip4 = static_cast<uint32_t>(l.uc_ip.lo);
  if (v.kind == Kind::kReply && p.arp) {
    uint8_t* a = h.at(h3);
    Put48(h.at(0), p.mac_sa);
    Put48(h.at(6), l.uc_mac);
    Put16(a + 6, 2);
    std::copy(w + p.l3 + 8, w + p.l3 + 14, a + 18);  // THA = SHA
    Put48(a + 8, l.uc_mac);
    Put32(a + 24, Be32(w + p.l3 + 14));  // TPA = SPA
    Put32(a + 14, uc_ip4);
  } else if (v.kind == Kind::kReply && p.icmp4) {
    const uint8_t* i3 = w + p.l3;
    InetCsum c;
    c.SubBytes(i3 + 12, 8);
    c.Sub(Be16(i3 + 2));
    c.Sub(i3[9]);
    c.SubBytes(w + p.l4, 8);
    Put48(h.at(0), p.mac_sa);
    Put48(h.at(6), l.uc_mac);
    Put32(h.at(h3 + 16), Be32(i3 + 12));
    Put32(h.at(h3 + 12), uc_ip4);
    Put16(h.at(h4), 0);
    Put16(h.at(h4 + 2), 0);
    c.AddBytes(h.at(h3 + 12), 8);
    c.Add(Be16(h.at(h3 + 2)));
    c.Add(h.at(h3)[9]);
    c.AddBytes(h.at(h4), 8);
    Put16(h.at(h4 + 2), c.Get());
  } else if (v.kind == Kind::kReply && p.icmp6_echo) {
    const uint8_t* i3 = w + p.l3;
    InetCsum c;
    c.SubBytes(i3 + 8, 32);
    c.Sub(0);
    c.Sub(Be16(i3 + 4));
    c.Sub(0);
    c.Sub(i3[6]);
    c.SubBytes(w + p.l4, 8);
    Put48(h.at(0), p.mac_sa);
    Put48(h.at(6), l.uc_mac);
    std::copy(i3 + 8, i3 + 24, h.at(h3 + 24));
    Put128(h.at(h3 + 8), l.uc_ip);
    Put16(h.at(h4), 0x8100);
    Put16(h.at(h4 + 2), 0);
    c.AddBytes(h.at(h3 + 8), 32);
    c.Add(0);
    c.Add(Be16(h.at(h3 + 4)));
    c.Add(0);
    c.Add(h.at(h3)[6]);
    c.AddBytes(h.at(h4), 8);
    Put16(h.at(h4 + 2), c.Get());
  } else if (na) {
    const bool unspecified = p.ip_src == U128{};
    const U128 ip_da = unspecified ? U128{0xFF02000000000000ULL, 1} : p.ip_src;
    const uint64_t mac_da = unspecified ? 0x333300000001ULL : (p.ns_lladdr ? p.ns_lladdr_mac : p.mac_sa);
    Put48(h.at(0), mac_da);
    Put48(h.at(6), l.uc_mac);
    uint8_t* i3 = h.at(h3);
    Put128(i3 + 24, ip_da);
    Put128(i3 + 8, l.uc_ip);
    i3[7] = 255;
    Put16(i3 + 4, 32);
    Put16(h.at(h4), 0x8800);
    Put16(h.at(h4 + 2), 0);
    uint8_t* a = h.at(hna);
    a[0] = unspecified ? 0x00 : 0x40;  // R 0, S solicited, O 0
    Put128(a + 4, p.ns_target);
    a[20] = 2;
    a[21] = 1;
    Put48(a + 22, l.uc_mac);
    InetCsum c;
    c.AddBytes(i3 + 8, 32);
    c.Add(0);
    c.Add(32);
    c.Add(0);
    c.Add(i3[6]);
    c.AddBytes(h.at(h4), 4);
    c.AddBytes(a, 28);
    Put16(h.at(h4 + 2), c.Get());
  } else if (forward) {
    const uint8_t* i3 = w + p.l3;
    const uint8_t* u = w + p.l4;
    const uint16_t old_udp_len = Be16(u + 4), old_udp_csum = Be16(u + 6);
    InetCsum l3, l4;
    if (p.ipv4) {
      l3.SubBytes(i3, 20);
      l4.SubBytes(i3 + 12, 8);
      l4.Sub(old_udp_len);
      l4.Sub(i3[9]);
    } else {
      l4.SubBytes(i3 + 8, 32);
      l4.Sub(0);
      l4.Sub(old_udp_len);
      l4.Sub(0);
      l4.Sub(i3[6]);
    }
    l4.SubBytes(u, 8);
    l4.SubBytes(u + 8, kLbHdr);
    uint8_t* o3 = h.at(h3);
    uint8_t* o4 = h.at(h4);
    if (l.ttl_decrement) --o3[p.ipv4 ? 8 : 7];
    Put48(h.at(0), l.member.mac);
    Put48(h.at(6), l.uc_mac);
    const uint16_t shrink = keep ? 0 : kLbHdr;
    if (p.ipv4) {
      Put32(o3 + 12, uc_ip4);
      Put32(o3 + 16, static_cast<uint32_t>(l.member.ip.lo));
      Put16(o3 + 2, static_cast<uint16_t>(Be16(o3 + 2) - shrink));
      Put16(o3 + 10, 0);
      l3.AddBytes(o3, 20);
      Put16(o3 + 10, l3.Get());
    } else {
      Put128(o3 + 8, l.uc_ip);
      Put128(o3 + 24, l.member.ip);
      Put16(o3 + 4, static_cast<uint16_t>(Be16(o3 + 4) - shrink));
    }
    Put16(o4 + 2, static_cast<uint16_t>(l.member.udp_base + (p.port_select & Mask16(l.member.port_bits))));
    Put16(o4 + 4, static_cast<uint16_t>(old_udp_len - shrink));
    if (old_udp_csum != 0) {
      if (p.ipv4) {
        l4.AddBytes(o3 + 12, 8);
        l4.Add(Be16(o4 + 4));
        l4.Add(o3[9]);
      } else {
        l4.AddBytes(o3 + 8, 32);
        l4.Add(0);
        l4.Add(Be16(o4 + 4));
        l4.Add(0);
        l4.Add(o3[6]);
      }
      Put16(o4 + 6, 0);
      l4.AddBytes(o4, 8);
      if (keep) l4.AddBytes(o4 + 8, kLbHdr);
      const uint16_t c = l4.Get();
      Put16(o4 + 6, c == 0 ? 0xFFFF : c);
    }
  }
  v.hdr = h.bytes();
  return v;
}

void CountVerdict(const Verdict& v, UdplbCounters* c) {
  if (v.ejfat) ++c->rx[v.lb_id];
  if (v.lb_ok) ++(v.lb_v3 ? c->rx_v3 : c->rx_v2)[v.lb_id];
  if (v.reason != Reason::kNone) {
    ++c->drops[static_cast<int>(v.reason)];
    if (static_cast<int>(v.reason) >= static_cast<int>(Reason::kArpMismatch)) ++c->inst_drops[v.lb_id];
    return;
  }
  switch (v.kind) {
    case Kind::kForward:
      ++c->tx[v.lb_id];
      break;
    case Kind::kReply:
      ++c->replies;
      break;
    case Kind::kToHost:
      ++c->to_host;
      break;
    case Kind::kDrop:
      break;
  }
}

}  // namespace nettwin::lb::udplb
