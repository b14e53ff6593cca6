// The whole endpoint with its controller (naa_top with naa_ctl, against NaaCycleModel with NaaCtl), compared every
// cycle: CM connect -> MRSP SEND (0x01) -> the 0x02 answer SEND; the client's WRITEs into the granted regions
// and its WRITE_WITH_IMM (fn 1 add, 2 CRC-32, 3 copy) -> the result WRITE(s) with immediate 0 to the client's
// host region, ACKed by the client (gates); every error answer; a second MRSP replacing the grant; a disconnect
// with an RPC queued. Expected answers come from the seed's layout (tb/tests/naa_mrsp.h) and the results from
// plain loops and a bitwise CRC-32 here (known-answer checked), never from the kernels' code.
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

constexpr uint32_t kMtu = 1024;  // the Client's default path MTU

using nettwin::test::Crc32;  // the bitwise reference for kernel 2 (tb/tests/crc32_ref.h)

uint32_t Le32(const std::vector<uint8_t>& v, size_t i) {
  return v[i] | v[i + 1] << 8 | v[i + 2] << 16 | static_cast<uint32_t>(v[i + 3]) << 24;
}

struct RpcRun {
  NaaRunReport r;
  std::vector<std::vector<uint8_t>> out;
};

RpcRun Go(const Client& cl, const std::string& ctl_extra = "", double bp = 0, const std::string& mr_lines = "") {
  NaaConfig c = ParseNaaConfig(RpcConfig(ctl_extra, mr_lines), "naa_rpc.txt");
  RpcRun run;
  run.r = RunFrames(c, cl.frames(), cl.gates(), TestRunConfig(bp, bp / 2, 11, 20, 5));
  for (const Packet& p : run.r.run.out) run.out.push_back(p.bytes);
  return run;
}

void ExpectClean(const RpcRun& run, const Client& cl) {
  ASSERT_TRUE(run.r.mismatch_text.empty()) << run.r.mismatch_text;
  ASSERT_FALSE(run.r.run.hang);
  ASSERT_TRUE(run.r.conservation_ok);
  EXPECT_TRUE(CtlBalanced(run.r.last.ctl));
  EXPECT_EQ(run.out.size(), cl.expected_out());
}

// The endpoint's messages to the client's QP (requester frames), reassembled: opcode of the first packet,
// RETH address and rkey, immediate, payload.
struct Msg {
  uint8_t op = 0;  // the first packet's opcode
  uint64_t va = 0;
  uint32_t rkey = 0, imm = 0;
  bool has_imm = false;
  std::vector<uint8_t> data;
};

std::vector<Msg> EndpointMessages(const RpcRun& run) {
  std::vector<Msg> ms;
  bool open = false;
  for (const auto& f : run.out) {
    if (f.size() < 58 || f[42] > rdma::op::kWriteOnlyImm || LoadBe(f.data() + 47, 3) != kClientQpn) continue;
    const uint8_t op = f[42];
    const bool reth = op == rdma::op::kWriteFirst || op == rdma::op::kWriteOnly || op == rdma::op::kWriteOnlyImm;
    const bool imm = op == rdma::op::kWriteLastImm || op == rdma::op::kWriteOnlyImm || op == rdma::op::kSendOnlyImm ||
                     op == rdma::op::kSendLastImm;
    const size_t hdr = 54 + (reth ? 16 : 0) + (imm ? 4 : 0);
    const size_t pad = (f[43] >> 4) & 3;
    if (!open) ms.push_back(Msg{op});
    Msg& m = ms.back();
    if (reth) {
      m.va = LoadBe(f.data() + 54, 8);
      m.rkey = static_cast<uint32_t>(LoadBe(f.data() + 62, 4));
    }
    if (imm) {
      m.has_imm = true;
      m.imm = static_cast<uint32_t>(LoadBe(f.data() + hdr - 4, 4));
    }
    m.data.insert(m.data.end(), f.begin() + static_cast<long>(hdr), f.end() - 4 - static_cast<long>(pad));
    const bool last = op == rdma::op::kSendOnly || op == rdma::op::kSendOnlyImm || op == rdma::op::kSendLast ||
                      op == rdma::op::kSendLastImm || op == rdma::op::kWriteOnly || op == rdma::op::kWriteOnlyImm ||
                      op == rdma::op::kWriteLast || op == rdma::op::kWriteLastImm;
    open = !last;
  }
  return ms;
}

std::vector<uint8_t> Memory(const RpcRun& run, uint64_t addr, size_t n) {
  std::vector<uint8_t> v(n);
  run.r.memory->Read(addr, v.data(), n);
  return v;
}

TEST(NaaRpc, Crc32ReferenceKnownAnswer) {
  const std::string s = "123456789";
  EXPECT_EQ(Crc32(std::vector<uint8_t>(s.begin(), s.end())), 0xCBF43926u);
}

TEST(NaaRpc, MrspGrantThenAddCrcCopy) {
  for (double bp : {0.0, 0.4}) {
    SCOPED_TRACE(bp);
    const uint32_t n = 3000;
    const auto es = Regions({n, n, n});
    const auto a = Pattern(n, 1), b = Pattern(n, 2);
    Client cl;
    Mrsp(&cl, es, 4 + 16 * 3);
    Rpc(&cl, es, {a, b}, rpc::kAdd, n);
    Rpc(&cl, es, {a}, rpc::kCrc, 4);
    Rpc(&cl, es, {b}, rpc::kCopy, n);
    const RpcRun run = Go(cl, "", bp);
    ExpectClean(run, cl);
    const std::vector<Msg> ms = EndpointMessages(run);
    ASSERT_EQ(ms.size(), 4u);
    EXPECT_EQ(ms[0].op, rdma::op::kSendOnly);
    EXPECT_EQ(ms[0].data, MrspGrant(es, kRkeyBase));
    std::vector<uint8_t> sum(n);
    for (uint32_t i = 0; i < n; i += 4) {
      const uint32_t s = Le32(a, i) + Le32(b, i);
      for (int k = 0; k < 4; ++k) sum[i + k] = static_cast<uint8_t>(s >> (8 * k));
    }
    const uint32_t crc = Crc32(a);
    const std::vector<uint8_t> crc_le = {static_cast<uint8_t>(crc), static_cast<uint8_t>(crc >> 8),
                                         static_cast<uint8_t>(crc >> 16), static_cast<uint8_t>(crc >> 24)};
    const struct {
      int region;
      std::vector<uint8_t> data;
    } want[] = {{2, sum}, {1, crc_le}, {1, b}};
    for (int k = 0; k < 3; ++k) {
      const Msg& m = ms[1 + k];
      SCOPED_TRACE("RPC " + std::to_string(k));
      EXPECT_EQ(m.op, m.data.size() > kMtu ? rdma::op::kWriteFirst : rdma::op::kWriteOnlyImm);
      EXPECT_TRUE(m.has_imm);
      EXPECT_EQ(m.imm, 0u);
      EXPECT_EQ(m.va, es[want[k].region].host);
      EXPECT_EQ(m.rkey, es[want[k].region].rkey);
      EXPECT_EQ(m.data, want[k].data);
    }
    // The endpoint's memory holds the last result (the copy) in region 1, the sum in region 2.
    EXPECT_EQ(Memory(run, es[2].fpga, n), sum);
    EXPECT_EQ(Memory(run, es[1].fpga, n), b);
    const CtlCounters& k = run.r.last.ctl;
    EXPECT_EQ(k.events, 4u);
    EXPECT_EQ(k.requests, 1u);
    EXPECT_EQ(k.grants, 1u);
    EXPECT_EQ(k.rpcs, 3u);
    EXPECT_EQ(k.rpc_errors, 0u);
    EXPECT_EQ(k.answers, 4u);
    EXPECT_EQ(k.reposts, 4u);
    EXPECT_EQ(k.regions, 3);
  }
}

TEST(NaaRpc, KernelSizes) {
  for (uint32_t n : {4u, 64u, 1024u, 4096u}) {
    SCOPED_TRACE(n);
    const auto es = Regions({n, n, n});
    const auto a = Pattern(n, n), b = Pattern(n, n + 1);
    Client cl;
    Mrsp(&cl, es, 4 + 16 * 3);
    Rpc(&cl, es, {a, b}, rpc::kAdd, n);
    Rpc(&cl, es, {a}, rpc::kCopy, n);
    const RpcRun run = Go(cl);
    ExpectClean(run, cl);
    const std::vector<Msg> ms = EndpointMessages(run);
    ASSERT_EQ(ms.size(), 3u);
    for (uint32_t i = 0; i < n; i += 4) {
      ASSERT_EQ(Le32(ms[1].data, i), Le32(a, i) + Le32(b, i)) << i;
    }
    EXPECT_EQ(ms[2].data, a);
  }
}

// The seed's 32 regions fit the responder's MR table (RdmaMrs = 48) beside a static MR; every granted region
// is writable by the client (a WRITE into each of the 32), and the RPC on regions 0 and 1 works.
TEST(NaaRpc, GrantsThirtyTwoRegions) {
  const auto es = Regions(std::vector<uint32_t>(kRegions, 256));
  Client cl;
  Mrsp(&cl, es, 4 + 16 * kRegions);
  std::vector<std::vector<uint8_t>> ins;
  for (int i = 0; i < kRegions; ++i) ins.push_back(Pattern(256, 40 + i));
  Rpc(&cl, es, ins, rpc::kCopy, 256);
  const RpcRun run = Go(cl, "", 0, "mr 0x100 va 0x1000 len 4096 pa 0x200000 access rw\n");
  ExpectClean(run, cl);
  const std::vector<Msg> ms = EndpointMessages(run);
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_EQ(ms[0].data, MrspGrant(es, kRkeyBase));
  EXPECT_EQ(run.r.last.ctl.regions, kRegions);
  EXPECT_EQ(run.r.last.rdma.naks, 0u);
  for (int i = 2; i < kRegions; ++i) EXPECT_EQ(Memory(run, es[i].fpga, 256), ins[i]) << "region " << i;
  EXPECT_EQ(ms[1].data, ins[0]);  // the copy of region 0, to host region 1
  EXPECT_EQ(ms[1].va, es[1].host);
}

TEST(NaaRpc, MrspErrorAnswers) {
  struct Case {
    std::vector<MrspEntry> es;
    int count;
    uint8_t type, code;
  };
  auto es = Regions({4096, 4096});
  auto bad_addr = es, no_mem = es;
  bad_addr[1].fpga = kPool + kPoolSize;
  no_mem[1].fpga = kPool + kPoolSize - 100;
  const Case cases[] = {
      {Regions(std::vector<uint32_t>(kRegions + 1, 64)), -1, 0x01, 0x03},  // more than NaaRegions
      {bad_addr, -1, 0x01, 0x02},
      {no_mem, -1, 0x01, 0x01},
      {es, 3, 0x01, 0x04},   // shorter than its count says
      {es, -1, 0x02, 0x04},  // a client's 0x02 is no request
  };
  Client cl;
  for (const Case& c : cases) {
    cl.Send(MrspRequest(c.es, c.count, c.type));
    cl.ExpectEndpointMessage(4);
  }
  const RpcRun run = Go(cl);
  ExpectClean(run, cl);
  const std::vector<Msg> ms = EndpointMessages(run);
  ASSERT_EQ(ms.size(), std::size(cases));
  for (size_t i = 0; i < ms.size(); ++i) EXPECT_EQ(ms[i].data, MrspError(cases[i].code)) << i;
  const CtlCounters& k = run.r.last.ctl;
  EXPECT_EQ(k.requests, 5u);
  EXPECT_EQ(k.grants, 0u);
  EXPECT_EQ(k.errors[1], 1u);
  EXPECT_EQ(k.errors[2], 1u);
  EXPECT_EQ(k.errors[3], 1u);
  EXPECT_EQ(k.errors[4], 2u);
  EXPECT_EQ(k.regions, 0);
}

TEST(NaaRpc, RpcErrorImmediates) {
  const uint32_t n = 512;
  const auto es = Regions({n, n});
  Client cl;
  Mrsp(&cl, es, 4 + 16 * 2);
  const auto a = Pattern(n, 5);
  Rpc(&cl, es, {a}, 7, 0);             // unknown function
  Rpc(&cl, es, {a}, 0, 0);             // function 0
  Rpc(&cl, es, {a, a}, rpc::kAdd, 0);  // add needs 3 regions
  const RpcRun run = Go(cl);
  ExpectClean(run, cl);
  const std::vector<Msg> ms = EndpointMessages(run);
  ASSERT_EQ(ms.size(), 4u);
  const uint32_t want[] = {rpc::kUnknownFn, rpc::kUnknownFn, rpc::kRegions};
  for (int i = 0; i < 3; ++i) {
    const Msg& m = ms[1 + i];
    EXPECT_EQ(m.op, rdma::op::kWriteOnlyImm);
    EXPECT_TRUE(m.data.empty());
    EXPECT_EQ(m.imm, want[i]);
    EXPECT_EQ(m.va, es[0].host);  // errors go to host region 0
    EXPECT_EQ(m.rkey, es[0].rkey);
  }
  EXPECT_EQ(run.r.last.ctl.rpc_errors, 3u);

  // Region sizes that do not fit (copy into a smaller region), and a budget too small for the kernel.
  const auto small = Regions({n, n / 2});
  Client c2;
  Mrsp(&c2, small, 4 + 16 * 2);
  Rpc(&c2, small, {a}, rpc::kCopy, 0);
  const auto fit = Regions({4096, 4096});
  Mrsp(&c2, fit, 4 + 16 * 2);
  Rpc(&c2, fit, {Pattern(4096, 9)}, rpc::kCrc, 0, GrantKey(1));
  const RpcRun r2 = Go(c2, " budget 20");
  ExpectClean(r2, c2);
  const std::vector<Msg> m2 = EndpointMessages(r2);
  ASSERT_EQ(m2.size(), 4u);
  EXPECT_EQ(m2[1].imm, rpc::kSize);
  EXPECT_EQ(m2[3].imm, rpc::kTimeout);
  EXPECT_TRUE(m2[3].data.empty());
  EXPECT_EQ(r2.r.last.ctl.grants, 2u);
}

// The naa-communication-library's immediates (f7b72fc lib/naaice.c): the client sends
// htonl(fncode | user bytes << 8 | 0x80) and reads the return code as ntohl(imm) >> 8. With `imm naaice` the
// endpoint runs the function in bits 6:0 and answers codes shifted left by 8; success stays 0.
TEST(NaaRpc, NaaiceLibraryImmediates) {
  const uint32_t n = 1024;
  const auto es = Regions({n, n, n});
  const auto a = Pattern(n, 21), b = Pattern(n, 22);
  auto lib = [](uint32_t fn, uint32_t user) { return user << 8 | 0x80u | fn; };  // as a big-endian number
  for (double bp : {0.0, 0.4}) {
    SCOPED_TRACE(bp);
    Client cl;
    Mrsp(&cl, es, 4 + 16 * 3);
    Rpc(&cl, es, {a, b}, lib(rpc::kAdd, 0xABCDEF), n);  // add, user bytes above the code
    Rpc(&cl, es, {a}, lib(rpc::kCrc, 0), 4);
    Rpc(&cl, es, {a}, lib(7, 0x010203), 0);       // unknown function 7
    Rpc(&cl, es, {a}, rpc::kAdd, 0);              // the seed's plain code: no 0x80 flag, not an RPC start
    Rpc(&cl, es, {a}, lib(0, 0x112233), 0);       // the flag with function 0
    const auto two = Regions({n, n});
    Mrsp(&cl, two, 4 + 16 * 2);
    Rpc(&cl, two, {a, b}, lib(rpc::kAdd, 0x55), 0, GrantKey(1));  // add needs 3 regions
    const RpcRun run = Go(cl, " imm naaice", bp);
    ExpectClean(run, cl);
    const std::vector<Msg> ms = EndpointMessages(run);
    ASSERT_EQ(ms.size(), 8u);
    std::vector<uint8_t> sum(n);
    for (uint32_t i = 0; i < n; i += 4) {
      const uint32_t s = Le32(a, i) + Le32(b, i);
      for (int k = 0; k < 4; ++k) sum[i + k] = static_cast<uint8_t>(s >> (8 * k));
    }
    EXPECT_EQ(ms[1].imm, 0u);
    EXPECT_EQ(ms[1].data, sum);
    EXPECT_EQ(ms[1].va, es[2].host);
    const uint32_t crc = Crc32(a);
    EXPECT_EQ(ms[2].imm, 0u);
    EXPECT_EQ(ms[2].data, (std::vector<uint8_t>{static_cast<uint8_t>(crc), static_cast<uint8_t>(crc >> 8),
                                                static_cast<uint8_t>(crc >> 16), static_cast<uint8_t>(crc >> 24)}));
    // The library's reading, ntohl(imm) >> 8, gives the code; the low byte is zero.
    const uint32_t codes[] = {rpc::kUnknownFn, rpc::kUnknownFn, rpc::kUnknownFn};
    for (int i = 0; i < 3; ++i) {
      EXPECT_TRUE(ms[3 + i].data.empty());
      EXPECT_EQ(ms[3 + i].imm >> 8, codes[i]) << i;
      EXPECT_EQ(ms[3 + i].imm & 0xFFu, 0u) << i;
    }
    EXPECT_EQ(ms[7].imm >> 8, uint32_t{rpc::kRegions});
    EXPECT_EQ(ms[7].imm & 0xFFu, 0u);
    EXPECT_EQ(run.r.last.ctl.rpc_errors, 4u);
  }
  // The seed's encoding stays the default: the same library immediate of add is function 0x...81, unknown.
  Client c2;
  Mrsp(&c2, es, 4 + 16 * 3);
  Rpc(&c2, es, {a, b}, lib(rpc::kAdd, 0), 0);
  const RpcRun r2 = Go(c2);
  ExpectClean(r2, c2);
  const std::vector<Msg> m2 = EndpointMessages(r2);
  ASSERT_EQ(m2.size(), 2u);
  EXPECT_EQ(m2[1].imm, uint32_t{rpc::kUnknownFn});
}

TEST(NaaRpc, SecondMrspReplacesTheGrant) {
  const auto first = Regions({256, 256, 256});
  auto second = Regions({1024, 1024});
  for (auto& e : second) e.fpga += 0x80000;
  Client cl;
  Mrsp(&cl, first, 4 + 16 * 3);
  Mrsp(&cl, second, 4 + 16 * 2);
  // The new grant is what the RPC uses (region 1 of the second request gets the copy).
  const auto a = Pattern(1024, 3);
  Rpc(&cl, second, {a}, rpc::kCopy, 1024, GrantKey(1));
  const RpcRun run = Go(cl);
  ExpectClean(run, cl);
  const std::vector<Msg> ms = EndpointMessages(run);
  ASSERT_EQ(ms.size(), 3u);
  EXPECT_EQ(ms[1].data, MrspGrant(second, GrantKey(1)));  // a grant's rkeys are new
  EXPECT_EQ(ms[2].data, a);
  EXPECT_EQ(ms[2].va, second[1].host);
  EXPECT_EQ(run.r.last.ctl.grants, 2u);
  EXPECT_EQ(run.r.last.ctl.regions, 2);
}

TEST(NaaRpc, DisconnectFlushesAQueuedRpc) {
  const uint32_t n = 4096;
  const auto es = Regions({n, n});
  Client cl;
  Mrsp(&cl, es, 4 + 16 * 2);
  const auto a = Pattern(n, 4);
  // Two RPCs back to back (the second queues behind the first's kernel), then the DREQ at once.
  cl.Message(rdma::op::kWriteFirst, es[0].fpga, kRkeyBase, a, true, rpc::kCopy);
  cl.Message(rdma::op::kWriteFirst, es[0].fpga, kRkeyBase, a, true, rpc::kCopy);
  cl.Dreq();
  const RpcRun run = Go(cl);
  ASSERT_TRUE(run.r.mismatch_text.empty()) << run.r.mismatch_text;
  const CtlCounters& k = run.r.last.ctl;
  ASSERT_FALSE(run.r.run.hang) << CtlStateName(k.state) << " busy " << run.r.last.ctl_busy << " req busy "
                               << run.r.last.req_busy << " rdma busy " << run.r.last.busy << " cm "
                               << ConnName(run.r.last.cm.conn) << " out " << run.out.size() << " events " << k.events
                               << " rpcs " << k.rpcs;
  ASSERT_TRUE(run.r.conservation_ok);
  EXPECT_EQ(k.events, 3u);
  EXPECT_EQ(k.rpcs + k.drops[static_cast<int>(CtlDrop::kFlushed)], 2u);
  EXPECT_GE(k.drops[static_cast<int>(CtlDrop::kFlushed)], 1u);
  EXPECT_EQ(k.regions, 0);  // revoked
  EXPECT_EQ(run.r.last.cm.disconnects, 1u);
}

// With a static MR a client can WRITE_WITH_IMM before any grant: nowhere to answer, a counted drop, its
// buffer reposted; then an MRSP works as usual (in the slots after the static one).
TEST(NaaRpc, RpcBeforeAnyGrantIsACountedDrop) {
  Client cl;
  cl.Message(rdma::op::kWriteFirst, 0x1000, 0x100, Pattern(64, 1), true, rpc::kCrc);
  const auto es = Regions({64, 64});
  Mrsp(&cl, es, 4 + 16 * 2);
  const RpcRun run = Go(cl, "", 0, "mr 0x100 va 0x1000 len 4096 pa 0x200000 access rw\n");
  ExpectClean(run, cl);
  const CtlCounters& k = run.r.last.ctl;
  EXPECT_EQ(k.events, 2u);
  EXPECT_EQ(k.drops[static_cast<int>(CtlDrop::kNoRegions)], 1u);
  EXPECT_EQ(k.reposts, 2u);
  EXPECT_EQ(k.grants, 1u);
  const std::vector<Msg> ms = EndpointMessages(run);
  ASSERT_EQ(ms.size(), 1u);
  EXPECT_EQ(ms[0].data, MrspGrant(es, kRkeyBase));
}

}  // namespace
}  // namespace nettwin::naa
