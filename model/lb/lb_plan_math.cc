// The planner's arithmetic: prefix cover, slot apportionment and spreading, and the members file.
#include <algorithm>
#include <array>
#include <cctype>
#include <sstream>
#include <stdexcept>

#include "model/common/file_io.h"
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

namespace {

// Could `rem` (sum `len`) fill the slots after one holding `prev` so that no two neighbours are equal and the
// last is not `first` (its neighbour across the wrap)? No two of a member's slots may touch, so it fits in
// at most ceil(len/2) of them, floor(len/2) when it is `prev` or `first` (it cannot take that end), and
// floor((len-1)/2) when both. These necessary bounds are also sufficient (the tests compare the result with
// an exhaustive search on every small calendar). `top` holds the three largest remaining counts with their
// members, so one test is O(1).
struct Top3 {
  std::array<std::pair<int, size_t>, 3> v{};  // (count, member), descending; count 0 when absent
  int MaxExcept(size_t a, size_t b) const {
    for (const auto& e : v) {
      if (e.first == 0) return 0;
      if (e.second != a && e.second != b) return e.first;
    }
    return 0;
  }
};

int Cap(int len, bool is_prev, bool is_first) {
  if (is_prev && is_first) return (len - 1) / 2;  // only the middle slots 2..len-1
  if (is_prev || is_first) return len / 2;
  return (len + 1) / 2;
}

// After placing `x` (remaining counts `rem` before it, `len` slots before it, `first` the first slot's
// member, x itself on the first step): can the rest still be laid out without neighbours on one member?
bool Completable(const std::vector<int>& rem, const Top3& top, int len, size_t x, size_t first) {
  const int left = len - 1;
  if (left == 0) return x != first;
  if (rem[x] - 1 > Cap(left, true, x == first)) return false;
  if (first != x && rem[first] > Cap(left, false, true)) return false;
  return top.MaxExcept(x, first) <= Cap(left, false, false);
}

// Smooth weighted round robin constrained to never repeat a member on neighbouring slots (incl. the wrap):
// each step every member gains its count as credit; among the members with slots left that differ from
// the previous slot's and leave a completable rest, the largest credit takes the slot (ties: lower index)
// and pays the total. Requires max(counts) <= total / 2.
std::vector<int> SpreadNoRepeat(const std::vector<int>& counts, int total) {
  const size_t n = counts.size(), none = n;
  std::vector<int64_t> credit(n, 0);
  std::vector<int> rem(counts), out;
  out.reserve(static_cast<size_t>(total));
  size_t prev = none, first = none;
  for (int len = total; len > 0; --len) {
    Top3 top;
    for (size_t i = 0; i < n; ++i) {
      if (counts[i] > 0) credit[i] += counts[i];
      std::pair<int, size_t> e{rem[i], i};
      for (auto& t : top.v) {
        if (e.first > t.first) std::swap(e, t);
      }
    }
    size_t best = none;
    for (size_t i = 0; i < n; ++i) {
      if (rem[i] == 0 || i == prev) continue;
      if (!Completable(rem, top, len, i, first == none ? i : first)) continue;
      if (best == none || credit[i] > credit[best]) best = i;
    }
    if (best == none) throw std::logic_error("SpreadSlots: no completable member (a bound is not sufficient)");
    credit[best] -= total;
    --rem[best];
    if (first == none) first = best;
    prev = best;
    out.push_back(static_cast<int>(best));
  }
  return out;
}

}  // namespace

std::vector<int> SpreadSlots(const std::vector<int>& counts) {
  int total = 0;
  size_t big = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    total += counts[i];
    if (counts[i] > counts[big]) big = i;
  }
  if (total == 0) return {};
  const int most = counts[big], others = total - most;
  if (most <= others) return SpreadNoRepeat(counts, total);
  if (others == 0) return std::vector<int>(static_cast<size_t>(total), static_cast<int>(big));
  // The biggest member holds more than half: it forms `others` runs, one other member's slot between two
  // runs, so it has most - others neighbouring pairs, the fewest possible (each run of r slots has r - 1
  // pairs and at most `others` separators exist). Lay out the runs' starts alternating with the others,
  // then lengthen the j-th run to floor((j+1) * most / others) - floor(j * most / others) slots.
  std::vector<int> reduced(counts);
  reduced[big] = others;
  std::vector<int> out;
  out.reserve(static_cast<size_t>(total));
  int run = 0;
  for (int m : SpreadNoRepeat(reduced, 2 * others)) {
    if (m != static_cast<int>(big)) {
      out.push_back(m);
      continue;
    }
    const int len = static_cast<int>((int64_t{run + 1} * most) / others - (int64_t{run} * most) / others);
    out.insert(out.end(), static_cast<size_t>(len), m);
    ++run;
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
    throw PlanError(nettwin::TokenMessage(file_, t.line, t.text, msg));
  }
  // A non-negative decimal with at most 6 fraction digits, in kWeightUnit units, at most `max_units`;
  // `range` names the limit in the error (e.g. "a weight is at most 1000000000").
  uint64_t Fixed(const Tok& t, uint64_t max_units, const std::string& range) const {
    const std::string& s = t.text;
    const size_t dot = s.find('.');
    const std::string whole = s.substr(0, dot), frac = dot == std::string::npos ? "" : s.substr(dot + 1);
    auto digits = [](const std::string& d) {
      return std::all_of(d.begin(), d.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    };
    if (whole.empty() || !digits(whole) || !digits(frac) || frac.size() > 6 ||
        (dot != std::string::npos && frac.empty())) {
      Fail(t, "not a decimal number with at most 6 decimals");
    }
    // Leading zeros do not count; past 12 significant integer digits the value is out of range whatever the
    // limit (every limit is below 10^12 units of 1e-6), and stoull below cannot overflow.
    const std::string sig = whole.substr(std::min(whole.find_first_not_of('0'), whole.size()));
    if (sig.size() > 12) Fail(t, "out of range: " + range);
    uint64_t v = (sig.empty() ? 0 : std::stoull(sig)) * kWeightUnit;
    uint64_t f = frac.empty() ? 0 : std::stoull(frac);
    for (size_t i = frac.size(); i < 6; ++i) f *= 10;
    v += f;
    if (v > max_units) Fail(t, "out of range: " + range);
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
      m.weight = p.Fixed(t[3], kMaxWeight * kWeightUnit, "a weight is at most " + std::to_string(kMaxWeight));
    } else if (t[2].text == "fill") {
      // the free share of the member's buffer
      m.weight = kWeightUnit - p.Fixed(t[3], kWeightUnit, "a fill level is in [0, 1]");
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
      if (r.port == 0) p.Fail(t[i + 3], "UDP port 0: the member's packets would be sent to port 0 (reserved)");
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
