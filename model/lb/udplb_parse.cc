#include "model/lb/udplb_parse.h"

namespace nettwin::lb::udplb {
namespace {

// P4 extract semantics: a header that does not fit in the frame is a parser error (PacketTooShort).
class Cursor {
 public:
  Cursor(const uint8_t* w, int len) : w_(w), len_(len) {}
  bool Take(int n, int* at) {
    if (pos_ + n > len_) return false;
    *at = pos_;
    pos_ += n;
    return true;
  }
  int pos() const { return pos_; }
  const uint8_t* at(int off) const { return w_ + off; }

 private:
  const uint8_t* w_;
  int len_;
  int pos_ = 0;
};

bool ParseIcmp4(Cursor& c, Parsed& p) {
  int off;
  if (!c.Take(4, &off)) return false;
  p.icmp4 = true;
  p.l4 = off;
  const uint8_t type = *c.at(off), code = *c.at(off + 1);
  if (type == 3) {
    int e;
    if (!c.Take(20, &e)) return false;
    p.icmp4_unreach = true;
    if (*c.at(e + 9) == 17 && !c.Take(8, &e)) return false;
  } else if (type == 8 && code == 0) {
    if (!c.Take(4, &off)) return false;
    p.icmp4_echo = true;
  }
  return true;  // other types: accepted here, rejected by the L3 stage
}

bool ParseIcmp6(Cursor& c, Parsed& p, uint16_t payload_len) {
  int off;
  if (!c.Take(4, &off)) return false;
  p.icmp6 = true;
  p.l4 = off;
  const uint8_t type = *c.at(off), code = *c.at(off + 1);
  if (type == 1) {
    int e;
    if (!c.Take(40, &e)) return false;
    p.icmp6_unreach = true;
    if (*c.at(e + 6) == 17 && !c.Take(8, &e)) return false;
    return true;
  }
  if (type == 128 && code == 0) {
    p.icmp6_echo = c.Take(4, &off);
    return p.icmp6_echo;
  }
  if (type == 135 && code == 0) {
    if (!c.Take(20, &off)) return false;
    p.ns = true;
    p.ns_target = Be128(c.at(off + 4));
    if (payload_len == 24) return true;
    if (!c.Take(2, &off)) return false;
    p.ns_opt = true;
    if (*c.at(off) != 1) return true;
    p.ns_lladdr = c.Take(6, &off);
    if (p.ns_lladdr) p.ns_lladdr_mac = Be48(c.at(off));
    return p.ns_lladdr;
  }
  return false;  // no default in the select: NoMatch
}

bool ParseUdp(Cursor& c, Parsed& p) {
  int off;
  if (!c.Take(8, &off)) return false;
  p.udp = true;
  p.l4 = off;
  p.udp_dport = Be16(c.at(off + 2));
  if ((p.udp_dport & 0xC000) != 0x4000) return true;
  if (!c.Take(4, &off)) return false;
  if (Be16(c.at(off)) != 0x4C42) return false;  // verify(magic)
  const uint8_t version = *c.at(off + 2);
  if (version != 2 && version != 3) return false;  // no default: NoMatch
  int v;
  if (!c.Take(12, &v)) return false;
  p.lb = true;
  p.lb_v3 = version == 3;
  p.tick = Be64(c.at(v + 4));
  p.slot_select = p.lb_v3 ? Be16(c.at(v)) : static_cast<uint16_t>(p.tick);
  p.port_select = Be16(c.at(v + 2));  // v2: entropy, v3: port_select
  return true;
}

bool ParseL3(Cursor& c, Parsed& p, uint16_t et) {
  int off;
  switch (et) {
    case 0x0806: {
      if (!c.Take(28, &off)) return false;
      const uint8_t* a = c.at(off);
      if (Be16(a) != 1 || Be16(a + 2) != 0x0800 || a[4] != 6 || a[5] != 4 || Be16(a + 6) != 1) return false;
      p.arp = true;
      p.l3 = off;
      p.l3_len = 28;
      p.ip_src = U128{0, Be32(a + 14)};
      p.ip_dst = U128{0, Be32(a + 24)};
      return true;
    }
    case 0x0800: {
      if (!c.Take(20, &off)) return false;
      const uint8_t* h = c.at(off);
      const int ihl = h[0] & 15;
      if ((h[0] >> 4) != 4 || ihl < 5) return false;
      int opt;
      if (!c.Take((ihl - 5) * 4, &opt)) return false;
      p.ipv4 = true;
      p.l3 = off;
      p.l3_len = ihl * 4;
      p.ip_src = U128{0, Be32(h + 12)};
      p.ip_dst = U128{0, Be32(h + 16)};
      p.ttl = h[8];
      if (h[9] == 1) return ParseIcmp4(c, p);
      if (h[9] == 17) return ParseUdp(c, p);
      return false;
    }
    case 0x86DD: {
      if (!c.Take(40, &off)) return false;
      const uint8_t* h = c.at(off);
      if ((h[0] >> 4) != 6) return false;
      p.ipv6 = true;
      p.l3 = off;
      p.l3_len = 40;
      p.ip_src = Be128(h + 8);
      p.ip_dst = Be128(h + 24);
      p.ttl = h[7];
      if (h[6] == 58) return ParseIcmp6(c, p, Be16(h + 4));
      if (h[6] == 17) return ParseUdp(c, p);
      return false;
    }
    default:
      return false;
  }
}

bool ParseAll(Cursor& c, Parsed& p) {
  int off;
  if (!c.Take(14, &off)) return false;
  p.mac_da = Be48(c.at(0));
  p.mac_sa = Be48(c.at(6));
  p.ethertype = Be16(c.at(12));
  switch (p.ethertype) {
    case 0x8100: {
      if (!c.Take(4, &off)) return false;
      p.vlan = true;
      p.vid = Be16(c.at(off)) & 0xFFF;
      const uint16_t inner = Be16(c.at(off + 2));
      if (inner != 0x0800 && inner != 0x0806 && inner != 0x86DD) return false;
      return ParseL3(c, p, inner);
    }
    case 0x8809:
      if (!c.Take(1, &off)) return false;
      p.slow = true;
      if (*c.at(off) != 1) return true;
      p.lacp = c.Take(1, &off);
      return p.lacp;
    case 0x88CC:
      p.lldp = c.Take(2, &off);
      return p.lldp;
    default:
      return ParseL3(c, p, p.ethertype);
  }
}

}  // namespace

Parsed Parse(const uint8_t* w, int len) {
  Parsed p;
  Cursor c(w, len);
  p.error = !ParseAll(c, p);
  p.li = c.pos();
  return p;
}

}  // namespace nettwin::lb::udplb
