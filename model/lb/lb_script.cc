#include "model/lb/lb_script.h"

#include <arpa/inet.h>

#include <cctype>
#include <cstdio>
#include <functional>

#include "model/common/file_io.h"
#include "model/common/text_lines.h"

namespace nettwin::lb {
namespace {

struct Token {
  std::string text;
  int line = 0;
};

std::vector<Token> Tokenize(const std::string& text) {
  std::vector<Token> out;
  TextLines lines(text);
  while (lines.Next()) {
    for (std::string& w : lines.words()) out.push_back(Token{std::move(w), lines.number()});
  }
  return out;
}

bool IsCommand(const std::string& s) {
  return s == "table_add" || s == "table_delete" || s == "table_clear" || s == "run_traffic";
}

// A value of up to 128 bits: hex, decimal, dotted IPv4, colon MAC or IPv6 text.
std::optional<U128> ParseNumber(const std::string& s) {
  U128 v;
  auto shift_in = [&v](unsigned digit, unsigned base) {
    // v = v * base + digit, refusing overflow beyond 128 bits
    const unsigned __int128 full = (static_cast<unsigned __int128>(v.hi) << 64) | v.lo;
    const unsigned __int128 limit = ~static_cast<unsigned __int128>(0);
    if (full > (limit - digit) / base) return false;
    const unsigned __int128 r = full * base + digit;
    v.hi = static_cast<uint64_t>(r >> 64);
    v.lo = static_cast<uint64_t>(r);
    return true;
  };
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    for (size_t i = 2; i < s.size(); ++i) {
      if (!std::isxdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
      const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
      if (!shift_in(static_cast<unsigned>(c <= '9' ? c - '0' : c - 'a' + 10), 16)) return std::nullopt;
    }
    return v;
  }
  bool all_digits = !s.empty();
  for (char c : s) all_digits = all_digits && std::isdigit(static_cast<unsigned char>(c));
  if (all_digits) {
    for (char c : s) {
      if (!shift_in(static_cast<unsigned>(c - '0'), 10)) return std::nullopt;
    }
    return v;
  }
  in_addr a4;
  if (inet_pton(AF_INET, s.c_str(), &a4) == 1) return U128{0, ntohl(a4.s_addr)};
  unsigned m[6];
  char tail;
  if (std::sscanf(s.c_str(), "%2x:%2x:%2x:%2x:%2x:%2x%c", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5], &tail) == 6 &&
      s.size() <= 17) {
    uint64_t mac = 0;
    for (unsigned b : m) mac = (mac << 8) | b;
    return U128{0, mac};
  }
  in6_addr a6;
  if (inet_pton(AF_INET6, s.c_str(), &a6) == 1) {
    U128 r;
    for (int i = 0; i < 8; ++i) r.hi = (r.hi << 8) | a6.s6_addr[i];
    for (int i = 8; i < 16; ++i) r.lo = (r.lo << 8) | a6.s6_addr[i];
    return r;
  }
  return std::nullopt;
}

bool FitsIn(const U128& v, int bits) {
  if (bits >= 128) return true;
  if (bits >= 64) return (v.hi >> (bits - 64)) == 0 || bits == 128;
  return v.hi == 0 && (v.lo >> bits) == 0;
}

class Parser {
 public:
  Parser(std::vector<Token> toks, std::string file) : toks_(std::move(toks)), file_(std::move(file)) {}
  std::vector<Segment> Run();

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
  U128 Number(const Token& t, int bits, const std::string& what) {
    auto v = ParseNumber(t.text);
    if (!v) Fail(t, "not a number or address (" + what + ")");
    if (!FitsIn(*v, bits)) Fail(t, what + " does not fit in " + std::to_string(bits) + " bits");
    return *v;
  }
  uint64_t Small(const Token& t, int bits, const std::string& what) { return Number(t, bits, what).lo; }
  void Ternary(const Token& t, uint64_t* value, uint64_t* mask);
  std::vector<Token> UntilArrow();
  void TableAdd();
  void TableDelete();
  void TableClear();
  void Emit(const Token& at, const std::function<std::vector<CfgWrite>()>& f);

  std::vector<Token> toks_;
  std::string file_;
  size_t pos_ = 0;
  LbDriver driver_;
  std::vector<Segment> segs_{Segment{}};
};

void Parser::Emit(const Token& at, const std::function<std::vector<CfgWrite>()>& f) {
  try {
    for (CfgWrite& w : f()) segs_.back().writes.push_back(w);
  } catch (const ScriptError& e) {
    Fail(at, e.what());
  }
}

void Parser::Ternary(const Token& t, uint64_t* value, uint64_t* mask) {
  const std::string& s = t.text;
  if (auto amp = s.find("&&&"); amp != std::string::npos) {
    Token v{s.substr(0, amp), t.line}, m{s.substr(amp + 3), t.line};
    *mask = Small(m, 64, "ternary mask");
    *value = Small(v, 64, "tick value") & *mask;
  } else if (auto slash = s.find('/'); slash != std::string::npos) {
    Token v{s.substr(0, slash), t.line}, l{s.substr(slash + 1), t.line};
    const uint64_t len = Small(l, 8, "prefix length");
    if (len > 64) Fail(t, "prefix length must be 0..64");
    *mask = len == 0 ? 0 : ~uint64_t{0} << (64 - len);
    *value = Small(v, 64, "tick value") & *mask;
  } else {
    *mask = ~uint64_t{0};
    *value = Small(t, 64, "tick value");
  }
}

std::vector<Token> Parser::UntilArrow() {
  std::vector<Token> keys;
  while (true) {
    const Token& t = Take("'=>'");
    if (t.text == "=>") return keys;
    if (IsCommand(t.text)) Fail(t, "command before '=>' (missing '=>'?)");
    keys.push_back(t);
  }
}

void Parser::TableAdd() {
  const Token& tab = Take("table name");
  const Token& act = Take("action name");
  const std::vector<Token> keys = UntilArrow();
  auto params = [&](size_t n) {
    std::vector<Token> p;
    for (size_t i = 0; i < n; ++i) {
      if (!AtArgument()) {
        if (pos_ < toks_.size()) Fail(toks_[pos_], "action " + act.text + " takes " + std::to_string(n) + " parameters");
        FailEnd("action " + act.text + " takes " + std::to_string(n) + " parameters");
      }
      p.push_back(toks_[pos_++]);
    }
    return p;
  };
  auto no_more = [&]() {
    if (AtArgument()) Fail(toks_[pos_], "unexpected extra parameter for " + tab.text);
  };
  auto want_keys = [&](size_t lo, size_t hi) {
    if (keys.size() < lo || keys.size() > hi) {
      Fail(act, tab.text + " takes " + (lo == hi ? std::to_string(lo) : std::to_string(lo) + " or " + std::to_string(hi)) +
                    " keys, got " + std::to_string(keys.size()));
    }
  };
  if (tab.text == "dst_filter_table") {
    if (act.text != "NoAction" && act.text != "drop") Fail(act, "dst_filter_table actions are NoAction and drop");
    want_keys(3, 4);
    FilterEntry e;
    e.valid = true;
    e.drop = act.text == "drop";
    e.mac = Small(keys[0], 48, "MAC DA");
    e.ethertype = static_cast<uint16_t>(Small(keys[1], 16, "EtherType"));
    e.ip = Number(keys[2], 128, "IP destination");
    e.port = keys.size() == 4 ? static_cast<uint16_t>(Small(keys[3], 16, "UDP port"))
                              : static_cast<uint16_t>(params::kLbUdpPort);
    params(0);
    no_more();
    Emit(tab, [&] { return driver_.AddFilter(e); });
  } else if (tab.text == "epoch_assign_table") {
    if (act.text != "do_assign_epoch" && act.text != "drop") Fail(act, "epoch_assign_table actions are do_assign_epoch and drop");
    want_keys(1, 1);
    EpochEntry e;
    e.valid = true;
    e.drop = act.text == "drop";
    Ternary(keys[0], &e.value, &e.mask);
    if (!e.drop) e.epoch = static_cast<uint32_t>(Small(params(1)[0], 32, "epoch"));
    e.prio = static_cast<uint16_t>(64 - __builtin_popcountll(e.mask));
    if (AtArgument()) e.prio = static_cast<uint16_t>(Small(toks_[pos_++], 16, "priority"));
    no_more();
    Emit(tab, [&] { return driver_.AddEpoch(e); });
  } else if (tab.text == "load_balance_calendar_table") {
    if (act.text != "do_assign_member" && act.text != "drop") Fail(act, "load_balance_calendar_table actions are do_assign_member and drop");
    want_keys(2, 2);
    const uint32_t epoch = static_cast<uint32_t>(Small(keys[0], 32, "epoch"));
    const uint64_t slot = Small(keys[1], 32, "calendar slot");
    if (slot >= static_cast<uint64_t>(kCalendarSlots)) Fail(keys[1], "calendar slot must be 0..0x1ff");
    CalendarEntry e;
    e.valid = true;
    e.drop = act.text == "drop";
    if (!e.drop) e.member = static_cast<uint16_t>(Small(params(1)[0], 16, "member id"));
    no_more();
    Emit(tab, [&] { return driver_.AddCalendar(epoch, static_cast<int>(slot), e); });
  } else if (tab.text == "member_info_lookup_table") {
    const bool v4 = act.text == "do_ipv4_member_rewrite", v6 = act.text == "do_ipv6_member_rewrite";
    if (!v4 && !v6 && act.text != "drop") {
      Fail(act, "member_info_lookup_table actions are do_ipv4_member_rewrite, do_ipv6_member_rewrite and drop");
    }
    want_keys(2, 2);
    const uint16_t et = static_cast<uint16_t>(Small(keys[0], 16, "EtherType"));
    if (et != kEthIpv4 && et != kEthIpv6) Fail(keys[0], "member EtherType must be 0x0800 or 0x86dd");
    if ((v4 && et != kEthIpv4) || (v6 && et != kEthIpv6)) {
      Fail(act, "rewrite action does not match the key's EtherType (an IPv4 packet cannot use the IPv6 rewrite)");
    }
    const uint16_t id = static_cast<uint16_t>(Small(keys[1], 16, "member id"));
    MemberEntry e;
    e.valid = true;
    e.drop = act.text == "drop";
    e.tag = static_cast<uint8_t>(id >> 9);
    if (!e.drop) {
      const std::vector<Token> p = params(3);
      e.mac = Small(p[0], 48, "next-hop MAC");
      e.ip = Number(p[1], v4 ? 32 : 128, v4 ? "IPv4 destination" : "IPv6 destination");
      e.port = static_cast<uint16_t>(Small(p[2], 16, "UDP port"));
    }
    no_more();
    Emit(tab, [&] { return driver_.AddMember(et == kEthIpv6, id, e); });
  } else {
    Fail(tab, "unknown table");
  }
}

void Parser::TableDelete() {
  const Token& tab = Take("table name");
  std::vector<Token> keys;
  while (AtArgument()) keys.push_back(toks_[pos_++]);
  auto want = [&](size_t lo, size_t hi) {
    if (keys.size() < lo || keys.size() > hi) Fail(tab, "wrong number of keys for table_delete " + tab.text);
  };
  if (tab.text == "dst_filter_table") {
    want(3, 4);
    FilterEntry k;
    k.mac = Small(keys[0], 48, "MAC DA");
    k.ethertype = static_cast<uint16_t>(Small(keys[1], 16, "EtherType"));
    k.ip = Number(keys[2], 128, "IP destination");
    k.port = keys.size() == 4 ? static_cast<uint16_t>(Small(keys[3], 16, "UDP port"))
                              : static_cast<uint16_t>(params::kLbUdpPort);
    Emit(tab, [&] { return driver_.DeleteFilter(k); });
  } else if (tab.text == "epoch_assign_table") {
    want(1, 2);
    uint64_t value, mask;
    Ternary(keys[0], &value, &mask);
    std::optional<uint16_t> prio;
    if (keys.size() == 2) prio = static_cast<uint16_t>(Small(keys[1], 16, "priority"));
    Emit(tab, [&] { return driver_.DeleteEpoch(value, mask, prio); });
  } else if (tab.text == "load_balance_calendar_table") {
    want(2, 2);
    const uint32_t epoch = static_cast<uint32_t>(Small(keys[0], 32, "epoch"));
    const uint64_t slot = Small(keys[1], 32, "calendar slot");
    if (slot >= static_cast<uint64_t>(kCalendarSlots)) Fail(keys[1], "calendar slot must be 0..0x1ff");
    Emit(tab, [&] { return driver_.DeleteCalendar(epoch, static_cast<int>(slot)); });
  } else if (tab.text == "member_info_lookup_table") {
    want(2, 2);
    const uint16_t et = static_cast<uint16_t>(Small(keys[0], 16, "EtherType"));
    if (et != kEthIpv4 && et != kEthIpv6) Fail(keys[0], "member EtherType must be 0x0800 or 0x86dd");
    const uint16_t id = static_cast<uint16_t>(Small(keys[1], 16, "member id"));
    Emit(tab, [&] { return driver_.DeleteMember(et == kEthIpv6, id); });
  } else {
    Fail(tab, "unknown table");
  }
}

void Parser::TableClear() {
  const Token& tab = Take("table name");
  int id;
  if (tab.text == "dst_filter_table") id = params::kLbTblFilter;
  else if (tab.text == "epoch_assign_table") id = params::kLbTblEpoch;
  else if (tab.text == "load_balance_calendar_table") id = params::kLbTblCalendar;
  else if (tab.text == "member_info_lookup_table") id = params::kLbTblMember;
  else Fail(tab, "unknown table");
  Emit(tab, [&] { return driver_.Clear(id); });
}

std::vector<Segment> Parser::Run() {
  while (pos_ < toks_.size()) {
    const Token& cmd = toks_[pos_++];
    if (cmd.text == "table_add") {
      TableAdd();
    } else if (cmd.text == "table_delete") {
      TableDelete();
    } else if (cmd.text == "table_clear") {
      TableClear();
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

std::optional<U128> ParseScriptValue(const std::string& text) { return ParseNumber(text); }

bool IsRunTrafficCount(const std::string& arg) {
  const bool hex = arg.size() > 2 && arg[0] == '0' && (arg[1] == 'x' || arg[1] == 'X');
  return !arg.empty() && (hex || arg.find_first_not_of("0123456789") == std::string::npos);
}

std::string ScriptHex(uint64_t v, int digits) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "0x%0*llx", digits, static_cast<unsigned long long>(v));
  return buf;
}

std::string ScriptHex128(const U128& v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "0x%016llx%016llx", static_cast<unsigned long long>(v.hi),
                static_cast<unsigned long long>(v.lo));
  return buf;
}

std::vector<Segment> ParseScript(const std::string& text, const std::string& file_name) {
  return Parser(Tokenize(text), file_name).Run();
}

std::vector<Segment> LoadScript(const std::string& path) {
  const std::string text = nettwin::ReadTextFile<ScriptError>(path);
  return ParseScript(text, path);
}

}  // namespace nettwin::lb
