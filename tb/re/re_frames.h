// RE input frames for the tests and the benchmark: a segment as the LB delivers it (UDP source port = tick[15:0], the
// 8-byte RE header, the data) over IPv4 (any IHL) or IPv6; a segment as E2SAR sends it (E2sarSeg: the 20-byte
// REHdr, optionally behind an LB v1/v2/v3 header the LB kept); and test event bytes.
#pragma once

#include <cstdint>
#include <vector>

#include "model/common/packet.h"
#include "nt_params.h"

namespace nettwin::re {

struct SegOpts {
  bool v6 = false;
  int ihl = 5;         // IPv4 header words
  int lb_version = 0;  // E2sarSeg: 0 no LB header; 1 (12 bytes), 2 or 3 (16 bytes) an LB header in front
  uint16_t sport = 0;  // E2sarSeg: the UDP source port (E2SAR's differs per sending socket)
  int re_version = 1;  // E2sarSeg: the REHdr version nibble
};

// Ethernet + IP + UDP header of `payload` bytes of UDP payload, zero elsewhere.
inline std::vector<uint8_t> UdpFrame(uint16_t sport, size_t payload, const SegOpts& o, size_t* l4_out) {
  const size_t l4 = o.v6 ? 54 : 14 + 4 * static_cast<size_t>(o.ihl);
  std::vector<uint8_t> f(l4 + 8, 0);
  for (int i = 0; i < 6; ++i)
    f[static_cast<size_t>(i)] = static_cast<uint8_t>(0x02 + i),
    f[6 + static_cast<size_t>(i)] = static_cast<uint8_t>(0xA0 + i);
  if (o.v6) {
    f[12] = 0x86, f[13] = 0xDD, f[14] = 0x60, f[20] = 17;
  } else {
    f[12] = 0x08, f[14] = static_cast<uint8_t>(0x40 | o.ihl), f[23] = 17;
  }
  const size_t udp_len = 8 + payload;
  f[l4] = sport >> 8, f[l4 + 1] = sport & 0xFF;
  f[l4 + 4] = static_cast<uint8_t>(udp_len >> 8), f[l4 + 5] = udp_len & 0xFF;
  *l4_out = l4;
  return f;
}

inline void PutBe(std::vector<uint8_t>* f, uint64_t v, int n) {
  for (int i = n - 1; i >= 0; --i) f->push_back(static_cast<uint8_t>(v >> (8 * i)));
}

inline Packet Seg(uint16_t tick16, uint16_t data_id, uint32_t offset, const std::vector<uint8_t>& data, bool last,
                  double t_us = 0, SegOpts o = {}) {
  size_t l4 = 0;
  std::vector<uint8_t> f = UdpFrame(tick16, 8 + data.size(), o, &l4);
  f.push_back(0x00);  // version 0, as the spec's generator and udplb's test write it (config `version`)
  f.push_back(static_cast<uint8_t>((offset == 0 ? 2 : 0) | (last ? 1 : 0)));
  PutBe(&f, data_id, 2);
  PutBe(&f, offset, 4);
  f.insert(f.end(), data.begin(), data.end());
  return Packet{f, static_cast<uint64_t>(t_us * 1000)};
}

// A segment as E2SAR's segmenter sends it after an LB that removed (lb_version 0) or kept its LB header:
// [LB header] REHdr (version, reserved 0, data_id, offset, the event's length, event number) data.
inline Packet E2sarSeg(uint64_t event_num, uint16_t data_id, uint32_t offset, uint32_t event_len,
                       const std::vector<uint8_t>& data, double t_us = 0, SegOpts o = {}) {
  const size_t lb = o.lb_version == 0 ? 0 : o.lb_version == 1 ? 12 : 16;
  size_t l4 = 0;
  std::vector<uint8_t> f = UdpFrame(o.sport, lb + 20 + data.size(), o, &l4);
  if (lb) {
    f.push_back('L'), f.push_back('B'), f.push_back(static_cast<uint8_t>(o.lb_version)), f.push_back(1);
    if (lb == 16) PutBe(&f, 0x00010002, 4);  // v2: rsvd, entropy; v3: slot select, port select
    PutBe(&f, event_num, 8);                 // tick
  }
  f.push_back(static_cast<uint8_t>(o.re_version << 4)), f.push_back(0);
  PutBe(&f, data_id, 2);
  PutBe(&f, offset, 4);
  PutBe(&f, event_len, 4);
  PutBe(&f, event_num, 8);
  f.insert(f.end(), data.begin(), data.end());
  return Packet{f, static_cast<uint64_t>(t_us * 1000)};
}

inline std::vector<uint8_t> Bytes(int n, int seed = 1) {
  std::vector<uint8_t> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<uint8_t>(i * 7 + seed);
  return v;
}

inline std::vector<uint8_t> Slice(const std::vector<uint8_t>& v, int a, int b) {
  return {v.begin() + a, v.begin() + b};
}

}  // namespace nettwin::re
