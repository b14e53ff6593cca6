// The paths of the endpoint's requester, controller, kernels and DMA arbiter that the scenario tests leave out
// (docs/coverage-review.md, "NAA requester, controller, kernels"): each test reaches RTL lines the coverage
// review found unreached, through the whole naa_top against NaaCycleModel compared every cycle. What each test
// expects is counted here from the frames it sends (one drop or error per frame of a kind), never taken from
// the model.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "model/common/bytes.h"
#include "model/naa/naa_config.h"
#include "model/naa/naa_mad.h"
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

constexpr uint64_t kLaddr = 0x300000;

std::string Config(const std::string& extra) {
  return ServerConfig(
      "qp 0x11 mtu 4096 max_rd_atomic 16 aq 0x10000\nmr 0x100 va 0x1000 len 4096 pa 0x200000 access rw\n", kStart,
      extra);
}

std::vector<uint8_t> Rtu() { return SealAt(ClientMad(attr::kRtu, kClientComm, kCommBase), kCmIcrcAt); }

// The run every test here makes: `config` (a whole configuration), the client's frames and their gates.
NaaRunReport RunEndpoint(NaaConfig c, const std::vector<std::vector<uint8_t>>& fs, const Gates& g, double bp,
                         uint32_t read_cycles, uint32_t outstanding = 16, uint32_t write_cycles = 5) {
  NaaRunConfig rc = TestRunConfig(bp, bp / 2, 9, read_cycles, write_cycles);
  // The slots model, where `outstanding` and `write_cycles` make the host stall the endpoint.
  rc.mem.model = tb::HostMemoryTiming::Model::kSlots;
  rc.mem.max_outstanding = outstanding;
  return RunFrames(c, fs, g, rc);
}

// The requester's tests: `extra` config lines after the connection's, a payload pattern at kLaddr.
NaaRunReport Go(const std::string& extra, const std::vector<std::vector<uint8_t>>& fs, const Gates& g, double bp = 0,
                uint32_t read_cycles = 20) {
  NaaConfig c = ParseNaaConfig(Config(extra), "t");
  std::vector<uint8_t> mem(8192);
  for (size_t i = 0; i < mem.size(); ++i) mem[i] = static_cast<uint8_t>(i * 13 + 1);
  c.rdma.memory.push_back(rdma::MemInit{kLaddr, mem});
  return RunEndpoint(std::move(c), fs, g, bp, read_cycles);
}

void ExpectClean(const NaaRunReport& r) {
  ASSERT_TRUE(r.mismatch_text.empty()) << r.mismatch_text;
  ASSERT_FALSE(r.run.hang);
  ASSERT_TRUE(r.conservation_ok);
}

uint32_t Drops(const NaaRunReport& r, ReqDrop d) { return r.last.req.drops[static_cast<int>(d)]; }

// An ACK frame with one field changed (then resealed, so only that field is wrong).
std::vector<uint8_t> AckWith(uint32_t psn, int at, int n, uint64_t value, uint8_t syndrome = 0) {
  std::vector<uint8_t> f = AckFrame(psn, syndrome);
  StoreBe(f.data() + at, n, value);
  return SealAt(std::move(f), 58);
}

// Every check of an ACK frame the front end routes to the requester (RoCEv2/IPv4, opcode 0x11, our QPN):
// the rest of the header, the length and the syndrome's reserved codes are malformed, the addresses not
// ours, the ICRC. Each bad frame is one counted drop; the good ACK at the end still completes the message.
TEST(NaaCov, RequesterChecksEveryAckField) {
  const uint32_t psn = kStart + 2;  // the last of the write's three packets
  std::vector<std::vector<uint8_t>> malformed = {
      AckWith(psn, 16, 2, 52),               // IPv4 total length
      AckWith(psn, 20, 2, 0x2000),           // more fragments
      AckWith(psn, 20, 2, 0x0010),           // a fragment offset
      AckWith(psn, 38, 2, 29),               // UDP length
      AckFrame(psn, 0x40),                   // syndrome class 010: reserved
      AckFrame(psn, 0x65),                   // NAK code 5: reserved
      AckFrame(psn, 0x80),                   // syndrome bit 7
  };
  std::vector<uint8_t> longer = AckFrame(psn);
  longer.resize(66, 0);  // 4 bytes past the ICRC
  malformed.push_back(longer);
  std::vector<uint8_t> two_beats = AckFrame(psn);
  two_beats.resize(2 * kBeatBytes, 0);
  malformed.push_back(two_beats);
  std::vector<uint8_t> five_beats = AckFrame(psn);  // more beats than the frame counter holds (it stops at 3)
  five_beats.resize(5 * kBeatBytes, 0);
  malformed.push_back(five_beats);
  const std::vector<std::vector<uint8_t>> foreign = {
      AckWith(psn, 0, 6, 0x020000000009),  // another MAC
      AckWith(psn, 30, 4, 0x0a000009),     // another IPv4 address
  };
  std::vector<uint8_t> bad_icrc = AckFrame(psn);
  bad_icrc[60] ^= 0x01;

  std::vector<std::vector<uint8_t>> fs = {ReqFrame(kClientComm, 7471, 0, 3), Rtu()};
  Gates g;
  g.after[1] = 1;  // the RTU after the REP
  const size_t first_bad = fs.size();
  for (const auto& f : malformed) fs.push_back(f);
  for (const auto& f : foreign) fs.push_back(f);
  fs.push_back(bad_icrc);
  fs.push_back(AckFrame(psn));
  for (size_t i = first_bad; i < fs.size(); ++i) g.after[i] = 4;  // after the write's three packets
  for (double bp : {0.0, 0.5}) {
    SCOPED_TRACE(bp);
    const NaaRunReport r =
        Go("req timeout 100000\npost write laddr 0x300000 len 3000 raddr 0x9000 rkey 0x55 tag 7\n", fs, g, bp);
    ExpectClean(r);
    EXPECT_EQ(Drops(r, ReqDrop::kMalformed), malformed.size());
    EXPECT_EQ(Drops(r, ReqDrop::kNotForUs), foreign.size());
    EXPECT_EQ(Drops(r, ReqDrop::kBadIcrc), 1u);
    EXPECT_EQ(r.last.req.packets_in, malformed.size() + foreign.size() + 2);
    EXPECT_EQ(r.last.req.cnt[params::kNaaReqCntAcks], 1u);
    EXPECT_EQ(r.last.req.cnt[params::kNaaReqCntCplOk], 1u);
    EXPECT_EQ(r.run.out.size(), 4u);  // REP and the three packets: no bad frame made it retransmit
  }
}


const char* kPost3000 = "post write laddr 0x300000 len 3000 raddr 0x9000 rkey 0x55 tag 7\n";

// The retry counts run out on NAKs, not on timeouts: an RNR NAK with `rnr_retry 0`, a second RNR NAK at the
// same PSN with `rnr_retry 1` (the first is retried: the three packets again), and a sequence error NAK with
// `retry 0`. Each completes the message with "retry exceeded" and sends nothing more.
TEST(NaaCov, RnrAndSequenceNaksExhaustTheirRetryCounts) {
  struct Case {
    const char* name;
    std::string settings;
    std::vector<std::vector<uint8_t>> naks;
    std::vector<uint64_t> after;  // endpoint frames each NAK waits for
    uint32_t rnr, seq, retransmits, out;
  };
  const Case cases[] = {
      {"rnr 0", "req timeout 100000 retry 7 rnr_retry 0\n", {AckFrame(kStart, 0x20 | 1)}, {4}, 1, 0, 0, 4},
      {"rnr 1",
       "req timeout 100000 retry 7 rnr_retry 1\n",
       {AckFrame(kStart, 0x20 | 1), AckFrame(kStart, 0x20 | 1)},
       {4, 7},
       2,
       0,
       3,
       7},
      {"seq 0", "req timeout 100000 retry 0\n", {AckFrame(kStart + 1, 0x60)}, {4}, 0, 1, 0, 4},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector<std::vector<uint8_t>> fs = {ReqFrame(kClientComm, 7471, 0, 3), Rtu()};
    Gates g;
    g.after[1] = 1;
    for (size_t i = 0; i < c.naks.size(); ++i) {
      g.after[fs.size()] = c.after[i];
      fs.push_back(c.naks[i]);
    }
    const NaaRunReport r = Go(c.settings + kPost3000, fs, g);
    ExpectClean(r);
    EXPECT_EQ(r.last.req.cnt[params::kNaaReqCntNakRnr], c.rnr);
    EXPECT_EQ(r.last.req.cnt[params::kNaaReqCntNakSeq], c.seq);
    EXPECT_EQ(r.last.req.cnt[params::kNaaReqCntRetransmits], c.retransmits);
    EXPECT_EQ(r.last.req.cnt[params::kNaaReqCntCplRetry], 1u);
    EXPECT_EQ(r.last.req.cnt[params::kNaaReqCntCplOk], 0u);
    EXPECT_EQ(r.run.out.size(), c.out);
  }
}

// The connection goes while the requester waits for its payload (a slow host): the packet still goes out once
// read, with the requester no longer live (its PSN state is not advanced). The client reconnects meanwhile and
// ACKs at once: connected, but the requester is not live again until its sender is idle, so the ACK is a
// `not_connected` drop. The message of the first connection completes as flushed.
TEST(NaaCov, DisconnectAndReconnectWhileAPacketIsRead) {
  const uint32_t comm2 = kClientComm + 2, local2 = kCommBase + 1;  // the second connection's IDs
  const std::vector<std::vector<uint8_t>> fs = {
      ReqFrame(kClientComm, 7471, 0, 3),
      Rtu(),
      SealAt(ClientMad(attr::kDreq, kClientComm, kCommBase), kCmIcrcAt),
      ReqFrame(comm2, 7471, 0, 3),
      SealAt(ClientMad(attr::kRtu, comm2, local2), kCmIcrcAt),
      AckFrame(kStart),
  };
  Gates g;
  g.after = {{1, 1}, {2, 1}, {3, 2}, {4, 3}, {5, 3}};  // after REP, REP, DREP, second REP, second REP
  for (double bp : {0.0, 0.5}) {
    SCOPED_TRACE(bp);
    const NaaRunReport r =
        Go("req timeout 100000\npost write laddr 0x300000 len 64 raddr 0x9000 rkey 0x55 tag 7\n", fs, g, bp, 3000);
    ExpectClean(r);
    EXPECT_EQ(r.last.cm.connects, 2u);
    EXPECT_EQ(r.last.cm.disconnects, 1u);
    EXPECT_EQ(Drops(r, ReqDrop::kNotConnected), 1u);
    EXPECT_EQ(r.last.req.cnt[params::kNaaReqCntCplFlushed], 1u);
    EXPECT_EQ(r.last.req.cnt[params::kNaaReqCntSent], 1u);
    ASSERT_EQ(r.run.out.size(), 4u);  // REP, DREP, REP, and the WRITE read before the disconnect
    EXPECT_EQ(r.run.out[3].bytes[42], rdma::op::kWriteOnly);
    EXPECT_GE(r.run.out_first_cycle[3], r.run.in_last_cycle[5]);
  }
}


// ---- The controller and its kernels (the RPC client of tb/tests/naa_rpc_client.h) ----

NaaRunReport GoRpc(const Client& cl, const std::string& config) {
  return RunEndpoint(ParseNaaConfig(config, "naa_cov.txt"), cl.frames(), cl.gates(), 0, 20);
}

// The endpoint's messages' payloads (SEND or WRITE packets to the client's QP), one per message.
std::vector<std::vector<uint8_t>> Payloads(const NaaRunReport& r) {
  std::vector<std::vector<uint8_t>> ms;
  bool open = false;
  for (const Packet& p : r.run.out) {
    const std::vector<uint8_t>& f = p.bytes;
    if (f.size() < 58 || f[42] > rdma::op::kWriteOnlyImm || LoadBe(f.data() + 47, 3) != kClientQpn) continue;
    const uint8_t op = f[42];
    const bool reth = op == rdma::op::kWriteFirst || op == rdma::op::kWriteOnly || op == rdma::op::kWriteOnlyImm;
    const bool imm = op == rdma::op::kWriteLastImm || op == rdma::op::kWriteOnlyImm;
    const size_t hdr = 54 + (reth ? 16 : 0) + (imm ? 4 : 0);
    if (!open) ms.emplace_back();
    ms.back().insert(ms.back().end(), f.begin() + static_cast<long>(hdr),
                     f.end() - 4 - static_cast<long>((f[43] >> 4) & 3));
    open = !(op == rdma::op::kSendOnly || op == rdma::op::kSendLast || op == rdma::op::kWriteOnly ||
             op == rdma::op::kWriteOnlyImm || op == rdma::op::kWriteLast || op == rdma::op::kWriteLastImm);
  }
  return ms;
}

// An MRSP SEND shorter than its 4-byte header (malformed before any read) and one with a count of 0; a
// request for more regions than the controller's `mrs` slots (too many).
TEST(NaaCov, ShortEmptyAndTooManyMrspRequests) {
  Client cl;
  cl.Send({0x01, 0x01, 0x00});
  cl.ExpectEndpointMessage(4);
  cl.Send(MrspRequest(Regions({256}), 0));
  cl.ExpectEndpointMessage(4);
  cl.Send(MrspRequest(Regions({256, 256, 256})));
  cl.ExpectEndpointMessage(4);
  const NaaRunReport r = GoRpc(cl, RpcConfig(" mrs 2"));
  ExpectClean(r);
  EXPECT_EQ(r.run.out.size(), cl.expected_out());
  const auto ms = Payloads(r);
  ASSERT_EQ(ms.size(), 3u);
  EXPECT_EQ(ms[0], MrspError(0x04));
  EXPECT_EQ(ms[1], MrspError(0x04));
  EXPECT_EQ(ms[2], MrspError(0x03));
  EXPECT_EQ(r.last.ctl.errors[4], 2u);
  EXPECT_EQ(r.last.ctl.errors[3], 1u);
  EXPECT_EQ(r.last.ctl.requests, 3u);
  EXPECT_TRUE(CtlBalanced(r.last.ctl));
}

// The client never ACKs the answer: the requester's retries run out and the controller counts the answer as
// failed, then reposts the buffer as usual.
TEST(NaaCov, UnacknowledgedAnswerIsAFailedSend) {
  Client cl;
  cl.Send(MrspRequest(Regions({256, 256})));
  const NaaRunReport r = GoRpc(
      cl, ServerConfig("qp 0x11 mtu 4096 max_rd_atomic 16 aq 0x10000 rq 0x20000 rq_entries 4 rq_posted 0 cq 0x21000 "
                       "cq_entries 16\n",
                       kStart,
                       "ctl pool 0x40000000 pool_size 0x100000 rxbuf 0x30000 txbuf 0x31000 rkey_base 0x5000\n"
                       "req timeout 300 retry 1\n"));
  ExpectClean(r);
  EXPECT_EQ(r.run.out.size(), 4u);  // REP, the responder's ACK, the answer and its one retry
  EXPECT_EQ(r.last.req.cnt[params::kNaaReqCntTimeouts], 2u);
  EXPECT_EQ(r.last.req.cnt[params::kNaaReqCntCplRetry], 1u);
  EXPECT_EQ(r.last.ctl.send_failed, 1u);
  EXPECT_EQ(r.last.ctl.answers, 0u);
  EXPECT_EQ(r.last.ctl.grants, 1u);
  EXPECT_EQ(r.last.ctl.reposts, 1u);
  EXPECT_TRUE(CtlBalanced(r.last.ctl));
}

// Kernels on empty regions: CRC-32 of nothing (0, written to region 1), a copy and an add of nothing (done at
// once, an empty result); and the size checks of add (unequal regions) and CRC (a result region under 4 bytes).
TEST(NaaCov, KernelsOnEmptyRegionsAndSizeChecks) {
  const std::vector<std::vector<uint8_t>> kNothing = {std::vector<uint8_t>()};  // one empty WRITE_WITH_IMM
  const std::vector<MrspEntry> empty = {{kPool, 0x7f0000000000, 0x700, 0},
                                        {kPool + 0x1000, 0x7f0000100000, 0x701, 4},
                                        {kPool + 0x2000, 0x7f0000200000, 0x702, 0}};
  Client cl;
  Mrsp(&cl, empty, 4 + 16 * 3);
  Rpc(&cl, empty, kNothing, rpc::kCrc, 4);
  Rpc(&cl, empty, kNothing, rpc::kCopy, 0);
  const std::vector<MrspEntry> zeros = {empty[0], {kPool + 0x1000, 0x7f0000100000, 0x701, 0}, empty[2]};
  Mrsp(&cl, zeros, 4 + 16 * 3);
  Rpc(&cl, zeros, kNothing, rpc::kAdd, 0, GrantKey(1));
  Rpc(&cl, zeros, kNothing, rpc::kCrc, 0, GrantKey(1));  // region 1 is empty: no room for the CRC
  const auto uneven = Regions({256, 256, 512});
  Mrsp(&cl, uneven, 4 + 16 * 3);
  Rpc(&cl, uneven, {Pattern(256, 1)}, rpc::kAdd, 0, GrantKey(2));
  const NaaRunReport r = GoRpc(cl, RpcConfig());
  ExpectClean(r);
  EXPECT_EQ(r.run.out.size(), cl.expected_out());
  const auto ms = Payloads(r);
  ASSERT_EQ(ms.size(), 8u);
  EXPECT_EQ(ms[1], std::vector<uint8_t>(4, 0));  // zlib.crc32(b"") == 0
  EXPECT_TRUE(ms[2].empty());
  EXPECT_TRUE(ms[4].empty());
  EXPECT_TRUE(ms[5].empty());
  EXPECT_TRUE(ms[7].empty());
  EXPECT_EQ(r.last.ctl.rpcs, 5u);
  EXPECT_EQ(r.last.ctl.rpc_errors, 2u);  // the CRC without room and the uneven add
  EXPECT_TRUE(CtlBalanced(r.last.ctl));
}


// The client disconnects while the answer to its MRSP request is on its way: before the controller hands the
// answer to the requester (which is no longer live: the command is dropped), or after the answer went out
// unacknowledged (the requester completes it as flushed). Either way the answer counts as failed, the buffer
// is not reposted (the CM rewrites the queues on the next RTU) and the grant is revoked.
TEST(NaaCov, DisconnectWhileTheAnswerIsOnItsWay) {
  for (uint64_t after : {2u, 3u}) {  // the DREQ after the responder's ACK of the SEND, or after the answer
    SCOPED_TRACE(after);
    Client cl;
    cl.Send(MrspRequest(Regions({256, 256})));
    cl.Dreq();
    Gates g = cl.gates();
    g.after[cl.frames().size() - 1] = after;
    NaaRunReport r = RunEndpoint(ParseNaaConfig(RpcConfig(), "naa_cov.txt"), cl.frames(), g, 0, 20);
    ExpectClean(r);
    EXPECT_EQ(r.last.cm.disconnects, 1u);
    EXPECT_EQ(r.last.ctl.requests, 1u);
    EXPECT_EQ(r.last.ctl.grants, 1u);
    EXPECT_EQ(r.last.ctl.send_failed, 1u);
    EXPECT_EQ(r.last.ctl.answers, 0u);
    EXPECT_EQ(r.last.ctl.reposts, 0u);
    EXPECT_EQ(r.last.ctl.regions, 0);  // revoked
    EXPECT_EQ(r.last.req.cnt[params::kNaaReqCntCplFlushed], after == 3 ? 1u : 0u);
    EXPECT_EQ(r.run.out.size(), after + 1);  // ... and the DREP
  }
}


// A lost ACK times the write out; the client's ACK of the whole write arrives while the requester is
// resending it: the acknowledged PSN passes the sender, which moves up (nothing left to send: the ring is
// empty) instead of resending the rest.
TEST(NaaCov, ALateAckOvertakesTheRetransmission) {
  Gates g;
  g.after = {{1, 1}, {2, 5}};  // the ACK after the first resent packet
  const NaaRunReport r =
      Go(std::string("req timeout 500 retry 3\n") + kPost3000, {ReqFrame(kClientComm, 7471, 0, 3), Rtu(),
                                                                AckFrame(kStart + 2)},
         g);
  ExpectClean(r);
  EXPECT_EQ(r.last.req.cnt[params::kNaaReqCntTimeouts], 1u);
  EXPECT_EQ(r.last.req.cnt[params::kNaaReqCntAcks], 1u);
  EXPECT_EQ(r.last.req.cnt[params::kNaaReqCntCplOk], 1u);
  const uint32_t resent = r.last.req.cnt[params::kNaaReqCntRetransmits];
  EXPECT_GE(resent, 1u);
  EXPECT_LT(resent, 3u);  // not the whole write again
  EXPECT_EQ(r.run.out.size(), 4u + resent);
}

// One host-memory request outstanding at a time: every DMA master waits for the port (the controller's
// read and answer beats, the kernels' reads of A and B and their writes, the requester's payload reads).
// The results still equal plain loops over the client's data.
TEST(NaaCov, KernelsAndAnswersWaitForABusyHostPort) {
  const uint32_t n = 4096 + 256;  // two chunks
  const auto es = Regions({n, n, n, 64});
  const auto a = Pattern(n, 21), b = Pattern(n, 22);
  Client cl;
  Mrsp(&cl, es, 4 + 16 * 4);  // a two-beat answer
  Rpc(&cl, es, {a, b}, rpc::kAdd, n);
  Rpc(&cl, es, {a}, rpc::kCopy, n);
  const NaaRunReport r = RunEndpoint(ParseNaaConfig(RpcConfig(), "naa_cov.txt"), cl.frames(), cl.gates(), 0.3, 20, 1);
  ExpectClean(r);
  EXPECT_EQ(r.run.out.size(), cl.expected_out());
  const auto ms = Payloads(r);
  ASSERT_EQ(ms.size(), 3u);
  EXPECT_EQ(ms[0], MrspGrant(es, kRkeyBase));
  ASSERT_EQ(ms[1].size(), n);
  auto le32 = [](const std::vector<uint8_t>& v, size_t i) {
    return v[i] | v[i + 1] << 8 | v[i + 2] << 16 | static_cast<uint32_t>(v[i + 3]) << 24;
  };
  for (uint32_t i = 0; i < n; i += 4) ASSERT_EQ(le32(ms[1], i), le32(a, i) + le32(b, i)) << i;
  EXPECT_EQ(ms[2], a);
  EXPECT_TRUE(CtlBalanced(r.last.ctl));
}


// The DREQ swept across a 32-region grant, its answer and the repost (k frames for an unknown QP before it,
// each a counted drop, delay it by a few cycles each): the CM's QP writes then meet the controller's MR and
// queue writes on the responder's one programming port, where the CM goes first. Whatever the overlap, the
// run stays lockstep-equal, every frame is accounted for, every event is handled, the grant ends revoked.
TEST(NaaCov, DisconnectSweptAcrossAGrant) {
  rdma::RequestSpec stray;
  stray.opcode = rdma::op::kSendOnly;
  stray.dqpn = 0x99;  // no such QP
  stray.payload.assign(32, 0x11);
  const std::vector<uint8_t> filler = rdma::BuildRequest(stray);
  const auto es = Regions(std::vector<uint32_t>(kRegions, 64));
  for (int k = 0; k <= 48; k += 2) {
    SCOPED_TRACE(k);
    Client cl;
    cl.Send(MrspRequest(es));
    std::vector<std::vector<uint8_t>> fs = cl.frames();
    Gates g = cl.gates();
    for (int i = 0; i < k; ++i) {
      g.after[fs.size()] = 2;  // after the responder's ACK of the request
      fs.push_back(filler);
    }
    g.after[fs.size()] = 2;
    fs.push_back(SealAt(ClientMad(attr::kDreq, kClientComm, kCommBase), kCmIcrcAt));
    const NaaRunReport r = RunEndpoint(ParseNaaConfig(RpcConfig(), "naa_cov.txt"), fs, g, 0, 20);
    ExpectClean(r);
    EXPECT_EQ(r.last.cm.disconnects, 1u);
    EXPECT_EQ(r.last.rdma.drops[static_cast<int>(rdma::Drop::kUnknownQp)], static_cast<uint32_t>(k));
    EXPECT_EQ(r.last.ctl.requests, 1u);
    EXPECT_EQ(r.last.ctl.answers + r.last.ctl.send_failed, r.last.ctl.grants);
    EXPECT_TRUE(CtlBalanced(r.last.ctl));
    EXPECT_EQ(r.last.ctl.regions, 0);
  }
}

// ---- The last five points of the review (docs/coverage-review.md, "not reached" in cov4) ----

std::vector<uint8_t> Dreq() { return SealAt(ClientMad(attr::kDreq, kClientComm, kCommBase), kCmIcrcAt); }

// Eight host-posted WRITEs (NaaReqMsgs, the ring's depth) fill the requester's ring and the client holds back
// their ACK: the controller's answer to an MRSP request, ready meanwhile, waits at the requester's command
// port while connected until the client's one ACK of all eight frees the ring. The answer then goes out with
// the next PSN, after that ACK.
TEST(NaaCov, AnswerWaitsForAFullRequesterRing) {
  const uint32_t n = params::kNaaReqMsgs;
  std::string posts = "req timeout 1000000\n";
  for (uint32_t i = 0; i < n; ++i) {
    char line[128];
    std::snprintf(line, sizeof line, "post write laddr 0x%llx len 64 raddr 0x%x rkey 0x55 tag %u\n",
                  static_cast<unsigned long long>(kLaddr + 64 * i), 0x9000 + 64 * i, i + 1);
    posts += line;
  }
  const auto es = Regions({256, 256});
  Client cl;
  cl.Send(MrspRequest(es));
  std::vector<std::vector<uint8_t>> fs = cl.frames();
  Gates g = cl.gates();
  const size_t ack_all = fs.size();
  g.after[ack_all] = 2 + n;  // after the REP, the eight WRITEs and the responder's ACK of the request
  fs.push_back(AckFrame(kStart + n - 1));
  g.after[fs.size()] = 3 + n;  // the answer
  fs.push_back(AckFrame(kStart + n));
  for (double bp : {0.0, 0.5}) {
    SCOPED_TRACE(bp);
    NaaConfig c = ParseNaaConfig(RpcConfig() + posts, "naa_cov.txt");
    const std::vector<uint8_t> mem = Pattern(64 * n, 31);
    c.rdma.memory.push_back(rdma::MemInit{kLaddr, mem});
    const NaaRunReport r = RunEndpoint(std::move(c), fs, g, bp, 20);
    ExpectClean(r);
    ASSERT_EQ(r.run.out.size(), 3u + n);
    const auto ms = Payloads(r);
    ASSERT_EQ(ms.size(), n + 1);
    for (uint32_t i = 0; i < n; ++i) {
      EXPECT_EQ(ms[i], std::vector<uint8_t>(mem.begin() + 64 * i, mem.begin() + 64 * (i + 1))) << i;
    }
    EXPECT_EQ(ms[n], MrspGrant(es, kRkeyBase));
    const Packet& answer = r.run.out.back();
    EXPECT_EQ(answer.bytes[42], rdma::op::kSendOnly);
    EXPECT_EQ(LoadBe(answer.bytes.data() + 51, 3), kStart + n);
    EXPECT_GE(r.run.out_first_cycle.back(), r.run.in_last_cycle[ack_all]);  // it waited for the ACK
    EXPECT_EQ(r.last.req.cnt[params::kNaaReqCntCplOk], n + 1);
    EXPECT_EQ(r.last.ctl.answers, 1u);
    EXPECT_EQ(r.last.ctl.reposts, 1u);
    EXPECT_TRUE(CtlBalanced(r.last.ctl));
  }
}

// A DREQ while the controller is idle with a grant standing: the CM invalidates the QP (its one write on the
// responder's programming port) in the very cycle the controller starts revoking the grant; the CM goes
// first and the revoke waits. Every region is revoked; one region and the seed's 32.
TEST(NaaCov, RevokeWaitsForTheCmsQpWrite) {
  for (int regions : {1, 2, static_cast<int>(kRegions)}) {
    SCOPED_TRACE(regions);
    const auto es = Regions(std::vector<uint32_t>(static_cast<size_t>(regions), 64));
    Client cl;
    Mrsp(&cl, es, 4 + 16 * static_cast<uint32_t>(regions));
    cl.Dreq();
    const NaaRunReport r = GoRpc(cl, RpcConfig());
    ExpectClean(r);
    EXPECT_EQ(r.run.out.size(), cl.expected_out() + 1);  // ... and the DREP
    EXPECT_EQ(Payloads(r).at(0), MrspGrant(es, kRkeyBase));
    EXPECT_EQ(r.last.cm.disconnects, 1u);
    EXPECT_EQ(r.last.ctl.grants, 1u);
    EXPECT_EQ(r.last.ctl.answers, 1u);
    EXPECT_EQ(r.last.ctl.reposts, 1u);
    EXPECT_EQ(r.last.ctl.regions, 0);
    EXPECT_TRUE(CtlBalanced(r.last.ctl));
  }
}

// The client's DREQ right behind its MRSP SEND, with slow host-memory writes: the CM drains the responder
// before it invalidates the QP, so the SEND is written, ACKed and completed after the connection went down.
// The controller counts that event and flushes it at once: no request is read, nothing is answered.
TEST(NaaCov, EventAfterTheConnectionWentIsFlushed) {
  Client cl;
  cl.Send(MrspRequest(Regions(std::vector<uint32_t>(kRegions, 64))));  // 772 bytes, 13 beats to write
  std::vector<std::vector<uint8_t>> fs = cl.frames();
  Gates g = cl.gates();
  g.after[fs.size()] = 1;  // with the SEND, not after its ACK
  fs.push_back(Dreq());
  for (uint32_t write_cycles : {5u, 200u}) {
    SCOPED_TRACE(write_cycles);
    const NaaRunReport r = RunEndpoint(ParseNaaConfig(RpcConfig(), "naa_cov.txt"), fs, g, 0, 20, 16, write_cycles);
    ExpectClean(r);
    EXPECT_EQ(r.run.out.size(), 3u);  // REP, the responder's ACK of the SEND, DREP
    EXPECT_EQ(r.last.rdma.cqes, 1u) << "the SEND completed";
    EXPECT_EQ(r.last.cm.disconnects, 1u);
    EXPECT_EQ(r.last.ctl.events, 1u);
    EXPECT_EQ(r.last.ctl.drops[static_cast<int>(CtlDrop::kFlushed)], 1u);
    EXPECT_EQ(r.last.ctl.requests, 0u);  // taken while connected, it would have been read
    EXPECT_EQ(r.last.ctl.answers + r.last.ctl.send_failed, 0u);
    EXPECT_TRUE(CtlBalanced(r.last.ctl));
  }
}

// A CRC-32 over 16 KiB while the client WRITEs 4 KiB into another granted region, one host-memory request
// outstanding at a time: the responder's payload writes hold the host port when the kernel's result write
// is ready, so it waits. The CRC equals the bitwise reference, the WRITE's bytes are in memory.
TEST(NaaCov, CrcResultWaitsForTheHostPort) {
  const uint32_t n = 16384;
  const auto es = Regions({n, 4, 4096});
  const auto a = Pattern(n, 41), w = Pattern(4096, 42);
  Client cl(5);  // path MTU 4096
  Mrsp(&cl, es, 4 + 16 * 3);
  cl.Message(rdma::op::kWriteFirst, es[0].fpga, kRkeyBase, a, true, rpc::kCrc);
  cl.Message(rdma::op::kWriteFirst, es[2].fpga, kRkeyBase + 2, w, false, 0);  // while the kernel runs
  cl.ExpectEndpointMessage(4);
  const NaaRunReport r = RunEndpoint(ParseNaaConfig(RpcConfig(), "naa_cov.txt"), cl.frames(), cl.gates(), 0, 20, 1);
  ExpectClean(r);
  EXPECT_EQ(r.run.out.size(), cl.expected_out());
  const auto ms = Payloads(r);
  ASSERT_EQ(ms.size(), 2u);
  const uint32_t crc = nettwin::test::Crc32(a);
  EXPECT_EQ(ms[1], (std::vector<uint8_t>{static_cast<uint8_t>(crc), static_cast<uint8_t>(crc >> 8),
                                         static_cast<uint8_t>(crc >> 16), static_cast<uint8_t>(crc >> 24)}));
  std::vector<uint8_t> got(w.size());
  r.memory->Read(es[2].fpga, got.data(), got.size());
  EXPECT_EQ(got, w);
  EXPECT_EQ(r.last.ctl.rpcs, 1u);
  EXPECT_EQ(r.last.ctl.rpc_errors, 0u);
  EXPECT_TRUE(CtlBalanced(r.last.ctl));
}

// A copy kernel still running (slow host memory) when the client disconnects and at once reconnects (DREQ,
// a new REQ and RTU): the result belongs to the connection that went. It is not sent over the new one (a
// failed send, no repost: the CM rewrote the queues), and the first connection's grant is revoked even
// though a connection is up again by then. The new connection's own MRSP request, queued meanwhile, is
// answered after the revoke with the new grant. (Before the fix the result went out on the new connection
// and the old grant stayed.)
TEST(NaaCov, KernelRunningAcrossAReconnect) {
  const uint32_t n = 16384;
  const auto es = Regions({n, n});
  Client cl;
  Mrsp(&cl, es, 4 + 16 * 2);
  cl.Message(rdma::op::kWriteFirst, es[0].fpga, kRkeyBase, Pattern(n, 3), true, rpc::kCopy);
  std::vector<std::vector<uint8_t>> fs = cl.frames();
  Gates g = cl.gates();
  const uint64_t acked = cl.expected_out();  // the responder's ACK of the RPC's last packet
  g.after[fs.size()] = acked;
  fs.push_back(Dreq());
  g.after[fs.size()] = acked + 1;  // after the DREP
  fs.push_back(ReqFrame(kClientComm + 2, 7471, 0, 3));
  g.after[fs.size()] = acked + 2;  // after the second REP
  fs.push_back(SealAt(ClientMad(attr::kRtu, kClientComm + 2, kCommBase + 1), kCmIcrcAt));
  auto es2 = Regions({64});
  es2[0].fpga += 0x80000;
  rdma::RequestSpec send;  // the new connection's first request (its PSNs start again at kClientPsn)
  send.sport = 50000;
  send.dqpn = kQpn;
  send.psn = kClientPsn;
  send.ackreq = true;
  send.opcode = rdma::op::kSendOnly;
  send.payload = MrspRequest(es2);
  g.after[fs.size()] = acked + 2;
  fs.push_back(rdma::BuildRequest(send));
  g.after[fs.size()] = acked + 4;  // the new connection's answer (its requester starts again at kStart)
  fs.push_back(AckFrame(kStart));
  const NaaRunReport r = RunEndpoint(ParseNaaConfig(RpcConfig(), "naa_cov.txt"), fs, g, 0, 200, 1);
  ExpectClean(r);
  ASSERT_EQ(r.run.out.size(), acked + 4);  // ... DREP, REP, the ACK of the new SEND, the new answer: no result
  const auto ms = Payloads(r);
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_EQ(ms[0], MrspGrant(es, kRkeyBase));
  EXPECT_EQ(ms[1], MrspGrant(es2, GrantKey(1)));  // the grant count goes on across connections
  EXPECT_EQ(r.last.cm.connects, 2u);
  EXPECT_EQ(r.last.cm.disconnects, 1u);
  EXPECT_EQ(r.last.ctl.events, 3u);
  EXPECT_EQ(r.last.ctl.rpcs, 1u);
  EXPECT_EQ(r.last.ctl.requests, 2u);
  EXPECT_EQ(r.last.ctl.grants, 2u);
  EXPECT_EQ(r.last.ctl.answers, 2u);
  EXPECT_EQ(r.last.ctl.send_failed, 1u);  // the first connection's result
  EXPECT_EQ(r.last.ctl.reposts, 2u);      // the two answered requests' buffers
  EXPECT_EQ(r.last.ctl.regions, 1);       // the new grant only
  EXPECT_TRUE(CtlBalanced(r.last.ctl));
}

}  // namespace
}  // namespace nettwin::naa

