#include <gtest/gtest.h>

#include "model/common/bytes.h"
#include "model/lb/lb_packet_model.h"
#include "model/lb/lb_parse.h"
#include "model/lb/lb_script.h"
#include "tb/tests/lb_frames.h"

namespace nettwin::lb {
namespace {

using testing::BuildFrame;
using testing::FrameSpec;

DropReason ParseReason(const std::vector<uint8_t>& f) {
  return Parse(f.data(), std::min<int>(static_cast<int>(f.size()), kParseWindow)).reason;
}

LbTables Load(const std::string& script) {
  LbTables t;
  for (const Segment& s : ParseScript(script, "test")) {
    for (const CfgWrite& w : s.writes) t.Apply(w);
  }
  return t;
}

DropReason Decision(const LbTables& t, const std::vector<uint8_t>& f) {
  return Decide(t, f.data(), static_cast<int>(f.size())).reason;
}

TEST(LbParse, ValidIpv4AndIpv6FramesParse) {
  FrameSpec s;
  auto f = BuildFrame(s);
  ParseInfo p = Parse(f.data(), static_cast<int>(f.size()));
  EXPECT_EQ(p.reason, DropReason::kNone);
  EXPECT_EQ(p.tick, 10u);
  EXPECT_EQ(p.l4_off, 34);
  EXPECT_EQ(p.key.ip, (U128{0, 0x0a010203}));
  s.v6 = true;
  f = BuildFrame(s);
  p = Parse(f.data(), static_cast<int>(f.size()));
  EXPECT_EQ(p.reason, DropReason::kNone);
  EXPECT_TRUE(p.is_v6);
  EXPECT_EQ(p.l4_off, 54);
  EXPECT_EQ(p.key.ip, (U128{0xfe80000000000000ull, 2}));
}

TEST(LbParse, Ipv4OptionsMoveTheUdpHeader) {
  for (int ihl = 5; ihl <= 15; ++ihl) {
    FrameSpec s;
    s.ihl = ihl;
    s.tick = 0x1122334455667788ull;
    const auto f = BuildFrame(s);
    const ParseInfo p = Parse(f.data(), std::min<int>(static_cast<int>(f.size()), kParseWindow));
    EXPECT_EQ(p.reason, DropReason::kNone) << "ihl " << ihl;
    EXPECT_EQ(p.l4_off, 14 + 4 * ihl);
    EXPECT_EQ(p.tick, s.tick);
  }
}

TEST(LbParse, EachMalformationHasItsOwnReason) {
  auto base = BuildFrame(FrameSpec{});
  EXPECT_EQ(ParseReason(std::vector<uint8_t>(13, 0)), DropReason::kRunt);
  EXPECT_EQ(ParseReason({}), DropReason::kRunt);
  auto f = base;
  Store16(&f[12], 0x8100);
  EXPECT_EQ(ParseReason(f), DropReason::kNotIp);
  EXPECT_EQ(ParseReason(std::vector<uint8_t>(base.begin(), base.begin() + 30)), DropReason::kTruncated);
  f = base;
  f[14] = 0x55;
  EXPECT_EQ(ParseReason(f), DropReason::kBadIp);
  f[14] = 0x44;  // IHL 4
  EXPECT_EQ(ParseReason(f), DropReason::kBadIp);
  FrameSpec opt;
  opt.ihl = 15;
  auto fo = BuildFrame(opt);
  EXPECT_EQ(ParseReason(std::vector<uint8_t>(fo.begin(), fo.begin() + 60)), DropReason::kTruncated);
  f = base;
  f[20] = 0x20;  // MF
  EXPECT_EQ(ParseReason(f), DropReason::kIpFragment);
  f = base;
  f[21] = 0x01;  // offset 1
  EXPECT_EQ(ParseReason(f), DropReason::kIpFragment);
  f = base;
  f[20] = 0x40;  // DF alone is fine
  EXPECT_EQ(ParseReason(f), DropReason::kNone);
  f = base;
  f[23] = 6;
  EXPECT_EQ(ParseReason(f), DropReason::kNotUdp);
  EXPECT_EQ(ParseReason(std::vector<uint8_t>(base.begin(), base.begin() + 40)), DropReason::kTruncated);
  FrameSpec port;
  port.dport = 0x4c43;
  EXPECT_EQ(ParseReason(BuildFrame(port)), DropReason::kNotLbPort);
  EXPECT_EQ(ParseReason(std::vector<uint8_t>(base.begin(), base.begin() + 53)), DropReason::kTruncated);
  f = base;
  Store16(&f[38], 19);  // UDP length too short for the LB header
  EXPECT_EQ(ParseReason(f), DropReason::kBadLength);
  f = base;
  Store16(&f[38], 400);  // UDP length beyond the IP payload
  EXPECT_EQ(ParseReason(f), DropReason::kBadLength);
  f = base;
  Store16(&f[16], 39);  // IP total length below header + UDP + LB
  EXPECT_EQ(ParseReason(f), DropReason::kBadLength);
  FrameSpec magic;
  magic.magic = 0x4c41;
  EXPECT_EQ(ParseReason(BuildFrame(magic)), DropReason::kBadMagic);
  FrameSpec ver;
  ver.version = 2;
  EXPECT_EQ(ParseReason(BuildFrame(ver)), DropReason::kBadVersion);
  FrameSpec v6;
  v6.v6 = true;
  auto f6 = BuildFrame(v6);
  Store16(&f6[14 + 40 + 6], 0);
  EXPECT_EQ(ParseReason(f6), DropReason::kUdp6ZeroCsum);
  FrameSpec v6bad;
  v6bad.v6 = true;
  f6 = BuildFrame(v6bad);
  f6[14] = 0x40;
  EXPECT_EQ(ParseReason(f6), DropReason::kBadIp);
  f6 = BuildFrame(v6bad);
  f6[20] = 0;  // next header hop-by-hop: extension headers are not walked
  EXPECT_EQ(ParseReason(f6), DropReason::kNotUdp);
  EXPECT_EQ(ParseReason(std::vector<uint8_t>(f6.begin(), f6.begin() + 50)), DropReason::kTruncated);
}

TEST(LbLookup, EachTableMissAndDropActionHasItsOwnReason) {
  const LbTables t = Load(testing::kSpecTables);
  FrameSpec s;
  EXPECT_EQ(Decision(t, BuildFrame(s)), DropReason::kNone);
  FrameSpec wrong_ip;
  wrong_ip.ip4_dst = 0x0a010204;
  EXPECT_EQ(Decision(t, BuildFrame(wrong_ip)), DropReason::kFilterMiss);
  FrameSpec wrong_mac;
  wrong_mac.mac_da = 0x00aabbccddef;
  EXPECT_EQ(Decision(t, BuildFrame(wrong_mac)), DropReason::kFilterMiss);
  FrameSpec other_slot;
  other_slot.tick = 11;  // epoch 0, slot 11 has no calendar entry
  EXPECT_EQ(Decision(t, BuildFrame(other_slot)), DropReason::kCalendarMiss);
  FrameSpec e1;
  e1.tick = 0x14;  // epoch 1 (priority 5 beats the /0 entry's 64), slot 0x14 -> member 0
  EXPECT_EQ(Decision(t, BuildFrame(e1)), DropReason::kNone);

  const LbTables t2 = Load(std::string(testing::kSpecTables) + R"(
    table_delete epoch_assign_table 0x0000000000000000/0
    table_add epoch_assign_table drop 0xFF00000000000000/8 => 1
    table_add load_balance_calendar_table drop 1 0x15 =>
    table_add load_balance_calendar_table do_assign_member 1 0x16 => 7
    table_add load_balance_calendar_table do_assign_member 1 0x17 => 0x201
    table_add member_info_lookup_table drop 0x0800 7 =>
    table_add member_info_lookup_table do_ipv4_member_rewrite 0x0800 1 => 0x020000000001 10.0.0.1 1
    table_add dst_filter_table drop 0x00aabbccddee 0x0800 10.9.9.9 =>
  )");
  FrameSpec miss;
  miss.tick = 0x100;
  EXPECT_EQ(Decision(t2, BuildFrame(miss)), DropReason::kEpochMiss);
  FrameSpec edrop;
  edrop.tick = 0xFF00000000000010ull;
  EXPECT_EQ(Decision(t2, BuildFrame(edrop)), DropReason::kEpochDrop);
  FrameSpec cdrop;
  cdrop.tick = 0x15;
  EXPECT_EQ(Decision(t2, BuildFrame(cdrop)), DropReason::kCalendarDrop);
  FrameSpec mdrop;
  mdrop.tick = 0x16;
  EXPECT_EQ(Decision(t2, BuildFrame(mdrop)), DropReason::kMemberDrop);
  FrameSpec mmiss;
  mmiss.tick = 0x16;
  mmiss.v6 = true;  // member 7 has no IPv6 entry
  EXPECT_EQ(Decision(t2, BuildFrame(mmiss)), DropReason::kMemberMiss);
  FrameSpec tag;
  tag.tick = 0x17;  // member 0x201 maps to member 1's slot; the stored tag tells them apart
  EXPECT_EQ(Decision(t2, BuildFrame(tag)), DropReason::kMemberMiss);
  FrameSpec fdrop;
  fdrop.ip4_dst = 0x0a090909;
  EXPECT_EQ(Decision(t2, BuildFrame(fdrop)), DropReason::kFilterDrop);
}

TEST(LbLookup, TernaryPriorityLowestValueWinsTiesToTheEarlierEntry) {
  const LbTables t = Load(R"(
    table_add epoch_assign_table do_assign_epoch 0/0 => 100 10
    table_add epoch_assign_table do_assign_epoch 0x00F0&&&0x00F0 => 200 10
    table_add epoch_assign_table do_assign_epoch 0x0010/60 => 300 2
    table_add epoch_assign_table do_assign_epoch 0x0013 => 400
  )");
  auto epoch = [&](uint64_t tick) { return LbTables::ReduceEpoch(t.EpochGroups(tick)).epoch; };
  EXPECT_EQ(epoch(0x5), 100u);
  EXPECT_EQ(epoch(0xF5), 100u);  // tie at priority 10: the earlier entry (lower slot) wins
  EXPECT_EQ(epoch(0x11), 300u);
  EXPECT_EQ(epoch(0x13), 400u);  // exact key, default priority 64 - 64 = 0
}

}  // namespace
}  // namespace nettwin::lb
