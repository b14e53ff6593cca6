#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "model/lb/lb_script.h"
#include "tb/tests/error_message.h"
#include "tb/tests/lb_frames.h"

namespace nettwin::lb {
namespace {

std::string ErrorOf(const std::string& script) {
  return ErrorMessage<ScriptError>([&] { ParseScript(script, "t.txt"); });
}

TEST(LbScript, SpecExampleAsPrintedParses) {
  // The spec's example with tokens over many lines and trailing comments, verbatim in vectors/.
  std::ifstream in(std::string(NT_SOURCE_DIR) + "/vectors/lb/spec/runsim.txt");
  ASSERT_TRUE(in) << "vectors/lb/spec/runsim.txt missing";
  std::stringstream ss;
  ss << in.rdbuf();
  const auto segs = ParseScript(ss.str(), "runsim.txt");
  ASSERT_EQ(segs.size(), 2u);
  // 2 filter + 2 epoch + 2 calendar epoch rows + 2 calendar + 2 member writes
  EXPECT_EQ(segs[0].writes.size(), 10u);
  EXPECT_EQ(segs[0].run_count, -1);
}

TEST(LbScript, EntryEncodingRoundTrips) {
  FilterEntry f{true, true, 0x0123456789ab, 0x86dd, U128{0x1111222233334444ull, 0x5555666677778888ull}, 0x4c42};
  const FilterEntry g = DecodeFilter(Encode(f));
  EXPECT_EQ(g.mac, f.mac);
  EXPECT_EQ(g.ip, f.ip);
  EXPECT_EQ(g.port, f.port);
  EXPECT_TRUE(g.drop && g.valid);
  EpochEntry e{true, false, 0xFEDCBA9876543210ull, 0xFFFF0000FFFF0000ull, 0xBEEF, 0xCAFEF00D};
  const EpochEntry e2 = DecodeEpoch(Encode(e));
  EXPECT_EQ(e2.value, e.value);
  EXPECT_EQ(e2.mask, e.mask);
  EXPECT_EQ(e2.prio, e.prio);
  EXPECT_EQ(e2.epoch, e.epoch);
  MemberEntry m{true, false, 0x7F, 0xA1A2A3A4A5A6, U128{1, 2}, 0x1234};
  const MemberEntry m2 = DecodeMember(Encode(m));
  EXPECT_EQ(m2.tag, m.tag);
  EXPECT_EQ(m2.mac, m.mac);
  EXPECT_EQ(m2.ip, m.ip);
  EXPECT_EQ(m2.port, m.port);
}

TEST(LbScript, ErrorsNameFileLineAndToken) {
  EXPECT_EQ(ErrorOf("table_add nope NoAction 1 2 3 =>"), "t.txt:1: token 'nope': unknown table");
  EXPECT_EQ(ErrorOf("\n\nbogus"),
            "t.txt:3: token 'bogus': unknown command (expected table_add, table_delete, table_clear or run_traffic)");
  EXPECT_NE(ErrorOf("table_add dst_filter_table NoAction 0x1 0x0800\n 0xzz =>").find("t.txt:2: token '0xzz'"),
            std::string::npos);
  EXPECT_NE(ErrorOf("table_add load_balance_calendar_table do_assign_member 0 0x200 => 1").find("0..0x1ff"),
            std::string::npos);
  EXPECT_NE(ErrorOf("table_add member_info_lookup_table do_ipv4_member_rewrite 0x0800 1 => 0x1 0x100000000 1")
                .find("does not fit in 32 bits"),
            std::string::npos);
  EXPECT_NE(ErrorOf("table_add member_info_lookup_table do_ipv6_member_rewrite 0x0800 1 => 0x1 ::1 1").find(
                "does not match the key's EtherType"),
            std::string::npos);
  EXPECT_NE(ErrorOf("table_add member_info_lookup_table do_ipv4_member_rewrite 0x0800 1 => 0x1 1.2.3.4").find(
                "takes 3 parameters"),
            std::string::npos);
  EXPECT_NE(ErrorOf("table_add epoch_assign_table do_assign_epoch 0/0 0 => 1").find("takes 1 keys, got 2"),
            std::string::npos);
  EXPECT_NE(ErrorOf("table_add epoch_assign_table do_assign_epoch 0/65 => 1").find("prefix length"),
            std::string::npos);
  EXPECT_NE(ErrorOf("table_add dst_filter_table NoAction 1 0x0800 1").find("expected '=>'"), std::string::npos);
  EXPECT_NE(ErrorOf("table_delete dst_filter_table 1 0x0800 1").find("no such dst_filter_table entry"),
            std::string::npos);
  EXPECT_NE(ErrorOf("table_add dst_filter_table NoAction 1 0x0800 1 =>\ntable_add dst_filter_table NoAction 1 "
                    "0x0800 1 0x4c42 =>")
                .find("t.txt:2: token 'dst_filter_table': duplicate"),
            std::string::npos);
}

TEST(LbScript, CapacityErrors) {
  std::string s;
  for (int i = 0; i < 33; ++i) s += "table_add dst_filter_table NoAction " + std::to_string(i) + " 0x0800 1 =>\n";
  EXPECT_NE(ErrorOf(s).find("t.txt:33: token 'dst_filter_table': dst_filter_table is full"), std::string::npos);
  s.clear();
  for (int e = 0; e < 5; ++e) s += "table_add load_balance_calendar_table do_assign_member " + std::to_string(e) + " 0 => 1\n";
  EXPECT_NE(ErrorOf(s).find("holds 4 epochs already"), std::string::npos);
  EXPECT_NE(ErrorOf("table_add member_info_lookup_table drop 0x0800 1 =>\n"
                    "table_add member_info_lookup_table drop 0x0800 513 =>")
                .find("member id 0x201 shares hardware slot 1 with member id 0x1"),
            std::string::npos);
  s.clear();
  for (int i = 0; i < 129; ++i) s += "table_add epoch_assign_table do_assign_epoch " + std::to_string(i) + " => 1\n";
  EXPECT_NE(ErrorOf(s).find("epoch_assign_table is full"), std::string::npos);
}

TEST(LbScript, DeletingTheLastCalendarEntryOfAnEpochFreesItsRow) {
  std::string s;
  for (int e = 0; e < 4; ++e) s += "table_add load_balance_calendar_table do_assign_member " + std::to_string(e) + " 0 => 1\n";
  s += "table_delete load_balance_calendar_table 2 0\n";
  s += "table_add load_balance_calendar_table do_assign_member 9 0 => 1\n";
  EXPECT_EQ(ErrorOf(s), "");
  EXPECT_EQ(ErrorOf("table_add load_balance_calendar_table do_assign_member 1 0 => 1\n"
                    "table_clear load_balance_calendar_table\n"
                    "table_add load_balance_calendar_table do_assign_member 1 0 => 1"),
            "");
}

TEST(LbScript, RunTrafficSplitsSegments) {
  const auto segs = ParseScript(
      "table_add epoch_assign_table do_assign_epoch 0/0 => 1\nrun_traffic 0x5\n"
      "table_delete epoch_assign_table 0/0\nrun_traffic 3\ntable_clear epoch_assign_table\nrun_traffic packets\n",
      "t");
  ASSERT_EQ(segs.size(), 4u);
  EXPECT_EQ(segs[0].run_count, 5);
  EXPECT_EQ(segs[1].run_count, 3);
  EXPECT_EQ(segs[1].writes.size(), 1u);
  EXPECT_EQ(segs[2].run_count, -1);
  EXPECT_EQ(segs[2].writes.size(), 0u);  // table already empty
}

TEST(LbScript, AmbiguousTernaryDeleteNeedsPriority) {
  const std::string s =
      "table_add epoch_assign_table do_assign_epoch 0/0 => 1 5\n"
      "table_add epoch_assign_table do_assign_epoch 0/0 => 2 6\n";
  EXPECT_NE(ErrorOf(s + "table_delete epoch_assign_table 0/0").find("ambiguous"), std::string::npos);
  EXPECT_EQ(ErrorOf(s + "table_delete epoch_assign_table 0/0 6"), "");
}

}  // namespace
}  // namespace nettwin::lb
