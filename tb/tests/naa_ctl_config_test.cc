// The `ctl` line of the endpoint's configuration (docs/naa.md "MRSP and RPC"): the controller's table
// writes, its receive WQEs in memory, and one clear error per bad value.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "model/naa/naa_config.h"
#include "tb/tests/error_message.h"

namespace nettwin::naa {
namespace {

const std::string kBase =
    "responder mac 02:00:00:00:00:01 ip 10.0.0.1\n"
    "qp 0x11 mtu 1024 max_rd_atomic 16 aq 0x10000 rq 0x20000 rq_entries 4 rq_posted 0 cq 0x21000 cq_entries 16\n"
    "mr 0x1000 va 0x7f0000000000 len 65536 pa 0x100000 access rw\n"
    "cm port 7471 psn 0x123456\n";

std::string Error(const std::string& ctl) {
  return ErrorMessage<rdma::ConfigError>([&] { ParseNaaConfig(kBase + ctl, "naa.txt"); });
}

TEST(NaaCtlConfig, CtlLineBecomesTableWritesAndPostedBuffers) {
  const NaaConfig c = ParseNaaConfig(
      kBase + "ctl pool 0x40000000 pool_size 0x100000 rxbuf 0x30000 txbuf 0x31000 rkey_base 0x5000\n", "naa.txt");
  EXPECT_TRUE(c.ctl.enable);
  EXPECT_EQ(c.ctl.mr_first, 1);  // after the static mr
  EXPECT_EQ(c.ctl.mrs, std::min(rdma::kMrs - 1, kRegions));  // the slots left, at most NaaRegions
  EXPECT_EQ(c.ctl.qpn, 0x11u);
  EXPECT_EQ(c.ctl.queues.rq_posted, 4);  // every buffer posted
  EXPECT_EQ(c.rdma.queues[0].rq_posted, 4);
  int ctl_writes = 0;
  for (const CfgWrite& w : c.Writes()) {
    if (w.table != params::kNaaTblCtl) continue;
    CtlCfg back;
    DecodeCtl(w, &back);
    ++ctl_writes;
  }
  EXPECT_EQ(ctl_writes, 3);
  ASSERT_EQ(c.rdma.memory.size(), 4u);  // WQE j: buffer j, NaaRxBufBytes = 6144 bytes (a 255-region 0x01), wr_id j
  EXPECT_EQ(c.rdma.memory[2].pa, 0x20000u + 32);
  EXPECT_EQ(c.rdma.memory[2].bytes[1], 0x30);  // 0x30000 + 2 x 6144 = 0x33000, little-endian
  EXPECT_EQ(c.rdma.memory[2].bytes[2], 0x03);
  EXPECT_EQ(c.rdma.memory[2].bytes[9], 0x18);  // 6144 = 0x1800
  EXPECT_EQ(c.rdma.memory[2].bytes[12], 2);
}

TEST(NaaCtlConfig, BadValuesNameLineAndToken) {
  const std::string ok = "ctl pool 0x40000000 pool_size 0x100000 rxbuf 0x30000 txbuf 0x31000 rkey_base 0x5000";
  EXPECT_EQ(Error(ok + " colour 1\n"),
            "naa.txt:5: token 'colour': unknown ctl key (pool, pool_size, rxbuf, txbuf, "
            "rkey_base, mr_first, mrs, budget)");
  EXPECT_EQ(Error("ctl pool 0x40000000\n"), "naa.txt:5: token 'ctl': ctl needs 'pool_size <value>'");
  EXPECT_EQ(Error(ok + " mr_first 0\n"), "naa.txt:5: token 'mr_first': slot 0 holds a static mr");
  EXPECT_EQ(Error(ok + " mrs 33\n"), "naa.txt:5: token '33': mrs must be 1..32");
  EXPECT_EQ(Error(ok + " imm htonl\n"),
            "naa.txt:5: token 'htonl': imm must be plain (the seed's) or naaice (the library's)");
  const std::string first = std::to_string(rdma::kMrs - 16), slots = std::to_string(rdma::kMrs);
  EXPECT_EQ(Error(ok + " mr_first " + first + " mrs 32\n"),
            "naa.txt:5: token 'mrs': the responder has " + slots + " MR slots; 32 from slot " + first + " do not fit");
  EXPECT_EQ(Error(ok + "\n" + ok + "\n"), "naa.txt:6: token 'ctl': a second ctl line (the first is line 5)");
  EXPECT_EQ(Error("ctl pool 0xffffffffffffff pool_size 2 rxbuf 0 txbuf 0 rkey_base 0\n"),
            "naa.txt:5: token 'pool_size': the pool ends beyond 2^56");
}

}  // namespace
}  // namespace nettwin::naa
