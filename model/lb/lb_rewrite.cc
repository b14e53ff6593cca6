#include "model/lb/lb_rewrite.h"

#include "model/common/bytes.h"
#include "model/common/checksum.h"

namespace nettwin::lb {

bool Rewrite::operator==(const Rewrite& o) const {
  return forward == o.forward && reason == o.reason && is_v6 == o.is_v6 && l4_off == o.l4_off &&
         mac_da == o.mac_da && mac_sa == o.mac_sa && ip_dst == o.ip_dst && ip_len == o.ip_len &&
         ip_csum == o.ip_csum && udp_port == o.udp_port && udp_len == o.udp_len && udp_csum == o.udp_csum;
}

Rewrite ComputeRewrite(const ParseInfo& p, const MemberEntry& m) {
  Rewrite rw;
  rw.reason = p.reason;
  rw.forward = p.reason == DropReason::kNone;
  if (!rw.forward) return rw;
  rw.is_v6 = p.is_v6;
  rw.l4_off = p.l4_off;
  rw.mac_da = m.mac;
  rw.mac_sa = p.key.mac;
  rw.ip_dst = p.is_v6 ? m.ip : U128{0, m.ip.lo & 0xFFFFFFFFu};
  rw.ip_len = static_cast<uint16_t>(p.ip_len - kLbHdr);
  rw.udp_port = m.port;
  rw.udp_len = static_cast<uint16_t>(p.udp_len - kLbHdr);

  // Destination address words, shared by the IPv4 header and both pseudo-headers.
  ChecksumDelta dst;
  const int first_word = p.is_v6 ? 0 : 6;
  for (int i = first_word; i < 8; ++i) dst.Replace(p.key.ip.Word(i), rw.ip_dst.Word(i));

  if (!p.is_v6) {
    ChecksumDelta ip = dst;
    ip.Replace(p.ip_len, rw.ip_len);
    rw.ip_csum = ip.Apply(p.ip_csum);
  }

  if (!p.is_v6 && p.udp_csum == 0) {
    rw.udp_csum = 0;  // IPv4 sender sent no checksum; keep it that way
  } else {
    ChecksumDelta udp = dst;
    udp.Replace(p.udp_len, rw.udp_len);  // pseudo-header length
    udp.Replace(p.udp_len, rw.udp_len);  // UDP header length field
    udp.Replace(p.key.port, rw.udp_port);
    for (uint16_t w : p.lb_words) udp.Remove(w);
    rw.udp_csum = udp.Apply(p.udp_csum);
    if (rw.udp_csum == 0) rw.udp_csum = 0xFFFF;  // RFC 768: a computed zero is sent as all ones
  }
  return rw;
}

void OverwriteFields(const Rewrite& rw, int base, uint8_t* bytes, int n) {
  if (base >= rw.lb_off()) return;
  uint8_t hdr[kParseWindow] = {};
  bool set[kParseWindow] = {};
  auto put = [&](int off, int len, uint64_t v) {
    StoreBe(hdr + off, static_cast<size_t>(len), v);
    for (int i = 0; i < len; ++i) set[off + i] = true;
  };
  put(0, 6, rw.mac_da);
  put(6, 6, rw.mac_sa);
  if (!rw.is_v6) {
    put(16, 2, rw.ip_len);
    put(24, 2, rw.ip_csum);
    put(30, 4, rw.ip_dst.lo & 0xFFFFFFFFu);
  } else {
    put(18, 2, rw.ip_len);
    put(38, 8, rw.ip_dst.hi);
    put(46, 8, rw.ip_dst.lo);
  }
  put(rw.l4_off + 2, 2, rw.udp_port);
  put(rw.l4_off + 4, 2, rw.udp_len);
  put(rw.l4_off + 6, 2, rw.udp_csum);
  for (int i = 0; i < n; ++i) {
    const int pos = base + i;
    if (pos < kParseWindow && set[pos]) bytes[i] = hdr[pos];
  }
}

std::vector<uint8_t> ApplyRewrite(const Rewrite& rw, const std::vector<uint8_t>& in) {
  std::vector<uint8_t> out(in.begin(), in.begin() + rw.lb_off());
  out.insert(out.end(), in.begin() + rw.lb_off() + kLbHdr, in.end());
  OverwriteFields(rw, 0, out.data(), rw.lb_off());
  return out;
}

}  // namespace nettwin::lb
