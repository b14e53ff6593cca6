// The NAAICE endpoint where the seed is silent and the InfiniBand Architecture (IBA) decides (issue 25 item 7,
// docs/naa.md "IBA rules"), each through the RTL with the model in lockstep, back to back and with
// backpressure:
//   - MRSP 0x01 messages up to the seed's count of 255 regions are received (0x03 "too many regions"), not
//     NAKed for overflowing a receive buffer;
//   - a REQ whose path MTU is above the endpoint's is refused with REJ reason 26 (the REP has no MTU field);
//   - a lost RTU: the client's first packet on the QP establishes the connection (IBA chapter 12);
//   - C9-88: a zero-length WRITE_WITH_IMM with VA 0 and R_Key 0 is executed (its RPC runs);
//   - rkeys never repeat across grants (a stale rkey of an earlier grant is a remote access error).
// Expected frames come from the seed's layouts (tb/tests/naa_mrsp.h) and the IBA's field offsets.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "model/common/bytes.h"
#include "model/naa/naa_config.h"
#include "model/naa/naa_kernel.h"
#include "model/rdma/rdma_packet.h"
#include "tb/naa/naa_run.h"
#include "tb/rdma/rdma_requests.h"
#include "tb/tests/crc32_ref.h"
#include "tb/tests/naa_frames.h"
#include "tb/tests/naa_mrsp.h"
#include "tb/tests/naa_rpc_client.h"
#include "tb/tests/naa_test_run.h"

namespace nettwin::naa {
namespace {

using namespace test;  // NOLINT: the shared client frames, MRSP messages and the RPC client

NaaRunReport Go(const std::string& config, const std::vector<std::vector<uint8_t>>& frames, const Gates& gates,
                double bp) {
  return RunFrames(ParseNaaConfig(config, "naa_iba.txt"), frames, gates, TestRunConfig(bp, bp / 2, 5, 20, 5));
}

NaaRunReport GoClient(const Client& cl, double bp, const std::string& ctl_extra = "") {
  return Go(RpcConfig(ctl_extra), cl.frames(), cl.gates(), bp);
}

void ExpectClean(const NaaRunReport& r, uint64_t frames_out) {
  ASSERT_TRUE(r.mismatch_text.empty()) << r.mismatch_text;
  ASSERT_FALSE(r.run.hang);
  ASSERT_TRUE(r.conservation_ok);
  EXPECT_TRUE(CtlBalanced(r.last.ctl));
  EXPECT_EQ(r.run.out.size(), frames_out);
}

// The payload of an endpoint SEND ONLY / WRITE ONLY [with immediate] frame (no RETH on a SEND).
std::vector<uint8_t> OnlyPayload(const std::vector<uint8_t>& f) {
  const uint8_t op = f[42];
  const size_t hdr = 54 + (op == rdma::op::kSendOnly ? 0 : 16) + (op == rdma::op::kWriteOnlyImm ? 4 : 0);
  const size_t pad = (f[43] >> 4) & 3;
  return std::vector<uint8_t>(f.begin() + static_cast<long>(hdr), f.end() - 4 - static_cast<long>(pad));
}

uint8_t Syndrome(const std::vector<uint8_t>& f) { return f[54]; }  // AETH byte 0 of an ACK/NAK (IPv4)
bool IsAck(const std::vector<uint8_t>& f) { return f[42] == rdma::op::kAck && (f[54] >> 5) == 0; }  // any credit

// An MRSP 0x01 of 43 .. 255 regions (773 .. 6124 bytes: beyond the old 1024-byte receive buffers from 43) is
// received and answered 0x03 "too many regions"; also at path MTU 256 (24 packets).
TEST(NaaIba, MrspUpToTheSeedsCountOfRegions) {
  for (uint8_t mtu_code : {3, 1}) {
    for (double bp : {0.0, 0.4}) {
      SCOPED_TRACE(std::to_string(mtu_code) + " " + std::to_string(bp));
      Client cl(mtu_code);
      for (int n : {43, 100, 255}) {
        cl.Send(MrspRequest(Regions(std::vector<uint32_t>(n, 16))));
        cl.ExpectEndpointMessage(4);
      }
      const auto es = Regions({64, 64});
      Mrsp(&cl, es, 4 + 16 * 2);  // a grant still works after them
      const NaaRunReport r = GoClient(cl, bp);
      ExpectClean(r, cl.expected_out());
      EXPECT_EQ(r.last.rdma.naks, 0u);
      EXPECT_EQ(r.last.ctl.errors[mrsp::kTooMany], 3u);
      EXPECT_EQ(r.last.ctl.grants, 1u);
    }
  }
}

// A REQ with path MTU 4096 to an endpoint whose qp line says 1024 gets REJ reason 26 (invalid path MTU): a REP
// carries no MTU, so the client would send 4096-byte packets the responder NAKs; 2048 too. MTU 1024 is accepted
// and used (a 1000-byte WRITE).
TEST(NaaIba, PathMtuAboveTheEndpointsIsRejected) {
  const std::string cfg = ServerConfig(
      "qp 0x11 mtu 1024 max_rd_atomic 16 aq 0x10000\nmr 0x100 va 0x1000 len 4096 pa 0x200000 access rw\n", kStart, "");
  auto write = [](uint32_t psn, size_t n) {
    return rdma::BuildRequest(ClientRequest(rdma::op::kWriteOnly, psn, 0x1000, std::vector<uint8_t>(n, 0x3c)));
  };
  for (double bp : {0.0, 0.4}) {
    SCOPED_TRACE(bp);
    const auto rtu = SealAt(ClientMad(attr::kRtu, kClientComm, kCommBase), kCmIcrcAt);
    Gates g;
    g.after[1] = 1;  // each REQ waits for the answer to the one before
    g.after[2] = 2;
    g.after[3] = 3;  // the RTU for the REP
    g.after[4] = 3;
    const NaaRunReport r =
        Go(cfg, {ReqFrame(kClientComm, 7471, 0, 5), ReqFrame(kClientComm, 7471, 0, 4), ReqFrame(kClientComm, 7471, 0, 3),
                 rtu, write(kClientPsn, 1000)},
           g, bp);
    ExpectClean(r, 4);
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ(Load16(r.run.out[i].bytes.data() + kMadAt + 16), attr::kRej) << i;
      EXPECT_EQ(Load16(r.run.out[i].bytes.data() + kCmDataAt + 10), 26) << i;  // REJ reason 26
    }
    EXPECT_EQ(Load16(r.run.out[2].bytes.data() + kMadAt + 16), attr::kRep);
    EXPECT_TRUE(IsAck(r.run.out[3].bytes));  // the 1000-byte WRITE
    EXPECT_EQ(r.last.cm.rejects, 2u);
    EXPECT_EQ(r.last.rdma.naks, 0u);
  }
}

// A lost RTU (IBA chapter 12): the CM is in REP-sent when the client's first packet on the QP arrives. It
// establishes the connection as the RTU would, then the responder executes the packet (ACK, memory written).
// A late RTU afterwards is ignored; the DREQ tears down.
TEST(NaaIba, LostRtuFirstPacketEstablishes) {
  const std::string cfg = ServerConfig(
      "qp 0x11 mtu 4096 max_rd_atomic 16 aq 0x10000\nmr 0x100 va 0x1000 len 4096 pa 0x200000 access rw\n", kStart, "");
  std::vector<uint8_t> pattern;
  for (int i = 0; i < 300; ++i) pattern.push_back(static_cast<uint8_t>(i * 7 + 1));
  rdma::RequestSpec s = ClientRequest(rdma::op::kWriteOnly, kClientPsn, 0x1010, pattern);
  const auto w = rdma::BuildRequest(s);
  const std::vector<uint8_t> data = s.payload;
  s.opcode = rdma::op::kReadRequest;
  s.psn = kClientPsn + 1;
  s.payload.clear();
  const auto rd = rdma::BuildRequest(s);
  const auto rtu = SealAt(ClientMad(attr::kRtu, kClientComm, kCommBase), kCmIcrcAt);
  const auto dreq = SealAt(ClientMad(attr::kDreq, kClientComm, kCommBase), kCmIcrcAt);
  for (double bp : {0.0, 0.4}) {
    SCOPED_TRACE(bp);
    Gates g;
    g.after[1] = 1;  // the WRITE waits for the REP (the client's RTU was lost)
    g.after[3] = 3;
    const NaaRunReport r = Go(cfg, {ReqFrame(kClientComm, 7471, 0, 5), w, rd, rtu, dreq}, g, bp);
    ExpectClean(r, 4);  // REP, ACK, READ RESPONSE, DREP
    EXPECT_EQ(Load16(r.run.out[0].bytes.data() + kMadAt + 16), attr::kRep);
    EXPECT_TRUE(IsAck(r.run.out[1].bytes));
    EXPECT_EQ(r.run.out[2].bytes[42], rdma::op::kReadRspOnly);
    EXPECT_EQ(std::vector<uint8_t>(r.run.out[2].bytes.begin() + 58, r.run.out[2].bytes.begin() + 358), data);
    EXPECT_EQ(Load16(r.run.out[3].bytes.data() + kMadAt + 16), attr::kDrep);
    std::vector<uint8_t> mem(300);
    r.memory->Read(0x200010, mem.data(), mem.size());
    EXPECT_EQ(mem, data);
    EXPECT_EQ(r.last.cm.connects, 1u);
    EXPECT_EQ(r.last.cm.disconnects, 1u);
    EXPECT_EQ(r.last.cm.drops[static_cast<int>(CmDrop::kIgnored)], 1u);  // the late RTU
    EXPECT_EQ(r.last.rdma.drops[static_cast<int>(rdma::Drop::kUnknownQp)], 0u);  // the WRITE was not lost
  }
}

// IBA C9-88 (Linux rxe follows it): a zero-length RDMA WRITE need not carry a valid VA or R_Key. The library
// ends its parameters with a WRITE_WITH_IMM; one of zero bytes with VA 0 and R_Key 0 must still be executed
// and complete: the RPC (CRC-32 of region 0, written before) runs and answers.
TEST(NaaIba, ZeroLengthWriteWithImmediateC988) {
  const uint32_t n = 700;
  const auto es = Regions({n, 64});
  const auto a = Pattern(n, 31);
  for (double bp : {0.0, 0.4}) {
    SCOPED_TRACE(bp);
    Client cl;
    Mrsp(&cl, es, 4 + 16 * 2);
    cl.Message(rdma::op::kWriteFirst, es[0].fpga, kRkeyBase, a, false, 0);
    cl.Message(rdma::op::kWriteFirst, 0, 0, {}, true, rpc::kCrc);  // WRITE ONLY with immediate, 0 bytes
    cl.ExpectEndpointMessage(4);
    const NaaRunReport r = GoClient(cl, bp);
    ExpectClean(r, cl.expected_out());
    EXPECT_EQ(r.last.rdma.naks, 0u);
    EXPECT_EQ(r.last.ctl.rpcs, 1u);
    const std::vector<uint8_t>& res = r.run.out[r.run.out.size() - 1].bytes;
    ASSERT_EQ(res[42], rdma::op::kWriteOnlyImm);
    const uint32_t crc = nettwin::test::Crc32(a);
    EXPECT_EQ(OnlyPayload(res), (std::vector<uint8_t>{static_cast<uint8_t>(crc), static_cast<uint8_t>(crc >> 8),
                                                      static_cast<uint8_t>(crc >> 16), static_cast<uint8_t>(crc >> 24)}));
  }
}

// Every grant's rkeys are new (rkey_base + 32 g + i for the g-th grant): the second grant's answer carries
// them, WRITEs with them work, and a WRITE with the first grant's rkey 0, which used to reach the second
// grant's region 0, is a remote access error. Across a reconnection the count goes on.
TEST(NaaIba, RkeysNeverRepeatAcrossGrants) {
  const auto first = Regions({256, 256});
  auto second = Regions({512, 512});
  for (auto& e : second) e.fpga += 0x80000;
  for (double bp : {0.0, 0.4}) {
    SCOPED_TRACE(bp);
    Client cl;
    Mrsp(&cl, first, 4 + 16 * 2);
    Mrsp(&cl, second, 4 + 16 * 2);
    cl.Message(rdma::op::kWriteFirst, second[1].fpga, GrantKey(1) + 1, Pattern(512, 2), false, 0);
    cl.Message(rdma::op::kWriteFirst, second[0].fpga, kRkeyBase, Pattern(16, 3), false, 0);  // stale: NAK
    const NaaRunReport r = GoClient(cl, bp);
    ExpectClean(r, cl.expected_out());
    const auto& out = r.run.out;
    // REP, the first grant's ACK + answer, the second's, the WRITE's ACK, the stale WRITE's NAK.
    EXPECT_EQ(OnlyPayload(out[2].bytes), MrspGrant(first, kRkeyBase));
    EXPECT_EQ(OnlyPayload(out[4].bytes), MrspGrant(second, GrantKey(1)));
    EXPECT_TRUE(IsAck(out[5].bytes));
    EXPECT_EQ(Syndrome(out[6].bytes), 0x62u);  // NAK remote access error
    std::vector<uint8_t> mem(16);
    r.memory->Read(second[0].fpga, mem.data(), mem.size());
    EXPECT_NE(mem, Pattern(16, 3));
    std::vector<uint8_t> m1(512);
    r.memory->Read(second[1].fpga, m1.data(), m1.size());
    EXPECT_EQ(m1, Pattern(512, 2));
  }
}

}  // namespace
}  // namespace nettwin::naa
