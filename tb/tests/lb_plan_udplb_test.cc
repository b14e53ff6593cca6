// The epoch planner for the udplb program (`nettwin lb-plan --program udplb`): plans on udplb's own test-1
// tables, checked write by write by the planner's validation and here by the packet engine on whole frames
// (udplb test-1's LB frames with their tick rewritten to both sides of the boundary); the lpm switch's
// order matters (a reordered or shortened plan is caught); refusals.
#include "model/lb/lb_plan_udplb.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <random>

#include "apps/lb_plan_io.h"
#include "model/common/pcap.h"
#include "model/lb/udplb_engine.h"
#include "model/lb/udplb_parse.h"
#include "model/lb/udplb_script.h"

namespace nettwin::lb::udplb {
namespace {

const std::string kPeer = std::string(NT_SOURCE_DIR) + "/vectors/peers/udplb/";

const char kMembers[] =
    "member a weight 1 ipv4 02:00:00:00:00:0a 10.9.0.1 17000 ipv6 02:00:00:00:00:0a fd00::1 17000 port-bits 2\n"
    "member b weight 2 ipv4 02:00:00:00:00:0b 10.9.0.2 18000 ipv6 02:00:00:00:00:0b fd00::2 18000 keep-lb-header 1\n"
    "member c fill 0.25 ipv4 02:00:00:00:00:0c 10.9.0.3 19000 ipv6 02:00:00:00:00:0c fd00::3 19000 port-bits 14\n";

PlanOptionsU Opt(uint8_t lb_id, uint64_t boundary) {
  PlanOptionsU o;
  o.lb_id = lb_id;
  o.boundary = boundary;
  return o;
}

UdplbTables TablesOf(const std::string& script) {
  UdplbTables t;
  for (const Segment& s : ParseScript(script, "script", ScriptOptions{})) {
    for (const CfgWrite& w : s.writes) t.Apply(w);
  }
  return t;
}

// test-1's input frames that instance `lb_id` forwards.
std::vector<std::vector<uint8_t>> LbFrames(const UdplbTables& t, int lb_id) {
  std::vector<std::vector<uint8_t>> out;
  for (const Packet& p : ReadPcap(kPeer + "packets_in.pcap")) {
    const FrameResult r = ProcessFrame(t, p.bytes, 0);
    if (r.verdict.kind == Kind::kForward && r.verdict.lb_id == lb_id) out.push_back(p.bytes);
  }
  return out;
}

std::vector<uint8_t> WithTick(std::vector<uint8_t> f, uint64_t tick) {
  const Parsed p = Parse(f.data(), static_cast<int>(std::min<size_t>(f.size(), kParseWindow)));
  const int at = p.l4 + 8 + 8;  // UDP header, LB common (4) + rsvd/entropy or slot/port select (4), tick
  for (int i = 0; i < 8; ++i) f[at + i] = static_cast<uint8_t>(tick >> (56 - 8 * i));
  return f;
}

// Checks a forwarded frame's destination against the plan's new calendar.
void ExpectNewMember(const PlanU& plan, const std::vector<uint8_t>& in, const FrameResult& r) {
  ASSERT_EQ(r.verdict.kind, Kind::kForward) << ReasonName(r.verdict.reason);
  const Parsed p = Parse(in.data(), static_cast<int>(std::min<size_t>(in.size(), kParseWindow)));
  const uint16_t mask = static_cast<uint16_t>((1u << plan.new_action.slot_bits) - 1);
  const uint16_t id = plan.calendar.at((p.slot_select ^ plan.new_action.slot_xor) & mask);
  const PlanRewrite& rw = p.ipv6 ? plan.rewrites.at(id).second : plan.rewrites.at(id).first;
  const Parsed o = Parse(r.out.data(), static_cast<int>(std::min<size_t>(r.out.size(), kParseWindow)));
  EXPECT_EQ(o.mac_da, rw.mac);
  EXPECT_EQ(o.ip_dst, rw.ip);
  EXPECT_EQ(o.udp_dport, static_cast<uint16_t>(rw.udp_base + (p.port_select & ((1u << rw.port_bits) - 1))));
  EXPECT_EQ(r.out.size(), in.size() - (rw.keep ? 0 : 16)) << "keep_lb_header";
}

TEST(LbPlanUdplb, Test1SwitchFramesBothSidesOfTheBoundary) {
  const std::string cur = Slurp(kPeer + "cli_commands.txt");
  ASSERT_FALSE(cur.empty());
  const auto members = ParsePlanMembers(kMembers, "members.txt");
  ASSERT_EQ(members.size(), 3u);
  EXPECT_EQ(members[0].v4.port_bits, 2);
  EXPECT_TRUE(members[1].v6.keep);
  EXPECT_EQ(members[2].weight, 750000u);
  const uint64_t b = 1000;
  const PlanU plan = MakePlanU(cur, "cli_commands.txt", members, Opt(0, b));
  // test-1's instance 0: wildcard -> epoch 0 (3 slot bits, xor 0xffff), [16, 32) -> epoch 1.
  EXPECT_EQ(plan.old_action, (EpochAction{0, 3, 0xffff}));
  EXPECT_EQ(plan.new_action, (EpochAction{2, 9, 0}));
  EXPECT_EQ(plan.start, 32u);
  // [0, 16) and [32, 1000) keep the old epoch by prefix; both halves hold the ticks while the wildcard
  // moves, the one holding the boundary (0/1) first.
  EXPECT_EQ(plan.old_cover.size(), 1u + PrefixCover(32, 1000).size());
  EXPECT_EQ(plan.halves, (std::vector<TickPrefix>{{0, 1}, {uint64_t{1} << 63, 1}}));
  EXPECT_EQ(plan.calendar.size(), 512u);
  EXPECT_EQ(plan.counts, (std::vector<int>{137, 273, 102}));  // 1 : 2 : 0.75 of 512, largest remainder
  const PlanCheckU c = ValidatePlanU(cur, plan);
  EXPECT_GE(c.states, static_cast<int>(plan.old_cover.size() + 2 * plan.halves.size() + 2));
  EXPECT_GT(c.ticks, 100);
  // test-1 has an L2/L3 path to instance 0 for both families: 18 ticks x 2 families at the end of the switch
  // and of the cleanup go through the packet engine as whole frames.
  EXPECT_EQ(c.frames, 72);

  const UdplbTables before = TablesOf(cur);
  const UdplbTables after = TablesOf(cur + "\n" + plan.switch_script);
  const UdplbTables cleaned = TablesOf(cur + "\n" + plan.switch_script + "\n" + plan.cleanup_script);
  const auto frames = LbFrames(before, 0);
  ASSERT_GE(frames.size(), 10u);
  int old_side = 0, new_side = 0;
  for (const auto& f : frames) {
    for (uint64_t t : {uint64_t{0}, uint64_t{15}, uint64_t{16}, uint64_t{31}, uint64_t{32}, b - 2, b - 1, b, b + 1,
                       b + 511, uint64_t{1} << 40, ~uint64_t{0}}) {
      const auto in = WithTick(f, t);
      const FrameResult r0 = ProcessFrame(before, in, 0), r1 = ProcessFrame(after, in, 0);
      if (t < b) {
        // Below the boundary the switch changes nothing, frame for frame (drops included).
        EXPECT_EQ(r1.verdict.kind, r0.verdict.kind) << t;
        EXPECT_EQ(r1.verdict.reason, r0.verdict.reason) << t;
        EXPECT_EQ(r1.out, r0.out) << t;
        ++old_side;
      } else {
        ExpectNewMember(plan, in, r1);
        const FrameResult r2 = ProcessFrame(cleaned, in, 0);
        EXPECT_EQ(r2.out, r1.out) << "the cleanup must not move ticks >= boundary";
        ++new_side;
      }
    }
  }
  EXPECT_GT(old_side, 0);
  EXPECT_GT(new_side, 0);
  // After the cleanup epoch 0 has no entry, no calendar; instance 1 is untouched.
  EXPECT_EQ(cleaned.EpochRow(0, 0), -1);
  EXPECT_GE(cleaned.EpochRow(0, 1), 0) << "epoch 1 is another epoch's: its own cleanup retires it";
  for (const auto& f : LbFrames(before, 1)) {
    EXPECT_EQ(ProcessFrame(cleaned, f, 0).out, ProcessFrame(before, f, 0).out);
  }
}

TEST(LbPlanUdplb, SlotOptionsAndASecondSwitchBeforeTheCleanup) {
  const std::string cur = Slurp(kPeer + "cli_commands.txt");
  const auto members = ParsePlanMembers(kMembers, "members.txt");
  PlanOptionsU o = Opt(1, 0x8000000000000000);
  o.slot_bits = 4;
  o.slot_xor = 0x5a5a;
  const PlanU p1 = MakePlanU(cur, "cli", members, o);
  EXPECT_EQ(p1.calendar.size(), 16u);
  EXPECT_NE(p1.switch_script.find("do_assign_epoch_with_slot_sel_opts 1 0x0000000000000000/0 => 0x00000002 4 0x5a5a"),
            std::string::npos);
  EXPECT_EQ(p1.halves, (std::vector<TickPrefix>{{uint64_t{1} << 63, 1}, {0, 1}})) << "the boundary's half first";
  ValidatePlanU(cur, p1);
  // A second switch on top of the first (its cleanup not run): the current epoch starts at the first boundary.
  const std::string cur2 = cur + "\n" + p1.switch_script;
  const PlanU p2 = MakePlanU(cur2, "cli", members, Opt(1, 0x8000000000001234));
  EXPECT_EQ(p2.start, 0x8000000000000000u);
  EXPECT_EQ(p2.old_action, (EpochAction{2, 4, 0x5a5a}));
  EXPECT_EQ(p2.old_cover, PrefixCover(0x8000000000000000, 0x8000000000001234));
  for (const TickPrefix& c : p2.old_cover) {
    char key[64];
    std::snprintf(key, sizeof key, "1 0x%016llx/%d => 0x00000002 4 0x5a5a", static_cast<unsigned long long>(c.value),
                  c.len);
    EXPECT_NE(p2.switch_script.find(std::string("do_assign_epoch_with_slot_sel_opts ") + key), std::string::npos)
        << "the old epoch's prefixes keep its slot selection";
  }
  ValidatePlanU(cur2, p2);
  // Both cleanups, oldest first, then a third switch from a clean table.
  const std::string cur3 = cur2 + "\n" + p2.switch_script + "\n" + p1.cleanup_script + "\n" + p2.cleanup_script;
  const PlanU p3 = MakePlanU(cur3, "cli", members, Opt(1, 77));
  EXPECT_EQ(p3.start, 32u) << "[16, 32) -> epoch 1 is still there";
  ValidatePlanU(cur3, p3);
}

TEST(LbPlanUdplb, InitialConfiguration) {
  const auto members = ParsePlanMembers(kMembers, "members.txt");
  PlanOptionsU o;
  o.lb_id = 5;
  const PlanU p = MakePlanU("", "empty", members, o);
  EXPECT_TRUE(p.initial);
  EXPECT_EQ(p.new_action.epoch, 0u);
  ValidatePlanU("", p);
  const PlanU p2 = MakePlanU(p.switch_script, "cur", members, Opt(5, 1));
  EXPECT_EQ(p2.old_cover, (std::vector<TickPrefix>{TickPrefix{0, 64}}));
  EXPECT_EQ(p2.halves.size(), 2u);
  ValidatePlanU(p.switch_script, p2);
  EXPECT_THROW(MakePlanU("", "empty", members, Opt(5, 7)), PlanError) << "--boundary with no epoch";
}

TEST(LbPlanUdplb, RandomBoundariesValidate) {
  const auto members = ParsePlanMembers(kMembers, "members.txt");
  PlanOptionsU o;
  o.lb_id = 3;
  const std::string init = MakePlanU("", "empty", members, o).switch_script;
  std::mt19937_64 rng(7);
  int n = 0;
  for (int i = 0; i < 24; ++i) {
    uint64_t b = rng() >> (rng() % 64);
    if (i % 4 == 1) b = uint64_t{1} << (rng() % 64);
    if (i == 2) b = ~uint64_t{0};
    if (b == 0) b = 1;
    const PlanU p = MakePlanU(init, "cur", members, Opt(3, b));
    ValidatePlanU(init, p);
    EXPECT_EQ(p.old_cover, PrefixCover(0, b));
    // 0/1 is part of the old cover when the boundary is at or above 2^63: then only the upper half holds.
    EXPECT_EQ(p.halves.size(), b >= (uint64_t{1} << 63) ? 1u : 2u) << b;
    EXPECT_EQ(p.halves.front().value, b & (uint64_t{1} << 63)) << "the boundary's half first";
    ++n;
  }
  EXPECT_EQ(n, 24);
}

// Drops the first line containing `what` from `script`.
std::string Without(const std::string& script, const std::string& what) {
  const size_t at = script.find(what);
  if (at == std::string::npos) return script;
  const size_t bol = script.rfind('\n', at) + 1, eol = script.find('\n', at);
  return script.substr(0, bol) + script.substr(eol + 1);
}

TEST(LbPlanUdplb, ValidationCatchesAWrongOrderOrAMissingPrefix) {
  const std::string cur = Slurp(kPeer + "cli_commands.txt");
  const auto members = ParsePlanMembers(kMembers, "members.txt");
  const PlanU good = MakePlanU(cur, "cli", members, Opt(0, 1000));
  ASSERT_NO_THROW(ValidatePlanU(cur, good));
  const std::string del = "table_delete epoch_assign_table 0 0x0000000000000000/0\n";
  ASSERT_NE(good.switch_script.find(del), std::string::npos);
  {  // The wildcard replaced before the halves hold the ticks: ticks miss in between.
    PlanU bad = good;
    bad.switch_script = Without(good.switch_script, "table_delete epoch_assign_table 0 0x0000000000000000/0");
    bad.switch_script.insert(bad.switch_script.find("# 3."), del);
    try {
      ValidatePlanU(cur, bad);
      ADD_FAILURE() << "a wildcard delete before the cover must be refused";
    } catch (const PlanError& e) {
      EXPECT_NE(std::string(e.what()).find("reaches no epoch"), std::string::npos) << e.what();
    }
  }
  {  // One old-epoch prefix missing: its ticks move to the new epoch when the wildcard moves.
    PlanU bad = good;
    bad.switch_script = Without(good.switch_script, "0x00000000000003c0/59");
    ASSERT_NE(bad.switch_script, good.switch_script);
    EXPECT_THROW(ValidatePlanU(cur, bad), PlanError);
  }
  {  // A calendar entry off by one member.
    PlanU bad = good;
    bad.calendar[7] = bad.calendar[7] == good.member_ids[0] ? good.member_ids[1] : good.member_ids[0];
    EXPECT_THROW(ValidatePlanU(cur, bad), PlanError);
  }
}

TEST(LbPlanUdplb, Refusals) {
  const std::string cur = Slurp(kPeer + "cli_commands.txt");
  const auto members = ParsePlanMembers(kMembers, "members.txt");
  auto refused = [&](PlanOptionsU o, const std::string& want) {
    try {
      MakePlanU(cur, "cli", members, o);
      ADD_FAILURE() << "not refused: " << want;
    } catch (const PlanError& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  };
  refused(Opt(0, 32), "boundary in the past");
  PlanOptionsU o = Opt(0, 20);
  o.current_start = 10;
  refused(o, "matches ticks at or after the current epoch's start");  // [16, 32) -> epoch 1
  o = Opt(0, 1000);
  o.now = 1000;
  refused(o, "newest tick in flight");
  o = Opt(0, 1000);
  o.epoch = 1;
  refused(o, "reachable or still has calendar entries");
  o.epoch.reset();
  o.slot_bits = 10;
  refused(o, "--slot-bits must be 0..9");
  PlanOptionsU none;
  refused(none, "--boundary is required");
  auto bad_members = [&](const std::string& text, const std::string& want) {
    try {
      ParsePlanMembers(text, "m.txt");
      ADD_FAILURE() << "not refused: " << text;
    } catch (const PlanError& e) {
      EXPECT_NE(std::string(e.what()).find(want), std::string::npos) << e.what();
    }
  };
  bad_members("member a weight 1 ipv4 02:00:00:00:00:01 10.0.0.1 100 port-bits 15\n", "m.txt:1: token '15'");
  bad_members("\nmember a weight 1 ipv4 02:00:00:00:00:01 10.0.0.1 65000 port-bits 10\n", "m.txt:2: token '65000'");
  bad_members("member a weight 1 ipv4 02:00:00:00:00:01 10.0.0.1 100 keep-lb-header 2\n",
              "keep-lb-header must be 0 or 1");
  bad_members("member a weight 1 ipv4 02:00:00:00:00:01 10.0.0.1 100 port-bits\n", "wants a value");
  // A member without IPv6 while instance 0 accepts IPv6.
  const auto v4only = ParsePlanMembers("member a weight 1 ipv4 02:00:00:00:00:01 10.0.0.1 100\n", "m.txt");
  EXPECT_THROW(MakePlanU(cur, "cli", v4only, Opt(0, 1000)), PlanError);
  // 512 slots, 3 members: with 1 slot bit (2 slots) three positive members do not fit.
  o = Opt(0, 1000);
  o.slot_bits = 1;
  refused(o, "only 2 slots");
}

}  // namespace
}  // namespace nettwin::lb::udplb
