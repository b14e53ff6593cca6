// `nettwin lb-plan --program udplb`: the epoch planner for the udplb program (model/lb/lb_plan_udplb.h,
// docs/lb.md "The udplb program").
#include <iostream>
#include <sstream>
#include <string>

#include "apps/commands.h"
#include "apps/lb_plan_io.h"
#include "model/lb/lb_plan_udplb.h"
#include "model/lb/lb_script.h"

namespace nettwin::lb::udplb {
namespace {

constexpr const char* kHelp =
    "usage: nettwin lb-plan --program udplb --lb-id N --tables current.txt --members members.txt --out switch.txt\n"
    "                       [--boundary TICK] [--current-start TICK] [--now TICK] [--epoch N]\n"
    "                       [--slot-bits B] [--slot-xor X] [--cleanup-out cleanup.txt] [--json plan.json]\n"
    "  --program udplb  plan for ESnet's udplb program (docs/lb-udplb.md); the tables are udplb's CLI format\n"
    "  --lb-id         the LB instance (0..7) whose epoch switches\n"
    "  --tables        the tables as they are now (the `nettwin lb --program udplb --tables` script)\n"
    "  --members       one line per member: member NAME weight W|fill F [ipv4 MAC IP PORT] [ipv6 MAC IP PORT]\n"
    "                  [port-bits N] [keep-lb-header 0|1]   (PORT: the UDP base port; 2^N receive sockets, N 0..14)\n"
    "  --boundary      first tick of the new epoch (required once the instance has an epoch)\n"
    "  --current-start first tick of the current epoch (default: where the older epochs' prefixes end, else 0)\n"
    "  --now           newest tick already sent: the boundary must be after it\n"
    "  --epoch         the new epoch id (default: one more than the instance's highest)\n"
    "  --slot-bits     the new epoch's slot_select_bit_cnt: a calendar of 2^B slots, 0..9 (default 9, as udplbd2)\n"
    "  --slot-xor      the new epoch's slot_select_xor (16 bits, default 0); not (9, 0): the epoch entries use\n"
    "                  do_assign_epoch_with_slot_sel_opts\n"
    "  --out           the switch: member rewrites, the new calendar, prefixes that keep every tick mapped while\n"
    "                  the lpm wildcard moves to the new epoch (docs/lb.md)\n"
    "  --cleanup-out   the script that retires the old epoch once its events have quiesced\n"
    "  --json          the plan and its check as JSON: epochs, slots, prefixes, members (default: none)\n"
    "Before writing, the plan is applied through the udplb driver and checked write by write with the packet\n"
    "engine's lookups (no tick ever misses; ticks below the boundary keep their member; the others move once).\n"
    "Tick values are decimal or 0x hex (64 bits). Exit 0 planned, 2 refused or bad input.\n";

std::string Json(const PlanU& p, const std::vector<PlanMemberU>& members, const PlanCheckU& c) {
  std::ostringstream j;
  auto cover = [&](const std::vector<TickPrefix>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) {
      s += (i ? ", " : "") + std::string("{\"value\": ") + std::to_string(v[i].value) +
           ", \"len\": " + std::to_string(v[i].len) + "}";
    }
    return s + "]";
  };
  j << "{\n  \"program\": \"udplb\",\n  \"lb_id\": " << int{p.lb_id}
    << ",\n  \"initial\": " << (p.initial ? "true" : "false") << ",\n  \"old_epoch\": " << p.old_action.epoch
    << ",\n  \"new_epoch\": " << p.new_action.epoch << ",\n  \"slot_bits\": " << int{p.new_action.slot_bits}
    << ",\n  \"slot_xor\": " << p.new_action.slot_xor << ",\n  \"start\": " << p.start
    << ",\n  \"boundary\": " << p.boundary << ",\n  \"old_cover\": " << cover(p.old_cover)
    << ",\n  \"halves\": " << cover(p.halves) << ",\n  \"members\": [";
  for (size_t i = 0; i < members.size(); ++i) {
    j << (i ? ", " : "") << "{\"name\": \"" << members[i].name << "\", \"slots\": " << p.counts[i]
      << ", \"id\": " << (p.counts[i] ? std::to_string(p.member_ids[i]) : "null")
      << ", \"new_rewrite\": " << (p.member_inserted[i] ? "true" : "false") << "}";
  }
  j << "],\n  \"check\": {\"states\": " << c.states << ", \"ticks\": " << c.ticks << ", \"lookups\": " << c.lookups
    << ", \"frames\": " << c.frames << "}\n}\n";
  return j.str();
}

}  // namespace

int LbPlanUdplbCommand(int argc, char** argv) {
  std::string tables, members_path, out, cleanup, json;
  PlanOptionsU opt;
  bool have_lb_id = false;
  try {
    const bool run = ForEachOption(argc, argv, kHelp, [&](const std::string& o, const auto& val) {
      if (o == "--program") {
        if (val() != "udplb") throw std::invalid_argument("--program given twice with different programs");
      } else if (o == "--lb-id") {
        const uint64_t v = Tick(o, val(), 8);
        if (v >= static_cast<uint64_t>(kInstances)) throw std::invalid_argument("--lb-id must be 0..7");
        opt.lb_id = static_cast<uint8_t>(v);
        have_lb_id = true;
      } else if (o == "--tables") {
        tables = val();
      } else if (o == "--members") {
        members_path = val();
      } else if (o == "--out") {
        out = val();
      } else if (o == "--cleanup-out") {
        cleanup = val();
      } else if (o == "--json") {
        json = val();
      } else if (o == "--boundary") {
        opt.boundary = Tick(o, val(), 64);
      } else if (o == "--current-start") {
        opt.current_start = Tick(o, val(), 64);
      } else if (o == "--now") {
        opt.now = Tick(o, val(), 64);
      } else if (o == "--epoch") {
        opt.epoch = static_cast<uint32_t>(Tick(o, val(), 32));
      } else if (o == "--slot-bits") {
        const uint64_t v = Tick(o, val(), 8);
        if (v > 9) throw std::invalid_argument("--slot-bits must be 0..9 (a calendar holds at most 512 slots)");
        opt.slot_bits = static_cast<int>(v);
      } else if (o == "--slot-xor") {
        opt.slot_xor = static_cast<uint16_t>(Tick(o, val(), 16));
      } else {
        throw std::invalid_argument("unknown option '" + o + "'");
      }
    });
    if (!run) return 0;
    if (tables.empty() || members_path.empty() || out.empty() || !have_lb_id) {
      throw std::invalid_argument("--lb-id, --tables, --members and --out are required");
    }
  } catch (const std::invalid_argument& e) {
    return InputError("lb-plan", e, kHelp);
  }
  try {
    const std::string current = Slurp(tables);
    const std::vector<PlanMemberU> members = ParsePlanMembers(Slurp(members_path), members_path);
    const PlanU p = MakePlanU(current, tables, members, opt);
    const PlanCheckU c = ValidatePlanU(current, p);
    Spit(out, p.switch_script);
    if (!cleanup.empty()) {
      Spit(cleanup, p.initial ? "# nettwin lb-plan: initial configuration, nothing to clean up\n" : p.cleanup_script);
    }
    if (!json.empty()) Spit(json, Json(p, members, c));
    std::cout << "lb-plan: udplb lb_id " << int{p.lb_id} << ": ";
    if (p.initial) {
      std::cout << "initial epoch " << p.new_action.epoch;
    } else {
      std::cout << "epoch " << p.old_action.epoch << " -> " << p.new_action.epoch << " at tick " << p.boundary << ", "
                << p.old_cover.size() << " prefixes keep the ticks below it, " << p.halves.size()
                << " halves hold the rest while the wildcard moves";
    }
    std::cout << "; " << p.calendar.size() << "-slot calendar:";
    for (size_t i = 0; i < members.size(); ++i) std::cout << " " << members[i].name << "=" << p.counts[i];
    std::cout << "; checked " << c.states << " table states x " << c.ticks << " ticks, " << c.frames
              << " frames through the packet engine\n";
  } catch (const std::exception& e) {  // ScriptError, PlanError: bad input or a refusal
    return InputError("lb-plan", e, "");
  }
  return 0;
}

}  // namespace nettwin::lb::udplb
