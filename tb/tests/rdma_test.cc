// The RoCEv2 responder, RTL and model in lockstep: NAKs, Go-Back-N, WRITE/READ, the AQ, PSN wrap, latency.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "model/common/bytes.h"
#include "model/rdma/rdma_packet.h"
#include "tb/rdma/rdma_latency.h"
#include "tb/rdma/rdma_requests.h"
#include "tb/rdma/rdma_run.h"
#include "tb/tests/rdma_lockstep.h"

namespace nettwin::rdma {
namespace {

constexpr uint64_t kMrVa = 0x7000000000ull, kMrPa = 0x1000000ull;

RdmaConfig Config(const std::string& qp_extra = "epsn 100", int max_rd_atomic = 128) {
  return ParseConfig("responder mac 02:00:00:00:00:01 ip 10.0.0.1\n"
                     "qp 0x11 dest_qp 0x22 mtu 1024 aq 0x900000 max_rd_atomic " +
                         std::to_string(max_rd_atomic) + " " + qp_extra +
                         "\n"
                         "mr 0x1234 va 0x7000000000 len 0x10000 pa 0x1000000 access rwa\n"
                         "mr 0x99 va 0x8000000000 len 0x100 pa 0x2000000 access r\n",
                     "test");
}

struct Rsp {
  uint8_t opcode, syndrome;
  uint32_t psn, msn;
  uint64_t orig;
  std::vector<uint8_t> payload;
};

// Decodes a response and checks its ICRC from scratch.
Rsp Decode(const Packet& p) {
  const auto& f = p.bytes;
  Rsp r{};
  r.opcode = f[42];
  r.psn = Load32(&f[50]) & kPsnMask;
  const int end = 14 + Load16(&f[16]);
  int hdr = 54;
  if (r.opcode != op::kReadRspMiddle) {
    r.syndrome = f[54];
    r.msn = Load32(&f[54]) & kPsnMask;
    hdr = 58;
  }
  if (r.opcode == op::kAtomicAck) {
    r.orig = Load64(&f[58]);
    hdr = 66;
  }
  r.payload.assign(f.begin() + hdr, f.begin() + end - 4 - ((f[43] >> 4) & 3));
  EXPECT_EQ(f[end - 4] | (f[end - 3] << 8) | (f[end - 2] << 16) | (uint32_t{f[end - 1]} << 24), FrameIcrc(f, end - 4))
      << "ICRC";
  return r;
}

RequestSpec Faa(uint32_t psn, uint64_t va, uint64_t add, uint32_t rkey = kTestRkey) {
  RequestSpec s = Atomic(op::kFetchAdd, psn, va, add);
  s.rkey = rkey;
  return s;
}

TEST(Rdma, RetransmittedAtomicReadsTheHostOnceAndIsNotReExecuted) {
  const LatencyResult g = MeasureLatency(900, 900, 90, false);
  ASSERT_TRUE(g.error.empty()) << g.error;
  EXPECT_EQ(g.retransmit_reads, 1u);
  EXPECT_EQ(g.first_reads, 1u);
  EXPECT_EQ(g.orig_first, kMem);
  EXPECT_EQ(g.orig_retransmit, kMem);
  EXPECT_EQ(g.final_value, kMem + kAdd);
  // ICRC done with the last beat; parse 1 + lookup 1 + check 1 + read issue 1 + 900 + the in-flight queue's
  // hand-over to the back end 1 + write 1 + AQE write 1 + first response beat (docs/rdma-microarchitecture.md).
  EXPECT_EQ(g.first_cycles, 908u);
  EXPECT_EQ(g.retransmit_cycles, 921u);  // ... + the 16 beats of the AQ group, hand-over, response
  // Retransmitted at once: parse 1 + lookup 1 + check 1 (found on chip) + hand-over 1 + first response beat.
  EXPECT_EQ(g.recent_cycles, 5u);
  EXPECT_EQ(g.recent_reads, 0u);
  EXPECT_EQ(g.orig_recent, kMem);
  const LatencyResult l = MeasureLatency(900, 900, 90, true);
  ASSERT_TRUE(l.error.empty()) << l.error;
  EXPECT_EQ(l.retransmit_reads, 3u);  // groups 1, 2, 3 from the oldest (the write pointer is in group 0)
  EXPECT_EQ(l.final_value, kMem + kAdd);
}

TEST(Rdma, EachNakAndDrop) {
  RdmaConfig c = Config();
  std::vector<RequestSpec> q;
  q.push_back(Faa(100, kMrVa, 1, 0x777));       // unknown rkey -> remote access error
  q.push_back(Faa(100, kMrVa + 4, 1));          // misaligned -> invalid request
  q.push_back(Faa(100, 0x8000000000ull, 1, 0x99));  // region without atomic right -> remote access
  q.push_back(Faa(100, kMrVa + 0x10000, 1));    // out of bounds -> remote access
  q.push_back(Faa(103, kMrVa, 1));              // ahead, but a NAK is outstanding -> silent
  q.push_back(Faa(100, kMrVa, 5));              // the expected PSN: executed
  q.push_back(Faa(103, kMrVa, 1));              // ahead -> one PSN sequence error NAK with ePSN 101
  q.push_back(Faa(104, kMrVa, 1));              // ... then silence
  RequestSpec send;
  send.opcode = 0x04;  // SEND ONLY: phase 2
  send.psn = 101;
  q.push_back(send);
  RequestSpec bad = Faa(101, kMrVa, 1);
  bad.dqpn = 0x55;  // unknown QP: dropped
  q.push_back(bad);
  const RdmaRunReport r = RunLockstep(c, q);
  ASSERT_EQ(r.run.out.size(), 7u);
  const uint8_t want[] = {syndrome::kRemoteAccess, syndrome::kInvalidRequest, syndrome::kRemoteAccess,
                          syndrome::kRemoteAccess, syndrome::kAck, syndrome::kPsnSeqErr, syndrome::kInvalidRequest};
  for (size_t i = 0; i < 7; ++i) EXPECT_EQ(Decode(r.run.out[i]).syndrome, want[i]) << "response " << i;
  EXPECT_EQ(Decode(r.run.out[4]).opcode, op::kAtomicAck);
  EXPECT_EQ(Decode(r.run.out[5]).psn, 101u);
  EXPECT_EQ(r.counters.drops[static_cast<int>(Drop::kPsnAheadSilent)], 2u);
  EXPECT_EQ(r.counters.drops[static_cast<int>(Drop::kUnknownQp)], 1u);
}

// A QP configured without max_rd_atomic (0: the default) takes no READ or atomic: NAK invalid request
// (rdma_check.sv's resource check), while WRITEs go through.
TEST(Rdma, ReadsAndAtomicsOnAQpWithoutMaxRdAtomicAreRefused) {
  const RdmaConfig c = ParseConfig(
      "responder mac 02:00:00:00:00:01 ip 10.0.0.1\n"
      "qp 0x11 dest_qp 0x22 mtu 1024 aq 0x900000 epsn 100\n"
      "mr 0x1234 va 0x7000000000 len 0x10000 pa 0x1000000 access rwa\n",
      "no_rd_atomic");
  const RequestSpec read = MrRequest(op::kReadRequest, 100, kMrVa, 64);
  RequestSpec write = read;
  write.opcode = op::kWriteOnly;
  write.payload.assign(64, 7);
  const RdmaRunReport r = RunLockstep(c, {read, Faa(100, kMrVa, 1), write});
  ASSERT_EQ(r.run.out.size(), 3u);
  EXPECT_EQ(Decode(r.run.out[0]).syndrome, syndrome::kInvalidRequest);
  EXPECT_EQ(Decode(r.run.out[1]).syndrome, syndrome::kInvalidRequest);  // a retry after the NAK: same answer
  EXPECT_EQ(Decode(r.run.out[2]).syndrome, syndrome::kAck);
  EXPECT_EQ(r.counters.naks, 2u);
  EXPECT_EQ(r.counters.dma_reads, 0u);
}

// A RoCEv2 congestion notification packet (BTH opcode 0x81, 16 reserved bytes; what a ConnectX sends back
// for ECN-marked traffic) is counted as `cnp`, not `malformed`, for any QP; it is consumed without a response
// or side effect; one with a bad ICRC is `bad_icrc` like any packet. Both engines, every cycle.
TEST(Rdma, CongestionNotificationIsCountedAsCnp) {
  RdmaConfig c = Config();
  RequestSpec cnp;
  cnp.opcode = op::kCnp;
  cnp.ackreq = false;
  cnp.payload.assign(16, 0);
  RequestSpec cnp_other = cnp;
  cnp_other.dqpn = 0x55;  // a QP this responder does not have
  std::vector<Packet> pkts = {Packet{BuildRequest(Faa(100, kMrVa, 1)), 0}, Packet{BuildRequest(cnp), 0},
                              Packet{BuildRequest(cnp_other), 0}, Packet{BuildRequest(cnp), 0},
                              Packet{BuildRequest(Faa(101, kMrVa, 2)), 0}};
  pkts[3].bytes[14 + 20 + 8 + 12 + 16 + 1] ^= 1;  // inside the ICRC
  RdmaRunConfig cfg;
  cfg.mem.read_latency = 20;
  const RdmaRunReport r = RunChecked(c, pkts, cfg);
  ASSERT_EQ(r.run.out.size(), 2u);
  for (const Packet& o : r.run.out) EXPECT_EQ(Decode(o).opcode, op::kAtomicAck);
  EXPECT_EQ(Decode(r.run.out[1]).orig, Decode(r.run.out[0]).orig + 1);  // the CNPs changed nothing
  EXPECT_EQ(r.counters.drops[static_cast<int>(Drop::kCnp)], 2u);
  EXPECT_EQ(r.counters.drops[static_cast<int>(Drop::kBadIcrc)], 1u);
  EXPECT_EQ(r.counters.drops[static_cast<int>(Drop::kMalformed)], 0u);
  EXPECT_EQ(std::string(DropName(static_cast<int>(Drop::kCnp))), "cnp");
}

TEST(Rdma, BadIcrcIsDroppedWithoutEffect) {
  RdmaConfig c = Config();
  std::vector<Packet> pkts = {Packet{BuildRequest(Faa(100, kMrVa, 9)), 0}};
  pkts[0].bytes[pkts[0].bytes.size() - 2] ^= 1;  // inside the ICRC
  RdmaRunConfig cfg;
  cfg.mem.read_latency = 10;
  const RdmaRunReport r = RunChecked(c, pkts, cfg);
  EXPECT_EQ(r.run.out.size(), 0u);
  EXPECT_EQ(r.counters.drops[static_cast<int>(Drop::kBadIcrc)], 1u);
  EXPECT_EQ(r.counters.dma_reads + r.counters.dma_writes, 0u);
}

// The receive ring takes the next request while the back end writes the previous one to host memory; a
// request whose ICRC fails, waiting in the ring between good ones, still has no effect. With output
// backpressure the ring fills and the input stalls; nothing is lost.
TEST(Rdma, ReceiveRingOverlapsRequestsAndKeepsTheIcrcRule) {
  for (const double bp : {0.0, 0.7}) {
    RdmaConfig c = Config();
    std::mt19937_64 rng(11);
    std::vector<Packet> pkts;
    std::vector<std::vector<uint8_t>> data;
    for (uint32_t i = 0; i < 7; ++i) {
      RequestSpec w;
      w.opcode = op::kWriteOnly;
      w.psn = 100 + (i < 3 ? i : i - 1);  // request 3 has a bad ICRC; its PSN comes again with request 4
      w.va = kMrVa + 0x1000 * i + i;
      w.rkey = 0x1234;
      w.dmalen = 1024 - i;
      w.payload.resize(w.dmalen);
      for (auto& x : w.payload) x = static_cast<uint8_t>(rng());
      data.push_back(w.payload);
      pkts.push_back(Packet{BuildRequest(w), 0});
    }
    pkts[3].bytes[pkts[3].bytes.size() - 1] ^= 0x80;  // inside the ICRC
    RdmaRunConfig cfg;
    cfg.mem.read_latency = 20;
    cfg.mem.write_latency = 5;
    cfg.opt.backpressure = bp;
    const RdmaRunReport r = RunRdma(c, pkts, cfg);
    ASSERT_TRUE(r.mismatch_text.empty()) << r.mismatch_text;
    EXPECT_TRUE(r.conservation_ok);
    ASSERT_EQ(r.run.out.size(), 6u);
    for (size_t i = 0; i < 6; ++i) EXPECT_EQ(Decode(r.run.out[i]).psn, 100u + i) << "bp " << bp;
    EXPECT_EQ(r.counters.drops[static_cast<int>(Drop::kBadIcrc)], 1u);
    for (uint32_t i = 0; i < 7; ++i) {
      std::vector<uint8_t> mem(data[i].size());
      r.memory->Read(kMrPa + 0x1000 * i + i, mem.data(), mem.size());
      if (i == 3)
        EXPECT_EQ(mem, std::vector<uint8_t>(mem.size(), 0)) << "bad ICRC wrote memory";
      else
        EXPECT_EQ(mem, data[i]) << "request " << i << " bp " << bp;
    }
    // Overlap: the second request was in before the first one's ACK went out.
    if (bp == 0.0) EXPECT_LT(r.run.in_last_cycle[1], r.run.out_first_cycle[0]);
  }
}

TEST(Rdma, WriteThenReadAcrossMtuSplits) {
  std::mt19937_64 rng(3);
  std::vector<uint8_t> data(2500);
  for (auto& b : data) b = static_cast<uint8_t>(rng());
  RdmaConfig c = Config();
  std::vector<RequestSpec> q;
  RequestSpec w = MrRequest(op::kWriteFirst, 100, kMrVa + 3, 2500);  // unaligned on purpose
  w.ackreq = false;
  w.payload.assign(data.begin(), data.begin() + 1024);
  q.push_back(w);
  RequestSpec m;
  m.opcode = op::kWriteMiddle;
  m.psn = 101;
  m.ackreq = false;
  m.payload.assign(data.begin() + 1024, data.begin() + 2048);
  q.push_back(m);
  RequestSpec l = m;
  l.opcode = op::kWriteLast;
  l.psn = 102;
  l.payload.assign(data.begin() + 2048, data.end());
  q.push_back(l);
  q.push_back(l);  // duplicate (its ACK lost): ACKed again, memory untouched
  q.push_back(MrRequest(op::kReadRequest, 103, kMrVa + 3, 2500));
  const RdmaRunReport r = RunLockstep(c, q, 0.3);
  ASSERT_EQ(r.run.out.size(), 5u);  // ACK, ACK (dup), READ first, middle, last
  EXPECT_EQ(Decode(r.run.out[0]).psn, 102u);
  EXPECT_EQ(Decode(r.run.out[1]).psn, 102u);
  std::vector<uint8_t> back;
  const uint8_t ops[] = {op::kReadRspFirst, op::kReadRspMiddle, op::kReadRspLast};
  for (int i = 0; i < 3; ++i) {
    const Rsp x = Decode(r.run.out[2 + i]);
    EXPECT_EQ(x.opcode, ops[i]);
    EXPECT_EQ(x.psn, 103u + i);
    back.insert(back.end(), x.payload.begin(), x.payload.end());
  }
  EXPECT_EQ(back, data);
  std::vector<uint8_t> mem(2500);
  r.memory->Read(kMrPa + 3, mem.data(), mem.size());
  EXPECT_EQ(mem, data);
}

// Atomics far past the AQ depth (so it wraps several times), each retransmitted at every distance back
// up to the depth: every retransmission gets the stored value, none is executed twice.
TEST(Rdma, AqWrapsAndRetransmissionsAtEveryDistance) {
  const int depth = 128;
  RdmaConfig c = Config("epsn 0", depth);
  std::vector<RequestSpec> q;
  std::map<uint32_t, uint64_t> expect_orig;
  uint64_t value = 0;
  uint32_t psn = 0;
  for (int i = 0; i < 300; ++i) {
    q.push_back(Faa(psn, kMrVa + 64, 1 + static_cast<uint64_t>(i)));
    expect_orig[psn] = value;
    value += 1 + static_cast<uint64_t>(i);
    ++psn;
  }
  size_t on_chip = 0;  // retransmissions of one of the last kRecent atomics: no AQ read
  for (int dist = 1; dist <= depth; dist += 9) {
    q.push_back(Faa(psn - dist, kMrVa + 64, 1000));
    if (dist <= kRecent) ++on_chip;
  }
  const RdmaRunReport r = RunLockstep(c, q);
  ASSERT_EQ(r.run.out.size(), q.size());
  for (size_t i = 0; i < q.size(); ++i) {
    const Rsp x = Decode(r.run.out[i]);
    EXPECT_EQ(x.opcode, op::kAtomicAck) << i;
    EXPECT_EQ(x.orig, expect_orig[q[i].psn]) << "request " << i << " psn " << q[i].psn;
  }
  uint8_t fin[8];
  r.memory->Read(kMrPa + 64, fin, 8);
  EXPECT_EQ(LoadLe64(fin), value);
  EXPECT_EQ(r.counters.atomic_replays, q.size() - 300);
  // The 300 FAAs on one word are one hot-word chain (issue 25 item 3): the first reads the host, the others
  // take their predecessor's result on chip. Then one read per replay from the AQ.
  EXPECT_EQ(r.counters.dma_reads, 1u + (q.size() - 300 - on_chip));
}

TEST(Rdma, PsnWrapsAt24Bits) {
  RdmaConfig c = Config("epsn 0xfffff8", 64);
  std::vector<RequestSpec> q;
  uint32_t psn = 0xfffff8;
  for (int i = 0; i < 20; ++i) {
    q.push_back(Faa(psn, kMrVa, 2));
    psn = (psn + 1) & kPsnMask;
  }
  q.push_back(Faa(0xfffffa, kMrVa, 2));  // duplicate from before the wrap
  q.push_back(Faa(0x000003, kMrVa, 2));  // duplicate from after it
  const RdmaRunReport r = RunLockstep(c, q, 0.2);
  ASSERT_EQ(r.run.out.size(), q.size());
  EXPECT_EQ(Decode(r.run.out[20]).orig, 2u * 2);
  EXPECT_EQ(Decode(r.run.out[21]).orig, 2u * 11);
  uint8_t fin[8];
  r.memory->Read(kMrPa, fin, 8);
  EXPECT_EQ(LoadLe64(fin), 40u);
}

TEST(Rdma, CompareAndSwap) {
  RdmaConfig c = Config();
  RequestSpec s = Faa(100, kMrVa + 8, 0);
  s.opcode = op::kCompareSwap;
  s.compare = 0;
  s.swap = 0xABCD;  // memory is 0: swaps
  RequestSpec t = s;
  t.psn = 101;
  t.compare = 5;
  t.swap = 0x1111;  // memory is 0xABCD: no swap
  const RdmaRunReport r = RunLockstep(c, {s, t});
  ASSERT_EQ(r.run.out.size(), 2u);
  EXPECT_EQ(Decode(r.run.out[0]).orig, 0u);
  EXPECT_EQ(Decode(r.run.out[1]).orig, 0xABCDu);
  uint8_t fin[8];
  r.memory->Read(kMrPa + 8, fin, 8);
  EXPECT_EQ(LoadLe64(fin), 0xABCDu);
  EXPECT_EQ(r.counters.dma_writes, 3u);  // one data write + two AQEs
}

// A QP with a receive queue of 4 entries, 2 posted, and a CQ; WQE buffers of 3000 and 100 bytes.
RdmaConfig SendConfig() {
  RdmaConfig c = ParseConfig(
      "responder mac 02:00:00:00:00:01 ip 10.0.0.1\n"
      "qp 0x11 dest_qp 0x22 epsn 0 mtu 1024 max_rd_atomic 64 aq 0x900000 "
      "rq 0x3000000 rq_entries 4 rq_posted 2 cq 0x3100000 cq_entries 8 rnr_timer 7\n"
      "qp 0x12 dest_qp 0x23 epsn 0 mtu 1024 max_rd_atomic 64 aq 0x910000\n"
      "mr 0x1234 va 0x7000000000 len 0x10000 pa 0x1000000 access rwa\n",
      "send");
  uint8_t wqe[32] = {};
  StoreLe64(wqe, 0x3200000);  // WQE 0: 3000-byte buffer, wr_id 0xaa
  for (int i = 0; i < 4; ++i) wqe[8 + i] = static_cast<uint8_t>(3000 >> (8 * i)), wqe[12 + i] = i == 0 ? 0xaa : 0;
  StoreLe64(wqe + 16, 0x3300000);  // WQE 1: 100-byte buffer, wr_id 0xbb
  wqe[24] = 100;
  wqe[28] = 0xbb;
  c.memory.push_back(MemInit{0x3000000, std::vector<uint8_t>(wqe, wqe + 32)});
  return c;
}

TEST(Rdma, SendIntoPostedReceivesWithCompletions) {
  std::vector<RequestSpec> q;
  q.push_back(Send(op::kSendFirst, 0, 1024, 1));
  q.push_back(Send(op::kSendMiddle, 1, 1024, 2));
  q.push_back(Send(op::kSendLastImm, 2, 500, 3));  // 2548 bytes into WQE 0 (3000 bytes)
  q.back().imm = 0x11223344;
  q.push_back(q.back());                           // duplicate (ACK lost): ACK, no effect
  q.push_back(Send(op::kSendOnly, 3, 101, 4));     // WQE 1 holds 100 bytes: NAK invalid, not consumed
  q.push_back(Send(op::kSendOnly, 3, 100, 5));     // fits: WQE 1
  q.push_back(Send(op::kSendOnly, 4, 10, 6));      // no WQE left: RNR NAK 0x20 | 7
  q.push_back(Send(op::kSendOnly, 0, 10, 7, 0x12));  // QP without a receive queue: NAK invalid
  const RdmaRunReport r = RunLockstep(SendConfig(), q, 0.3);
  ASSERT_EQ(r.run.out.size(), 6u);  // ACK (last), ACK (dup), NAK, ACK, RNR NAK, NAK
  const uint8_t want[] = {syndrome::kAck, syndrome::kAck, syndrome::kInvalidRequest, syndrome::kAck, 0x27,
                          syndrome::kInvalidRequest};
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(Decode(r.run.out[i]).syndrome, want[i]) << "response " << i;
  std::vector<uint8_t> buf(2548);
  r.memory->Read(0x3200000, buf.data(), buf.size());
  for (size_t i = 0; i < buf.size(); ++i) ASSERT_EQ(buf[i], i < 1024 ? 1 : i < 2048 ? 2 : 3) << i;
  uint8_t cqe[64];
  r.memory->Read(0x3100000, cqe, 64);
  EXPECT_EQ(cqe[0], 0xaa);                  // wr_id
  EXPECT_EQ(cqe[4] | (cqe[5] << 8), 2548);  // byte count
  EXPECT_EQ(Load32(cqe + 8), 0x11223344u);  // immediate, in wire order
  EXPECT_EQ(cqe[12], 0x11);                 // QPN
  EXPECT_EQ(cqe[16], 0);                    // SEND
  EXPECT_EQ(cqe[17], 1);                    // immediate present
  EXPECT_EQ(cqe[20], 2);                    // PSN of the last packet
  EXPECT_EQ(cqe[32], 0xbb);                 // second completion: WQE 1
  EXPECT_EQ(cqe[36], 100);
  EXPECT_EQ(cqe[49], 0);
  EXPECT_EQ(r.counters.cqes, 2u);
  // The completion events carry the same CQEs (the immediate as a number, wire byte 0 in bits 31:24).
  ASSERT_EQ(r.cqes.size(), 2u);
  EXPECT_EQ(r.cqes[0], (CqeEvent{true, 0xaa, 2548, 0x11223344u, 0x11, 0, 2}));
  EXPECT_EQ(r.cqes[1].wr_id, 0xbbu);
  EXPECT_EQ(r.cqes[1].len, 100u);
  EXPECT_EQ(r.cqes[1].imm, 0u);  // SEND ONLY: no immediate
  EXPECT_EQ(r.cqes[1].psn, 3u);
}

TEST(Rdma, WriteWithImmediateConsumesAWqeAndCompletes) {
  RequestSpec w = MrRequest(op::kWriteOnlyImm, 0, kMrVa, 40);
  w.imm = 0xdeadbeef;
  w.payload.assign(40, 9);
  const RdmaRunReport r = RunLockstep(SendConfig(), {w});
  ASSERT_EQ(r.run.out.size(), 1u);
  EXPECT_EQ(Decode(r.run.out[0]).syndrome, syndrome::kAck);
  uint8_t data[40];
  r.memory->Read(kMrPa, data, 40);
  for (uint8_t b : data) EXPECT_EQ(b, 9);
  uint8_t cqe[32];
  r.memory->Read(0x3100000, cqe, 32);
  EXPECT_EQ(cqe[0], 0xaa);
  EXPECT_EQ(cqe[4], 40);
  EXPECT_EQ(Load32(cqe + 8), 0xdeadbeefu);
  EXPECT_EQ(cqe[16], 1);  // RDMA WRITE with immediate
  EXPECT_EQ(r.counters.dma_reads, 1u);  // the WQE
  ASSERT_EQ(r.cqes.size(), 1u);
  EXPECT_EQ(r.cqes[0], (CqeEvent{true, 0xaa, 40, 0xdeadbeefu, 0x11, 1, 0}));
}

// Garbage, truncated and bit-flipped frames among valid ones: every frame is counted (processed or dropped
// by reason), RTL and model agree every cycle, nothing hangs.
TEST(Rdma, MutatedFramesAreCountedNeverHang) {
  std::mt19937_64 rng(17);
  std::vector<Packet> pkts;
  for (int i = 0; i < 400; ++i) {
    RequestSpec s = Faa(100 + static_cast<uint32_t>(rng() % 8), kMrVa + 8 * (rng() % 4), 1);
    if (rng() % 3 == 0) {
      s.opcode = static_cast<uint8_t>(rng() % 0x16);
      s.payload.assign(rng() % 2100, static_cast<uint8_t>(rng()));
      s.dmalen = static_cast<uint32_t>(rng() % 3000);
    }
    std::vector<uint8_t> f = BuildRequest(s);
    switch (rng() % 6) {
      case 0: f.resize(rng() % f.size()); break;                                  // truncated
      case 1: f[rng() % f.size()] ^= static_cast<uint8_t>(1 + rng() % 255); break;  // bit flips
      case 2: for (auto& b : f) b = static_cast<uint8_t>(rng()); break;           // garbage
      case 3: f.resize(5000 + rng() % 1000, 0xAB); break;                         // too long for the buffer
      default: break;
    }
    pkts.push_back(Packet{f, 0});
  }
  RdmaRunConfig cfg;
  cfg.mem.read_latency = 15;
  cfg.opt.backpressure = 0.3;
  const RdmaRunReport r = RunRdma(Config(), pkts, cfg);
  EXPECT_TRUE(r.mismatch_text.empty()) << r.mismatch_text;
  EXPECT_FALSE(r.run.hang);
  EXPECT_TRUE(r.conservation_ok);
  EXPECT_EQ(r.counters.packets_in, pkts.size());
  EXPECT_GT(r.counters.drops[static_cast<int>(Drop::kOverflow)], 10u);
  EXPECT_GT(r.counters.drops[static_cast<int>(Drop::kBadIcrc)], 10u);
}

}  // namespace
}  // namespace nettwin::rdma
