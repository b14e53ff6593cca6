// Client frames for the naa tests and bench: the addresses of the test configuration, CM MADs (REQ, RTU, DREQ)
// built by ComposeCm with the roles swapped, the client's ACK/NAK frames, and the ICRC that seals a frame.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "model/common/bytes.h"
#include "model/naa/naa_mad.h"
#include "model/rdma/rdma_packet.h"
#include "tb/rdma/rdma_requests.h"

namespace nettwin::naa::test {

constexpr uint64_t kServerMac = 0x020000000001, kClientMac = 0x020000000002;
constexpr uint32_t kServerIp = 0x0a000001, kClientIp = 0x0a000002;
constexpr uint32_t kQpn = 0x11, kClientQpn = 0xabcde, kClientPsn = 0x123456;
constexpr uint32_t kCommBase = 0x1000, kClientComm = 0x77;

// The test configuration's `responder` and `cm` lines around the `qp` line (`psn`: the REP's starting PSN,
// the endpoint requester's first).
inline std::string ServerConfig(const std::string& qp_line, uint32_t psn, const std::string& extra) {
  char cm[160];
  std::snprintf(cm, sizeof cm, "cm port 7471 guid 0x0102030405060708 psn 0x%x initiator_depth 2 comm_id 0x1000\n", psn);
  return "responder mac 02:00:00:00:00:01 ip 10.0.0.1\n" + qp_line + cm + extra;
}

// A client's request to the endpoint's QP kQpn at `va` in the tests' MR (rkey 0x100); a WRITE or SEND carries
// `payload`, its DMA length.
inline rdma::RequestSpec ClientRequest(uint8_t opcode, uint32_t psn, uint64_t va, std::vector<uint8_t> payload = {}) {
  rdma::RequestSpec s;
  s.opcode = opcode;
  s.dqpn = kQpn;
  s.psn = psn;
  s.va = va;
  s.rkey = 0x100;
  s.dmalen = static_cast<uint32_t>(payload.size());
  s.payload = std::move(payload);
  return s;
}

// The RoCEv2 ICRC of bytes [14, end) of a frame (IPv4).
inline uint32_t Icrc(const std::vector<uint8_t>& f, int end) { return rdma::FrameIcrc(f, end); }

inline std::vector<uint8_t> SealAt(std::vector<uint8_t> f, int icrc_at) {
  const uint32_t c = Icrc(f, icrc_at);
  for (int j = 0; j < 4; ++j) f[icrc_at + j] = static_cast<uint8_t>(c >> (8 * j));
  return f;
}

// A client CM frame: ComposeCm with the roles swapped gives the headers; the CM fields are patched in.
inline std::vector<uint8_t> ClientMad(uint16_t attr, uint32_t comm0, uint32_t comm1, uint64_t tid = 0x42) {
  CmDesc d;
  d.attr = attr;
  d.tid = tid;
  d.dst_mac = kServerMac;
  d.dst_ip = kServerIp;
  d.sport = 50000;
  rdma::ResponderCfg client;
  client.mac = kClientMac;
  client.ip4 = kClientIp;
  client.has_ip4 = true;
  const CmFrameBytes b = ComposeCm(d, client);
  std::vector<uint8_t> f(b.begin(), b.begin() + kCmFrameBytes);
  Store32(f.data() + kCmDataAt, comm0);
  Store32(f.data() + kCmDataAt + 4, comm1);
  return f;
}

// A REQ for TCP port `port`, transport `transport` (0 RC), path MTU code `mtu` (1 = 256 .. 5 = 4096).
inline std::vector<uint8_t> ReqFrame(uint32_t comm, uint16_t port, uint8_t transport, uint8_t mtu) {
  std::vector<uint8_t> f = ClientMad(attr::kReq, comm, 0);
  uint8_t* c = f.data() + kCmDataAt;
  StoreBe(c + 8, 8, 0x0000000001060000ull | port);
  StoreBe(c + 32, 3, kClientQpn);
  c[35] = 8;  // responder resources
  c[39] = 4;  // initiator depth
  c[43] = static_cast<uint8_t>(transport << 1);
  StoreBe(c + 44, 3, kClientPsn);
  c[50] = static_cast<uint8_t>(mtu << 4);
  return SealAt(f, kCmIcrcAt);
}

// The client's ACK (syndrome 0), RNR NAK (0x20 | timer) or NAK (0x60 | code) for the endpoint's QP kQpn.
inline std::vector<uint8_t> AckFrame(uint32_t psn, uint8_t syndrome = 0) {
  std::vector<uint8_t> f(62, 0);
  uint8_t* p = f.data();
  StoreBe(p, 6, kServerMac);
  StoreBe(p + 6, 6, kClientMac);
  StoreBe(p + 12, 2, 0x0800);
  p[14] = 0x45;
  StoreBe(p + 16, 2, 48);
  StoreBe(p + 20, 2, 0x4000);
  p[22] = 64;
  p[23] = 17;
  StoreBe(p + 26, 4, kClientIp);
  StoreBe(p + 30, 4, kServerIp);
  StoreBe(p + 34, 2, 50000);
  StoreBe(p + 36, 2, params::kRdmaUdpPort);
  StoreBe(p + 38, 2, 28);
  p[42] = 0x11;
  StoreBe(p + 44, 2, 0xFFFF);
  StoreBe(p + 47, 3, kQpn);
  StoreBe(p + 51, 3, psn & 0xFFFFFF);
  p[54] = syndrome;
  return SealAt(f, 58);
}

}  // namespace nettwin::naa::test
