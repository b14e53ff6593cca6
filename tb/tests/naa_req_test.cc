// The endpoint's requester (naa_req) in lockstep with its model: config-posted SEND / WRITE / WRITE_WITH_IMM
// split at the negotiated MTU, the client's ACKs and NAKs gated on the endpoint's frames (docs/naa.md "Gates"),
// Go-Back-N on timeout and on NAK, RNR waits, fatal NAKs, retry exhaustion, stale and ghost ACKs, disconnect
// with work outstanding. Every request frame is checked against host memory and its ICRC.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "model/common/bytes.h"
#include "model/naa/naa_config.h"
#include "model/naa/naa_mad.h"
#include "model/rdma/rdma_packet.h"
#include "tb/naa/naa_run.h"
#include "tb/tests/error_message.h"
#include "tb/tests/naa_frames.h"
#include "tb/tests/naa_test_run.h"

namespace nettwin::naa {
namespace {

using namespace test;  // NOLINT: the shared client frames

constexpr uint64_t kLaddr = 0x300000;
constexpr uint32_t kStart = 0x654321;  // the REP's starting PSN: the requester's first

std::string Config(const std::string& extra, uint32_t start_psn = kStart) {
  return ServerConfig(
      "qp 0x11 mtu 4096 max_rd_atomic 16 aq 0x10000\nmr 0x100 va 0x1000 len 4096 pa 0x200000 access rw\n", start_psn,
      extra);
}

std::vector<uint8_t> Seal(std::vector<uint8_t> f, int icrc_at) { return SealAt(std::move(f), icrc_at); }
std::vector<uint8_t> Req(uint8_t mtu) { return ReqFrame(kClientComm, 7471, 0, mtu); }
std::vector<uint8_t> Rtu() { return Seal(ClientMad(attr::kRtu, kClientComm, kCommBase), kCmIcrcAt); }
std::vector<uint8_t> Dreq() { return Seal(ClientMad(attr::kDreq, kClientComm, kCommBase), kCmIcrcAt); }

std::vector<uint8_t> Ack(uint32_t psn, uint8_t syndrome = 0) { return AckFrame(psn, syndrome); }

std::vector<uint8_t> Pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 7 + (i >> 8));
  return v;
}

struct ReqRun {
  NaaRunReport r;
  std::vector<uint8_t> mem;
};

ReqRun Go(const std::string& extra, const std::vector<std::vector<uint8_t>>& fs, const Gates& g, double bp = 0,
          uint32_t read_cycles = 20, uint32_t start_psn = kStart) {
  NaaConfig c = ParseNaaConfig(Config(extra, start_psn), "t");
  ReqRun run;
  run.mem = Pattern(70000, 3);
  c.rdma.memory.push_back(rdma::MemInit{kLaddr, run.mem});
  run.r = RunFrames(c, fs, g, TestRunConfig(bp, bp / 2, 5, read_cycles));
  return run;
}

// A request frame: opcode, PSN, AckReq, its payload equal to host memory at `laddr`, a good ICRC.
void ExpectRequest(const ReqRun& run, size_t i, uint8_t opcode, uint32_t psn, uint64_t laddr, uint32_t plen,
                   bool ackreq) {
  ASSERT_LT(i, run.r.run.out.size());
  const std::vector<uint8_t>& f = run.r.run.out[i].bytes;
  SCOPED_TRACE("endpoint frame " + std::to_string(i));
  EXPECT_EQ(f[42], opcode);
  EXPECT_EQ(LoadBe(f.data() + 51, 3), psn & 0xFFFFFF);
  EXPECT_EQ((f[50] & 0x80) != 0, ackreq);
  EXPECT_EQ(LoadBe(f.data() + 47, 3), kClientQpn);
  EXPECT_EQ(LoadBe(f.data(), 6), kClientMac);
  EXPECT_EQ(Load32(f.data() + 30), kClientIp);
  const bool reth = opcode == 0x06 || opcode == 0x0a || opcode == 0x0b;
  const bool imm = opcode == 0x09 || opcode == 0x0b;
  const size_t hdr = 54 + (reth ? 16 : 0) + (imm ? 4 : 0);
  const size_t pad = (4 - plen % 4) % 4;
  ASSERT_EQ(f.size(), hdr + plen + pad + 4);
  EXPECT_EQ((f[43] >> 4) & 3, pad);
  EXPECT_EQ(Load16(f.data() + 16), f.size() - 14);
  for (uint32_t j = 0; j < plen; ++j) {
    ASSERT_EQ(f[hdr + j], run.mem[laddr - kLaddr + j]) << "payload byte " << j;
  }
  const int at = static_cast<int>(f.size()) - 4;
  EXPECT_EQ(f[at] | f[at + 1] << 8 | f[at + 2] << 16 | static_cast<uint32_t>(f[at + 3]) << 24, Icrc(f, at));
}

uint32_t Cnt(const ReqRun& run, uint32_t i) { return run.r.last.req.cnt[i]; }

void ExpectClean(const ReqRun& run) {
  ASSERT_TRUE(run.r.mismatch_text.empty()) << run.r.mismatch_text;
  ASSERT_FALSE(run.r.run.hang);
  ASSERT_TRUE(run.r.conservation_ok);
}

const char* kPost3000 = "post write laddr 0x300000 len 3000 raddr 0x9000 rkey 0x55 tag 7\n";

TEST(NaaReq, WriteSplitAtTheMtuAndACoalescedAck) {
  for (double bp : {0.0, 0.5}) {
    Gates g;
    g.after = {{1, 1}, {2, 4}};  // RTU after the REP; the ACK after the three WRITE packets
    const ReqRun run = Go(kPost3000, {Req(3), Rtu(), Ack(kStart + 2)}, g, bp);
    ExpectClean(run);
    ASSERT_EQ(run.r.run.out.size(), 4u);
    ExpectRequest(run, 1, 0x06, kStart, kLaddr, 1024, false);
    ExpectRequest(run, 2, 0x07, kStart + 1, kLaddr + 1024, 1024, false);
    ExpectRequest(run, 3, 0x08, kStart + 2, kLaddr + 2048, 952, true);
    const std::vector<uint8_t>& first = run.r.run.out[1].bytes;
    EXPECT_EQ(LoadBe(first.data() + 54, 8), 0x9000u);
    EXPECT_EQ(Load32(first.data() + 62), 0x55u);
    EXPECT_EQ(Load32(first.data() + 66), 3000u);
    EXPECT_EQ(Cnt(run, params::kNaaReqCntSent), 3u);
    EXPECT_EQ(Cnt(run, params::kNaaReqCntAcks), 1u);
    EXPECT_EQ(Cnt(run, params::kNaaReqCntCplOk), 1u);
    EXPECT_EQ(Cnt(run, params::kNaaReqCntRetransmits), 0u);
  }
}

TEST(NaaReq, EveryMtuWithHostReadLatency) {
  for (uint8_t mtu = 1; mtu <= 5; ++mtu) {
    const uint32_t m = 128u << mtu, len = 5000, n = (len + m - 1) / m;
    Gates g;
    g.after = {{1, 1}, {2, 1 + n}};
    const ReqRun run = Go("post write laddr 0x300000 len 5000 raddr 0x9000 rkey 0x55\n",
                          {Req(mtu), Rtu(), Ack(kStart + n - 1)}, g, 0.3, 80);
    ExpectClean(run);
    ASSERT_EQ(run.r.run.out.size(), 1 + n) << "mtu " << m;
    for (uint32_t k = 0; k < n; ++k) {
      const uint8_t op = n == 1 ? 0x0a : k == 0 ? 0x06 : k + 1 == n ? 0x08 : 0x07;
      const bool ackreq = k + 1 == n || (k + 1) % params::kNaaReqAckEvery == 0;
      ExpectRequest(run, 1 + k, op, kStart + k, kLaddr + k * m, std::min(m, len - k * m), ackreq);
    }
    EXPECT_EQ(Cnt(run, params::kNaaReqCntCplOk), 1u);
  }
}

TEST(NaaReq, SendAndZeroLengthWriteWithImmediateAcrossThePsnWrap) {
  const std::string posts =
      "post send laddr 0x300010 len 13 tag 1\n"
      "post write_imm len 0 raddr 0x9000 rkey 0x55 imm 0xdeadbeef tag 2\n"
      "post write_imm laddr 0x300100 len 600 raddr 0xa000 rkey 0x56 imm 7 tag 3\n";
  Gates g;
  g.after = {{1, 1}, {2, 6}};
  const ReqRun run =
      Go(std::string("req timeout 1000 retry 0\n") + posts, {Req(1), Rtu(), Ack(0x000001)}, g, 0, 20, 0xFFFFFE);
  ExpectClean(run);
  ASSERT_EQ(run.r.run.out.size(), 6u);
  ExpectRequest(run, 1, 0x04, 0xFFFFFE, 0x300010, 13, true);
  ExpectRequest(run, 2, 0x0b, 0xFFFFFF, 0, 0, true);
  EXPECT_EQ(Load32(run.r.run.out[2].bytes.data() + 70), 0xdeadbeefu);
  ExpectRequest(run, 3, 0x06, 0x000000, 0x300100, 256, false);
  ExpectRequest(run, 4, 0x07, 0x000001, 0x300200, 256, false);
  ExpectRequest(run, 5, 0x09, 0x000002, 0x300300, 88, true);
  EXPECT_EQ(Load32(run.r.run.out[5].bytes.data() + 54), 7u);
  // The ACK for PSN 1 completes the SEND and the empty WRITE_WITH_IMM; the last message stays outstanding
  // until its (zero) retries run out: the client never ACKs PSN 2.
  EXPECT_EQ(Cnt(run, params::kNaaReqCntCplOk), 2u);
  EXPECT_EQ(Cnt(run, params::kNaaReqCntCplRetry), 1u);
}

TEST(NaaReq, LostAckTimesOutAndGoesBackN) {
  Gates g;
  g.after = {{1, 1}, {2, 7}};  // the client's ACK only after the retransmission
  const ReqRun run = Go(std::string("req timeout 2000 retry 3\n") + kPost3000, {Req(3), Rtu(), Ack(kStart + 2)}, g);
  ExpectClean(run);
  ASSERT_EQ(run.r.run.out.size(), 7u);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(run.r.run.out[4 + k].bytes, run.r.run.out[1 + k].bytes);
  EXPECT_GE(run.r.run.out_first_cycle[4] - run.r.run.out_first_cycle[3], 2000u);
  EXPECT_EQ(Cnt(run, params::kNaaReqCntTimeouts), 1u);
  EXPECT_EQ(Cnt(run, params::kNaaReqCntRetransmits), 3u);
  EXPECT_EQ(Cnt(run, params::kNaaReqCntCplOk), 1u);
}

TEST(NaaReq, SequenceErrorNakMidMessageGoesBackToItsPsn) {
  Gates g;
  g.after = {{1, 1}, {2, 4}, {3, 6}};
  const ReqRun run = Go(kPost3000, {Req(3), Rtu(), Ack(kStart + 1, 0x60), Ack(kStart + 2)}, g, 0.4);
  ExpectClean(run);
  ASSERT_EQ(run.r.run.out.size(), 6u);
  EXPECT_EQ(run.r.run.out[4].bytes, run.r.run.out[2].bytes);
  EXPECT_EQ(run.r.run.out[5].bytes, run.r.run.out[3].bytes);
  EXPECT_EQ(Cnt(run, params::kNaaReqCntNakSeq), 1u);
  EXPECT_EQ(Cnt(run, params::kNaaReqCntRetransmits), 2u);
  EXPECT_EQ(Cnt(run, params::kNaaReqCntCplOk), 1u);
}

TEST(NaaReq, RnrNakWaitsItsTimerThenRetries) {
  Gates g;
  g.after = {{1, 1}, {2, 4}, {3, 7}};
  const ReqRun run = Go(kPost3000, {Req(3), Rtu(), Ack(kStart, 0x20 | 2), Ack(kStart + 2)}, g);
  ExpectClean(run);
  ASSERT_EQ(run.r.run.out.size(), 7u);
  EXPECT_GE(run.r.run.out_first_cycle[4] - run.r.run.in_last_cycle[2], 3u * params::kNaaReqRnrUnit);
  EXPECT_EQ(run.r.run.out[4].bytes, run.r.run.out[1].bytes);
  EXPECT_EQ(Cnt(run, params::kNaaReqCntNakRnr), 1u);
  EXPECT_EQ(Cnt(run, params::kNaaReqCntCplOk), 1u);
}

TEST(NaaReq, FatalNakCompletesWithRemoteErrorAndFlushesTheRest) {
  Gates g;
  g.after = {{1, 1}, {2, 5}};
  const ReqRun run = Go(std::string(kPost3000) + "post send laddr 0x300000 len 8 tag 8\n",
                        {Req(3), Rtu(), Ack(kStart + 1, 0x62), Ack(kStart + 3)}, g);
  ExpectClean(run);
  EXPECT_EQ(Cnt(run, params::kNaaReqCntNakFatal), 1u);
  EXPECT_EQ(Cnt(run, params::kNaaReqCntCplRemote), 1u);
  EXPECT_EQ(Cnt(run, params::kNaaReqCntCplFlushed), 1u);
  EXPECT_EQ(Cnt(run, params::kNaaReqCntStale), 1u);  // an ACK after the error is ignored
  EXPECT_EQ(run.r.run.out.size(), 5u);               // nothing sent after the NAK
}

TEST(NaaReq, RetryExceededAfterTheLastTimeout) {
  Gates g;
  g.after = {{1, 1}};
  const ReqRun run = Go(std::string("req timeout 500 retry 1\n") + kPost3000, {Req(3), Rtu()}, g);
  ExpectClean(run);
  EXPECT_EQ(run.r.run.out.size(), 7u);  // REP, 3 packets, 3 again
  EXPECT_EQ(Cnt(run, params::kNaaReqCntTimeouts), 2u);
  EXPECT_EQ(Cnt(run, params::kNaaReqCntCplRetry), 1u);
}

TEST(NaaReq, StaleDuplicateAndGhostAcks) {
  Gates g;
  g.after = {{1, 1}, {2, 4}};
  const ReqRun run =
      Go(kPost3000,
         {Req(3), Rtu(), Ack(kStart - 1), Ack(kStart + 9), Ack(kStart + 2), Ack(kStart + 2), Ack(kStart + 1)}, g);
  ExpectClean(run);
  EXPECT_EQ(run.r.last.req.drops[static_cast<int>(ReqDrop::kGhost)], 1u);
  EXPECT_EQ(Cnt(run, params::kNaaReqCntStale), 3u);
  EXPECT_EQ(Cnt(run, params::kNaaReqCntAcks), 1u);
  EXPECT_EQ(Cnt(run, params::kNaaReqCntCplOk), 1u);
  EXPECT_EQ(run.r.last.req.packets_in, 5u);
}

TEST(NaaReq, DisconnectFlushesOutstandingWork) {
  Gates g;
  g.after = {{1, 1}, {2, 4}};
  const ReqRun run = Go(std::string("req timeout 100000\n") + kPost3000, {Req(3), Rtu(), Dreq(), Ack(kStart + 2)}, g);
  ExpectClean(run);
  EXPECT_EQ(Cnt(run, params::kNaaReqCntCplFlushed), 1u);
  EXPECT_EQ(run.r.last.req.drops[static_cast<int>(ReqDrop::kNotConnected)] +
                run.r.last.rdma.drops[static_cast<int>(rdma::Drop::kUnknownQp)],
            1u);  // the late ACK
}

TEST(NaaReq, ConfigLinesAreCheckedWithTheLineAndToken) {
  auto err = [](const std::string& extra) {
    return ErrorMessage<rdma::ConfigError>([&] { ParseNaaConfig(Config(extra), "c"); }, "no error");
  };
  EXPECT_EQ(err("req timeout 10 retry 8\n"), "c:5: token '8': does not fit in 3 bits");
  EXPECT_EQ(err("req colour 1\n"), "c:5: token 'colour': unknown req key (timeout, retry, rnr_retry)");
  EXPECT_EQ(err("post read laddr 1 len 2\n"), "c:5: token 'read': unknown post operation (send, write, write_imm)");
  EXPECT_EQ(err("post write laddr 1 len 2\n"), "c:5: token 'write': a write needs raddr and rkey");
  EXPECT_EQ(err("post send laddr 1 len 2 imm 3\n"), "c:5: token 'send': a send has no raddr, rkey or imm");
  std::string nine;
  for (int i = 0; i < 9; ++i) nine += "post send len 0\n";
  EXPECT_EQ(err(nine), "c:13: token 'post': at most 8 posted commands");
  const NaaConfig c = ParseNaaConfig(Config(kPost3000), "c");
  ASSERT_EQ(c.posts.size(), 1u);
  EXPECT_EQ(DecodeReqCmd(Encode(c.posts[0])), c.posts[0]);
}

}  // namespace
}  // namespace nettwin::naa
