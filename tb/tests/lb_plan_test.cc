// The epoch planner (`nettwin lb-plan`): prefix cover minimality against exhaustive searches, the
// apportionment rules, and whole plans applied to the tables (hitless lookups, cleanup, refusals).
#include "model/lb/lb_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "model/lb/lb_script.h"
#include "tb/tests/error_message.h"

namespace nettwin::lb {
namespace {

using U = unsigned __int128;

// Checks that `cover` is exactly [lo, hi), in order, each prefix aligned and maximal (its parent block
// is not inside the range), which makes it the unique minimal exact prefix cover.
void ExpectExactMaximal(uint64_t lo, uint64_t hi, const std::vector<TickPrefix>& cover) {
  U pos = lo;
  for (const TickPrefix& p : cover) {
    ASSERT_EQ(U{p.value}, pos) << "prefixes must tile the range in order";
    ASSERT_EQ(p.value & ~p.Mask(), 0u) << "value below the prefix must be 0";
    pos += p.Size();
    ASSERT_LE(pos, U{hi});
    if (p.len > 0) {
      const U parent_lo = U{p.value & (p.Mask() << 1)}, parent_hi = parent_lo + (p.Size() << 1);
      EXPECT_FALSE(parent_lo >= lo && parent_hi <= hi) << "prefix " << p.value << "/" << p.len << " not maximal";
    }
  }
  EXPECT_EQ(pos, U{lo < hi ? hi : lo});
}

// Exhaustive: the fewest aligned blocks of [base, base+16) whose union is exactly [base+s, base+e), found by
// breadth-first search over every subset's union (16-bit masks) using all 31 blocks.
int BruteForce16(int s, int e) {
  const uint32_t target = e > s ? ((1u << e) - 1) & ~((1u << s) - 1) : 0;
  std::vector<uint32_t> blocks;
  for (int k = 0; k <= 4; ++k) {
    for (int a = 0; a < 16; a += 1 << k) blocks.push_back(((1u << (1 << k)) - 1) << a);
  }
  std::vector<int> dist(1 << 16, -1);
  std::vector<uint32_t> q{0};
  dist[0] = 0;
  for (size_t h = 0; h < q.size(); ++h) {
    const uint32_t m = q[h];
    if (m == target) return dist[m];
    for (uint32_t b : blocks) {
      if ((b & ~target) || dist[m | b] >= 0) continue;  // a block outside the target can never be in an exact cover
      dist[m | b] = dist[m] + 1;
      q.push_back(m | b);
    }
  }
  return -1;
}

TEST(LbPlanCover, MinimalAgainstExhaustiveSearchLowAndTopOfTickSpace) {
  for (int s = 0; s <= 16; ++s) {
    for (int e = s; e <= 16; ++e) {
      const int best = BruteForce16(s, e);
      const auto low = PrefixCover(static_cast<uint64_t>(s), static_cast<uint64_t>(e));
      EXPECT_EQ(static_cast<int>(low.size()), best) << "[" << s << ", " << e << ")";
      ExpectExactMaximal(s, e, low);
      if (e == 16) continue;  // the top window's end would be 2^64: not a tick
      const uint64_t base = ~uint64_t{0} - 15;
      const auto top = PrefixCover(base + s, base + e);
      EXPECT_EQ(static_cast<int>(top.size()), best) << "top window [" << s << ", " << e << ")";
      ExpectExactMaximal(base + s, base + e, top);
    }
  }
}

TEST(LbPlanCover, MinimalAgainstSearchOverEveryCoverWithOverlaps) {
  // Any exact cover, overlapping or not: a shortest path where each step picks a block inside the range that
  // holds the lowest uncovered tick (some block of every cover does); what is covered is then [lo, x).
  constexpr int kW = 256;
  for (int lo = 0; lo <= kW; ++lo) {
    for (int hi = lo; hi <= kW; ++hi) {
      std::vector<int> d(kW + 1, 1 << 20);
      d[lo] = 0;
      for (int x = lo; x < hi; ++x) {
        for (int k = 0; k <= 8; ++k) {
          const int a = x & ~((1 << k) - 1), end = a + (1 << k);
          if (a < lo || end > hi) continue;
          d[end] = std::min(d[end], d[x] + 1);
        }
      }
      ASSERT_EQ(static_cast<int>(PrefixCover(lo, hi).size()), lo == hi ? 0 : d[hi]) << "[" << lo << ", " << hi << ")";
    }
  }
}

TEST(LbPlanCover, PropertyRandomRangesIncludingNearTheTop) {
  std::mt19937_64 rng(11);
  const uint64_t kMax = ~uint64_t{0};
  std::vector<std::pair<uint64_t, uint64_t>> cases = {{0, kMax},
                                                      {1, kMax},
                                                      {kMax - 1, kMax},
                                                      {0, 1},
                                                      {uint64_t{1} << 63, kMax},
                                                      {(uint64_t{1} << 63) - 1, (uint64_t{1} << 63) + 1}};
  for (int i = 0; i < 3000; ++i) {
    uint64_t a = rng(), b = rng();
    if (i % 3 == 1) a = kMax - (a >> (rng() % 64)), b = kMax - (b >> (rng() % 64));  // near 2^64 - 1
    if (i % 3 == 2) b = a + (b >> (rng() % 64));
    if (a > b) std::swap(a, b);
    if (a == b) continue;
    cases.emplace_back(a, b);
  }
  for (const auto& [lo, hi] : cases) {
    const auto cover = PrefixCover(lo, hi);
    ExpectExactMaximal(lo, hi, cover);
    EXPECT_LE(cover.size(), 126u);
    // The cover as epoch entries under a wildcard selects epoch 1 exactly on [lo, hi).
    LbTables t;
    LbDriver d;
    for (const TickPrefix& p : cover) {
      for (const CfgWrite& w :
           d.AddEpoch(EpochEntry{true, false, p.value, p.Mask(), static_cast<uint16_t>(64 - p.len), 1}))
        t.Apply(w);
    }
    for (const CfgWrite& w : d.AddEpoch(EpochEntry{true, false, 0, 0, 65, 2})) t.Apply(w);
    for (uint64_t tick : {lo, hi - 1, hi, lo - 1, lo + (hi - lo) / 2, lo + (rng() % (hi - lo)), rng()}) {
      const bool inside = tick >= lo && tick < hi;
      EXPECT_EQ(t.LookupEpoch(tick).epoch, inside ? 1u : 2u)
          << "tick " << tick << " range [" << lo << ", " << hi << ")";
    }
  }
}

TEST(LbPlanApportion, LargestRemainderAndAtLeastOneSlot) {
  EXPECT_EQ(ApportionSlots({1, 1, 1}, 512), (std::vector<int>{171, 171, 170}));
  EXPECT_EQ(ApportionSlots({1, 0, 2}, 512), (std::vector<int>{171, 0, 341}));
  EXPECT_EQ(ApportionSlots({1000000, 1}, 512), (std::vector<int>{511, 1}));  // 0.0005 slots -> 1
  EXPECT_EQ(ApportionSlots({3, 3, 2}, 512), (std::vector<int>{192, 192, 128}));
  EXPECT_EQ(ApportionSlots(std::vector<uint64_t>(512, 7), 512), std::vector<int>(512, 1));
  EXPECT_THROW(ApportionSlots(std::vector<uint64_t>(513, 1), 512), PlanError);
  EXPECT_THROW(ApportionSlots({0, 0}, 512), PlanError);
  std::mt19937_64 rng(5);
  for (int i = 0; i < 500; ++i) {
    std::vector<uint64_t> w(1 + rng() % 40);
    for (auto& x : w) x = rng() % 4 == 0 ? 0 : rng() % 5000000;
    w[0] += 1;
    const auto c = ApportionSlots(w, 512);
    long double total = 0;
    for (uint64_t x : w) total += x;
    int sum = 0;
    for (size_t j = 0; j < w.size(); ++j) {
      sum += c[j];
      const long double quota = 512.0L * w[j] / total;
      if (w[j] == 0)
        EXPECT_EQ(c[j], 0);
      else
        EXPECT_GE(c[j], 1);
      EXPECT_LE(c[j], static_cast<int>(quota) + 1);
      EXPECT_GE(c[j] + 1, static_cast<int>(quota) - static_cast<int>(w.size()));  // only the min-one donations
    }
    EXPECT_EQ(sum, 512);
  }
}

TEST(LbPlanApportion, SpreadKeepsCountsAndInterleaves) {
  const std::vector<int> counts{256, 128, 128, 0};
  const auto s = SpreadSlots(counts);
  ASSERT_EQ(s.size(), 512u);
  std::map<int, int> seen;
  for (int m : s) ++seen[m];
  EXPECT_EQ(seen[0], 256);
  EXPECT_EQ(seen[1], 128);
  EXPECT_EQ(seen[2], 128);
  EXPECT_EQ(seen.count(3), 0u);
  for (size_t i = 0; i < s.size(); ++i) EXPECT_NE(s[i], s[(i + 1) % s.size()]) << "slot " << i;
}

// Neighbouring slots on one member around the ring (slot 511's next tick uses slot 0).
int RingPairs(const std::vector<int>& s) {
  int n = 0;
  for (size_t i = 0; i < s.size(); ++i) n += s[i] == s[(i + 1) % s.size()];
  return n;
}

// The fewest ring pairs any arrangement of `counts` has, by trying every distinct arrangement.
int FewestPairsExhaustive(const std::vector<int>& counts) {
  std::vector<int> ring;
  for (size_t m = 0; m < counts.size(); ++m)
    ring.insert(ring.end(), static_cast<size_t>(counts[m]), static_cast<int>(m));
  int best = static_cast<int>(ring.size());
  do best = std::min(best, RingPairs(ring));
  while (std::next_permutation(ring.begin(), ring.end()));
  return best;
}

std::map<int, int> Tally(const std::vector<int>& s) {
  std::map<int, int> t;
  for (int m : s) ++t[m];
  return t;
}

// Issue 24 item 7: slot counts 217/207/88 gave 5 neighbouring pairs on one member under plain smooth
// weighted round robin although an arrangement with none exists (217 <= 256).
TEST(LbPlanSpread, NoNeighbouringPairsWhenNoMemberHoldsMoreThanHalf) {
  const std::vector<int> counts{217, 207, 88};
  const auto s = SpreadSlots(counts);
  ASSERT_EQ(s.size(), 512u);
  EXPECT_EQ(Tally(s), (std::map<int, int>{{0, 217}, {1, 207}, {2, 88}}));
  EXPECT_EQ(RingPairs(s), 0);
  // The same through the whole planner: weights 217/207/88 give those counts and a calendar without pairs.
  const std::string filter = "table_add dst_filter_table NoAction 0x00aabbccddee 0x0800 10.1.2.3 =>\n";
  const Plan p = MakePlan(TablesFromScript(filter, "f"),
                          ParseMembers("member a weight 217 ipv4 0x020000000001 10.0.0.1 5000\n"
                                       "member b weight 207 ipv4 0x020000000002 10.0.0.2 5000\n"
                                       "member c weight 88 ipv4 0x020000000003 10.0.0.3 5000\n",
                                       "m"),
                          {});
  EXPECT_EQ(p.counts, counts);
  EXPECT_EQ(RingPairs(std::vector<int>(p.calendar.begin(), p.calendar.end())), 0);
  // Spread evenly too: every window of 64 consecutive ticks (around the ring) holds each member's share
  // within 3 slots.
  for (size_t start = 0; start < 512; ++start) {
    std::vector<int> in(3, 0);
    for (size_t k = 0; k < 64; ++k) ++in[static_cast<size_t>(s[(start + k) % 512])];
    for (size_t m = 0; m < 3; ++m) EXPECT_NEAR(in[m], counts[m] / 8.0, 3.0) << "window at " << start << " member " << m;
  }
}

TEST(LbPlanSpread, RandomWeightsReachTheFewestPairs) {
  std::mt19937_64 rng(24);
  for (int i = 0; i < 2000; ++i) {
    std::vector<uint64_t> w(1 + rng() % (i % 3 == 0 ? 40 : 6));
    for (auto& x : w) x = rng() % 5 == 0 ? 0 : 1 + rng() % (rng() % 2 ? 1000 : 5000000);
    if (i % 7 == 0) w[0] = 1 + rng() % 100000000;  // often a member over half
    w[0] += 1;
    const auto counts = ApportionSlots(w, 512);
    const auto s = SpreadSlots(counts);
    ASSERT_EQ(s.size(), 512u);
    std::vector<int> got(counts.size(), 0);
    for (int m : s) ++got[static_cast<size_t>(m)];
    ASSERT_EQ(got, counts);
    const int most = *std::max_element(counts.begin(), counts.end());
    ASSERT_EQ(RingPairs(s), most == 512 ? 512 : std::max(0, 2 * most - 512)) << "case " << i << " max " << most;
  }
}

TEST(LbPlanSpread, EverySmallCalendarReachesTheExhaustiveMinimum) {
  // Every count vector of 1..4 members (zeros included) over 1..10 slots: the result is a permutation of the
  // counts with exactly the fewest ring pairs an exhaustive search finds.
  for (int total = 1; total <= 10; ++total) {
    for (int a = 0; a <= total; ++a) {
      for (int b = 0; a + b <= total; ++b) {
        for (int c = 0; a + b + c <= total; ++c) {
          const std::vector<int> counts{a, b, c, total - a - b - c};
          const auto s = SpreadSlots(counts);
          ASSERT_EQ(s.size(), static_cast<size_t>(total));
          std::vector<int> got(4, 0);
          for (int m : s) ++got[static_cast<size_t>(m)];
          ASSERT_EQ(got, counts);
          ASSERT_EQ(RingPairs(s), FewestPairsExhaustive(counts))
              << a << "/" << b << "/" << c << "/" << total - a - b - c;
        }
      }
    }
  }
}

TEST(LbPlanSpread, MemberOverHalfFormsEvenRuns) {
  const auto s = SpreadSlots({400, 100, 12});
  EXPECT_EQ(RingPairs(s), 2 * 400 - 512);
  // 112 runs of member 0, each 3 or 4 slots long (400 / 112 = 3.57).
  std::vector<int> runs;
  size_t i = 0;
  while (s[i] == 0) ++i;  // start after a run boundary
  for (size_t k = 0; k < 512;) {
    int len = 0;
    while (k < 512 && s[(i + k) % 512] == 0) ++len, ++k;
    if (len) runs.push_back(len);
    while (k < 512 && s[(i + k) % 512] != 0) ++k;
  }
  EXPECT_EQ(runs.size(), 112u);
  for (int r : runs) EXPECT_TRUE(r == 3 || r == 4) << r;
  EXPECT_EQ(SpreadSlots({0, 5}), (std::vector<int>{1, 1, 1, 1, 1}));
}

TEST(LbPlanMembers, ParsesAndRejectsWithFileLineToken) {
  const auto m = ParseMembers(
      "# two nodes\nmember a weight 2.5 ipv4 00:11:22:33:44:55 10.0.0.1 0x4556 ipv6 0x112233445566 fe80::3 17750\n"
      "member b fill 0.75 ipv4 0x0a0b0c0d0e0f 10.0.0.2 0x4557\n",
      "m.txt");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].weight, 2500000u);
  EXPECT_EQ(m[1].weight, 250000u);
  EXPECT_EQ(m[0].v6.ip.hi, 0xfe80000000000000ull);
  EXPECT_EQ(m[0].v6.port, 17750);
  EXPECT_FALSE(m[1].v6.present);
  auto err = [](const std::string& text) {
    return ErrorMessage<PlanError>([&] { ParseMembers(text, "m.txt"); });
  };
  EXPECT_EQ(err("member a weight x ipv4 0 1.2.3.4 1\n"),
            "m.txt:1: token 'x': not a decimal number with at most 6 decimals");
  EXPECT_EQ(err("\nmember a fill 1.5 ipv4 0 1.2.3.4 1\n"),
            "m.txt:2: token '1.5': out of range: a fill level is in [0, 1]");
  EXPECT_EQ(err("member a weight 1 ipv4 0 fe80::1 1\n"),
            "m.txt:1: token 'fe80::1': IPv4 destination does not fit in 32 bits");
  EXPECT_EQ(err("member a weight 1 ipv4 0 1.2.3.4 0x10000\n"),
            "m.txt:1: token '0x10000': UDP port: not a number or address of at most 16 bits");
  EXPECT_EQ(err("member a weight 1 ipv5 0 1.2.3.4 1\n"), "m.txt:1: token 'ipv5': expected 'ipv4' or 'ipv6'");
  EXPECT_EQ(err("member a weight 1 ipv4 0 1.2.3.4 1\nmember b weight 1 ipv4 0 1.2.3.4 1\n"),
            "m.txt:2: token 'b': same rewrites as member 'a' (line 1): give it the combined weight instead");
  EXPECT_EQ(err("# nothing\n"), "m.txt:1: at end of file: no member lines");
  // Issue 24 item 7: the weight limit is named, and 13+ integer digits are out of range, not "not a decimal".
  EXPECT_EQ(err("member a weight 1000000000.000001 ipv4 0 1.2.3.4 1\n"),
            "m.txt:1: token '1000000000.000001': out of range: a weight is at most 1000000000");
  EXPECT_EQ(err("member a weight 1234567890123 ipv4 0 1.2.3.4 1\n"),
            "m.txt:1: token '1234567890123': out of range: a weight is at most 1000000000");
  EXPECT_EQ(err("member a weight 99999999999999999999999 ipv4 0 1.2.3.4 1\n"),
            "m.txt:1: token '99999999999999999999999': out of range: a weight is at most 1000000000");
  EXPECT_EQ(ParseMembers("member a weight 1000000000 ipv4 0 1.2.3.4 1\n", "m")[0].weight, kMaxWeight * kWeightUnit);
  EXPECT_EQ(ParseMembers("member a weight 00000000000000001.5 ipv4 0 1.2.3.4 1\n", "m")[0].weight, 1500000u);
  EXPECT_EQ(err("member a fill 2 ipv4 0 1.2.3.4 1\n"), "m.txt:1: token '2': out of range: a fill level is in [0, 1]");
  // Issue 24 item 7: UDP destination port 0 is refused.
  EXPECT_EQ(err("member a weight 1 ipv4 0 1.2.3.4 1 ipv6 0 fe80::1 0x0\n"),
            "m.txt:1: token '0x0': UDP port 0: the member's packets would be sent to port 0 (reserved)");
  EXPECT_EQ(err("member a weight 1 ipv4 0 1.2.3.4 0\n"),
            "m.txt:1: token '0': UDP port 0: the member's packets would be sent to port 0 (reserved)");
}

const char* kFilter =
    "table_add dst_filter_table NoAction 0x00aabbccddee 0x0800 10.1.2.3 =>\n"
    "table_add dst_filter_table NoAction 0x00aabbccddee 0x86dd fe80::2 =>\n";

std::vector<PlanMember> Members(const std::string& text) { return ParseMembers(text, "m.txt"); }

// Current tables -> plan -> the tables after the switch (and after the cleanup).
struct Applied {
  std::string text;
  Plan plan;
  LbTables after_switch, after_cleanup;
};

Applied Apply(const std::string& current, const std::string& members, const PlanOptions& opt) {
  Applied a;
  a.plan = MakePlan(TablesFromScript(current, "cur.txt"), Members(members), opt);
  a.text = current + a.plan.switch_script;
  a.after_switch = TablesFromScript(a.text, "switch.txt");
  a.after_cleanup = TablesFromScript(a.text + a.plan.cleanup_script, "cleanup.txt");
  return a;
}

uint16_t MemberOf(const LbTables& t, uint64_t tick) {
  const EpochHit e = t.LookupEpoch(tick);
  EXPECT_TRUE(e.hit && !e.drop) << "tick " << tick;
  const int row = t.EpochRow(e.epoch);
  EXPECT_GE(row, 0);
  const CalendarEntry& c = t.Calendar(row, static_cast<int>(tick & 0x1FF));
  EXPECT_TRUE(c.valid);
  return c.member;
}

const char* kTwo =
    "member n0 weight 1 ipv4 0x112233445566 10.0.0.1 0x4556 ipv6 0x112233445566 fe80::10 0x4556\n"
    "member n1 weight 3 ipv4 0x112233445567 10.0.0.2 0x4557 ipv6 0x112233445567 fe80::11 0x4557\n";
const char* kThree =
    "member n1 weight 1 ipv4 0x112233445567 10.0.0.2 0x4557 ipv6 0x112233445567 fe80::11 0x4557\n"
    "member n2 fill 0.5 ipv4 0x112233445568 10.0.0.3 0x4558 ipv6 0x112233445568 fe80::12 0x4558\n"
    "member n3 weight 0 ipv4 0x112233445569 10.0.0.4 0x4559\n";

std::string Refusal(const std::string& current, const std::string& members, const PlanOptions& opt) {
  return ErrorMessage<PlanError>([&] { MakePlan(TablesFromScript(current, "cur.txt"), Members(members), opt); });
}

TEST(LbPlan, InitialThenInServiceSwitchIsHitlessAndCleansUp) {
  const Applied init = Apply(kFilter, kTwo, {});
  EXPECT_TRUE(init.plan.initial);
  EXPECT_EQ(init.plan.new_epoch, 0u);
  EXPECT_EQ(init.plan.counts, (std::vector<int>{128, 384}));
  const uint64_t boundary = 0x123456789;
  PlanOptions opt;
  opt.boundary = boundary;
  opt.now = boundary - 100;
  const Applied sw = Apply(init.text, kThree, opt);
  EXPECT_EQ(sw.plan.old_epoch, 0u);
  EXPECT_EQ(sw.plan.new_epoch, 1u);
  EXPECT_EQ(sw.plan.start, 0u);
  EXPECT_EQ(sw.plan.cover.size(), static_cast<size_t>(__builtin_popcountll(boundary)));
  EXPECT_EQ(sw.plan.counts, (std::vector<int>{341, 171, 0}));  // fill 0.5 = weight 0.5
  EXPECT_EQ(sw.plan.member_ids[0], 1);                         // n1's rewrites exist: reused
  EXPECT_FALSE(sw.plan.member_inserted[0]);
  EXPECT_TRUE(sw.plan.member_inserted[1]);
  const LbTables before = TablesFromScript(init.text, "init.txt");
  for (uint64_t tick : {uint64_t{0}, boundary - 1, boundary - 512, boundary / 3}) {
    EXPECT_EQ(MemberOf(sw.after_switch, tick), MemberOf(before, tick)) << "tick " << tick << " must keep its member";
  }
  for (uint64_t tick = boundary; tick < boundary + 1024; ++tick) {
    EXPECT_EQ(MemberOf(sw.after_switch, tick), sw.plan.calendar[tick & 0x1FF]);
  }
  EXPECT_EQ(MemberOf(sw.after_switch, ~uint64_t{0}), sw.plan.calendar[0x1FF]);
  // After the cleanup epoch 0 is gone (no entry, no calendar, member 0 deleted); every tick is epoch 1.
  EXPECT_EQ(sw.after_cleanup.EpochRow(0), -1);
  EXPECT_EQ(MemberOf(sw.after_cleanup, 5), sw.plan.calendar[5]);
  EXPECT_FALSE(sw.after_cleanup.Member(MemberSlot(false, 0)).valid);
  EXPECT_TRUE(sw.after_cleanup.Member(MemberSlot(false, 1)).valid);
  // The next switch derives its start from the prefixes the previous one left (before its cleanup).
  PlanOptions next;
  next.boundary = boundary + 5000;
  const Plan p2 = MakePlan(sw.after_switch, Members(kTwo), next);
  EXPECT_EQ(p2.start, boundary);
  EXPECT_EQ(p2.old_epoch, 1u);
  EXPECT_EQ(p2.new_epoch, 2u);
}

TEST(LbPlan, PropertyRandomStartsAndBoundariesIncludingNearTheTop) {
  const std::string init =
      std::string(kFilter) + MakePlan(TablesFromScript(kFilter, "f"), Members(kTwo), {}).switch_script;
  const LbTables before = TablesFromScript(init, "init.txt");
  std::mt19937_64 rng(7);
  const uint64_t kMax = ~uint64_t{0};
  for (int i = 0; i < 40; ++i) {
    uint64_t a = rng() >> (rng() % 64), b = rng() >> (rng() % 64);
    if (i % 2) a = kMax - a, b = kMax - b;  // near 2^64 - 1
    if (i % 5 == 0) b = kMax;
    if (a > b) std::swap(a, b);
    if (a == b) continue;
    PlanOptions o;
    o.current_start = a;
    o.boundary = b;
    const Applied sw = Apply(init, kThree, o);
    EXPECT_EQ(sw.plan.cover.size(), PrefixCover(a, b).size());
    for (uint64_t tick : {a, b - 1, a + (b - a) / 2, a + rng() % (b - a)}) {
      EXPECT_EQ(MemberOf(sw.after_switch, tick), MemberOf(before, tick))
          << "tick " << tick << " in [" << a << ", " << b << ")";
    }
    for (uint64_t tick : {b, b + (kMax - b) / 2, kMax}) {
      EXPECT_EQ(MemberOf(sw.after_switch, tick), sw.plan.calendar[tick & 0x1FF]) << "tick " << tick;
      EXPECT_EQ(MemberOf(sw.after_cleanup, tick), sw.plan.calendar[tick & 0x1FF]) << "tick " << tick;
    }
    EXPECT_EQ(sw.after_cleanup.EpochRow(0), -1);
  }
}

TEST(LbPlan, SpecExampleTablesAndAnEntryToTheCurrentEpoch) {
  // The spec's own control script: wildcard -> epoch 0 (priority 64), 0x10/60 -> epoch 1 (priority 5).
  std::ifstream in(std::string(NT_SOURCE_DIR) + "/vectors/lb/spec/runsim.txt");
  std::stringstream spec;
  spec << in.rdbuf();
  PlanOptions o;
  o.boundary = 0x1000;
  const Applied sw = Apply(spec.str(), kTwo, o);
  EXPECT_EQ(sw.plan.old_epoch, 0u);
  EXPECT_EQ(sw.plan.new_epoch, 2u);  // one more than the highest epoch in use
  EXPECT_EQ(sw.plan.start, 0x20u);   // where epoch 1's ticks end
  EXPECT_EQ(sw.after_switch.LookupEpoch(0x15).epoch, 1u);
  EXPECT_EQ(sw.after_switch.LookupEpoch(0x20).epoch, 0u);
  EXPECT_EQ(sw.after_switch.LookupEpoch(0xFFF).epoch, 0u);
  EXPECT_EQ(sw.after_switch.LookupEpoch(0x1000).epoch, 2u);
  EXPECT_EQ(sw.after_cleanup.EpochRow(0), -1);
  EXPECT_EQ(sw.after_cleanup.LookupEpoch(0x15).epoch, 1u);  // epoch 1 is not the planner's to retire
  // An entry that sends ticks to the current epoch itself is removed by the cleanup too (`&&&` form).
  const std::string cur = std::string(kFilter) +
                          MakePlan(TablesFromScript(kFilter, "f"), Members(kTwo), {}).switch_script +
                          "table_add epoch_assign_table do_assign_epoch 0x10&&&0xfffffffffffffff0 => 0 5\n";
  o.boundary = 0x100;
  EXPECT_NE(Refusal(cur, kThree, o).find("already matches ticks"), std::string::npos);
  o.current_start = 0x20;
  const Applied sw2 = Apply(cur, kThree, o);
  EXPECT_NE(sw2.plan.cleanup_script.find("table_delete epoch_assign_table 0x0000000000000010&&&0xfffffffffffffff0 5"),
            std::string::npos);
  EXPECT_EQ(sw2.after_cleanup.LookupEpoch(0x15).epoch, 1u);
}

TEST(LbPlan, RefusesWhatTheSpecForbids) {
  const std::string init =
      std::string(kFilter) + MakePlan(TablesFromScript(kFilter, "f"), Members(kTwo), {}).switch_script;
  PlanOptions o;
  EXPECT_NE(Refusal(init, kThree, o).find("--boundary is required"), std::string::npos);
  o.boundary = 1000;
  o.current_start = 1000;
  EXPECT_NE(Refusal(init, kThree, o).find("a boundary in the past of the current epoch"), std::string::npos);
  o.current_start.reset();
  o.now = 1000;
  EXPECT_NE(Refusal(init, kThree, o).find("not after the newest tick in flight"), std::string::npos);
  o.now.reset();
  o.epoch = 0;
  EXPECT_NE(Refusal(init, kThree, o).find("epoch 0 is reachable"), std::string::npos);
  o.epoch.reset();
  // An entry that already claims part of the range.
  EXPECT_NE(Refusal(init + "table_add epoch_assign_table do_assign_epoch 0x100/56 => 0 3\n", kThree, o)
                .find("already matches ticks"),
            std::string::npos);
  // Four calendars in use.
  std::string full = init;
  for (int e = 5; e < 8; ++e)
    full += "table_add load_balance_calendar_table do_assign_member " + std::to_string(e) + " 0 => 0\n";
  EXPECT_NE(Refusal(full, kThree, o).find("already holds 4 epochs (0, 5, 6, 7)"), std::string::npos);
  // The epoch table cannot take the prefixes: 127 - 2 entries in use, [1, 2^63) needs 63 prefixes.
  std::string crowded = init;
  for (int i = 0; i < 100; ++i)
    crowded += "table_add epoch_assign_table drop " + std::to_string((uint64_t{1} << 63) + i) + " =>\n";
  o.boundary = uint64_t{1} << 63;
  o.current_start = 1;
  EXPECT_NE(Refusal(crowded, kThree, o).find("epoch_assign_table would need 165 entries"), std::string::npos);
  EXPECT_NE(Refusal(std::string(kFilter) + "table_add epoch_assign_table do_assign_epoch 0x10/60 => 1\n", kThree, o)
                .find("no wildcard"),
            std::string::npos);
}

}  // namespace
}  // namespace nettwin::lb
