// Atomics across an NAAICE reconnection (issue 25 item 8): the client FAAs a word, disconnects, connects
// again with the same starting PSN (the CM rewrites the responder's QP: new ePSN, the same AQ address) and
// FAAs again; its retransmissions on the new connection must be answered with the new connection's results,
// never with the old one's from the store of recent atomic results. RTL and model in lockstep, back to back
// and with backpressure. scripts/mutate.py "rdma-recent-kept-both" (the store not cleared when the QP entry
// is written) is caught here.
#include <gtest/gtest.h>

#include <vector>

#include "model/common/bytes.h"
#include "model/naa/naa_config.h"
#include "model/rdma/rdma_packet.h"
#include "tb/naa/naa_run.h"
#include "tb/rdma/rdma_requests.h"
#include "tb/tests/naa_frames.h"
#include "tb/tests/naa_test_run.h"

namespace nettwin::naa {
namespace {

using namespace test;  // NOLINT: the shared client frames

std::vector<uint8_t> Faa(uint32_t psn, uint64_t add) {
  rdma::RequestSpec s = ClientRequest(rdma::op::kFetchAdd, psn, 0x1040);
  s.swap = add;
  return rdma::BuildRequest(s);
}

TEST(NaaReconnect, RetransmittedAtomicsGetTheNewConnectionsResults) {
  const std::string cfg = ServerConfig(
      "qp 0x11 mtu 4096 max_rd_atomic 16 aq 0x10000\nmr 0x100 va 0x1000 len 4096 pa 0x200000 access rwa\n",
      0x654321, "");
  const uint32_t p = kClientPsn;
  std::vector<std::vector<uint8_t>> fs;
  Gates g;
  auto add = [&](std::vector<uint8_t> f, uint64_t after = 0) {
    if (after) g.after[fs.size()] = after;
    fs.push_back(std::move(f));
  };
  // Old connection: 3 FAAs. New connection (same starting PSN): 2 FAAs, then the retransmissions of both.
  add(ReqFrame(kClientComm, 7471, 0, 5));
  add(SealAt(ClientMad(attr::kRtu, kClientComm, kCommBase), kCmIcrcAt), 1);
  for (uint32_t i = 0; i < 3; ++i) add(Faa(p + i, 1 + i));
  add(SealAt(ClientMad(attr::kDreq, kClientComm, kCommBase), kCmIcrcAt), 4);
  add(ReqFrame(kClientComm + 2, 7471, 0, 5), 5);
  add(SealAt(ClientMad(attr::kRtu, kClientComm + 2, kCommBase + 1), kCmIcrcAt), 6);
  add(Faa(p, 100));
  add(Faa(p + 1, 1000));
  add(Faa(p + 1, 7));  // retransmissions: p + 1, then p
  add(Faa(p, 7));
  for (double bp : {0.0, 0.4}) {
    SCOPED_TRACE(bp);
    const NaaRunReport r = RunFrames(ParseNaaConfig(cfg, "naa_reconnect.txt"), fs, g, TestRunConfig(bp, 0, 13, 20, 5));
    ASSERT_TRUE(r.mismatch_text.empty()) << r.mismatch_text;
    ASSERT_FALSE(r.run.hang);
    ASSERT_TRUE(r.conservation_ok);
    // REP, 3 atomic ACKs, DREP, REP, 2 atomic ACKs, 2 retransmission answers.
    ASSERT_EQ(r.run.out.size(), 10u);
    auto orig = [&](size_t i) {
      EXPECT_EQ(r.run.out[i].bytes[42], rdma::op::kAtomicAck) << i;
      return Load64(r.run.out[i].bytes.data() + 58);
    };
    EXPECT_EQ(orig(1), 0u);
    EXPECT_EQ(orig(2), 1u);
    EXPECT_EQ(orig(3), 3u);
    EXPECT_EQ(orig(6), 6u);    // the new connection's FAA at p
    EXPECT_EQ(orig(7), 106u);  // ... at p + 1
    EXPECT_EQ(orig(8), 106u) << "the retransmission of p + 1 got the old connection's result";
    EXPECT_EQ(orig(9), 6u) << "the retransmission of p got the old connection's result";
    uint8_t v[8];
    r.memory->Read(0x200040, v, 8);
    EXPECT_EQ(LoadLe64(v), 1106u);  // executed once each
    EXPECT_EQ(r.last.cm.connects, 2u);
  }
}

}  // namespace
}  // namespace nettwin::naa
