// The in-service epoch switch as table operations (docs/lb.md, "Control plane: the epoch planner").
#include "model/lb/lb_plan.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "model/lb/lb_script.h"

namespace nettwin::lb {
namespace {

constexpr auto Hex = ScriptHex;
constexpr auto Hex128 = ScriptHex128;

std::string Num(uint64_t v) { return std::to_string(v); }

// Do a ternary entry and a prefix match some tick in common? Only the bits both fix must agree.
bool Intersects(const EpochEntry& e, const TickPrefix& p) { return ((e.value ^ p.value) & e.mask & p.Mask()) == 0; }

struct State {
  std::vector<std::pair<int, EpochEntry>> entries;  // valid epoch entries with their slot
  std::map<uint32_t, int> rows;                     // calendared epoch -> row
  std::set<uint32_t> reachable;
  std::map<uint16_t, std::pair<MemberRewrite, MemberRewrite>> members;  // id -> (v4, v6), drop entries excluded
  std::set<uint16_t> present_ids;                                       // every id with an entry
  std::set<int> occupied_slots;                                         // member table slots in use
  std::map<uint32_t, std::set<uint16_t>> calendar_ids;                  // epoch -> member ids its calendar uses
  bool accepts_v4 = false, accepts_v6 = false;  // a passing dst_filter_table entry exists for the family
};

State Read(const LbTables& t) {
  State s;
  for (int i = 0; i < kEpochEntries; ++i) {
    const EpochEntry& e = t.epoch(i);
    if (!e.valid) continue;
    s.entries.emplace_back(i, e);
    if (!e.drop) s.reachable.insert(e.epoch);
  }
  for (int i = 0; i < kFilterEntries; ++i) {
    const FilterEntry& f = t.filter(i);
    if (!f.valid || f.drop) continue;
    s.accepts_v4 |= f.ethertype == kEthIpv4;
    s.accepts_v6 |= f.ethertype == kEthIpv6;
  }
  for (int r = 0; r < kCalendarEpochs; ++r) {
    const EpochMapEntry& m = t.epoch_map(r);
    if (!m.valid) continue;
    s.rows[m.epoch] = r;
    auto& ids = s.calendar_ids[m.epoch];
    for (int slot = 0; slot < kCalendarSlots; ++slot) {
      const CalendarEntry& c = t.Calendar(r, slot);
      if (c.valid && !c.drop) ids.insert(c.member);
    }
  }
  for (int slot = 0; slot < kMemberEntries; ++slot) {
    const MemberEntry& m = t.Member(slot);
    if (!m.valid) continue;
    const uint16_t id = static_cast<uint16_t>((m.tag << 9) | (slot % 512));
    s.present_ids.insert(id);
    s.occupied_slots.insert(slot);
    if (m.drop) continue;
    auto& pair = s.members[id];
    MemberRewrite& r = slot >= 512 ? pair.second : pair.first;
    r = MemberRewrite{true, m.mac, m.ip, m.port};
  }
  return s;
}

// Start of the current epoch when not given: the end of the ticks that entries for other epochs still
// claim (one interval of prefix entries, as a previous plan leaves them until its cleanup), else 0.
uint64_t DeriveStart(const State& s, uint32_t current) {
  using U = unsigned __int128;
  std::vector<std::pair<U, U>> spans;
  for (const auto& [slot, e] : s.entries) {
    if (e.mask == 0 || e.drop || e.epoch == current) continue;
    const int len = __builtin_popcountll(e.mask);
    if (e.mask != (~uint64_t{0} << (64 - len))) {
      throw PlanError("epoch_assign_table slot " + std::to_string(slot) + " (" + Hex(e.value, 16) + "&&&" +
                      Hex(e.mask, 16) + ") is not a prefix match: give --current-start");
    }
    spans.emplace_back(e.value, U{e.value} + (U{1} << (64 - len)));
  }
  return StartAfterSpans(std::move(spans));
}

uint32_t NextFreeEpoch(const State& s) {
  std::set<uint32_t> used(s.reachable);
  for (const auto& r : s.rows) used.insert(r.first);
  if (used.empty()) return 0;
  if (*used.rbegin() != ~uint32_t{0}) return *used.rbegin() + 1;
  uint32_t e = 0;
  while (used.count(e)) ++e;
  return e;
}

// Member ids for the members that get slots: an existing id with exactly these rewrites, else a fresh one.
void AssignIds(const State& s, const std::vector<PlanMember>& members, Plan* p) {
  std::set<uint16_t> referenced;
  for (const auto& c : s.calendar_ids) referenced.insert(c.second.begin(), c.second.end());
  std::set<int> slots_taken(s.occupied_slots);
  auto slot_used = [&](int slot) { return slots_taken.count(slot) > 0; };
  std::set<uint16_t> chosen;
  p->member_ids.assign(members.size(), 0);
  p->member_inserted.assign(members.size(), false);
  for (size_t i = 0; i < members.size(); ++i) {
    const PlanMember& m = members[i];
    if (p->counts[i] == 0) continue;
    bool found = false;
    for (const auto& [id, rw] : s.members) {
      if (rw.first == m.v4 && rw.second == m.v6) {
        p->member_ids[i] = id;
        found = true;
        break;
      }
    }
    if (found) continue;
    for (uint32_t id = 0; id <= 0xFFFF && !found; ++id) {
      const uint16_t id16 = static_cast<uint16_t>(id);
      if (s.present_ids.count(id16) || referenced.count(id16) || chosen.count(id16)) continue;
      if ((m.v4.present && slot_used(MemberSlot(false, id16))) || (m.v6.present && slot_used(MemberSlot(true, id16)))) {
        continue;
      }
      p->member_ids[i] = id16;
      p->member_inserted[i] = true;
      chosen.insert(id16);
      if (m.v4.present) slots_taken.insert(MemberSlot(false, id16));
      if (m.v6.present) slots_taken.insert(MemberSlot(true, id16));
      found = true;
    }
    if (!found) {
      throw PlanError("member_info_lookup_table has no free member id for '" + m.name + "' (line " +
                      std::to_string(m.line) + "): every id's slot (id mod 512 per family) is in use");
    }
  }
}

std::string MemberAdd(bool v6, uint16_t id, const MemberRewrite& r) {
  return std::string("table_add member_info_lookup_table ") +
         (v6 ? "do_ipv6_member_rewrite 0x86dd " : "do_ipv4_member_rewrite 0x0800 ") + Hex(id, 4) + " => " +
         Hex(r.mac, 12) + " " + (v6 ? Hex128(r.ip) : Hex(r.ip.lo, 8)) + " " + Hex(r.port, 4) + "\n";
}

std::string PrefixKey(const TickPrefix& p) { return Hex(p.value, 16) + "/" + std::to_string(p.len); }

}  // namespace

uint64_t StartAfterSpans(std::vector<std::pair<unsigned __int128, unsigned __int128>> spans) {
  using U = unsigned __int128;
  if (spans.empty()) return 0;
  std::sort(spans.begin(), spans.end());
  U end = spans[0].second;
  for (const auto& sp : spans) {
    if (sp.first > end) throw PlanError("the ticks of the older epochs are not one interval: give --current-start");
    end = std::max(end, sp.second);
  }
  if (end > U{~uint64_t{0}}) throw PlanError("older epochs claim every tick up to 2^64 - 1: nothing left to switch");
  return static_cast<uint64_t>(end);
}

LbTables TablesFromScript(const std::string& text, const std::string& file_name) {
  LbTables t;
  for (const Segment& seg : ParseScript(text, file_name)) {
    for (const CfgWrite& w : seg.writes) t.Apply(w);
  }
  return t;
}

Plan MakePlan(const LbTables& current, const std::vector<PlanMember>& members, const PlanOptions& opt) {
  const State s = Read(current);
  Plan p;
  p.initial = s.entries.empty();
  std::optional<std::pair<int, EpochEntry>> wildcard;
  if (!p.initial) {
    for (const auto& se : s.entries) {
      if (se.second.mask != 0) continue;
      if (se.second.drop)
        throw PlanError("the wildcard epoch_assign_table entry (slot " + std::to_string(se.first) +
                        ") drops: no current epoch");
      if (wildcard)
        throw PlanError("two wildcard epoch_assign_table entries (slots " + std::to_string(wildcard->first) + " and " +
                        std::to_string(se.first) + "): the current epoch is ambiguous");
      wildcard = se;
    }
    if (!wildcard)
      throw PlanError("epoch_assign_table has entries but no wildcard (0/0): no current epoch to switch from");
    if (!opt.boundary)
      throw PlanError("the tables are in service (current epoch " + Num(wildcard->second.epoch) +
                      "): --boundary is required");
    p.old_epoch = wildcard->second.epoch;
    p.boundary = *opt.boundary;
    p.start = opt.current_start ? *opt.current_start : DeriveStart(s, p.old_epoch);
    if (p.boundary <= p.start) {
      throw PlanError("boundary " + Num(p.boundary) + " is not after the start of the current epoch " +
                      Num(p.old_epoch) + " (" + Num(p.start) + "): a boundary in the past of the current epoch");
    }
    if (opt.now && p.boundary <= *opt.now) {
      throw PlanError("boundary " + Num(p.boundary) + " is not after the newest tick in flight (--now " +
                      Num(*opt.now) +
                      "): packets of ticks >= boundary may already have been routed by the old calendar");
    }
    p.cover = PrefixCover(p.start, p.boundary);
    for (const auto& [slot, e] : s.entries) {
      if (e.mask == 0) continue;
      for (const TickPrefix& c : p.cover) {
        if (Intersects(e, c)) {
          throw PlanError("epoch_assign_table slot " + std::to_string(slot) + " (" + Hex(e.value, 16) + "&&&" +
                          Hex(e.mask, 16) + (e.drop ? " drop" : " -> epoch " + Num(e.epoch)) +
                          ") already matches ticks in [" + Num(p.start) + ", " + Num(p.boundary) +
                          "): that range would change for a reachable epoch");
        }
      }
    }
  } else if (opt.boundary || opt.current_start || opt.now) {
    throw PlanError(
        "the tables have no epoch_assign_table entries (initial configuration): --boundary, --current-start and --now "
        "do not apply");
  }
  if (opt.epoch) {
    if (s.reachable.count(*opt.epoch))
      throw PlanError("epoch " + Num(*opt.epoch) +
                      " is reachable from epoch_assign_table: a reachable epoch must not be changed");
    if (s.rows.count(*opt.epoch))
      throw PlanError("epoch " + Num(*opt.epoch) +
                      " still has calendar entries: run the cleanup of the switch that retired it first");
    p.new_epoch = *opt.epoch;
  } else {
    p.new_epoch = NextFreeEpoch(s);
  }
  if (static_cast<int>(s.rows.size()) >= kCalendarEpochs) {
    std::string list;
    for (const auto& r : s.rows) list += (list.empty() ? "" : ", ") + Num(r.first);
    throw PlanError("the calendar already holds " + std::to_string(kCalendarEpochs) + " epochs (" + list +
                    "): run the cleanup of a previous switch first");
  }
  const size_t need = s.entries.size() + p.cover.size() + 1;
  if (need > static_cast<size_t>(kEpochEntries)) {
    throw PlanError("epoch_assign_table would need " + std::to_string(need) + " entries (" +
                    std::to_string(s.entries.size()) + " in use + " + std::to_string(p.cover.size()) +
                    " prefixes + the new wildcard) but holds " + std::to_string(kEpochEntries));
  }

  std::vector<uint64_t> weights;
  for (const PlanMember& m : members) {
    weights.push_back(m.weight);
    const char* missing = m.weight == 0                     ? nullptr
                          : (s.accepts_v4 && !m.v4.present) ? "ipv4"
                          : (s.accepts_v6 && !m.v6.present) ? "ipv6"
                                                            : nullptr;
    if (missing) {
      throw PlanError("member '" + m.name + "' (line " + std::to_string(m.line) + ") has no " + missing +
                      " rewrite but dst_filter_table accepts " + missing +
                      ": its packets would be dropped (member_miss); give it one or weight 0");
    }
  }
  p.counts = ApportionSlots(weights, kCalendarSlots);
  AssignIds(s, members, &p);
  const std::vector<int> spread = SpreadSlots(p.counts);
  for (int slot = 0; slot < kCalendarSlots; ++slot) p.calendar[slot] = p.member_ids[spread[slot]];

  std::ostringstream sw;
  sw << "# nettwin lb-plan: "
     << (p.initial ? "initial configuration, epoch " + Num(p.new_epoch)
                   : "epoch " + Num(p.old_epoch) + " -> " + Num(p.new_epoch) + " at tick " + Num(p.boundary) + " (" +
                         Hex(p.boundary, 16) + ")")
     << "\n";
  if (!p.initial)
    sw << "# current epoch started at tick " << p.start << "; " << p.cover.size() << " prefixes keep [" << p.start
       << ", " << p.boundary << ") on epoch " << p.old_epoch << "\n";
  for (size_t i = 0; i < members.size(); ++i) {
    sw << "# member " << members[i].name << ": " << p.counts[i] << " slots"
       << (p.counts[i]
               ? ", id " + Num(p.member_ids[i]) + (p.member_inserted[i] ? " (new rewrite)" : " (existing rewrite)")
               : "")
       << "\n";
  }
  sw << "# 1. member rewrites the new epoch needs\n";
  for (size_t i = 0; i < members.size(); ++i) {
    if (!p.member_inserted[i]) continue;
    if (members[i].v4.present) sw << MemberAdd(false, p.member_ids[i], members[i].v4);
    if (members[i].v6.present) sw << MemberAdd(true, p.member_ids[i], members[i].v6);
  }
  sw << "# 2. the new epoch's calendar (not reachable yet)\n";
  for (int slot = 0; slot < kCalendarSlots; ++slot) {
    sw << "table_add load_balance_calendar_table do_assign_member " << Hex(p.new_epoch, 8) << " " << Hex(slot, 3)
       << " => " << Hex(p.calendar[slot], 4) << "\n";
  }
  if (p.initial) {
    sw << "# 3. every tick to the new epoch\n";
    sw << "table_add epoch_assign_table do_assign_epoch " << PrefixKey(TickPrefix{0, 0}) << " => "
       << Hex(p.new_epoch, 8) << " 64\n";
  } else {
    sw << "# 3. the current epoch's ticks up to the boundary, by prefix (no change of behaviour yet)\n";
    for (const TickPrefix& c : p.cover) {
      sw << "table_add epoch_assign_table do_assign_epoch " << PrefixKey(c) << " => " << Hex(p.old_epoch, 8) << " "
         << 64 - c.len << "\n";
    }
    const uint16_t old_prio = wildcard->second.prio;
    const uint16_t new_prio = old_prio >= 65 ? 64 : 65;
    sw << "# 4. repoint the wildcard: add the new one, then delete the old one (each write alone is a clean switch)\n";
    sw << "table_add epoch_assign_table do_assign_epoch " << PrefixKey(TickPrefix{0, 0}) << " => "
       << Hex(p.new_epoch, 8) << " " << new_prio << "\n";
    sw << "table_delete epoch_assign_table " << PrefixKey(TickPrefix{0, 0}) << " " << old_prio << "\n";

    std::ostringstream cl;
    cl << "# nettwin lb-plan cleanup: retire epoch " << p.old_epoch << " once every event before tick " << p.boundary
       << " has quiesced\n";
    cl << "# 1. disconnect epoch " << p.old_epoch << "\n";
    for (const auto& [slot, e] : s.entries) {
      if (e.mask != 0 && !e.drop && e.epoch == p.old_epoch) {
        cl << "table_delete epoch_assign_table " << Hex(e.value, 16) << "&&&" << Hex(e.mask, 16) << " " << e.prio
           << "\n";
      }
    }
    for (const TickPrefix& c : p.cover)
      cl << "table_delete epoch_assign_table " << PrefixKey(c) << " " << 64 - c.len << "\n";
    cl << "# 2. its calendar\n";
    if (auto row = s.rows.find(p.old_epoch); row != s.rows.end()) {
      for (int slot = 0; slot < kCalendarSlots; ++slot) {
        if (current.Calendar(row->second, slot).valid) {
          cl << "table_delete load_balance_calendar_table " << Hex(p.old_epoch, 8) << " " << Hex(slot, 3) << "\n";
        }
      }
    }
    cl << "# 3. the member rewrites only its calendar used\n";
    std::set<uint16_t> still_used(p.calendar.begin(), p.calendar.end());
    for (const auto& [epoch, ids] : s.calendar_ids) {
      if (epoch != p.old_epoch) still_used.insert(ids.begin(), ids.end());
    }
    if (auto old = s.calendar_ids.find(p.old_epoch); old != s.calendar_ids.end()) {
      for (uint16_t id : old->second) {
        if (still_used.count(id) || !s.present_ids.count(id)) continue;
        for (int fam = 0; fam < 2; ++fam) {
          const MemberEntry& m = current.Member(MemberSlot(fam == 1, id));
          if (m.valid && m.tag == (id >> 9)) {
            cl << "table_delete member_info_lookup_table " << (fam ? "0x86dd " : "0x0800 ") << Hex(id, 4) << "\n";
          }
        }
      }
    }
    p.cleanup_script = cl.str();
  }
  p.switch_script = sw.str();
  return p;
}

}  // namespace nettwin::lb
