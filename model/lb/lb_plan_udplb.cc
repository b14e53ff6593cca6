// The udplb program's epoch switch as table operations (docs/lb.md, "The udplb program").
#include "model/lb/lb_plan_udplb.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "model/common/file_io.h"
#include "model/common/text_lines.h"
#include "model/lb/udplb_engine.h"
#include "model/lb/udplb_parse.h"
#include "model/lb/udplb_script.h"
#include "model/lb/udplb_stages.h"
#include "model/lb/udplb_tables.h"

namespace nettwin::lb::udplb {
namespace {

using U = unsigned __int128;
constexpr int kMaxPortBits = 14;  // udplbd2's PortRange goes up to PORT_RANGE_16384

constexpr auto Hex = ScriptHex;
constexpr auto Hex128 = ScriptHex128;

std::string Num(uint64_t v) { return std::to_string(v); }
U End(const EpochEntry& e) { return U{e.value} + (U{1} << (64 - e.prefix)); }

// The tables as the driver left them, decoded from the programming-port writes, plus the tables the packet
// engine reads.
struct Shadow {
  std::vector<EpochEntry> epoch = std::vector<EpochEntry>(kEpochEntries);
  std::vector<EpochMapEntry> rows = std::vector<EpochMapEntry>(kEpochRows);
  std::vector<CalendarEntry> cal = std::vector<CalendarEntry>(kCalendarEntries);
  std::vector<MemberEntry> member = std::vector<MemberEntry>(kMemberEntries);
  std::vector<IpDstEntry> ip_dst = std::vector<IpDstEntry>(kIpDstEntries);
  std::vector<MacDstEntry> mac_dst = std::vector<MacDstEntry>(kMacDstEntries);
  std::vector<SrcEntry> src[2] = {std::vector<SrcEntry>(kSrcEntries), std::vector<SrcEntry>(kSrcEntries)};
  UdplbTables tables;
  void Apply(const CfgWrite& w) {
    tables.Apply(w);
    const int i = w.index;
    switch (w.table) {
      case params::kUdplbTblEpoch: epoch.at(i) = DecodeEpoch(w.data); break;
      case params::kUdplbTblEpochMap: rows.at(i) = DecodeEpochMap(w.data); break;
      case params::kUdplbTblCalendar: cal.at(i) = DecodeCalendar(w.data); break;
      case params::kUdplbTblMember: member.at(i) = DecodeMember(w.data); break;
      case params::kUdplbTblIpDst: ip_dst.at(i) = DecodeIpDst(w.data); break;
      case params::kUdplbTblMacDst: mac_dst.at(i) = DecodeMacDst(w.data); break;
      case params::kUdplbTblSrc4: src[0].at(i) = DecodeSrc(w.data); break;
      case params::kUdplbTblSrc6: src[1].at(i) = DecodeSrc(w.data); break;
      default: break;
    }
  }
};

std::vector<CfgWrite> Writes(const std::vector<Segment>& segs) {
  std::vector<CfgWrite> w;
  for (const Segment& s : segs) w.insert(w.end(), s.writes.begin(), s.writes.end());
  return w;
}

Shadow Load(const std::string& text, const std::string& file) {
  Shadow s;
  for (const CfgWrite& w : Writes(ParseScript(text, file, ScriptOptions{}))) s.Apply(w);
  return s;
}

EpochAction ActionOf(const EpochEntry& e) { return EpochAction{e.epoch, e.slot_bits, e.slot_xor}; }

std::string Prefix(const TickPrefix& p) { return Hex(p.value, 16) + "/" + std::to_string(p.len); }

std::string EpochAdd(int lb_id, const TickPrefix& p, const EpochAction& a) {
  std::string s = "table_add epoch_assign_table ";
  const bool opts = a.slot_bits != 9 || a.slot_xor != 0;  // udplbd2 rules.rs: the plain action for (9, 0)
  s += opts ? "do_assign_epoch_with_slot_sel_opts " : "do_assign_epoch ";
  s += Num(lb_id) + " " + Prefix(p) + " => " + Hex(a.epoch, 8);
  if (opts) s += " " + Num(a.slot_bits) + " " + Hex(a.slot_xor, 4);
  return s + " " + Num(64 - p.len) + "\n";  // the priority udplb's scripts write; lpm ignores it
}

std::string EpochDelete(int lb_id, const TickPrefix& p) {
  return "table_delete epoch_assign_table " + Num(lb_id) + " " + Prefix(p) + "\n";
}

std::string MemberAdd(int lb_id, bool v6, uint16_t id, const PlanRewrite& r) {
  return "table_add member_info_lookup_table " +
         std::string(v6 ? "do_ipv6_member_rewrite " : "do_ipv4_member_rewrite ") + Num(lb_id) +
         (v6 ? " 0x86dd " : " 0x0800 ") + Hex(id, 4) + " => " + Hex(r.mac, 12) + " " +
         (v6 ? Hex128(r.ip) : Hex(r.ip.lo, 8)) + " " + Hex(r.udp_base, 4) + " " + Num(r.port_bits) + " " +
         Num(r.keep ? 1 : 0) + "\n";
}

PlanRewrite RewriteOf(const MemberEntry& m) { return PlanRewrite{true, m.mac, m.ip, m.udp_base, m.port_bits, m.keep}; }

// The complement of `taken` (sorted, disjoint after merging) within [0, hi), as merged intervals.
std::vector<std::pair<U, U>> Gaps(std::vector<std::pair<U, U>> taken, U hi) {
  std::sort(taken.begin(), taken.end());
  std::vector<std::pair<U, U>> out;
  U pos = 0;
  for (const auto& t : taken) {
    if (t.first >= hi) break;
    if (t.first > pos) out.emplace_back(pos, t.first);
    pos = std::max(pos, t.second);
  }
  if (pos < hi) out.emplace_back(pos, hi);
  return out;
}

}  // namespace

std::vector<PlanMemberU> ParsePlanMembers(const std::string& text, const std::string& file_name) {
  // Take `port-bits N` and `keep-lb-header B` off each line; the rest is the seed's members file (one
  // parser for names, weights and rewrites). Lines keep their numbers.
  struct Extra {
    int bits = 0;
    bool keep = false;
  };
  std::vector<Extra> extra;
  std::string rest;
  TextLines lines(text);
  while (lines.Next()) {
    std::vector<std::string>& w = lines.words();
    Extra e;
    std::string kept;
    auto fail = [&](const std::string& tok, const std::string& msg) {
      throw PlanError(TokenMessage(file_name, lines.number(), tok, msg));
    };
    for (size_t i = 0; i < w.size(); ++i) {
      if (w[i] == "port-bits" || w[i] == "keep-lb-header") {
        if (i + 1 >= w.size()) fail(w[i], "wants a value");
        const std::string& v = w[i + 1];
        if (v.empty() || v.size() > 2 || v.find_first_not_of("0123456789") != std::string::npos) {
          fail(v, "not a small decimal number");
        }
        const int n = std::stoi(v);
        if (w[i] == "port-bits") {
          if (n > kMaxPortBits) fail(v, "port-bits must be 0..14 (udplbd2's PortRange: up to 16384 sockets)");
          e.bits = n;
        } else {
          if (n > 1) fail(v, "keep-lb-header must be 0 or 1");
          e.keep = n == 1;
        }
        ++i;
        continue;
      }
      kept += w[i] + " ";
    }
    while (static_cast<int>(extra.size()) < lines.number()) extra.push_back(Extra{});
    extra[lines.number() - 1] = e;
    rest += kept + "\n";
  }
  std::vector<PlanMemberU> out;
  for (const PlanMember& m : ParseMembers(rest, file_name)) {
    const Extra& e = extra.at(m.line - 1);
    PlanMemberU u;
    u.name = m.name;
    u.weight = m.weight;
    u.line = m.line;
    const std::pair<const MemberRewrite*, PlanRewrite*> fams[] = {{&m.v4, &u.v4}, {&m.v6, &u.v6}};
    for (const auto& [from, to] : fams) {
      if (!from->present) continue;
      *to = PlanRewrite{true, from->mac, from->ip, from->port, static_cast<uint8_t>(e.bits), e.keep};
      if (uint32_t{from->port} + (uint32_t{1} << e.bits) - 1 > 0xFFFF) {
        throw PlanError(file_name + ":" + Num(m.line) + ": token '" + Num(from->port) + "': UDP base port + 2^" +
                        Num(e.bits) + " sockets passes 65535 (the destination port would wrap)");
      }
    }
    out.push_back(u);
  }
  return out;
}

PlanU MakePlanU(const std::string& current_script, const std::string& file_name,
                const std::vector<PlanMemberU>& members, const PlanOptionsU& opt) {
  const int n = opt.lb_id;
  if (n >= kInstances) throw PlanError("--lb-id must be 0.." + Num(kInstances - 1));
  if (opt.slot_bits < 0 || opt.slot_bits > 9) {
    throw PlanError("--slot-bits must be 0..9: a calendar holds at most 512 slots in this RTL (docs/lb-udplb.md)");
  }
  const Shadow s = Load(current_script, file_name);
  PlanU p;
  p.lb_id = static_cast<uint8_t>(n);
  p.new_action = EpochAction{0, static_cast<uint8_t>(opt.slot_bits), opt.slot_xor};

  // Instance n's epoch entries, calendars and members.
  std::vector<EpochEntry> entries;
  int used_entries = 0, used_rows = 0;
  for (const EpochEntry& e : s.epoch) {
    used_entries += e.valid;
    if (e.valid && e.lb_id == n) entries.push_back(e);
  }
  std::set<uint32_t> epochs;  // reachable or calendared
  std::map<uint32_t, std::set<uint16_t>> cal_ids;
  std::map<uint32_t, int> row_of;
  for (const EpochEntry& e : entries) epochs.insert(e.epoch);
  for (int r = 0; r < kEpochRows; ++r) {
    used_rows += s.rows[r].valid;
    if (!s.rows[r].valid || s.rows[r].lb_id != n) continue;
    epochs.insert(s.rows[r].epoch);
    row_of[s.rows[r].epoch] = r;
    auto& ids = cal_ids[s.rows[r].epoch];
    for (int k = 0; k < kCalendarSlots; ++k) {
      if (s.cal[r * kCalendarSlots + k].valid) ids.insert(s.cal[r * kCalendarSlots + k].member);
    }
  }
  bool accepts_v4 = false, accepts_v6 = false;
  for (const IpDstEntry& e : s.ip_dst) {
    accepts_v4 |= e.valid && e.lb_id == n && e.ethertype == 0x0800;
    accepts_v6 |= e.valid && e.lb_id == n && e.ethertype == 0x86DD;
  }

  p.initial = entries.empty();
  const EpochEntry* wildcard = nullptr;
  for (const EpochEntry& e : entries) {
    if (e.prefix == 0) wildcard = &e;  // the driver refuses a second 0/0 of one instance
  }
  if (!p.initial) {
    if (!wildcard) {
      throw PlanError("epoch_assign_table has entries for lb_id " + Num(n) +
                      " but no wildcard (0/0): no current epoch to switch from");
    }
    if (!opt.boundary)
      throw PlanError("lb_id " + Num(n) + " is in service (current epoch " + Num(wildcard->epoch) +
                      "): --boundary is required");
    p.old_action = ActionOf(*wildcard);
    p.boundary = *opt.boundary;
    // Start of the current epoch: the end of the ticks the older epochs' prefixes claim (one interval).
    std::vector<std::pair<U, U>> spans;
    for (const EpochEntry& e : entries) {
      if (e.prefix != 0 && e.epoch != p.old_action.epoch) spans.emplace_back(e.value, End(e));
    }
    p.start = opt.current_start ? *opt.current_start : StartAfterSpans(spans);
    if (p.boundary <= p.start) {
      throw PlanError("boundary " + Num(p.boundary) + " is not after the start of the current epoch " +
                      Num(p.old_action.epoch) + " (" + Num(p.start) + "): a boundary in the past of the current epoch");
    }
    if (opt.now && p.boundary <= *opt.now) {
      throw PlanError("boundary " + Num(p.boundary) + " is not after the newest tick in flight (--now " +
                      Num(*opt.now) +
                      "): packets of ticks >= boundary may already have been routed by the old calendar");
    }
    // Every prefix entry must end by the start: above it the planned prefixes must be the longest matches.
    std::vector<std::pair<U, U>> taken;
    for (const EpochEntry& e : entries) {
      if (e.prefix == 0) continue;
      if (End(e) > U{p.start}) {
        throw PlanError("epoch_assign_table entry " + Num(n) + " " + Hex(e.value, 16) + "/" + Num(e.prefix) +
                        " -> epoch " + Num(e.epoch) + " matches ticks at or after the current epoch's start " +
                        Num(p.start) + ": the ticks of a reachable epoch would change");
      }
      taken.emplace_back(e.value, End(e));
    }
    // Ticks below the boundary that only the wildcard reaches: to the old epoch by prefix, so that no tick
    // depends on the wildcard while it is replaced.
    for (const auto& g : Gaps(taken, U{p.boundary})) {
      for (const TickPrefix& c : PrefixCover(static_cast<uint64_t>(g.first), static_cast<uint64_t>(g.second))) {
        p.old_cover.push_back(c);
      }
    }
    // The two halves, to the old epoch, unless an entry (the old cover or an older epoch's) has that key.
    // Order: the half holding the boundary first, as they are deleted in step 6.
    std::vector<TickPrefix> halves{TickPrefix{0, 1}, TickPrefix{uint64_t{1} << 63, 1}};
    if (p.boundary >= (uint64_t{1} << 63)) std::swap(halves[0], halves[1]);
    for (const TickPrefix& h : halves) {
      bool held = std::find(p.old_cover.begin(), p.old_cover.end(), h) != p.old_cover.end();
      for (const EpochEntry& e : entries) held |= e.prefix == 1 && e.value == h.value;
      if (!held) p.halves.push_back(h);
    }
  } else if (opt.boundary || opt.current_start || opt.now) {
    throw PlanError("lb_id " + Num(n) +
                    " has no epoch_assign_table entries (initial configuration): --boundary, --current-start and "
                    "--now do not apply");
  }
  if (opt.epoch) {
    if (epochs.count(*opt.epoch)) {
      throw PlanError("epoch " + Num(*opt.epoch) + " of lb_id " + Num(n) +
                      " is reachable or still has calendar entries: a reachable epoch must not be changed; run the "
                      "cleanup of the switch that retired it first");
    }
    p.new_action.epoch = *opt.epoch;
  } else if (!epochs.empty()) {
    const uint32_t top = *epochs.rbegin();
    uint32_t e = top + 1;
    if (top == ~uint32_t{0}) {
      e = 0;
      while (epochs.count(e)) ++e;
    }
    p.new_action.epoch = e;
  }
  if (used_rows >= kEpochRows) {
    throw PlanError("load_balance_calendar_table already holds " + Num(kEpochRows) +
                    " calendars (instance, epoch), the RTL's limit: run the cleanup of a previous switch first");
  }
  const size_t need = used_entries + p.old_cover.size() + p.halves.size() + (p.initial ? 1 : 0);
  if (need > static_cast<size_t>(kEpochEntries)) {
    throw PlanError("epoch_assign_table would need " + Num(need) + " entries (" + Num(used_entries) + " in use + " +
                    Num(p.old_cover.size()) + " prefixes to the old epoch + " + Num(p.halves.size()) +
                    " halves while the wildcard moves) but holds " + Num(kEpochEntries) + " in this RTL");
  }

  std::vector<uint64_t> weights;
  for (const PlanMemberU& m : members) {
    weights.push_back(m.weight);
    const char* missing = m.weight == 0                   ? nullptr
                          : (accepts_v4 && !m.v4.present) ? "ipv4"
                          : (accepts_v6 && !m.v6.present) ? "ipv6"
                                                          : nullptr;
    if (missing) {
      throw PlanError("member '" + m.name + "' (line " + Num(m.line) + ") has no " + missing + " rewrite but lb_id " +
                      Num(n) + "'s ip_dst_filter_table entries accept " + missing +
                      ": its packets would be dropped (member_miss); give it one or weight 0");
    }
  }
  const int slots = 1 << opt.slot_bits;
  p.counts = ApportionSlots(weights, slots);

  // Member ids: an existing id with exactly these rewrites, else the lowest id with no entry, no calendar
  // reference and free direct-mapped slots ({lb_id, family, id[5:0]}).
  std::map<uint16_t, std::pair<PlanRewrite, PlanRewrite>> rewrites;
  std::set<uint16_t> present;
  std::set<int> taken_slots;
  for (int i = n * 128; i < (n + 1) * 128; ++i) {
    const MemberEntry& m = s.member[i];
    if (!m.valid) continue;
    const uint16_t id = static_cast<uint16_t>((m.tag << 6) | (i & 63));
    present.insert(id);
    taken_slots.insert(i);
    if (m.action != MemberAction::kRewrite) continue;
    auto& pr = rewrites[id];
    ((i & 64) ? pr.second : pr.first) = RewriteOf(m);
  }
  std::set<uint16_t> referenced;
  for (const auto& c : cal_ids) referenced.insert(c.second.begin(), c.second.end());
  p.member_ids.assign(members.size(), 0);
  p.member_inserted.assign(members.size(), false);
  for (size_t i = 0; i < members.size(); ++i) {
    const PlanMemberU& m = members[i];
    if (p.counts[i] == 0) continue;
    bool found = false;
    for (const auto& [id, rw] : rewrites) {
      if (rw.first == m.v4 && rw.second == m.v6) {
        p.member_ids[i] = id;
        found = true;
        break;
      }
    }
    for (uint32_t id = 0; id <= 0xFFFF && !found; ++id) {
      const uint16_t id16 = static_cast<uint16_t>(id);
      const int i4 = MemberIndex(n, false, id16), i6 = MemberIndex(n, true, id16);
      if (present.count(id16) || referenced.count(id16)) continue;
      if ((m.v4.present && taken_slots.count(i4)) || (m.v6.present && taken_slots.count(i6))) continue;
      p.member_ids[i] = id16;
      p.member_inserted[i] = true;
      present.insert(id16);
      if (m.v4.present) taken_slots.insert(i4);
      if (m.v6.present) taken_slots.insert(i6);
      found = true;
    }
    if (!found) {
      throw PlanError("member_info_lookup_table has no free member id of lb_id " + Num(n) + " for '" + m.name +
                      "' (line " + Num(m.line) + "): the RTL's table holds 64 ids per instance and family");
    }
  }
  for (size_t i = 0; i < members.size(); ++i) {
    if (p.counts[i]) p.rewrites[p.member_ids[i]] = {members[i].v4, members[i].v6};
  }
  const std::vector<int> spread = SpreadSlots(p.counts);
  for (int k = 0; k < slots; ++k) p.calendar.push_back(p.member_ids[spread[k]]);

  std::ostringstream sw;
  sw << "# nettwin lb-plan --program udplb, lb_id " << n << ": "
     << (p.initial ? "initial configuration, epoch " + Num(p.new_action.epoch)
                   : "epoch " + Num(p.old_action.epoch) + " -> " + Num(p.new_action.epoch) + " at tick " +
                         Num(p.boundary) + " (" + Hex(p.boundary, 16) + ")")
     << "\n";
  for (size_t i = 0; i < members.size(); ++i) {
    sw << "# member " << members[i].name << ": " << p.counts[i] << " slots"
       << (p.counts[i]
               ? ", id " + Num(p.member_ids[i]) + (p.member_inserted[i] ? " (new rewrite)" : " (existing rewrite)")
               : "")
       << "\n";
  }
  if (!p.initial) sw << "# current epoch " << p.old_action.epoch << " started at tick " << p.start << "\n";
  sw << "# 1. member rewrites the new epoch needs\n";
  for (size_t i = 0; i < members.size(); ++i) {
    if (!p.member_inserted[i]) continue;
    if (members[i].v4.present) sw << MemberAdd(n, false, p.member_ids[i], members[i].v4);
    if (members[i].v6.present) sw << MemberAdd(n, true, p.member_ids[i], members[i].v6);
  }
  sw << "# 2. the new epoch's calendar, " << slots << " slots (not reachable yet)\n";
  for (int k = 0; k < slots; ++k) {
    sw << "table_add load_balance_calendar_table do_assign_member " << n << " " << Hex(p.new_action.epoch, 8) << " "
       << Hex(k, 3) << " => " << Hex(p.calendar[k], 4) << "\n";
  }
  if (p.initial) {
    sw << "# 3. every tick to the new epoch\n" << EpochAdd(n, TickPrefix{0, 0}, p.new_action);
    p.switch_script = sw.str();
    return p;
  }
  sw << "# 3. " << p.old_cover.size() << " prefixes: the ticks below the boundary that only the wildcard reaches, to "
     << "epoch " << p.old_action.epoch << " (no change)\n";
  for (const TickPrefix& c : p.old_cover) sw << EpochAdd(n, c, p.old_action);
  sw << "# 4. the halves of the tick space to epoch " << p.old_action.epoch
     << " (no change): with them every tick has a prefix longer than the wildcard\n";
  for (const TickPrefix& h : p.halves) sw << EpochAdd(n, h, p.old_action);
  sw << "# 5. replace the wildcard (it decides no tick meanwhile: no change)\n";
  sw << EpochDelete(n, TickPrefix{0, 0}) << EpochAdd(n, TickPrefix{0, 0}, p.new_action);
  sw << "# 6. delete the halves, the one holding the boundary first: the ticks >= boundary, which only they\n"
     << "#    held, fall to the new wildcard (the switch; ticks below the boundary keep their longer prefixes)\n";
  for (const TickPrefix& h : p.halves) sw << EpochDelete(n, h);
  p.switch_script = sw.str();

  std::ostringstream cl;
  cl << "# nettwin lb-plan --program udplb cleanup, lb_id " << n << ": retire epoch " << p.old_action.epoch
     << " once every event before tick " << p.boundary << " has quiesced\n";
  cl << "# 1. disconnect epoch " << p.old_action.epoch << "\n";
  for (const EpochEntry& e : entries) {
    if (e.prefix != 0 && e.epoch == p.old_action.epoch) cl << EpochDelete(n, TickPrefix{e.value, e.prefix});
  }
  for (const TickPrefix& c : p.old_cover) cl << EpochDelete(n, c);
  cl << "# 2. its calendar\n";
  if (auto row = row_of.find(p.old_action.epoch); row != row_of.end()) {
    for (int k = 0; k < kCalendarSlots; ++k) {
      if (s.cal[row->second * kCalendarSlots + k].valid) {
        cl << "table_delete load_balance_calendar_table " << n << " " << Hex(p.old_action.epoch, 8) << " " << Hex(k, 3)
           << "\n";
      }
    }
  }
  cl << "# 3. the member rewrites only its calendar used\n";
  std::set<uint16_t> still_used(p.calendar.begin(), p.calendar.end());
  for (const auto& [ep, ids] : cal_ids) {
    if (ep != p.old_action.epoch) still_used.insert(ids.begin(), ids.end());
  }
  if (auto old = cal_ids.find(p.old_action.epoch); old != cal_ids.end()) {
    for (uint16_t id : old->second) {
      if (still_used.count(id)) continue;
      for (bool v6 : {false, true}) {
        const MemberEntry& m = s.member[MemberIndex(n, v6, id)];
        if (m.valid && m.tag == (id >> 6)) {
          cl << "table_delete member_info_lookup_table " << n << (v6 ? " 0x86dd " : " 0x0800 ") << Hex(id, 4) << "\n";
        }
      }
    }
  }
  p.cleanup_script = cl.str();
  return p;
}

namespace {

// What the packet engine's epoch, calendar and member stages make of a v2 frame of instance `lb_id`, family
// `v6`, with this tick (slot_select = tick[15:0]).
struct Outcome {
  EpochHit hit;
  Reason reason = Reason::kNone;
  MemberEntry member;
  bool operator==(const Outcome& o) const {
    return hit.hit == o.hit.hit && hit.epoch == o.hit.epoch && hit.slot_bits == o.hit.slot_bits &&
           hit.slot_xor == o.hit.slot_xor && reason == o.reason &&
           (reason != Reason::kNone ||
            (member.mac == o.member.mac && member.ip == o.member.ip && member.udp_base == o.member.udp_base &&
             member.port_bits == o.member.port_bits && member.keep == o.member.keep));
  }
};

Outcome Engine(const UdplbTables& t, int lb_id, bool v6, uint64_t tick) {
  Parsed pr;
  pr.ethertype = v6 ? 0x86DD : 0x0800;
  pr.tick = tick;
  pr.slot_select = static_cast<uint16_t>(tick);
  Lookup l;
  l.lb_id = lb_id;
  l.groups = t.EpochGroups(static_cast<uint8_t>(lb_id), tick);
  StageEpoch(pr, t, &l);
  StageCalendar(t, &l);
  StageMember(pr, t, &l);
  return Outcome{l.epoch, l.reason, l.member};
}

std::string Describe(const Outcome& o) {
  if (!o.hit.hit) return "no epoch (epoch_miss)";
  std::string s =
      "epoch " + Num(o.hit.epoch) + " (bits " + Num(o.hit.slot_bits) + ", xor " + Hex(o.hit.slot_xor, 4) + ")";
  if (o.reason != Reason::kNone) return s + ", " + ReasonName(o.reason);
  return s + ", member ip " + Hex128(o.member.ip) + " port " + Num(o.member.udp_base);
}

// An untagged LB v2 frame of family `v6` that the tables' L2 and L3 filters send to instance `lb_id` from an
// allowed source (the first such addresses the tables hold), or an empty frame if they have no such path.
struct FramePath {
  bool ok = false;
  uint64_t mac_da = 0;
  U128 src, dst;
};

FramePath FindPath(const Shadow& s, int lb_id, bool v6) {
  FramePath f;
  uint8_t iface = 0;
  uint64_t uc_mac = 0;
  s.tables.LookupL2Iface(0, &iface, &uc_mac);
  const uint16_t et = v6 ? 0x86DD : 0x0800;
  for (const MacDstEntry& m : s.mac_dst) {
    if (!m.valid || (m.mac >> 40) & 1 || s.tables.LookupMacDst(iface, m.mac) == nullptr) continue;  // unicast
    f.mac_da = m.mac;
    break;
  }
  for (const IpDstEntry& e : s.ip_dst) {
    if (!e.valid || e.ethertype != et || e.lb_id != lb_id) continue;
    const int hit = s.tables.LookupIpDst(iface, et, e.ip_da);
    if (hit < 0 || s.tables.ip_dst(hit).lb_id != lb_id) continue;
    if (v6 && (e.ip_da.hi >> 56) == 0xFF) continue;  // a multicast destination (solicited node, all nodes)
    f.dst = e.ip_da;
    f.ok = true;
    break;
  }
  bool src = false;
  for (const SrcEntry& e : s.src[v6]) {
    if (e.valid && e.lb_id == lb_id) {
      f.src = e.addr;
      src = true;
      break;
    }
  }
  f.ok = f.ok && src && f.mac_da != 0;
  return f;
}

std::vector<uint8_t> LbFrame(const FramePath& f, bool v6, uint64_t tick, uint16_t entropy) {
  std::vector<uint8_t> b;
  auto put = [&](uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  const int payload = 32, udp_len = 8 + 16 + payload;
  put(f.mac_da, 6);
  put(0x020000000001, 6);
  put(v6 ? 0x86DD : 0x0800, 2);
  if (v6) {
    put(0x60000000, 4);
    put(udp_len, 2);
    put(17, 1);
    put(64, 1);
    put(f.src.hi, 8);
    put(f.src.lo, 8);
    put(f.dst.hi, 8);
    put(f.dst.lo, 8);
  } else {
    put(0x4500, 2);
    put(20 + udp_len, 2);
    put(0, 4);
    put(64, 1);
    put(17, 1);
    put(0, 2);  // udplb does not check the header checksum
    put(f.src.lo, 4);
    put(f.dst.lo, 4);
  }
  put(0xC000 | (entropy & 0x3FFF), 2);
  put(0x4C42, 2);
  put(udp_len, 2);
  put(0, 2);  // UDP checksum absent
  put(0x4C42, 2);
  put(2, 1);  // LB v2
  put(0, 1);
  put(0, 2);
  put(entropy, 2);
  put(tick, 8);
  for (int i = 0; i < payload; ++i) b.push_back(static_cast<uint8_t>(i));
  return b;
}

}  // namespace

PlanCheckU ValidatePlanU(const std::string& current_script, const PlanU& p) {
  const ScriptOptions so;
  std::vector<CfgWrite> all, cur;
  try {
    cur = Writes(ParseScript(current_script, "current", so));
    all = Writes(ParseScript(current_script + "\n" + p.switch_script + "\n" + p.cleanup_script, "planned script", so));
  } catch (const ScriptError& e) {
    throw PlanError(std::string("internal error: the planned script does not apply: ") + e.what());
  }
  size_t switch_end = 0;
  try {
    switch_end = Writes(ParseScript(current_script + "\n" + p.switch_script, "switch", so)).size();
  } catch (const ScriptError& e) {
    throw PlanError(std::string("internal error: ") + e.what());
  }
  Shadow s;
  for (const CfgWrite& w : cur) s.Apply(w);

  // Every tick at which some entry that ever exists starts or ends, and the planned ranges' edges: between
  // two consecutive ones no entry's match changes, so checking these ticks checks every tick.
  std::set<uint64_t> ticks{0, ~uint64_t{0}, p.start, p.boundary, p.boundary - 1};
  auto edges = [&](uint64_t v, int len) {
    const U end = U{v} + (U{1} << (64 - len));
    ticks.insert(v);
    if (v) ticks.insert(v - 1);
    if (end <= U{~uint64_t{0}}) ticks.insert(static_cast<uint64_t>(end));
    ticks.insert(static_cast<uint64_t>(end - 1));
  };
  for (const EpochEntry& e : s.epoch) {
    if (e.valid && e.lb_id == p.lb_id) edges(e.value, e.prefix);
  }
  for (size_t i = cur.size(); i < all.size(); ++i) {
    if (all[i].table != params::kUdplbTblEpoch) continue;
    const EpochEntry e = DecodeEpoch(all[i].data);
    if (e.valid && e.lb_id == p.lb_id) edges(e.value, e.prefix);
  }
  // And every slot of both calendars: 2^slot_bits consecutive ticks on each side of the boundary reach every
  // slot (the xor permutes them), as far as the tick space goes.
  for (uint64_t j = 0; j < (uint64_t{1} << p.new_action.slot_bits) && p.boundary + j >= p.boundary; ++j) {
    ticks.insert(p.boundary + j);
  }
  for (uint64_t j = 1; j <= (uint64_t{1} << p.old_action.slot_bits) && j <= p.boundary; ++j) {
    ticks.insert(p.boundary - j);
  }
  std::vector<uint64_t> tv(ticks.begin(), ticks.end());
  PlanCheckU r;
  int r_frames = 0;
  r.ticks = static_cast<int>(tv.size());
  const bool fam[2] = {false, true};
  std::vector<Outcome> before[2];
  std::vector<bool> moved[2] = {std::vector<bool>(tv.size()), std::vector<bool>(tv.size())};
  for (bool v6 : fam) {
    for (uint64_t t : tv) before[v6].push_back(Engine(s.tables, p.lb_id, v6, t));
  }
  // What the plan promises for a tick from the boundary on: the new epoch, its calendar's member for the
  // tick's slot, with the members file's rewrite.
  auto planned_outcome = [&](bool v6, uint64_t t) {
    Outcome o;
    o.hit = EpochHit{true, 0, p.new_action.epoch, p.new_action.slot_bits, p.new_action.slot_xor};
    const uint16_t mask =
        p.new_action.slot_bits >= 16 ? 0xFFFF : static_cast<uint16_t>((1u << p.new_action.slot_bits) - 1);
    const uint16_t slot = static_cast<uint16_t>((static_cast<uint16_t>(t) ^ p.new_action.slot_xor) & mask);
    const uint16_t id = p.calendar.at(slot);
    const PlanRewrite& rw = v6 ? p.rewrites.at(id).second : p.rewrites.at(id).first;
    if (!rw.present) {
      o.reason = Reason::kMemberMiss;
    } else {
      o.member.mac = rw.mac;
      o.member.ip = rw.ip;
      o.member.udp_base = rw.udp_base;
      o.member.port_bits = rw.port_bits;
      o.member.keep = rw.keep;
    }
    return o;
  };
  // Whole frames through the packet engine (udplb_engine.h) where the tables have an L2/L3 path to the
  // instance: at the end of the switch and of the cleanup, ticks on both sides of the boundary.
  FramePath path[2] = {FindPath(s, p.lb_id, false), FindPath(s, p.lb_id, true)};
  std::vector<uint64_t> frame_ticks;
  for (uint64_t d = 1; d <= 8 && d <= p.boundary; ++d) frame_ticks.push_back(p.boundary - d);
  for (uint64_t d = 0; d < 8 && p.boundary + d >= p.boundary; ++d) frame_ticks.push_back(p.boundary + d);
  frame_ticks.push_back(~uint64_t{0});
  if (p.start < p.boundary) frame_ticks.push_back(p.start);
  std::vector<FrameResult> frames_before[2];
  for (bool v6 : {false, true}) {
    if (!path[v6].ok) continue;
    for (uint64_t t : frame_ticks) {
      frames_before[v6].push_back(ProcessFrame(s.tables, LbFrame(path[v6], v6, t, static_cast<uint16_t>(t * 7919)), 0));
    }
  }
  auto check_frames = [&](const std::string& where, bool cleanup) {
    for (bool v6 : {false, true}) {
      if (!path[v6].ok) continue;
      for (size_t k = 0; k < frame_ticks.size(); ++k) {
        const uint64_t t = frame_ticks[k];
        const uint16_t entropy = static_cast<uint16_t>(t * 7919);
        const FrameResult r = ProcessFrame(s.tables, LbFrame(path[v6], v6, t, entropy), 0);
        ++r_frames;
        if (t < p.boundary) {
          if (!cleanup &&
              (r.verdict.reason != frames_before[v6][k].verdict.reason || r.out != frames_before[v6][k].out)) {
            throw PlanError("internal error: at " + where + " a frame of tick " + Num(t) +
                            " (below the boundary) is no longer forwarded as before");
          }
          continue;
        }
        const uint16_t mask = static_cast<uint16_t>((1u << p.new_action.slot_bits) - 1);
        const uint16_t id = p.calendar.at((static_cast<uint16_t>(t) ^ p.new_action.slot_xor) & mask);
        const PlanRewrite& rw = v6 ? p.rewrites.at(id).second : p.rewrites.at(id).first;
        const bool fwd = r.verdict.kind == Kind::kForward;
        bool ok = fwd == rw.present;
        if (ok && fwd) {
          const Parsed o = Parse(r.out.data(), static_cast<int>(std::min<size_t>(r.out.size(), kParseWindow)));
          ok = o.mac_da == rw.mac && o.ip_dst == rw.ip &&
               o.udp_dport == static_cast<uint16_t>(rw.udp_base + (entropy & ((1u << rw.port_bits) - 1)));
        }
        if (!ok) {
          throw PlanError("internal error: at " + where + " a frame of tick " + Num(t) + " is " +
                          (fwd ? "forwarded" : std::string("dropped (") + ReasonName(r.verdict.reason) + ")") +
                          ", not sent to the planned member " + Num(id));
        }
      }
    }
  };
  auto fail = [&](size_t write, const std::string& what) {
    const std::string where = write < switch_end ? "switch write " + Num(write - cur.size() + 1)
                                                 : "cleanup write " + Num(write - switch_end + 1);
    throw PlanError("internal error: after " + where + " " + what);
  };
  for (size_t i = cur.size(); i < all.size(); ++i) {
    s.Apply(all[i]);
    const bool last_switch = i + 1 == switch_end, last = i + 1 == all.size();
    if (all[i].table != params::kUdplbTblEpoch && !last_switch && !last) continue;
    ++r.states;
    for (bool v6 : fam) {
      for (size_t k = 0; k < tv.size(); ++k) {
        const uint64_t t = tv[k];
        const Outcome o = Engine(s.tables, p.lb_id, v6, t);
        ++r.lookups;
        if (!o.hit.hit) fail(i, "tick " + Num(t) + " reaches no epoch (a drop)");
        const bool in_switch = i < switch_end;
        if (t < p.boundary) {
          // Below the boundary nothing changes until the cleanup; the cleanup may only move ticks to epochs
          // that remain (never a miss, checked above).
          if (in_switch && !(o == before[v6][k])) {
            fail(i, "tick " + Num(t) + " moved from " + Describe(before[v6][k]) + " to " + Describe(o));
          }
          continue;
        }
        const Outcome want = planned_outcome(v6, t);
        if (o.hit.epoch == p.new_action.epoch && o.hit.slot_bits == p.new_action.slot_bits &&
            o.hit.slot_xor == p.new_action.slot_xor) {
          if (!(o == want)) fail(i, "tick " + Num(t) + " reaches " + Describe(o) + ", planned " + Describe(want));
          moved[v6][k] = true;
        } else if (moved[v6][k] || last_switch || last || !(o == before[v6][k])) {
          fail(i, "tick " + Num(t) + " (>= boundary " + Num(p.boundary) + ") reaches " + Describe(o) +
                      (moved[v6][k] ? " after it had moved to the new epoch" : ""));
        }
      }
    }
    if (last_switch) check_frames("the end of the switch", false);
    if (last && !last_switch) check_frames("the end of the cleanup", true);
  }
  r.frames = r_frames;
  return r;
}

}  // namespace nettwin::lb::udplb
