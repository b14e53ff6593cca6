#include "model/lb/udplb_script.h"

#include <array>
#include <functional>
#include <optional>

#include "model/common/file_io.h"
#include "model/common/text_lines.h"
#include "model/lb/udplb_types.h"

namespace nettwin::lb::udplb {
namespace {

struct Token {
  std::string text;
  int line = 0;
};

CfgWrite Write(int table, int index, const CfgData& d) {
  CfgWrite w;
  w.valid = true;
  w.table = static_cast<uint8_t>(table);
  w.index = static_cast<uint16_t>(index);
  w.data = d;
  return w;
}

template <class E, size_t N>
int FreeIndex(const std::array<std::optional<E>, N>& a) {
  for (size_t i = 0; i < N; ++i) {
    if (!a[i]) return static_cast<int>(i);
  }
  return -1;
}

bool SameKey(const L2IfaceEntry& a, const L2IfaceEntry& b) {
  return a.vid_value == b.vid_value && a.vid_mask == b.vid_mask && a.prio == b.prio;
}
bool SameKey(const MacDstEntry& a, const MacDstEntry& b) {
  return a.iface_value == b.iface_value && a.iface_mask == b.iface_mask && a.mac == b.mac && a.prio == b.prio;
}
bool SameKey(const IpDstEntry& a, const IpDstEntry& b) {
  return a.iface_value == b.iface_value && a.iface_mask == b.iface_mask && a.ethertype == b.ethertype &&
         a.ip_da == b.ip_da && a.prio == b.prio;
}
bool SameKey(const SrcEntry& a, const SrcEntry& b) { return a.lb_id == b.lb_id && a.addr == b.addr; }
bool SameKey(const EpochEntry& a, const EpochEntry& b) {
  return a.lb_id == b.lb_id && a.value == b.value && a.prefix == b.prefix;
}

// Shadow of udplb_top's tables, as the host's table library keeps it.
class Driver {
 public:
  // Adds `e` at the lowest free index of `tab`, refusing duplicates and overflow.
  template <class E, size_t N>
  std::vector<CfgWrite> Add(std::array<std::optional<E>, N>& tab, int id, const E& e, const char* name) {
    for (const auto& x : tab) {
      if (x && SameKey(*x, e)) throw ScriptError(std::string("duplicate ") + name + " entry");
    }
    const int i = FreeIndex(tab);
    if (i < 0) throw ScriptError(std::string(name) + " is full (" + std::to_string(N) + " entries in this RTL)");
    tab[i] = e;
    return {Write(id, i, Encode(e))};
  }
  // Deletes the entry whose key matches; `loose` ignores the priority (must then be unique).
  template <class E, size_t N, class Match>
  std::vector<CfgWrite> Delete(std::array<std::optional<E>, N>& tab, int id, Match match, const char* name) {
    int found = -1;
    for (size_t i = 0; i < N; ++i) {
      if (tab[i] && match(*tab[i])) {
        if (found >= 0) throw ScriptError(std::string("several ") + name + " entries match; give the priority");
        found = static_cast<int>(i);
      }
    }
    if (found < 0) throw ScriptError(std::string("no such ") + name + " entry");
    tab[found].reset();
    return {Write(id, found, Encode(E{}))};
  }

  std::vector<CfgWrite> AddIpDst(const IpDstEntry& e, const U128& ip_sa) {
    std::vector<CfgWrite> w = Add(ip_dst_, params::kUdplbTblIpDst, e, "ip_dst_filter_table");
    // The address first: the key entry becomes visible only with its ip_sa in place.
    w.insert(w.begin(), Write(params::kUdplbTblIpSa, w.back().index, EncodeIpSa(ip_sa)));
    return w;
  }

  std::vector<CfgWrite> AddCalendar(uint8_t lb_id, uint32_t epoch, int slot, uint16_t member) {
    std::vector<CfgWrite> w;
    int row = Row(lb_id, epoch);
    if (row >= 0 && calendar_[row * kCalendarSlots + slot]) {
      throw ScriptError("duplicate load_balance_calendar_table entry (lb_id " + std::to_string(lb_id) + ", epoch " +
                        std::to_string(epoch) + ", slot " + std::to_string(slot) + ")");
    }
    if (row < 0) {
      row = FreeIndex(rows_);
      if (row < 0) {
        throw ScriptError("load_balance_calendar_table holds " + std::to_string(kEpochRows) +
                          " calendars (instance, epoch) already in this RTL (16384 = 32 x 512 slots); delete one first");
      }
      rows_[row] = EpochMapEntry{true, lb_id, epoch};
      w.push_back(Write(params::kUdplbTblEpochMap, row, Encode(*rows_[row])));
    }
    ++row_use_[row];
    calendar_[row * kCalendarSlots + slot] = CalendarEntry{true, member};
    w.push_back(Write(params::kUdplbTblCalendar, row * kCalendarSlots + slot, Encode(CalendarEntry{true, member})));
    return w;
  }
  std::vector<CfgWrite> DeleteCalendar(uint8_t lb_id, uint32_t epoch, int slot) {
    const int row = Row(lb_id, epoch);
    if (row < 0 || !calendar_[row * kCalendarSlots + slot]) throw ScriptError("no such load_balance_calendar_table entry");
    calendar_[row * kCalendarSlots + slot].reset();
    std::vector<CfgWrite> w{Write(params::kUdplbTblCalendar, row * kCalendarSlots + slot, Encode(CalendarEntry{}))};
    if (--row_use_[row] == 0) {
      rows_[row].reset();
      w.push_back(Write(params::kUdplbTblEpochMap, row, Encode(EpochMapEntry{})));
    }
    return w;
  }

  std::vector<CfgWrite> AddMember(uint8_t lb_id, bool v6, uint16_t id, const MemberEntry& e) {
    const int i = MemberIndex(lb_id, v6, id);
    if (member_id_[i]) {
      if (*member_id_[i] == id) throw ScriptError("duplicate member_info_lookup_table entry");
      throw ScriptError("member " + std::to_string(id) + " and member " + std::to_string(*member_id_[i]) +
                        " of instance " + std::to_string(lb_id) + " share a slot of this RTL's direct-mapped member "
                        "table (equal id bits 5:0); renumber one");
    }
    member_id_[i] = id;
    return {Write(params::kUdplbTblMember, i, Encode(e))};
  }
  std::vector<CfgWrite> DeleteMember(uint8_t lb_id, bool v6, uint16_t id) {
    const int i = MemberIndex(lb_id, v6, id);
    if (!member_id_[i] || *member_id_[i] != id) throw ScriptError("no such member_info_lookup_table entry");
    member_id_[i].reset();
    return {Write(params::kUdplbTblMember, i, Encode(MemberEntry{}))};
  }

  std::vector<CfgWrite> Clear(const std::string& name);

  std::array<std::optional<L2IfaceEntry>, kL2IfaceEntries> l2_iface_;
  std::array<std::optional<MacDstEntry>, kMacDstEntries> mac_dst_;
  std::array<std::optional<IpDstEntry>, kIpDstEntries> ip_dst_;
  std::array<std::optional<SrcEntry>, kSrcEntries> src4_, src6_;
  std::array<std::optional<EpochEntry>, kEpochEntries> epoch_;

 private:
  int Row(uint8_t lb_id, uint32_t epoch) const {
    for (int r = 0; r < kEpochRows; ++r) {
      if (rows_[r] && rows_[r]->lb_id == lb_id && rows_[r]->epoch == epoch) return r;
    }
    return -1;
  }
  std::array<std::optional<EpochMapEntry>, kEpochRows> rows_;
  std::array<int, kEpochRows> row_use_{};
  std::array<std::optional<CalendarEntry>, kCalendarEntries> calendar_;
  std::array<std::optional<uint16_t>, kMemberEntries> member_id_;
};

template <class E, size_t N>
void ClearTable(std::array<std::optional<E>, N>& tab, int id, std::vector<CfgWrite>* w) {
  for (size_t i = 0; i < N; ++i) {
    if (tab[i]) w->push_back(Write(id, static_cast<int>(i), Encode(E{})));
    tab[i].reset();
  }
}

std::vector<CfgWrite> Driver::Clear(const std::string& name) {
  std::vector<CfgWrite> w;
  if (name == "l2_iface_table") ClearTable(l2_iface_, params::kUdplbTblL2Iface, &w);
  if (name == "mac_dst_filter_table") ClearTable(mac_dst_, params::kUdplbTblMacDst, &w);
  if (name == "ip_dst_filter_table") ClearTable(ip_dst_, params::kUdplbTblIpDst, &w);
  if (name == "ipv4_src_filter_table") ClearTable(src4_, params::kUdplbTblSrc4, &w);
  if (name == "ipv6_src_filter_table") ClearTable(src6_, params::kUdplbTblSrc6, &w);
  if (name == "epoch_assign_table") ClearTable(epoch_, params::kUdplbTblEpoch, &w);
  if (name == "load_balance_calendar_table") {
    for (int i = 0; i < kCalendarEntries; ++i) {
      if (calendar_[i]) w.push_back(Write(params::kUdplbTblCalendar, i, Encode(CalendarEntry{})));
      calendar_[i].reset();
    }
    for (int r = 0; r < kEpochRows; ++r) {
      if (rows_[r]) w.push_back(Write(params::kUdplbTblEpochMap, r, Encode(EpochMapEntry{})));
      rows_[r].reset();
      row_use_[r] = 0;
    }
  }
  if (name == "member_info_lookup_table") {
    for (int i = 0; i < kMemberEntries; ++i) {
      if (member_id_[i]) w.push_back(Write(params::kUdplbTblMember, i, Encode(MemberEntry{})));
      member_id_[i].reset();
    }
  }
  return w;
}

bool IsCommand(const std::string& s) {
  return s == "table_add" || s == "table_delete" || s == "table_clear" || s == "run_traffic";
}

class Parser {
 public:
  Parser(std::vector<Token> toks, std::string file) : toks_(std::move(toks)), file_(std::move(file)) {}
  std::vector<Segment> Run(const ScriptOptions& opt);

 private:
  [[noreturn]] void Fail(const Token& t, const std::string& msg) const {
    throw ScriptError(nettwin::TokenMessage(file_, t.line, t.text, msg));
  }
  [[noreturn]] void FailEnd(const std::string& msg) const {
    const int line = toks_.empty() ? 0 : toks_.back().line;
    throw ScriptError(file_ + ":" + std::to_string(line) + ": at end of file: " + msg);
  }
  const Token& Take(const std::string& what) {
    if (pos_ >= toks_.size()) FailEnd("expected " + what);
    return toks_[pos_++];
  }
  bool AtArgument() const { return pos_ < toks_.size() && !IsCommand(toks_[pos_].text); }
  U128 Number(const Token& t, int bits, const std::string& what) const {
    auto v = ParseScriptValue(t.text);
    if (!v) Fail(t, "not a number or address (" + what + ")");
    const bool fits = bits >= 128 || (bits >= 64 ? (v->hi >> (bits - 64)) == 0 : v->hi == 0 && (v->lo >> bits) == 0);
    if (!fits) Fail(t, what + " does not fit in " + std::to_string(bits) + " bits");
    return *v;
  }
  uint64_t Small(const Token& t, int bits, const std::string& what) const { return Number(t, bits, what).lo; }
  uint8_t LbId(const Token& t) const {
    const uint64_t v = Small(t, 8, "lb_id");
    if (v >= static_cast<uint64_t>(kInstances)) {
      Fail(t, "lb_id must be 0..7 (set_ip_sa gives 3-bit instance ids; a larger key can never match)");
    }
    return static_cast<uint8_t>(v);
  }
  // value&&&mask (field_mask key) of `bits` bits.
  void FieldMask(const Token& t, int bits, uint64_t* value, uint64_t* mask) const {
    const size_t amp = t.text.find("&&&");
    if (amp == std::string::npos) {
      *value = Small(t, bits, "key");
      *mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
      return;
    }
    *mask = Small(Token{t.text.substr(amp + 3), t.line}, bits, "key mask");
    *value = Small(Token{t.text.substr(0, amp), t.line}, bits, "key value") & *mask;
  }
  void Lpm(const Token& t, uint64_t* value, uint8_t* prefix) const {
    const size_t slash = t.text.find('/');
    if (slash == std::string::npos) Fail(t, "an lpm key is value/prefix_length");
    const uint64_t len = Small(Token{t.text.substr(slash + 1), t.line}, 8, "prefix length");
    if (len > 64) Fail(t, "prefix length must be 0..64");
    *prefix = static_cast<uint8_t>(len);
    *value = Small(Token{t.text.substr(0, slash), t.line}, 64, "tick") & PrefixMask(*prefix);
  }
  std::vector<Token> Keys() {
    std::vector<Token> keys;
    while (true) {
      const Token& t = Take("'=>'");
      if (t.text == "=>") return keys;
      if (IsCommand(t.text)) Fail(t, "command before '=>' (missing '=>'?)");
      keys.push_back(t);
    }
  }
  std::vector<Token> Rest() {
    std::vector<Token> p;
    while (AtArgument()) p.push_back(toks_[pos_++]);
    return p;
  }
  void Want(const Token& at, const std::vector<Token>& v, size_t lo, size_t hi, const std::string& what) const {
    if (v.size() < lo || v.size() > hi) {
      Fail(at, what + " takes " + (lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi)) +
                   ", got " + std::to_string(v.size()));
    }
  }
  uint16_t Prio(const std::vector<Token>& p, size_t i) const {
    return i < p.size() ? static_cast<uint16_t>(Small(p[i], 16, "priority")) : 0;
  }
  void Emit(const Token& at, const std::function<std::vector<CfgWrite>()>& f) {
    try {
      for (CfgWrite& w : f()) segs_.back().writes.push_back(w);
    } catch (const ScriptError& e) {
      Fail(at, e.what());
    }
  }
  void TableAdd();
  void TableDelete();

  std::vector<Token> toks_;
  std::string file_;
  size_t pos_ = 0;
  Driver drv_;
  std::vector<Segment> segs_{Segment{}};
};

void Parser::TableAdd() {
  const Token& tab = Take("table name");
  const Token& act = Take("action name");
  const std::vector<Token> k = Keys();
  const std::vector<Token> p = Rest();
  const std::string& t = tab.text;
  const std::string& a = act.text;
  auto bad_action = [&](const std::string& list) { Fail(act, t + " actions are " + list); };
  if (t == "l2_iface_table") {
    if (a != "set_l2_iface") bad_action("set_l2_iface");
    Want(act, k, 1, 1, t + " keys");
    Want(act, p, 3, 3, a + " (iface, uc_mac, priority)");
    L2IfaceEntry e;
    e.valid = true;
    uint64_t v, m;
    FieldMask(k[0], 12, &v, &m);
    e.vid_value = static_cast<uint16_t>(v);
    e.vid_mask = static_cast<uint16_t>(m);
    e.iface = static_cast<uint8_t>(Small(p[0], 4, "iface"));
    e.uc_mac = Small(p[1], 48, "unicast MAC");
    e.prio = Prio(p, 2);
    Emit(tab, [&] { return drv_.Add(drv_.l2_iface_, params::kUdplbTblL2Iface, e, "l2_iface_table"); });
  } else if (t == "mac_dst_filter_table") {
    if (a != "set_mac_sa" && a != "l2_dst_allow") bad_action("set_mac_sa and l2_dst_allow");
    Want(act, k, 2, 2, t + " keys");
    MacDstEntry e;
    e.valid = true;
    uint64_t v, m;
    FieldMask(k[0], 4, &v, &m);
    e.iface_value = static_cast<uint8_t>(v);
    e.iface_mask = static_cast<uint8_t>(m);
    e.mac = Small(k[1], 48, "MAC DA");
    e.set_mac = a == "set_mac_sa";
    const size_t np = e.set_mac ? 1 : 0;
    Want(act, p, np + 1, np + 1, a + " parameters + priority");
    if (e.set_mac) e.mac_sa = Small(p[0], 48, "MAC");
    e.prio = Prio(p, np);
    Emit(tab, [&] { return drv_.Add(drv_.mac_dst_, params::kUdplbTblMacDst, e, "mac_dst_filter_table"); });
  } else if (t == "ip_dst_filter_table") {
    if (a != "set_ip_sa") bad_action("set_ip_sa");
    Want(act, k, 3, 3, t + " keys");
    Want(act, p, 3, 3, a + " (ip_sa, lb_id, priority)");
    IpDstEntry e;
    e.valid = true;
    uint64_t v, m;
    FieldMask(k[0], 4, &v, &m);
    e.iface_value = static_cast<uint8_t>(v);
    e.iface_mask = static_cast<uint8_t>(m);
    e.ethertype = static_cast<uint16_t>(Small(k[1], 16, "EtherType"));
    e.ip_da = Number(k[2], 128, "IP destination");
    const U128 ip_sa = Number(p[0], 128, "ip_sa");
    e.lb_id = static_cast<uint8_t>(Small(p[1], 3, "lb_id"));
    e.prio = Prio(p, 2);
    Emit(tab, [&] { return drv_.AddIpDst(e, ip_sa); });
  } else if (t == "ipv4_src_filter_table" || t == "ipv6_src_filter_table") {
    if (a != "allow_ip_src") bad_action("allow_ip_src");
    const bool v6 = t[3] == '6';
    Want(act, k, 2, 2, t + " keys");
    Want(act, p, 0, 0, a + " parameters");
    SrcEntry e;
    e.valid = true;
    e.lb_id = LbId(k[0]);
    e.addr = Number(k[1], v6 ? 128 : 32, v6 ? "IPv6 source" : "IPv4 source");
    Emit(tab, [&] {
      return v6 ? drv_.Add(drv_.src6_, params::kUdplbTblSrc6, e, "ipv6_src_filter_table")
                : drv_.Add(drv_.src4_, params::kUdplbTblSrc4, e, "ipv4_src_filter_table");
    });
  } else if (t == "epoch_assign_table") {
    const bool opts = a == "do_assign_epoch_with_slot_sel_opts";
    if (a != "do_assign_epoch" && !opts) bad_action("do_assign_epoch and do_assign_epoch_with_slot_sel_opts");
    Want(act, k, 2, 2, t + " keys");
    const size_t np = opts ? 3 : 1;
    Want(act, p, np, np + 1, a + " parameters (+ priority)");
    EpochEntry e;
    e.valid = true;
    e.lb_id = LbId(k[0]);
    Lpm(k[1], &e.value, &e.prefix);
    e.epoch = static_cast<uint32_t>(Small(p[0], 32, "epoch"));
    if (opts) {
      e.slot_bits = static_cast<uint8_t>(Small(p[1], 5, "slot_select_bit_cnt"));
      e.slot_xor = static_cast<uint16_t>(Small(p[2], 16, "slot_select_xor"));
    }
    if (p.size() > np) Small(p[np], 16, "priority");  // accepted; lpm semantics decide (docs/lb-udplb.md)
    Emit(tab, [&] { return drv_.Add(drv_.epoch_, params::kUdplbTblEpoch, e, "epoch_assign_table"); });
  } else if (t == "load_balance_calendar_table") {
    if (a != "do_assign_member") bad_action("do_assign_member");
    Want(act, k, 3, 3, t + " keys");
    Want(act, p, 1, 1, a + " parameters");
    const uint8_t lb_id = LbId(k[0]);
    const uint32_t epoch = static_cast<uint32_t>(Small(k[1], 32, "epoch"));
    const uint64_t slot = Small(k[2], 16, "calendar slot");
    if (slot >= static_cast<uint64_t>(kCalendarSlots)) {
      Fail(k[2], "calendar slot must be 0..511 in this RTL (9 slot bits, as udplbd2 uses)");
    }
    const uint16_t member = static_cast<uint16_t>(Small(p[0], 16, "member id"));
    Emit(tab, [&] { return drv_.AddCalendar(lb_id, epoch, static_cast<int>(slot), member); });
  } else if (t == "member_info_lookup_table") {
    const bool v4 = a == "do_ipv4_member_rewrite", v6 = a == "do_ipv6_member_rewrite";
    const bool soft = a == "drop_soft_evicted", dereg = a == "drop_deregistered";
    if (!v4 && !v6 && !soft && !dereg) {
      bad_action("do_ipv4_member_rewrite, do_ipv6_member_rewrite, drop_soft_evicted and drop_deregistered");
    }
    Want(act, k, 3, 3, t + " keys");
    const uint8_t lb_id = LbId(k[0]);
    const uint16_t et = static_cast<uint16_t>(Small(k[1], 16, "EtherType"));
    if (et != 0x0800 && et != 0x86DD) Fail(k[1], "member EtherType must be 0x0800 or 0x86dd");
    if ((v4 && et != 0x0800) || (v6 && et != 0x86DD)) {
      Fail(act, "rewrite action does not match the key's EtherType (udplb would write address 0)");
    }
    const uint16_t id = static_cast<uint16_t>(Small(k[2], 16, "member id"));
    MemberEntry e;
    e.valid = true;
    e.tag = static_cast<uint16_t>(id >> 6);
    if (soft || dereg) {
      Want(act, p, 0, 0, a + " parameters");
      e.action = soft ? MemberAction::kSoftEvicted : MemberAction::kDeregistered;
    } else {
      Want(act, p, 5, 5, a + " (mac, ip, udp_base, port_select_bit_cnt, keep_lb_header)");
      e.mac = Small(p[0], 48, "next-hop MAC");
      e.ip = Number(p[1], v4 ? 32 : 128, v4 ? "IPv4 destination" : "IPv6 destination");
      e.udp_base = static_cast<uint16_t>(Small(p[2], 16, "udp_base"));
      e.port_bits = static_cast<uint8_t>(Small(p[3], 5, "port_select_bit_cnt"));
      e.keep = Small(p[4], 1, "keep_lb_header") != 0;
    }
    Emit(tab, [&] { return drv_.AddMember(lb_id, et == 0x86DD, id, e); });
  } else {
    Fail(tab, "unknown table of the udplb program");
  }
}

void Parser::TableDelete() {
  const Token& tab = Take("table name");
  const std::vector<Token> k = Rest();
  const std::string& t = tab.text;
  auto want = [&](size_t lo, size_t hi) { Want(tab, k, lo, hi, "table_delete " + t + " keys"); };
  if (t == "l2_iface_table") {
    want(1, 2);
    uint64_t v, m;
    FieldMask(k[0], 12, &v, &m);
    const bool by_prio = k.size() == 2;
    const uint16_t prio = by_prio ? static_cast<uint16_t>(Small(k[1], 16, "priority")) : 0;
    Emit(tab, [&] {
      return drv_.Delete(drv_.l2_iface_, params::kUdplbTblL2Iface, [&](const L2IfaceEntry& e) {
        return e.vid_value == v && e.vid_mask == m && (!by_prio || e.prio == prio);
      }, t.c_str());
    });
  } else if (t == "mac_dst_filter_table") {
    want(2, 3);
    uint64_t v, m;
    FieldMask(k[0], 4, &v, &m);
    const uint64_t mac = Small(k[1], 48, "MAC DA");
    const bool by_prio = k.size() == 3;
    const uint16_t prio = by_prio ? static_cast<uint16_t>(Small(k[2], 16, "priority")) : 0;
    Emit(tab, [&] {
      return drv_.Delete(drv_.mac_dst_, params::kUdplbTblMacDst, [&](const MacDstEntry& e) {
        return e.iface_value == v && e.iface_mask == m && e.mac == mac && (!by_prio || e.prio == prio);
      }, t.c_str());
    });
  } else if (t == "ip_dst_filter_table") {
    want(3, 4);
    uint64_t v, m;
    FieldMask(k[0], 4, &v, &m);
    const uint16_t et = static_cast<uint16_t>(Small(k[1], 16, "EtherType"));
    const U128 ip = Number(k[2], 128, "IP destination");
    const bool by_prio = k.size() == 4;
    const uint16_t prio = by_prio ? static_cast<uint16_t>(Small(k[3], 16, "priority")) : 0;
    Emit(tab, [&] {
      return drv_.Delete(drv_.ip_dst_, params::kUdplbTblIpDst, [&](const IpDstEntry& e) {
        return e.iface_value == v && e.iface_mask == m && e.ethertype == et && e.ip_da == ip &&
               (!by_prio || e.prio == prio);
      }, t.c_str());
    });
  } else if (t == "ipv4_src_filter_table" || t == "ipv6_src_filter_table") {
    want(2, 2);
    const bool v6 = t[3] == '6';
    const uint8_t lb_id = LbId(k[0]);
    const U128 addr = Number(k[1], v6 ? 128 : 32, "source address");
    auto match = [&](const SrcEntry& e) { return e.lb_id == lb_id && e.addr == addr; };
    Emit(tab, [&] {
      return v6 ? drv_.Delete(drv_.src6_, params::kUdplbTblSrc6, match, t.c_str())
                : drv_.Delete(drv_.src4_, params::kUdplbTblSrc4, match, t.c_str());
    });
  } else if (t == "epoch_assign_table") {
    want(2, 3);  // a trailing priority is accepted, as in table_add
    const uint8_t lb_id = LbId(k[0]);
    uint64_t value;
    uint8_t prefix;
    Lpm(k[1], &value, &prefix);
    Emit(tab, [&] {
      return drv_.Delete(drv_.epoch_, params::kUdplbTblEpoch, [&](const EpochEntry& e) {
        return e.lb_id == lb_id && e.value == value && e.prefix == prefix;
      }, t.c_str());
    });
  } else if (t == "load_balance_calendar_table") {
    want(3, 3);
    const uint8_t lb_id = LbId(k[0]);
    const uint32_t epoch = static_cast<uint32_t>(Small(k[1], 32, "epoch"));
    const uint64_t slot = Small(k[2], 16, "calendar slot");
    if (slot >= static_cast<uint64_t>(kCalendarSlots)) Fail(k[2], "calendar slot must be 0..511 in this RTL");
    Emit(tab, [&] { return drv_.DeleteCalendar(lb_id, epoch, static_cast<int>(slot)); });
  } else if (t == "member_info_lookup_table") {
    want(3, 3);
    const uint8_t lb_id = LbId(k[0]);
    const uint16_t et = static_cast<uint16_t>(Small(k[1], 16, "EtherType"));
    if (et != 0x0800 && et != 0x86DD) Fail(k[1], "member EtherType must be 0x0800 or 0x86dd");
    const uint16_t id = static_cast<uint16_t>(Small(k[2], 16, "member id"));
    Emit(tab, [&] { return drv_.DeleteMember(lb_id, et == 0x86DD, id); });
  } else {
    Fail(tab, "unknown table of the udplb program");
  }
}

std::vector<Segment> Parser::Run(const ScriptOptions& opt) {
  segs_.back().writes.push_back(Write(params::kUdplbTblSettings, 0, EncodeSettings(opt.ttl_decrement)));
  while (pos_ < toks_.size()) {
    const Token& cmd = toks_[pos_++];
    if (cmd.text == "table_add") {
      TableAdd();
    } else if (cmd.text == "table_delete") {
      TableDelete();
    } else if (cmd.text == "table_clear") {
      const Token& tab = Take("table name");
      if (!IsUdplbTable(tab.text)) Fail(tab, "unknown table of the udplb program");
      Emit(tab, [&] { return drv_.Clear(tab.text); });
    } else if (cmd.text == "run_traffic") {
      int64_t count = -1;
      if (AtArgument()) {
        const Token& arg = toks_[pos_++];
        if (IsRunTrafficCount(arg.text)) count = static_cast<int64_t>(Small(arg, 40, "packet count"));
      }
      segs_.back().run_count = count;
      segs_.push_back(Segment{});
    } else {
      Fail(cmd, "unknown command (expected table_add, table_delete, table_clear or run_traffic)");
    }
  }
  return segs_;
}

}  // namespace

bool IsUdplbTable(const std::string& name) {
  static const char* const kNames[] = {"l2_iface_table",        "mac_dst_filter_table",  "ip_dst_filter_table",
                                       "ipv4_src_filter_table", "ipv6_src_filter_table", "epoch_assign_table",
                                       "load_balance_calendar_table", "member_info_lookup_table"};
  for (const char* n : kNames) {
    if (name == n) return true;
  }
  return false;
}

std::vector<Segment> ParseScript(const std::string& text, const std::string& file_name, const ScriptOptions& opt) {
  std::vector<Token> toks;
  TextLines lines(text);
  while (lines.Next()) {
    for (std::string& w : lines.words()) toks.push_back(Token{std::move(w), lines.number()});
  }
  return Parser(std::move(toks), file_name).Run(opt);
}

std::vector<Segment> LoadScript(const std::string& path, const ScriptOptions& opt) {
  const std::string text = nettwin::ReadTextFile<ScriptError>(path);
  return ParseScript(text, path, opt);
}

}  // namespace nettwin::lb::udplb
