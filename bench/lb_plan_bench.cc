// Epoch planner benchmark: time for a full 512-slot calendar and the worst-case prefix cover, as the host
// CPU would spend it per reconfiguration. Prints a Markdown table for docs/PERF.md.
//   build/lb_plan_bench [--reps N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "model/lb/lb_plan.h"

namespace nettwin::lb {
namespace {

using Clock = std::chrono::steady_clock;

// Median wall time of `reps` calls, in microseconds.
template <class F>
double MedianMicros(int reps, F&& f) {
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = Clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

std::string MembersText(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) {
    char line[160];
    std::snprintf(line, sizeof line,
                  "member m%d weight %d.%03d ipv4 0x0200000%05x 10.%d.%d.1 %d ipv6 0x0200000%05x fd00::%x %d\n", i,
                  1 + i % 7, (i * 37) % 1000, i, i / 256, i % 256, 20000 + i, i, i + 1, 20000 + i);
    s += line;
  }
  return s;
}

int Main(int argc, char** argv) {
  int reps = 200;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
  }
  const std::string filter =
      "table_add dst_filter_table NoAction 0x00aabbccddee 0x0800 10.1.2.3 =>\n"
      "table_add dst_filter_table NoAction 0x00aabbccddee 0x86dd fe80::2 =>\n";
  const auto m16 = ParseMembers(MembersText(16), "m16"), m500 = ParseMembers(MembersText(500), "m500");
  const LbTables empty = TablesFromScript(filter, "filter");
  const std::string current = filter + MakePlan(empty, m16, {}).switch_script;
  const LbTables in_service = TablesFromScript(current, "current");
  PlanOptions worst;  // [1, 2^64 - 1): 63 + 63 = 126 prefixes, the most any range needs
  worst.current_start = 1;
  worst.boundary = ~uint64_t{0};
  PlanOptions typical;
  typical.boundary = 1000000007;

  std::printf("| what | median time | detail |\n|---|---|---|\n");
  size_t n = 0;
  double us = MedianMicros(reps, [&] { n += PrefixCover(1, ~uint64_t{0}).size(); });
  std::printf("| prefix cover of [1, 2^64 - 1) | %.2f us | %zu prefixes (the worst case) |\n", us,
              PrefixCover(1, ~uint64_t{0}).size());
  std::vector<uint64_t> w500;
  for (const auto& m : m500) w500.push_back(m.weight);
  us = MedianMicros(reps, [&] { n += SpreadSlots(ApportionSlots(w500, kCalendarSlots)).size(); });
  std::printf("| 512-slot calendar for 500 members (apportion + spread) | %.1f us | |\n", us);
  Plan p;
  us = MedianMicros(reps, [&] { p = MakePlan(in_service, m16, worst); });
  std::printf(
      "| whole switch plan, 16 members, worst-case cover | %.1f us | %zu prefixes, %zu-byte switch script, %zu-byte "
      "cleanup |\n",
      us, p.cover.size(), p.switch_script.size(), p.cleanup_script.size());
  us = MedianMicros(reps, [&] { p = MakePlan(in_service, m500, typical); });
  std::printf("| whole switch plan, 500 members (new rewrites), boundary 1000000007 | %.1f us | %zu prefixes |\n", us,
              p.cover.size());
  us = MedianMicros(std::max(1, reps / 10), [&] { n += TablesFromScript(current + p.switch_script, "x").EpochRow(0); });
  std::printf(
      "| reading current tables + switch script back (driver checks) | %.1f us | the CLI's self-check does this |\n",
      us);
  return n == 0;  // keep the work observable
}

}  // namespace
}  // namespace nettwin::lb

int main(int argc, char** argv) { return nettwin::lb::Main(argc, argv); }
