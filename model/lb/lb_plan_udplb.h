// The epoch planner for the udplb program (`nettwin lb-plan --program udplb`, docs/lb.md "The udplb
// program"): from the current udplb table script, the members of one LB instance and a boundary tick, the
// table operations of a hitless epoch switch in udplb's CLI format, and the cleanup that retires the old
// epoch. udplb's epoch_assign_table is lpm per (lb_id, tick): the wildcard cannot be swapped in one write
// (a duplicate 0/0 is refused), so the switch holds every tick with longer prefixes while it moves (docs).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/lb/lb_plan.h"
#include "model/lb/udplb_types.h"

namespace nettwin::lb::udplb {

// One family's member_info_lookup_table rewrite.
struct PlanRewrite {
  bool present = false;
  uint64_t mac = 0;
  U128 ip;  // IPv4 in the low 32 bits
  uint16_t udp_base = 0;
  uint8_t port_bits = 0;  // port_select_bit_cnt: 2^bits receive sockets from udp_base on
  bool keep = false;      // keep_lb_header
  bool operator==(const PlanRewrite& o) const {
    return present == o.present && (!present || (mac == o.mac && ip == o.ip && udp_base == o.udp_base &&
                                                 port_bits == o.port_bits && keep == o.keep));
  }
};

struct PlanMemberU {
  std::string name;
  uint64_t weight = 0;  // lb::kWeightUnit units
  PlanRewrite v4, v6;
  int line = 0;
};

// The members file of docs/lb.md plus, per line, `port-bits N` (0..14, udplbd2's PortRange; default 0) and
// `keep-lb-header 0|1` (default 0); the PORT of a rewrite is the member's UDP base port.
// Throws lb::PlanError("file:line: token 'x': message").
std::vector<PlanMemberU> ParsePlanMembers(const std::string& text, const std::string& file_name);

// What an epoch_assign_table entry does: the epoch and its slot selection.
struct EpochAction {
  uint32_t epoch = 0;
  uint8_t slot_bits = 9;
  uint16_t slot_xor = 0;
  bool operator==(const EpochAction& o) const {
    return epoch == o.epoch && slot_bits == o.slot_bits && slot_xor == o.slot_xor;
  }
  bool operator!=(const EpochAction& o) const { return !(*this == o); }
};

struct PlanOptionsU {
  uint8_t lb_id = 0;
  std::optional<uint64_t> boundary, current_start, now;
  std::optional<uint32_t> epoch;
  int slot_bits = 9;      // the new epoch's calendar has 2^slot_bits slots (0..9)
  uint16_t slot_xor = 0;  // do_assign_epoch_with_slot_sel_opts when bits != 9 or xor != 0
};

struct PlanU {
  bool initial = false;
  uint8_t lb_id = 0;
  EpochAction old_action, new_action;
  uint64_t start = 0, boundary = 0;
  std::vector<TickPrefix> old_cover;  // ticks below the boundary that only the wildcard reaches, to the old epoch
  // The halves 0/1 and 2^63/1 to the old epoch (one is left out when the old cover holds it already): they
  // hold every tick while the wildcard is replaced; deleting them moves the ticks >= boundary, the half
  // holding the boundary first.
  std::vector<TickPrefix> halves;
  std::vector<uint16_t> member_ids;
  std::vector<bool> member_inserted;
  std::vector<int> counts;
  std::vector<uint16_t> calendar;                                    // 2^slot_bits member ids
  std::map<uint16_t, std::pair<PlanRewrite, PlanRewrite>> rewrites;  // (ipv4, ipv6) of each id in the calendar
  std::string switch_script, cleanup_script;
};

// Plans the switch for instance opt.lb_id; throws lb::PlanError (a refusal) or lb::ScriptError (bad script).
PlanU MakePlanU(const std::string& current_script, const std::string& file_name,
                const std::vector<PlanMemberU>& members, const PlanOptionsU& opt);

// What ValidatePlanU checked.
struct PlanCheckU {
  int states = 0;   // table states checked (after each epoch_assign_table write, the end of switch and cleanup)
  int ticks = 0;    // ticks per state: every piece of the tick space on which the entries are constant
  int lookups = 0;  // packet-engine lookups (epoch, calendar, member stages)
  int frames = 0;   // whole frames through the packet engine (when the tables have an L2/L3 path)
};

// Applies current + switch + cleanup through the udplb driver (udplb_script.cc), then replays the switch
// and cleanup write by write and checks with the packet engine's stage functions that no tick ever misses,
// ticks below the boundary keep their epoch and member, ticks from the boundary on move once to the new
// epoch and reach the planned calendar's member; then, where the tables have an L2/L3 path to the instance,
// whole LB v2 frames through the packet engine (ProcessFrame) on both sides of the boundary at the end of
// the switch and of the cleanup. Throws lb::PlanError on the first violation.
PlanCheckU ValidatePlanU(const std::string& current_script, const PlanU& p);

}  // namespace nettwin::lb::udplb
