// The planner's arithmetic: prefix cover, slot apportionment and spreading, and the members file.
#include <algorithm>
#include <cctype>
#include <sstream>

#include "model/common/text_lines.h"
#include "model/lb/lb_plan.h"
#include "model/lb/lb_script.h"

namespace nettwin::lb {

std::vector<TickPrefix> PrefixCover(uint64_t lo, uint64_t hi) {
  std::vector<TickPrefix> out;
  using U = unsigned __int128;
  U pos = lo;
  const U end = hi;
  while (pos < end) {
    // The largest aligned block starting at pos that does not pass end.
    int k = pos == 0 ? 64 : __builtin_ctzll(static_cast<uint64_t>(pos));
    while ((pos + (U{1} << k)) > end) --k;
    out.push_back(TickPrefix{static_cast<uint64_t>(pos), 64 - k});
    pos += U{1} << k;
  }
  return out;
}

std::vector<int> ApportionSlots(const std::vector<uint64_t>& weights, int slots) {
  using U = unsigned __int128;
  U total = 0;
  int positive = 0;
  for (uint64_t w : weights) {
    total += w;
    positive += w > 0;
  }
  if (positive == 0) throw PlanError("no member has a positive weight");
  if (positive > slots) {
    throw PlanError(std::to_string(positive) + " members have a positive weight but the calendar has only " +
                    std::to_string(slots) + " slots");
  }
  const size_t n = weights.size();
  std::vector<int> counts(n, 0);
  std::vector<U> rem(n, 0);
  int given = 0;
  for (size_t i = 0; i < n; ++i) {
    const U q = U{weights[i]} * static_cast<U>(slots);
    counts[i] = static_cast<int>(q / total);
    rem[i] = q % total;
    given += counts[i];
  }
  std::vector<size_t> order;
  for (size_t i = 0; i < n; ++i) {
    if (weights[i] > 0) order.push_back(i);
  }
  // Largest remainder first; stable, so ties go to the earlier member.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return rem[a] > rem[b]; });
  for (size_t j = 0; given < slots; ++j, ++given) ++counts[order[j % order.size()]];
  // Every member with a positive weight gets at least one slot.
  for (size_t i = 0; i < n; ++i) {
    if (weights[i] == 0 || counts[i] > 0) continue;
    size_t donor = 0;
    for (size_t j = 0; j < n; ++j) {
      if (counts[j] >= counts[donor]) donor = j;
    }
    --counts[donor];
    ++counts[i];
  }
  return counts;
}

std::vector<int> SpreadSlots(const std::vector<int>& counts) {
  int64_t total = 0;
  for (int c : counts) total += c;
  std::vector<int64_t> credit(counts.size(), 0);
  std::vector<int> out;
  out.reserve(static_cast<size_t>(total));
  for (int64_t s = 0; s < total; ++s) {
    size_t best = counts.size();
    for (size_t i = 0; i < counts.size(); ++i) {
      if (counts[i] == 0) continue;
      credit[i] += counts[i];
      if (best == counts.size() || credit[i] > credit[best]) best = i;
    }
    credit[best] -= total;
    out.push_back(static_cast<int>(best));
  }
  return out;
}

namespace {

struct Tok {
  std::string text;
  int line;
};

class MembersParser {
 public:
  MembersParser(std::string file) : file_(std::move(file)) {}
  [[noreturn]] void Fail(const Tok& t, const std::string& msg) const {
    throw PlanError(file_ + ":" + std::to_string(t.line) + ": token '" + t.text + "': " + msg);
  }
  // A non-negative decimal with at most 6 fraction digits, in kWeightUnit units.
  uint64_t Fixed(const Tok& t, uint64_t max_units) const {
    const std::string& s = t.text;
    const size_t dot = s.find('.');
    const std::string whole = s.substr(0, dot), frac = dot == std::string::npos ? "" : s.substr(dot + 1);
    auto digits = [](const std::string& d) {
      return std::all_of(d.begin(), d.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    };
    if (whole.empty() || !digits(whole) || !digits(frac) || frac.size() > 6 ||
        (dot != std::string::npos && frac.empty()) || whole.size() > 12) {
      Fail(t, "not a decimal number with at most 6 decimals");
    }
    uint64_t v = std::stoull(whole) * kWeightUnit;
    uint64_t f = frac.empty() ? 0 : std::stoull(frac);
    for (size_t i = frac.size(); i < 6; ++i) f *= 10;
    v += f;
    if (v > max_units) Fail(t, "out of range");
    return v;
  }
  uint64_t Value(const Tok& t, int bits /* < 64 */, const std::string& what) const {
    const auto v = ParseScriptValue(t.text);
    if (!v || v->hi != 0 || (v->lo >> bits) != 0) {
      Fail(t, what + ": not a number or address of at most " + std::to_string(bits) + " bits");
    }
    return v->lo;
  }
  U128 Ip(const Tok& t, bool v6) const {
    const auto v = ParseScriptValue(t.text);
    if (!v) Fail(t, "not an IP address or number");
    if (!v6 && (v->hi != 0 || (v->lo >> 32) != 0)) Fail(t, "IPv4 destination does not fit in 32 bits");
    return *v;
  }
  std::string file_;
};

}  // namespace

std::vector<PlanMember> ParseMembers(const std::string& text, const std::string& file_name) {
  MembersParser p(file_name);
  std::vector<PlanMember> out;
  TextLines lines(text);
  int n = 0;
  Tok last{"", 0};
  while (lines.Next()) {
    n = lines.number();
    std::vector<Tok> t;
    for (std::string& w : lines.words()) t.push_back(Tok{std::move(w), n});
    if (t.empty()) continue;
    last = t.back();
    if (t[0].text != "member")
      p.Fail(t[0], "expected 'member NAME weight W|fill F [ipv4 MAC IP PORT] [ipv6 MAC IP PORT]'");
    if (t.size() < 4) p.Fail(t.back(), "a member needs a name, 'weight W' or 'fill F', and at least one rewrite");
    PlanMember m;
    m.name = t[1].text;
    m.line = n;
    if (t[2].text == "weight") {
      m.weight = p.Fixed(t[3], uint64_t{1000000000} * kWeightUnit);
    } else if (t[2].text == "fill") {
      m.weight = kWeightUnit - p.Fixed(t[3], kWeightUnit);  // the free share of the member's buffer
    } else {
      p.Fail(t[2], "expected 'weight' or 'fill'");
    }
    size_t i = 4;
    while (i < t.size()) {
      const bool v6 = t[i].text == "ipv6";
      if (!v6 && t[i].text != "ipv4") p.Fail(t[i], "expected 'ipv4' or 'ipv6'");
      if (i + 3 >= t.size()) p.Fail(t[i], "a rewrite is '" + t[i].text + " NEXT_HOP_MAC IP UDP_PORT'");
      MemberRewrite& r = v6 ? m.v6 : m.v4;
      if (r.present) p.Fail(t[i], "second " + t[i].text + " rewrite for one member");
      r.present = true;
      r.mac = p.Value(t[i + 1], 48, "next-hop MAC");
      r.ip = p.Ip(t[i + 2], v6);
      r.port = static_cast<uint16_t>(p.Value(t[i + 3], 16, "UDP port"));
      i += 4;
    }
    if (!m.v4.present && !m.v6.present) p.Fail(t.back(), "a member needs an ipv4 or ipv6 rewrite");
    for (const PlanMember& o : out) {
      if (o.name == m.name) p.Fail(t[1], "duplicate member name (line " + std::to_string(o.line) + ")");
      if (o.v4 == m.v4 && o.v6 == m.v6) {
        p.Fail(t[1], "same rewrites as member '" + o.name + "' (line " + std::to_string(o.line) +
                         "): give it the combined weight instead");
      }
    }
    out.push_back(m);
  }
  if (out.empty()) throw PlanError(file_name + ":" + std::to_string(n) + ": at end of file: no member lines");
  return out;
}

}  // namespace nettwin::lb
