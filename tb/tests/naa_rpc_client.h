// The client of the MRSP/RPC tests and bench (docs/naa.md "MRSP and RPC"): the endpoint's configuration with a
// controller, and a client that connects, sends MRSP requests and runs RPCs, its frames gated on the
// endpoint's (each waits for the endpoint frames it answers).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/naa/naa_mad.h"
#include "model/rdma/rdma_types.h"
#include "tb/naa/naa_gates.h"
#include "tb/rdma/rdma_requests.h"
#include "tb/tests/naa_frames.h"
#include "tb/tests/naa_mrsp.h"

namespace nettwin::naa::test {

constexpr uint32_t kStart = 0x654321;  // the REP's starting PSN: the endpoint requester's first
constexpr uint64_t kPool = 0x40000000, kPoolSize = 0x100000;
constexpr uint32_t kRkeyBase = 0x5000;

// `mr_lines`: static MRs before the controller's slots.
inline std::string RpcConfig(const std::string& ctl_extra = "", const std::string& mr_lines = "") {
  return ServerConfig(
      "qp 0x11 mtu 4096 max_rd_atomic 16 aq 0x10000 rq 0x20000 rq_entries 4 rq_posted 0 cq 0x21000 cq_entries 16\n" +
          mr_lines,
      kStart, "ctl pool 0x40000000 pool_size 0x100000 rxbuf 0x30000 txbuf 0x31000 rkey_base 0x5000" + ctl_extra + "\n");
}

inline std::vector<uint8_t> Pattern(size_t n, uint32_t seed) {
  std::vector<uint8_t> v(n);
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1103515245u + 12345u;
    v[i] = static_cast<uint8_t>(x >> 16);
  }
  return v;
}

inline std::vector<MrspEntry> Regions(const std::vector<uint32_t>& sizes) {
  std::vector<MrspEntry> es;
  uint64_t at = kPool;
  for (size_t i = 0; i < sizes.size(); ++i) {
    es.push_back(MrspEntry{at, 0x7f0000000000ull + 0x100000ull * i, 0x700u + static_cast<uint32_t>(i), sizes[i]});
    at += (sizes[i] + 4095) / 4096 * 4096;
  }
  return es;
}

// The client's side of a conversation: its frames, when each may go (gates), and the endpoint frames it
// expects by then (every ACK-requesting packet of the client gets an ACK, every endpoint message its packets).
class Client {
 public:
  // `mtu_code`: the REQ's path MTU (1 = 256 .. 5 = 4096; the qp line allows 4096).
  explicit Client(uint8_t mtu_code = 3) : mtu_(128u << mtu_code) {
    Add(ReqFrame(kClientComm, 7471, 0, mtu_code));
    out_ = 1;  // the REP
    Add(SealAt(ClientMad(attr::kRtu, kClientComm, kCommBase), kCmIcrcAt), out_);
  }
  // One RDMA message, split at the path MTU; `after` the endpoint frames it waits for.
  void Message(uint8_t first_op, uint64_t va, uint32_t rkey, const std::vector<uint8_t>& data, bool imm,
               uint32_t imm_value) {
    const bool send = first_op == rdma::op::kSendOnly;
    const size_t n = data.empty() ? 1 : (data.size() + mtu_ - 1) / mtu_;
    for (size_t i = 0; i < n; ++i) {
      rdma::RequestSpec s;
      s.sport = 50000;
      s.dqpn = kQpn;
      s.psn = psn_++;
      s.ackreq = i + 1 == n;
      const bool first = i == 0, last = i + 1 == n;
      if (send) {  // a SEND longer than the MTU is one message of FIRST, MIDDLE..., LAST
        s.opcode = first && last ? rdma::op::kSendOnly
                   : first       ? rdma::op::kSendFirst
                   : last        ? rdma::op::kSendLast
                                 : rdma::op::kSendMiddle;
      } else if (first && last) {
        s.opcode = imm ? rdma::op::kWriteOnlyImm : rdma::op::kWriteOnly;
      } else {
        s.opcode = first  ? rdma::op::kWriteFirst
                   : last ? (imm ? rdma::op::kWriteLastImm : rdma::op::kWriteLast)
                          : rdma::op::kWriteMiddle;
      }
      s.va = va;
      s.rkey = rkey;
      s.dmalen = static_cast<uint32_t>(data.size());
      s.imm = imm_value;
      const size_t from = i * mtu_;
      s.payload.assign(data.begin() + static_cast<long>(std::min(from, data.size())),
                       data.begin() + static_cast<long>(std::min(from + mtu_, data.size())));
      Add(rdma::BuildRequest(s), out_);
    }
    ++out_;  // the responder's ACK of the last packet
  }
  void Send(const std::vector<uint8_t>& msg) { Message(rdma::op::kSendOnly, 0, 0, msg, false, 0); }
  // The endpoint sends a message of `bytes` (its packets), and the client ACKs it once all are out.
  void ExpectEndpointMessage(uint32_t bytes) {
    const uint32_t n = bytes == 0 ? 1 : (bytes + mtu_ - 1) / mtu_;
    out_ += n;
    req_psn_ += n;
    Add(AckFrame(req_psn_ - 1), out_);
  }
  void Dreq() { Add(SealAt(ClientMad(attr::kDreq, kClientComm, kCommBase), kCmIcrcAt), out_); }
  uint64_t expected_out() const { return out_; }
  uint32_t mtu() const { return mtu_; }
  const std::vector<std::vector<uint8_t>>& frames() const { return frames_; }
  const Gates& gates() const { return gates_; }

 private:
  void Add(std::vector<uint8_t> f, uint64_t after = 0) {
    if (after) gates_.after[frames_.size()] = after;
    frames_.push_back(std::move(f));
  }
  std::vector<std::vector<uint8_t>> frames_;
  Gates gates_;
  uint32_t mtu_;
  uint32_t psn_ = kClientPsn;
  uint32_t req_psn_ = kStart;
  uint64_t out_ = 0;
};

// Grant `es`, then the RPC: the client WRITEs `inputs[i]` into region i (the last WRITE with immediate fn),
// with the rkeys of the grant: `key` + i (the g-th grant since reset has key kRkeyBase + 32 g, docs/naa.md).
constexpr uint32_t GrantKey(uint32_t g) { return kRkeyBase + 32 * g; }
inline void Mrsp(Client* cl, const std::vector<MrspEntry>& es, uint32_t answer_bytes) {
  cl->Send(MrspRequest(es));
  cl->ExpectEndpointMessage(answer_bytes);
}
inline void Rpc(Client* cl, const std::vector<MrspEntry>& es, const std::vector<std::vector<uint8_t>>& inputs,
                uint32_t fn, uint32_t result_bytes, uint32_t key = kRkeyBase) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    const bool last = i + 1 == inputs.size();
    cl->Message(rdma::op::kWriteFirst, es[i].fpga, key + static_cast<uint32_t>(i), inputs[i], last, fn);
  }
  cl->ExpectEndpointMessage(result_bytes);
}

}  // namespace nettwin::naa::test
