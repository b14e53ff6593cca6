// C++ builders of ConWeave fabric frames for tests and benchmarks (the same format
// scripts/nettwin/reorder/layers.py writes, docs/reorder.md "Exact formats"): a NIC frame from
// rdma::BuildRequest with the ConWeave fields placed in the BTH and the 4-byte CW header inserted.
#pragma once

#include <cstdint>
#include <vector>

#include "model/common/bytes.h"
#include "model/common/checksum.h"
#include "tb/rdma/rdma_requests.h"

namespace nettwin::reorder {

struct CwFields {
  uint8_t path_id = 0, op = 0, epoch = 0;
  bool rerouted = false, tail = false;
  uint16_t tx_ts = 0, tail_tx_ts = 0;
  bool ce = false;  // IPv4 ECN = CE
};

// The fabric frame for a NIC frame (IPv4 without options, or IPv6). CE marking is applied to the NIC
// frame first (the fabric marks the packet; the host sees the mark), with the IPv4 checksum kept valid.
inline std::vector<uint8_t> ToFabric(std::vector<uint8_t> nic, const CwFields& c) {
  const bool v6 = Load16(&nic[12]) == 0x86DD;
  if (c.ce && v6) nic[15] |= 0x30;
  if (c.ce && !v6) {
    const uint16_t old = Load16(&nic[14]);
    nic[15] |= 3;
    ChecksumDelta d;
    d.Replace(old, Load16(&nic[14]));
    Store16(&nic[24], d.Apply(Load16(&nic[24])));
  }
  const int udp = v6 ? 14 + 40 : 14 + 20;
  const int bth = udp + 8;
  std::vector<uint8_t> f(nic.begin(), nic.begin() + bth + 12);
  f[bth + 4] = c.path_id;
  f[bth + 8] = static_cast<uint8_t>((f[bth + 8] & 0x80) | ((c.op & 7) << 4) | ((c.epoch & 3) << 2) |
                                    (c.rerouted ? 2 : 0) | (c.tail ? 1 : 0));
  f.push_back(static_cast<uint8_t>(c.tx_ts >> 8));
  f.push_back(static_cast<uint8_t>(c.tx_ts));
  f.push_back(static_cast<uint8_t>(c.tail_tx_ts >> 8));
  f.push_back(static_cast<uint8_t>(c.tail_tx_ts));
  f.insert(f.end(), nic.begin() + bth + 12, nic.end());
  const int len_pos = v6 ? 18 : 16;
  const uint16_t old_len = Load16(&f[len_pos]);
  Store16(&f[len_pos], static_cast<uint16_t>(old_len + 4));
  if (!v6) {
    ChecksumDelta d;
    d.Replace(old_len, static_cast<uint16_t>(old_len + 4));
    Store16(&f[24], d.Apply(Load16(&f[24])));
  }
  Store16(&f[udp + 4], static_cast<uint16_t>(Load16(&f[udp + 4]) + 4));
  return f;
}

// The same request over IPv6 (fd00::<src> to fd00::1): the IPv4 frame's UDP datagram behind an IPv6 header,
// ICRC recomputed.
inline std::vector<uint8_t> ToIpv6(const std::vector<uint8_t>& v4) {
  std::vector<uint8_t> f(v4.begin(), v4.begin() + 14);
  Store16(&f[12], 0x86DD);
  std::vector<uint8_t> ip(40, 0);
  ip[0] = 0x60;
  Store16(&ip[4], static_cast<uint16_t>(v4.size() - 34));
  ip[6] = 17;
  ip[7] = 64;
  ip[8] = 0xfd;
  Store32(&ip[20], Load32(&v4[26]));
  ip[24] = 0xfd;
  Store32(&ip[36], Load32(&v4[30]));
  f.insert(f.end(), ip.begin(), ip.end());
  f.insert(f.end(), v4.begin() + 34, v4.end());
  const int len = static_cast<int>(f.size());
  const uint32_t crc = rdma::FrameIcrc(f, len - 4, true);
  for (int j = 0; j < 4; ++j) f[static_cast<size_t>(len - 4 + j)] = static_cast<uint8_t>(crc >> (8 * j));
  return f;
}

// A WRITE ONLY request of `payload` bytes from host `src` to QP `dqpn` with PSN `psn` (the NIC frame).
inline std::vector<uint8_t> NicWrite(uint32_t src_ip4, uint32_t dqpn, uint32_t psn, int payload) {
  rdma::RequestSpec s;
  s.src_ip4 = src_ip4;
  s.opcode = rdma::op::kWriteOnly;
  s.dqpn = dqpn;
  s.psn = psn;
  s.ackreq = false;
  s.dmalen = static_cast<uint32_t>(payload);
  s.payload.assign(static_cast<size_t>(payload), static_cast<uint8_t>(psn));
  return rdma::BuildRequest(s);
}

}  // namespace nettwin::reorder
