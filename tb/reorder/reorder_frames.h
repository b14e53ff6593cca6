// C++ builders of ConWeave fabric frames for tests and benchmarks (the same format scripts/cw_layers.py
// writes, docs/conweave.md "Exact formats"): a NIC frame from rdma::BuildRequest with the ConWeave
// fields placed in the BTH and the 4-byte CW header inserted.
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

// The fabric frame for an IPv4 NIC frame (no options). CE marking is applied to the NIC frame first (the
// fabric marks the packet; the host sees the mark), with the IPv4 checksum kept valid.
inline std::vector<uint8_t> ToFabric(std::vector<uint8_t> nic, const CwFields& c) {
  if (c.ce) {
    const uint16_t old = Load16(&nic[14]);
    nic[15] |= 3;
    ChecksumDelta d;
    d.Replace(old, Load16(&nic[14]));
    Store16(&nic[24], d.Apply(Load16(&nic[24])));
  }
  const int bth = 14 + 20 + 8;
  std::vector<uint8_t> f(nic.begin(), nic.begin() + bth + 12);
  f[bth + 4] = c.path_id;
  f[bth + 8] = static_cast<uint8_t>((f[bth + 8] & 0x80) | ((c.op & 7) << 4) | ((c.epoch & 3) << 2) |
                                    (c.rerouted ? 2 : 0) | (c.tail ? 1 : 0));
  f.push_back(static_cast<uint8_t>(c.tx_ts >> 8));
  f.push_back(static_cast<uint8_t>(c.tx_ts));
  f.push_back(static_cast<uint8_t>(c.tail_tx_ts >> 8));
  f.push_back(static_cast<uint8_t>(c.tail_tx_ts));
  f.insert(f.end(), nic.begin() + bth + 12, nic.end());
  const uint16_t old_len = Load16(&f[16]);
  Store16(&f[16], static_cast<uint16_t>(old_len + 4));
  ChecksumDelta d;
  d.Replace(old_len, static_cast<uint16_t>(old_len + 4));
  Store16(&f[24], d.Apply(Load16(&f[24])));
  Store16(&f[38], static_cast<uint16_t>(Load16(&f[38]) + 4));
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
