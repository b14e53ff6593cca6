// RE input frames for the tests and the benchmark: a segment as the LB delivers it (UDP source port = tick[15:0], the
// 8-byte RE header, the data) over IPv4 (any IHL) or IPv6, and test event bytes.
#pragma once

#include <cstdint>
#include <vector>

#include "model/common/packet.h"
#include "nt_params.h"

namespace nettwin::re {

struct SegOpts {
  bool v6 = false;
  int ihl = 5;  // IPv4 header words
};

inline Packet Seg(uint16_t tick16, uint16_t data_id, uint32_t offset, const std::vector<uint8_t>& data, bool last,
                  double t_us = 0, SegOpts o = {}) {
  const size_t l4 = o.v6 ? 54 : 14 + 4 * static_cast<size_t>(o.ihl);
  std::vector<uint8_t> f(l4 + 16, 0);
  for (int i = 0; i < 6; ++i)
    f[static_cast<size_t>(i)] = static_cast<uint8_t>(0x02 + i),
    f[6 + static_cast<size_t>(i)] = static_cast<uint8_t>(0xA0 + i);
  if (o.v6) {
    f[12] = 0x86, f[13] = 0xDD, f[14] = 0x60, f[20] = 17;
  } else {
    f[12] = 0x08, f[14] = static_cast<uint8_t>(0x40 | o.ihl), f[23] = 17;
  }
  const size_t udp_len = 16 + data.size();
  f[l4] = tick16 >> 8, f[l4 + 1] = tick16 & 0xFF;
  f[l4 + 4] = static_cast<uint8_t>(udp_len >> 8), f[l4 + 5] = udp_len & 0xFF;
  f[l4 + 8] = 0x10;  // version 1: not looked at
  f[l4 + 9] = (offset == 0 ? 2 : 0) | (last ? 1 : 0);
  f[l4 + 10] = data_id >> 8, f[l4 + 11] = data_id & 0xFF;
  for (int i = 0; i < 4; ++i) f[l4 + 12 + static_cast<size_t>(i)] = static_cast<uint8_t>(offset >> (24 - 8 * i));
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
