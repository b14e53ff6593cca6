#include "model/rdma/rdma_config.h"

#include <arpa/inet.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>

#include <cstdio>
#include "model/common/file_io.h"
#include "model/common/text_lines.h"

namespace nettwin::rdma {
namespace {

struct Line {
  std::string file;
  int n = 0;
  std::vector<std::string> words;
  [[noreturn]] void Fail(const std::string& tok, const std::string& msg) const {
    throw ConfigError(nettwin::TokenMessage(file, n, tok, msg));
  }
};

uint64_t Num(const Line& l, const std::string& s, int bits) {
  char* end = nullptr;
  errno = 0;
  const bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  const unsigned long long v = std::strtoull(s.c_str(), &end, hex ? 16 : 10);
  if (s.empty() || *end != '\0' || errno == ERANGE || s[0] == '-') l.Fail(s, "not a number");
  if (bits < 64 && (v >> bits) != 0) l.Fail(s, "does not fit in " + std::to_string(bits) + " bits");
  return v;
}

uint64_t Mac(const Line& l, const std::string& s) {
  unsigned m[6];
  char tail;
  if (std::sscanf(s.c_str(), "%2x:%2x:%2x:%2x:%2x:%2x%c", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5], &tail) != 6) {
    l.Fail(s, "not a MAC address (aa:bb:cc:dd:ee:ff)");
  }
  uint64_t v = 0;
  for (unsigned b : m) v = (v << 8) | b;
  return v;
}

}  // namespace

std::vector<CfgWrite> RdmaConfig::Writes() const {
  std::vector<CfgWrite> w;
  auto add = [&w](uint32_t table, size_t index, const CfgData& d) {
    CfgWrite c;
    c.valid = true;
    c.table = static_cast<uint8_t>(table);
    c.index = static_cast<uint16_t>(index);
    c.data = d;
    w.push_back(c);
  };
  add(params::kRdmaTblResponder, 0, Encode(responder));
  for (size_t i = 0; i < qps.size(); ++i) add(params::kRdmaTblQp, i, Encode(qps[i]));
  for (size_t i = 0; i < queues.size(); ++i) {
    if (queues[i].valid) add(params::kRdmaTblQpQueues, i, Encode(queues[i]));
  }
  for (size_t i = 0; i < mrs.size(); ++i) add(params::kRdmaTblMr, i, Encode(mrs[i]));
  return w;
}

RdmaConfig ParseConfig(const std::string& text, const std::string& file) {
  RdmaConfig c;
  bool have_responder = false;
  TextLines lines(text);
  while (lines.Next()) {
    Line l{file, lines.number(), std::move(lines.words())};
    if (l.words.empty()) continue;
    const std::string& kind = l.words[0];
    // key value pairs after the directive (and its first argument for qp/mr/mem)
    auto pairs = [&](size_t from, const std::vector<std::string>& allowed) {
      std::vector<std::pair<std::string, std::string>> kv;
      for (size_t i = from; i < l.words.size(); i += 2) {
        const std::string& k = l.words[i];
        bool ok = false;
        for (const auto& a : allowed) ok = ok || a == k;
        if (!ok) l.Fail(k, "unknown field for '" + kind + "'");
        if (i + 1 >= l.words.size()) l.Fail(k, "missing value");
        kv.emplace_back(k, l.words[i + 1]);
      }
      return kv;
    };
    if (kind == "responder") {
      for (auto& [k, v] : pairs(1, {"mac", "ip", "ip6", "aq_mode"})) {
        if (k == "mac") {
          c.responder.mac = Mac(l, v);
        } else if (k == "ip") {
          in_addr a;
          if (inet_pton(AF_INET, v.c_str(), &a) != 1) l.Fail(v, "not an IPv4 address");
          c.responder.ip4 = ntohl(a.s_addr);
          c.responder.has_ip4 = true;
        } else if (k == "ip6") {
          in6_addr a;
          if (inet_pton(AF_INET6, v.c_str(), &a) != 1) l.Fail(v, "not an IPv6 address");
          for (int i = 0; i < 8; ++i) c.responder.ip6.hi = (c.responder.ip6.hi << 8) | a.s6_addr[i];
          for (int i = 8; i < 16; ++i) c.responder.ip6.lo = (c.responder.ip6.lo << 8) | a.s6_addr[i];
          c.responder.has_ip6 = true;
        } else {
          if (v != "grouped" && v != "linear") l.Fail(v, "aq_mode is grouped or linear");
          c.responder.aq_linear = v == "linear";
        }
      }
      have_responder = true;
    } else if (kind == "qp") {
      if (l.words.size() < 2) l.Fail(kind, "qp needs a number");
      QpCfg q;
      q.valid = true;
      q.qpn = static_cast<uint32_t>(Num(l, l.words[1], 24));
      q.max_rd_atomic = 0;
      bool have_aq = false;
      QpQueuesCfg qq;
      int queue_fields = 0;
      for (auto& [k, v] : pairs(2, {"dest_qp", "epsn", "mtu", "max_rd_atomic", "aq", "rq", "rq_entries", "rq_posted",
                                    "cq", "cq_entries", "rnr_timer"})) {
        if (k == "rq") qq.rq = Num(l, v, 64), ++queue_fields;
        if (k == "rq_entries") qq.rq_entries = static_cast<uint16_t>(Num(l, v, 16)), ++queue_fields;
        if (k == "rq_posted") qq.rq_posted = static_cast<uint16_t>(Num(l, v, 16)), ++queue_fields;
        if (k == "cq") qq.cq = Num(l, v, 64), ++queue_fields;
        if (k == "cq_entries") qq.cq_entries = static_cast<uint16_t>(Num(l, v, 16)), ++queue_fields;
        if (k == "rnr_timer") qq.rnr_timer = static_cast<uint8_t>(Num(l, v, 5));
        if (k == "dest_qp") q.dest_qp = static_cast<uint32_t>(Num(l, v, 24));
        if (k == "epsn") q.epsn = static_cast<uint32_t>(Num(l, v, 24));
        if (k == "mtu") {
          const uint64_t m = Num(l, v, 16);
          int lg = 8;
          while (lg <= 12 && (1u << lg) != m) ++lg;
          if (lg > 12) l.Fail(v, "mtu is 256, 512, 1024, 2048 or 4096");
          q.mtu_log2 = static_cast<uint8_t>(lg);
        }
        if (k == "max_rd_atomic") {
          const uint64_t m = Num(l, v, 16);
          if (m > static_cast<uint64_t>(kAqGroup * kAqMaxGroups)) {
            l.Fail(v, "max_rd_atomic above the AQ capacity of " + std::to_string(kAqGroup * kAqMaxGroups));
          }
          q.max_rd_atomic = static_cast<uint16_t>(m);
          q.aq_groups = static_cast<uint8_t>((m + kAqGroup - 1) / kAqGroup);
        }
        if (k == "aq") {
          q.aq = Num(l, v, 64);
          have_aq = true;
        }
      }
      if (q.aq_groups > 0 && !have_aq) l.Fail(l.words[1], "a QP with max_rd_atomic > 0 needs 'aq <host address>'");
      if (queue_fields != 0 && queue_fields != 5) {
        l.Fail(l.words[1], "rq, rq_entries, rq_posted, cq and cq_entries go together");
      }
      if (queue_fields == 5) {
        if (qq.rq_posted > qq.rq_entries) l.Fail(l.words[1], "rq_posted exceeds rq_entries");
        if (qq.rq_entries > 0 && qq.cq_entries == 0) l.Fail(l.words[1], "a QP with an RQ needs cq_entries > 0");
        qq.valid = qq.rq_entries > 0;  // rq_entries 0: no receive queue
      }
      c.queues.push_back(qq);
      for (const QpCfg& o : c.qps) {
        if (o.qpn == q.qpn) l.Fail(l.words[1], "duplicate QP number");
      }
      if (static_cast<int>(c.qps.size()) >= kQps) l.Fail(l.words[1], "more than " + std::to_string(kQps) + " QPs");
      c.qps.push_back(q);
    } else if (kind == "mr") {
      if (l.words.size() < 2) l.Fail(kind, "mr needs an rkey");
      MrCfg m;
      m.valid = true;
      m.rkey = static_cast<uint32_t>(Num(l, l.words[1], 32));
      for (auto& [k, v] : pairs(2, {"va", "len", "pa", "access"})) {
        if (k == "va") m.va = Num(l, v, 64);
        if (k == "len") m.len = Num(l, v, 40);
        if (k == "pa") m.pa = Num(l, v, 64);
        if (k == "access") {
          for (char ch : v) {
            if (ch == 'r') m.r = true;
            else if (ch == 'w') m.w = true;
            else if (ch == 'a') m.a = true;
            else l.Fail(v, "access letters are r, w and a");
          }
        }
      }
      for (const MrCfg& o : c.mrs) {
        if (o.rkey == m.rkey) l.Fail(l.words[1], "duplicate rkey");
      }
      if (static_cast<int>(c.mrs.size()) >= kMrs) l.Fail(l.words[1], "more than " + std::to_string(kMrs) + " MRs");
      c.mrs.push_back(m);
    } else if (kind == "mem") {
      if (l.words.size() != 3) l.Fail(kind, "mem <pa> <hex bytes>");
      MemInit mi;
      mi.pa = Num(l, l.words[1], 64);
      const std::string& hx = l.words[2];
      if (hx.size() % 2 != 0) l.Fail(hx, "odd number of hex digits");
      for (size_t i = 0; i < hx.size(); i += 2) {
        const std::string b = hx.substr(i, 2);
        if (!std::isxdigit(static_cast<unsigned char>(b[0])) || !std::isxdigit(static_cast<unsigned char>(b[1]))) {
          l.Fail(hx, "not hex bytes");
        }
        mi.bytes.push_back(static_cast<uint8_t>(std::stoul(b, nullptr, 16)));
      }
      c.memory.push_back(std::move(mi));
    } else {
      l.Fail(kind, "unknown directive (responder, qp, mr, mem)");
    }
  }
  if (!have_responder) throw ConfigError(file + ": no 'responder' line");
  return c;
}

RdmaConfig LoadConfig(const std::string& path) {
  const std::string text = nettwin::ReadTextFile<ConfigError>(path);
  return ParseConfig(text, path);
}

}  // namespace nettwin::rdma
