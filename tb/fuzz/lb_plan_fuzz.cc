// The epoch planner's inputs (`nettwin lb-plan`): the current tables (a `--tables` script), the members
// file and the options, separated by NUL bytes (boundary, current start, now, epoch: decimal, empty = not
// given). Inputs are parsed or rejected with ScriptError / PlanError; whatever is planned must apply on top
// of the current tables, and its cleanup after it, under the driver's rules, as the CLI checks.
#include <string>
#include <vector>

#include "model/lb/lb_plan.h"
#include "model/lb/lb_script.h"
#include "tb/fuzz/fuzz_util.h"

using namespace nettwin::lb;

namespace {

std::optional<uint64_t> Number(const std::string& s) {
  if (s.empty() || s.size() > 20 || s.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  unsigned __int128 v = 0;
  for (char c : s) v = v * 10 + static_cast<unsigned>(c - '0');
  if (v > ~uint64_t{0}) return std::nullopt;
  return static_cast<uint64_t>(v);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> part(6);
  size_t k = 0;
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0 && k + 1 < part.size()) ++k;
    else part[k].push_back(static_cast<char>(data[i]));
  }
  PlanOptions opt;
  opt.boundary = Number(part[2]);
  opt.current_start = Number(part[3]);
  opt.now = Number(part[4]);
  if (auto e = Number(part[5]); e && *e <= 0xffffffffu) opt.epoch = static_cast<uint32_t>(*e);
  Plan p;
  try {
    const LbTables current = TablesFromScript(part[0], "tables.txt");
    p = MakePlan(current, ParseMembers(part[1], "members.txt"), opt);
  } catch (const ScriptError&) {
    return 0;
  } catch (const PlanError&) {
    return 0;
  }
  try {
    ParseScript(part[0] + "\n" + p.switch_script + "\n" + p.cleanup_script, "planned script");
  } catch (const ScriptError&) {
    __builtin_trap();  // the planner wrote a script the driver refuses
  }
  return 0;
}
