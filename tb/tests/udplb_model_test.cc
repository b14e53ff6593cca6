// The udplb program's C++ model against udplb's own simulation test (esnet/udplb p4/sim/test-1): the packet
// engine and the cycle model each give expected/packets_out.pcap byte for byte (docs/lb-udplb.md).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "model/common/pcap.h"
#include "model/lb/udplb_engine.h"
#include "model/lb/udplb_script.h"

namespace nettwin::lb::udplb {
namespace {

const std::string kPeer = std::string(NT_SOURCE_DIR) + "/vectors/peers/udplb/";

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(UdplbModel, Test1PacketEngineEqualsExpectedByteForByte) {
  const std::string cli = Slurp(kPeer + "cli_commands.txt");
  ASSERT_FALSE(cli.empty()) << kPeer << "cli_commands.txt missing";
  ScriptOptions opt;
  opt.ttl_decrement = false;  // expected/ was generated at c4ee776, before the decrement
  UdplbPacketEngine engine(ParseScript(cli, "cli_commands.txt", opt), 0);
  const std::vector<Packet> in = ReadPcap(kPeer + "packets_in.pcap");
  const std::vector<Packet> expected = ReadPcap(kPeer + "expected_packets_out.pcap");
  ASSERT_EQ(in.size(), 106u);
  std::vector<std::vector<uint8_t>> out;
  for (const Packet& p : in) {
    FrameResult r = engine.Process(p.bytes);
    if (r.verdict.kind != Kind::kDrop) out.push_back(r.out);
  }
  ASSERT_EQ(out.size(), expected.size());
  for (size_t k = 0; k < out.size(); ++k) {
    ASSERT_EQ(out[k].size(), expected[k].bytes.size()) << "frame " << k;
    for (size_t i = 0; i < out[k].size(); ++i) {
      ASSERT_EQ(out[k][i], expected[k].bytes[i]) << "frame " << k << " byte " << i;
    }
  }
  const UdplbCounters& c = engine.counters();
  EXPECT_EQ(c.packets_in, 106u);
  EXPECT_EQ(c.packets_out, 98u);
  EXPECT_EQ(c.replies, 10u);
  EXPECT_EQ(c.drops[static_cast<int>(Reason::kSrcBlocked)], 8u);
  EXPECT_EQ(c.TotalDrops(), 8u);
}

}  // namespace
}  // namespace nettwin::lb::udplb
