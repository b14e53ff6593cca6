// The udplb program's C++ model against udplb's own simulation test (esnet/udplb p4/sim/test-1): the packet
// engine and the cycle model each give expected/packets_out.pcap byte for byte (docs/lb-udplb.md).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "model/common/pcap.h"
#include "model/lb/udplb_engine.h"
#include "model/lb/udplb_script.h"
#include "model/lb/udplb_stages.h"

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
  EXPECT_EQ(UdplbDropped(c), 8u);
}

CfgWrite Write(int table, int index, const CfgData& d) {
  CfgWrite w;
  w.valid = true;
  w.table = static_cast<uint8_t>(table);
  w.index = static_cast<uint16_t>(index);
  w.data = d;
  return w;
}

// Programming-port values the driver never writes decode as the RTL reads them (rtl/lb/udplb_tables.sv): a
// prefix length above 64 is 64, member action 3 is a miss.
TEST(UdplbModel, OutOfRangeProgrammingValuesActAsTheRtl) {
  UdplbTables t;
  EpochEntry e;
  e.valid = true;
  e.value = 0x1234;
  e.prefix = 100;
  e.epoch = 7;
  t.Apply(Write(params::kUdplbTblEpoch, 0, Encode(e)));
  EXPECT_TRUE(UdplbTables::ReduceEpoch(t.EpochGroups(0, 0x1234)).hit);
  EXPECT_FALSE(UdplbTables::ReduceEpoch(t.EpochGroups(0, 0x1235)).hit);

  MemberEntry m;
  m.valid = true;
  m.action = static_cast<MemberAction>(3);
  t.Apply(Write(params::kUdplbTblMember, MemberIndex(0, false, 5), Encode(m)));
  Parsed p;
  p.ethertype = 0x0800;
  Lookup l;
  l.lb_id = 0;
  l.cal = CalendarEntry{true, 5};
  StageMember(p, t, &l);
  EXPECT_EQ(l.reason, Reason::kMemberMiss);
}

}  // namespace
}  // namespace nettwin::lb::udplb
