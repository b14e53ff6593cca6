// `nettwin lb-plan`: the EJFAT control plane's epoch planner (model/lb/lb_plan.h, docs/lb.md).
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "apps/commands.h"
#include "apps/lb_plan_io.h"
#include "model/lb/lb_plan.h"
#include "model/lb/lb_script.h"

namespace nettwin::lb {
namespace {

constexpr const char* kHelp =
    "usage: nettwin lb-plan --tables current.txt --members members.txt --out switch.txt\n"
    "                       [--boundary TICK] [--current-start TICK] [--now TICK] [--epoch N]\n"
    "                       [--cleanup-out cleanup.txt] [--json plan.json] [--program seed|udplb]\n"
    "  --program       seed (default): the seed's program, tables in the `nettwin lb --tables` format;\n"
    "                  udplb: ESnet's udplb program, see `nettwin lb-plan --program udplb --help`\n"
    "  --tables        the tables as they are now (the `nettwin lb --tables` script that built them)\n"
    "  --members       one line per member: member NAME weight W|fill F [ipv4 MAC IP PORT] [ipv6 MAC IP PORT]\n"
    "                  W: decimal, at most 6 decimals, 0 <= W <= 1000000000 (1e9); F: fill level in [0, 1]\n"
    "                  (weight 1 - F); PORT: UDP destination port 1..65535\n"
    "  --boundary      first tick of the new epoch (required once an epoch is in service)\n"
    "  --current-start first tick of the current epoch (default: where the older epochs' prefixes end, else 0)\n"
    "  --now           newest tick already sent: the boundary must be after it\n"
    "  --epoch         the new epoch id (default: the next free one)\n"
    "  --out           the switch script: member rewrites, the new calendar, the prefixes, the wildcard\n"
    "  --cleanup-out   the script that retires the old epoch once its events have quiesced\n"
    "  --json          the plan as JSON: epochs, boundary, the prefixes, each member's slots (default: none)\n"
    "Tick values are decimal or 0x hex (64 bits). Exit 0 planned, 2 refused or bad input.\n";

std::string Json(const Plan& p, const std::vector<PlanMember>& members) {
  std::ostringstream j;
  j << "{\n  \"initial\": " << (p.initial ? "true" : "false") << ",\n  \"old_epoch\": " << p.old_epoch
    << ",\n  \"new_epoch\": " << p.new_epoch << ",\n  \"start\": " << p.start << ",\n  \"boundary\": " << p.boundary
    << ",\n  \"cover\": [";
  for (size_t i = 0; i < p.cover.size(); ++i) {
    j << (i ? ", " : "") << "{\"value\": " << p.cover[i].value << ", \"len\": " << p.cover[i].len << "}";
  }
  j << "],\n  \"members\": [";
  for (size_t i = 0; i < members.size(); ++i) {
    j << (i ? ", " : "") << "{\"name\": \"" << members[i].name << "\", \"slots\": " << p.counts[i]
      << ", \"id\": " << (p.counts[i] ? std::to_string(p.member_ids[i]) : "null")
      << ", \"new_rewrite\": " << (p.member_inserted[i] ? "true" : "false") << "}";
  }
  j << "]\n}\n";
  return j.str();
}

}  // namespace

int LbPlanCommand(int argc, char** argv) {
  std::string tables, members_path, out, cleanup, json;
  PlanOptions opt;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--program" && std::string(argv[i + 1]) == "udplb")
      return udplb::LbPlanUdplbCommand(argc, argv);
  }
  try {
    const bool run = ForEachOption(argc, argv, kHelp, [&](const std::string& o, const auto& val) {
      if (o == "--program") {
        const std::string v = val();
        if (v != "seed") throw std::invalid_argument("--program must be seed or udplb, got '" + v + "'");
      } else if (o == "--tables")
        tables = val();
      else if (o == "--members")
        members_path = val();
      else if (o == "--out")
        out = val();
      else if (o == "--cleanup-out")
        cleanup = val();
      else if (o == "--json")
        json = val();
      else if (o == "--boundary")
        opt.boundary = Tick(o, val(), 64);
      else if (o == "--current-start")
        opt.current_start = Tick(o, val(), 64);
      else if (o == "--now")
        opt.now = Tick(o, val(), 64);
      else if (o == "--epoch")
        opt.epoch = static_cast<uint32_t>(Tick(o, val(), 32));
      else
        throw std::invalid_argument("unknown option '" + o + "'");
    });
    if (!run) return 0;
    RequireOptions({{"--tables", &tables}, {"--members", &members_path}, {"--out", &out}});
  } catch (const std::invalid_argument& e) {
    return InputError("lb-plan", e, kHelp);
  }
  try {
    const std::string current_text = Slurp(tables);
    const LbTables current = TablesFromScript(current_text, tables);
    const std::vector<PlanMember> members = ParseMembers(Slurp(members_path), members_path);
    const Plan p = MakePlan(current, members, opt);
    // The plan must apply on top of the current tables, and its cleanup after it, under the same driver
    // rules `nettwin lb` enforces.
    try {
      ParseScript(current_text + "\n" + p.switch_script + "\n" + p.cleanup_script, "planned script");
    } catch (const ScriptError& e) {
      throw PlanError(std::string("internal error: the planned script does not apply: ") + e.what());
    }
    Spit(out, p.switch_script);
    if (!cleanup.empty())
      Spit(cleanup, p.initial ? "# nettwin lb-plan: initial configuration, nothing to clean up\n" : p.cleanup_script);
    if (!json.empty()) Spit(json, Json(p, members));
    if (p.initial) {
      std::cout << "lb-plan: initial epoch " << p.new_epoch;
    } else {
      std::cout << "lb-plan: epoch " << p.old_epoch << " -> " << p.new_epoch << " at tick " << p.boundary << ", ["
                << p.start << ", " << p.boundary << ") kept by " << p.cover.size() << " prefixes";
    }
    std::cout << "; calendar:";
    for (size_t i = 0; i < members.size(); ++i) std::cout << " " << members[i].name << "=" << p.counts[i];
    std::cout << "\n";
  } catch (const std::exception& e) {  // ScriptError, PlanError: bad input or a refusal
    return InputError("lb-plan", e, "");
  }
  return 0;
}

}  // namespace nettwin::lb
