#include "model/naa/naa_mad.h"

#include "model/common/bytes.h"
#include "model/common/checksum.h"

namespace nettwin::naa {
namespace {

uint32_t Load24(const uint8_t* p) { return (uint32_t{p[0]} << 16) | (uint32_t{p[1]} << 8) | p[2]; }
void Store24(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v >> 16);
  p[1] = static_cast<uint8_t>(v >> 8);
  p[2] = static_cast<uint8_t>(v);
}

}  // namespace

CmMsg ParseCm(const CmFrameBytes& f, int len, bool overflow, uint32_t crc, const rdma::ResponderCfg& r) {
  CmMsg m;
  const uint8_t* b = f.data();
  // Only the one frame shape a CM MAD over RoCEv2/IPv4 has: no IP options, no fragments, a 256-byte MAD.
  const bool malformed = overflow || len != kCmFrameBytes || Load16(b + 12) != 0x0800 || b[14] != 0x45 ||
                         Load16(b + 16) != kCmFrameBytes - 14 || (Load16(b + 20) & 0x3FFF) != 0 || b[23] != 17 ||
                         Load16(b + 36) != params::kRdmaUdpPort || Load16(b + 38) != kCmFrameBytes - 34 ||
                         b[42] != kUdSendOnly || b[43] != 0 || Load24(b + 47) != 1;
  const uint32_t icrc = uint32_t{b[kCmIcrcAt]} | (uint32_t{b[kCmIcrcAt + 1]} << 8) |
                        (uint32_t{b[kCmIcrcAt + 2]} << 16) | (uint32_t{b[kCmIcrcAt + 3]} << 24);
  const uint8_t* mad = b + kMadAt;
  if (malformed) {
    m.drop = CmDrop::kMalformed;
  } else if (LoadBe(b, 6) != r.mac || !r.has_ip4 || Load32(b + 30) != r.ip4) {
    m.drop = CmDrop::kNotForUs;
  } else if (icrc != ~crc) {
    m.drop = CmDrop::kBadIcrc;
  } else if (Load32(b + 54) != kQp1Qkey || mad[0] != 1 || mad[1] != 0x07 || mad[2] != 2 || mad[3] != 0x03) {
    m.drop = CmDrop::kBadMad;
  }
  m.src_mac = LoadBe(b + 6, 6);
  m.src_ip = Load32(b + 26);
  m.sport = Load16(b + 34);
  m.tid = LoadBe(mad + 8, 8);
  m.attr = Load16(mad + 16);
  const uint8_t* c = b + kCmDataAt;
  m.comm0 = Load32(c);
  m.comm1 = Load32(c + 4);
  m.service_id = LoadBe(c + 8, 8);
  m.qpn = Load24(c + 32);
  m.resp_res = c[35];
  m.init_depth = c[39];
  m.transport = (c[43] >> 1) & 3;
  m.psn = Load24(c + 44);
  m.mtu = c[50] >> 4;
  return m;
}

CmFrameBytes ComposeCm(const CmDesc& d, const rdma::ResponderCfg& r) {
  CmFrameBytes f{};
  uint8_t* b = f.data();
  StoreBe(b, 6, d.dst_mac);
  StoreBe(b + 6, 6, r.mac);
  Store16(b + 12, 0x0800);
  uint8_t* ip = b + 14;
  ip[0] = 0x45;
  Store16(ip + 2, kCmFrameBytes - 14);
  Store16(ip + 6, 0x4000);
  ip[8] = 64;
  ip[9] = 17;
  Store32(ip + 12, r.ip4);
  Store32(ip + 16, d.dst_ip);
  Store16(ip + 10, static_cast<uint16_t>(~OnesSum(ip, 20)));
  Store16(b + 34, d.sport);
  Store16(b + 36, params::kRdmaUdpPort);
  Store16(b + 38, kCmFrameBytes - 34);
  b[42] = kUdSendOnly;
  Store16(b + 44, 0xFFFF);
  Store24(b + 47, 1);
  Store24(b + 51, d.psn);
  Store32(b + 54, kQp1Qkey);
  Store24(b + 59, 1);
  uint8_t* mad = b + kMadAt;
  mad[0] = 1;
  mad[1] = 0x07;
  mad[2] = 2;
  mad[3] = 0x03;
  StoreBe(mad + 8, 8, d.tid);
  Store16(mad + 16, d.attr);
  uint8_t* c = b + kCmDataAt;
  Store32(c, d.local_comm);
  Store32(c + 4, d.remote_comm);
  if (d.attr == attr::kRep) {
    Store24(c + 12, d.qpn);
    Store24(c + 20, d.start_psn);
    c[24] = d.resp_res;
    c[25] = d.init_depth;
    c[26] = static_cast<uint8_t>(d.ack_delay << 3);
    c[27] = static_cast<uint8_t>(d.rnr_retry << 5);
    StoreBe(c + 28, 8, d.guid);
  } else if (d.attr == attr::kRej) {
    Store16(c + 10, d.reason);
  }
  return f;
}

}  // namespace nettwin::naa
