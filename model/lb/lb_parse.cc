#include "model/lb/lb_parse.h"

#include "model/common/bytes.h"

namespace nettwin::lb {

ParseInfo Parse(const uint8_t* w, int len) {
  ParseInfo p;
  auto fail = [&p](DropReason r) {
    p.reason = r;
    return p;
  };
  if (len < 14) return fail(DropReason::kRunt);
  p.key.mac = LoadBe(w, 6);
  p.key.ethertype = Load16(w + 12);
  if (p.key.ethertype != kEthIpv4 && p.key.ethertype != kEthIpv6) return fail(DropReason::kNotIp);
  p.is_v6 = p.key.ethertype == kEthIpv6;
  const uint8_t* ip = w + 14;
  int ip_hdr;
  uint8_t proto;
  int ip_payload;
  if (!p.is_v6) {
    if (len < 14 + 20) return fail(DropReason::kTruncated);
    const int ihl = ip[0] & 0xF;
    if ((ip[0] >> 4) != 4 || ihl < 5) return fail(DropReason::kBadIp);
    ip_hdr = 4 * ihl;
    if (len < 14 + ip_hdr) return fail(DropReason::kTruncated);
    const uint16_t frag = Load16(ip + 6);
    if ((frag & 0x3FFF) != 0) return fail(DropReason::kIpFragment);  // MF or offset
    proto = ip[9];
    p.ip_len = Load16(ip + 2);
    p.ip_csum = Load16(ip + 10);
    p.key.ip = U128{0, Load32(ip + 16)};
    ip_payload = p.ip_len - ip_hdr;
  } else {
    if (len < 14 + 40) return fail(DropReason::kTruncated);
    if ((ip[0] >> 4) != 6) return fail(DropReason::kBadIp);
    ip_hdr = 40;
    proto = ip[6];
    p.ip_len = Load16(ip + 4);
    p.key.ip = U128{Load64(ip + 24), Load64(ip + 32)};
    ip_payload = p.ip_len;
  }
  if (proto != 17) return fail(DropReason::kNotUdp);
  p.l4_off = static_cast<uint8_t>(14 + ip_hdr);
  const uint8_t* udp = w + p.l4_off;
  if (len < p.l4_off + 8) return fail(DropReason::kTruncated);
  p.key.port = Load16(udp + 2);
  if (p.key.port != params::kLbUdpPort) return fail(DropReason::kNotLbPort);
  if (len < p.l4_off + 8 + kLbHdr) return fail(DropReason::kTruncated);
  p.udp_len = Load16(udp + 4);
  p.udp_csum = Load16(udp + 6);
  if (ip_payload < 8 + kLbHdr || p.udp_len < 8 + kLbHdr || p.udp_len > ip_payload) {
    return fail(DropReason::kBadLength);
  }
  const uint8_t* lb = udp + 8;
  for (int i = 0; i < 6; ++i) p.lb_words[i] = Load16(lb + 2 * i);
  p.tick = Load64(lb + 4);
  if (p.lb_words[0] != params::kLbMagic) return fail(DropReason::kBadMagic);
  if (lb[2] != params::kLbVersion) return fail(DropReason::kBadVersion);
  if (p.is_v6 && p.udp_csum == 0) return fail(DropReason::kUdp6ZeroCsum);
  return p;
}

}  // namespace nettwin::lb
