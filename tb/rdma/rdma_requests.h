// Builds RoCEv2 request frames (with a correct ICRC) for the latency scenario and the C++ tests.
#pragma once

#include <cstdint>
#include <vector>

#include "model/common/bytes.h"
#include "model/common/checksum.h"
#include "model/rdma/rdma_packet.h"

namespace nettwin::rdma {

struct RequestSpec {
  uint64_t dst_mac = 0x020000000001, src_mac = 0x020000000002;
  uint32_t dst_ip4 = 0x0a000001, src_ip4 = 0x0a000002;
  uint16_t sport = 49152;
  uint8_t opcode = op::kFetchAdd;
  uint32_t dqpn = 0x11, psn = 0;
  bool ackreq = true;
  uint64_t va = 0, swap = 0, compare = 0;
  uint32_t rkey = 0, dmalen = 0;
  uint32_t imm = 0;  // ImmDt of the *_WITH_IMMEDIATE opcodes
  std::vector<uint8_t> payload;
};

inline std::vector<uint8_t> BuildRequest(const RequestSpec& s) {
  int ext = 0;
  if (s.opcode == op::kWriteFirst || s.opcode == op::kWriteOnly || s.opcode == op::kReadRequest) ext = 16;
  if (s.opcode == op::kWriteOnlyImm) ext = 20;
  if (s.opcode == op::kSendLastImm || s.opcode == op::kSendOnlyImm || s.opcode == op::kWriteLastImm) ext = 4;
  if (s.opcode == op::kCompareSwap || s.opcode == op::kFetchAdd) ext = 28;
  const int pad = static_cast<int>((4 - s.payload.size() % 4) % 4);
  const int len = 14 + 20 + 8 + 12 + ext + static_cast<int>(s.payload.size()) + pad + 4;
  std::vector<uint8_t> f(static_cast<size_t>(std::max(len, 60)), 0);
  uint8_t* h = f.data();
  StoreBe(h, 6, s.dst_mac);
  StoreBe(h + 6, 6, s.src_mac);
  Store16(h + 12, 0x0800);
  uint8_t* ip = h + 14;
  ip[0] = 0x45;
  Store16(ip + 2, static_cast<uint16_t>(len - 14));
  Store16(ip + 6, 0x4000);
  ip[8] = 64;
  ip[9] = 17;
  Store32(ip + 12, s.src_ip4);
  Store32(ip + 16, s.dst_ip4);
  Store16(ip + 10, static_cast<uint16_t>(~OnesSum(ip, 20)));
  uint8_t* udp = ip + 20;
  Store16(udp, s.sport);
  Store16(udp + 2, 4791);
  Store16(udp + 4, static_cast<uint16_t>(len - 34));
  uint8_t* bth = udp + 8;
  bth[0] = s.opcode;
  bth[1] = static_cast<uint8_t>(pad << 4);
  Store16(bth + 2, 0xFFFF);
  Store32(bth + 4, s.dqpn);
  Store32(bth + 8, (s.ackreq ? 0x80000000u : 0) | (s.psn & kPsnMask));
  uint8_t* e = bth + 12;
  if (ext == 16 || ext == 20) {
    StoreBe(e, 8, s.va);
    Store32(e + 8, s.rkey);
    Store32(e + 12, s.dmalen);
    if (ext == 20) Store32(e + 16, s.imm);
  } else if (ext == 4) {
    Store32(e, s.imm);
  } else if (ext == 28) {
    StoreBe(e, 8, s.va);
    Store32(e + 8, s.rkey);
    StoreBe(e + 12, 8, s.swap);
    StoreBe(e + 20, 8, s.compare);
  }
  std::copy(s.payload.begin(), s.payload.end(), e + ext);
  const uint32_t crc = FrameIcrc(f, len - 4);
  for (int j = 0; j < 4; ++j) f[len - 4 + j] = static_cast<uint8_t>(crc >> (8 * j));
  return f;
}

// The rkey of the C++ tests' memory region (their configurations' `mr 0x1234 ...` line).
constexpr uint32_t kTestRkey = 0x1234;

// A request of `opcode` at `va` in the tests' MR to QP `qpn`; `dmalen`: a READ's or WRITE's DMA length (a
// WRITE's payload is the caller's).
inline RequestSpec MrRequest(uint8_t opcode, uint32_t psn, uint64_t va, uint32_t dmalen = 0, uint32_t qpn = 0x11) {
  RequestSpec s;
  s.opcode = opcode;
  s.psn = psn;
  s.dqpn = qpn;
  s.va = va;
  s.rkey = kTestRkey;
  s.dmalen = dmalen;
  return s;
}

// An atomic (FETCH_ADD: `swap` is the addend; CMP_SWAP) on the word at `va` in the tests' MR.
inline RequestSpec Atomic(uint8_t opcode, uint32_t psn, uint64_t va, uint64_t swap, uint64_t compare = 0,
                          uint32_t qpn = 0x11) {
  RequestSpec s = MrRequest(opcode, psn, va, 0, qpn);
  s.swap = swap;
  s.compare = compare;
  return s;
}

// A SEND packet of `n` bytes of `fill` (AckReq on the packets that end a message).
inline RequestSpec Send(uint8_t opcode, uint32_t psn, size_t n, uint8_t fill, uint32_t qpn = 0x11) {
  RequestSpec s;
  s.opcode = opcode;
  s.psn = psn;
  s.dqpn = qpn;
  s.payload.assign(n, fill);
  s.ackreq = !(opcode == op::kSendFirst || opcode == op::kSendMiddle);
  return s;
}

}  // namespace nettwin::rdma
