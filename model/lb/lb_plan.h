// The EJFAT control plane's epoch planner (`nettwin lb-plan`): from the current tables, the members with
// their weights and a boundary tick, the table operations of the spec's in-service procedure ("Making
// Changes to the Load Balancer Configuration") as a script in the `--tables` format, and the cleanup script
// that retires the old epoch. The rules (rounding, priorities, id allocation, refusals) are in docs/lb.md,
// "Control plane: the epoch planner".
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "model/lb/lb_tables.h"

namespace nettwin::lb {

class PlanError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A ternary match whose mask is the top `len` bits.
struct TickPrefix {
  uint64_t value = 0;
  int len = 0;
  uint64_t Mask() const { return len == 0 ? 0 : ~uint64_t{0} << (64 - len); }
  // Number of ticks matched, as 128 bits so that len 0 (2^64) fits.
  unsigned __int128 Size() const { return static_cast<unsigned __int128>(1) << (64 - len); }
  bool operator==(const TickPrefix& o) const { return value == o.value && len == o.len; }
};

// The fewest prefixes whose union is exactly [lo, hi) (empty if lo >= hi), in ascending order. They are the
// maximal aligned blocks inside the range; any exact cover needs one prefix per maximal block, so no cover
// is smaller (the tests also compare with an exhaustive search).
std::vector<TickPrefix> PrefixCover(uint64_t lo, uint64_t hi);

// The start of the current epoch from the tick spans [lo, hi) the older epochs' entries still claim: the end
// of their union, which must be one interval below 2^64 (else PlanError); 0 when there are none.
uint64_t StartAfterSpans(std::vector<std::pair<unsigned __int128, unsigned __int128>> spans);

// Slot counts for `weights` (any fixed-point unit) over `slots` slots: largest remainder (Hamilton), ties
// to the earlier member; then every member with a positive weight that got 0 slots takes one from the
// member with the most slots (ties to the later member). Weight 0 gets 0 slots. Throws PlanError when no
// weight is positive or more members than slots have a positive weight.
std::vector<int> ApportionSlots(const std::vector<uint64_t>& weights, int slots);

// Which member (index into counts) each slot holds. The calendar is a ring (tick 511's next tick is slot 0),
// and neighbouring slots, the wrap included, never hold one member when that is possible (no member holds
// more than half the slots); otherwise the biggest member has exactly 2 * max - total neighbouring pairs,
// the fewest possible. Order: smooth weighted round robin (each step every member gains its count, the
// largest credit wins, ties to the lower index, the winner pays the total) restricted to the members that
// differ from the previous slot's and leave a rest that can still be completed without neighbours; with a
// member over half, it is laid out as runs, one other member's slot between two runs (docs/lb.md).
std::vector<int> SpreadSlots(const std::vector<int>& counts);

struct MemberRewrite {
  bool present = false;
  uint64_t mac = 0;
  U128 ip;  // IPv4 in the low 32 bits
  uint16_t port = 0;
  bool operator==(const MemberRewrite& o) const {
    return present == o.present && (!present || (mac == o.mac && ip == o.ip && port == o.port));
  }
};

// One line of the members file (docs/lb.md): a name, a weight (fixed point, 1e-6 units) and the rewrites.
struct PlanMember {
  std::string name;
  uint64_t weight = 0;
  MemberRewrite v4, v6;
  int line = 0;
};
constexpr uint64_t kWeightUnit = 1000000;    // weights and fill levels are read with 6 decimals
constexpr uint64_t kMaxWeight = 1000000000;  // the largest weight W: 512 members' sum stays inside 64 bits

// Parses a members file; throws PlanError("file:line: token 'x': message").
std::vector<PlanMember> ParseMembers(const std::string& text, const std::string& file_name);

struct PlanOptions {
  std::optional<uint64_t> boundary;       // first tick of the new epoch (required in service)
  std::optional<uint64_t> current_start;  // first tick of the current epoch (default: derived, see docs)
  std::optional<uint64_t> now;            // the newest tick in flight: the boundary must be after it
  std::optional<uint32_t> epoch;          // the new epoch id (default: the next free one)
};

struct Plan {
  bool initial = false;  // no epoch entries yet: the initialization steps, no boundary
  uint32_t old_epoch = 0, new_epoch = 0;
  uint64_t start = 0, boundary = 0;
  std::vector<TickPrefix> cover;
  std::vector<uint16_t> member_ids;   // per PlanMember
  std::vector<bool> member_inserted;  // per PlanMember: a new rewrite is inserted
  std::vector<int> counts;            // slots per PlanMember
  std::array<uint16_t, kCalendarSlots> calendar{};
  std::string switch_script, cleanup_script;
};

// Plans the switch; throws PlanError with a message naming what the spec forbids.
Plan MakePlan(const LbTables& current, const std::vector<PlanMember>& members, const PlanOptions& opt);

// Reads the current tables: every write of every segment of a `--tables` script, applied in order.
LbTables TablesFromScript(const std::string& text, const std::string& file_name);

}  // namespace nettwin::lb
