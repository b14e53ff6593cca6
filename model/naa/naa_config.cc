#include "model/naa/naa_config.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <sstream>

#include "model/common/file_io.h"

namespace nettwin::naa {
namespace {

// A kernel's cycles before it answers 0x02 (timeout), unless the ctl line says `budget`: 4 ms at 250 MHz,
// enough for a CRC over 32 MiB at half the port's 64 bytes per cycle; larger regions need a larger budget.
constexpr uint32_t kDefaultKernelBudget = 1000000;
constexpr uint64_t kRdmaCmTcpService = 0x0000000001060000ull;  // rdma_cm: RDMA_PS_TCP (0x0106) << 16 | port

[[noreturn]] void Fail(const std::string& file, int line, const std::string& tok, const std::string& msg) {
  throw rdma::ConfigError(nettwin::TokenMessage(file, line, tok, msg));
}

uint64_t Num(const std::string& file, int line, const std::string& s, int bits) {
  char* end = nullptr;
  errno = 0;
  const bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  const unsigned long long v = std::strtoull(s.c_str(), &end, hex ? 16 : 10);
  if (s.empty() || *end != '\0' || errno == ERANGE || s[0] == '-') Fail(file, line, s, "not a number");
  if (bits < 64 && (v >> bits) != 0) Fail(file, line, s, "does not fit in " + std::to_string(bits) + " bits");
  return v;
}

void ParseCmLine(const std::string& file, int n, const std::vector<std::string>& w, CmCfg* c) {
  if (w.size() % 2 == 0) Fail(file, n, w.back(), "cm takes key value pairs");
  bool have_service = false;
  c->listen = true;
  for (size_t i = 1; i + 1 < w.size(); i += 2) {
    const std::string &k = w[i], &v = w[i + 1];
    if (k == "port") {
      c->service_id = kRdmaCmTcpService | Num(file, n, v, 16);
      have_service = true;
    } else if (k == "service") {
      c->service_id = Num(file, n, v, 64);
      have_service = true;
    } else if (k == "guid") {
      c->ca_guid = Num(file, n, v, 64);
    } else if (k == "psn") {
      c->start_psn = static_cast<uint32_t>(Num(file, n, v, 24));
    } else if (k == "initiator_depth") {
      c->initiator_depth = static_cast<uint8_t>(Num(file, n, v, 8));
    } else if (k == "rnr_retry") {
      c->rnr_retry = static_cast<uint8_t>(Num(file, n, v, 3));
    } else if (k == "ack_delay") {
      c->ack_delay = static_cast<uint8_t>(Num(file, n, v, 5));
    } else if (k == "comm_id") {
      c->comm_id = static_cast<uint32_t>(Num(file, n, v, 32));
    } else if (k == "listen") {
      c->listen = Num(file, n, v, 1) != 0;
    } else {
      Fail(file, n, k,
           "unknown cm key (port, service, guid, psn, initiator_depth, rnr_retry, ack_delay, comm_id, listen)");
    }
  }
  if (!have_service) Fail(file, n, "cm", "cm needs 'port <tcp port>' or 'service <service id>'");
}

void ParseReqLine(const std::string& file, int n, const std::vector<std::string>& w, ReqCfg* c) {
  if (w.size() % 2 == 0) Fail(file, n, w.back(), "req takes key value pairs");
  for (size_t i = 1; i + 1 < w.size(); i += 2) {
    const std::string &k = w[i], &v = w[i + 1];
    if (k == "timeout") {
      c->timeout = static_cast<uint32_t>(Num(file, n, v, 32));
    } else if (k == "retry") {
      c->retry = static_cast<uint8_t>(Num(file, n, v, 3));
    } else if (k == "rnr_retry") {
      c->rnr_retry = static_cast<uint8_t>(Num(file, n, v, 3));
    } else {
      Fail(file, n, k, "unknown req key (timeout, retry, rnr_retry)");
    }
  }
}

// post send|write|write_imm laddr A len N [raddr V rkey K] [imm I] [tag T]
ReqCmd ParsePostLine(const std::string& file, int n, const std::vector<std::string>& w) {
  ReqCmd c;
  if (w.size() < 2) Fail(file, n, "post", "post needs an operation (send, write, write_imm)");
  if (w[1] == "send") {
    c.op = ReqOp::kSend;
  } else if (w[1] == "write") {
    c.op = ReqOp::kWrite;
  } else if (w[1] == "write_imm") {
    c.op = ReqOp::kWriteImm;
  } else {
    Fail(file, n, w[1], "unknown post operation (send, write, write_imm)");
  }
  if (w.size() % 2 != 0) Fail(file, n, w.back(), "post takes key value pairs after the operation");
  bool have_laddr = false, have_len = false, have_raddr = false, have_rkey = false, have_imm = false;
  for (size_t i = 2; i + 1 < w.size(); i += 2) {
    const std::string &k = w[i], &v = w[i + 1];
    if (k == "laddr") {
      c.laddr = Num(file, n, v, 64);
      have_laddr = true;
    } else if (k == "len") {
      c.len = static_cast<uint32_t>(Num(file, n, v, 32));
      have_len = true;
    } else if (k == "raddr") {
      c.raddr = Num(file, n, v, 64);
      have_raddr = true;
    } else if (k == "rkey") {
      c.rkey = static_cast<uint32_t>(Num(file, n, v, 32));
      have_rkey = true;
    } else if (k == "imm") {
      c.imm = static_cast<uint32_t>(Num(file, n, v, 32));
      have_imm = true;
    } else if (k == "tag") {
      c.tag = static_cast<uint8_t>(Num(file, n, v, 8));
    } else {
      Fail(file, n, k, "unknown post key (laddr, len, raddr, rkey, imm, tag)");
    }
  }
  if (!have_len || (!have_laddr && c.len != 0)) Fail(file, n, w[1], "post needs len (and laddr unless len is 0)");
  if (c.op == ReqOp::kSend && (have_raddr || have_rkey || have_imm)) {
    Fail(file, n, w[1], "a send has no raddr, rkey or imm");
  }
  if (c.op != ReqOp::kSend && (!have_raddr || !have_rkey)) Fail(file, n, w[1], "a write needs raddr and rkey");
  if (c.op == ReqOp::kWrite && have_imm) Fail(file, n, "imm", "only write_imm carries an immediate");
  if (c.op == ReqOp::kWriteImm && !have_imm) Fail(file, n, w[1], "write_imm needs imm");
  if (c.len > 0x7FFFFFFFu) Fail(file, n, std::to_string(c.len), "a message is at most 2^31 - 1 bytes");
  return c;
}

// `ctl pool <a> pool_size <n> rxbuf <a> txbuf <a> rkey_base <k> [mr_first <slot>] [mrs <n>]`; checked
// against the qp line and the static MRs once the whole file is read (CheckCtl).
void ParseCtlLine(const std::string& file, int n, const std::vector<std::string>& w, CtlCfg* c, bool* have_mrs,
                  bool* have_first) {
  if (w.size() % 2 == 0) Fail(file, n, w.back(), "ctl takes key value pairs");
  c->enable = true;
  c->budget = kDefaultKernelBudget;
  bool pool = false, size = false, rx = false, tx = false, rkey = false;
  for (size_t i = 1; i + 1 < w.size(); i += 2) {
    const std::string &k = w[i], &v = w[i + 1];
    if (k == "pool") {
      c->pool = Num(file, n, v, 56);  // the request's FPGA address field is 56 bits
      pool = true;
    } else if (k == "pool_size") {
      c->pool_size = Num(file, n, v, 56);
      if (c->pool_size == 0) Fail(file, n, v, "pool_size must be at least 1");
      size = true;
    } else if (k == "rxbuf") {
      c->rxbuf = Num(file, n, v, 64);
      rx = true;
    } else if (k == "txbuf") {
      c->txbuf = Num(file, n, v, 64);
      tx = true;
    } else if (k == "rkey_base") {
      c->rkey_base = static_cast<uint32_t>(Num(file, n, v, 32));
      rkey = true;
    } else if (k == "mr_first") {
      c->mr_first = static_cast<uint8_t>(Num(file, n, v, 8));
      *have_first = true;
    } else if (k == "budget") {
      c->budget = static_cast<uint32_t>(Num(file, n, v, 32));
      if (c->budget == 0) Fail(file, n, v, "budget must be at least 1 cycle");
    } else if (k == "imm") {
      if (v != "plain" && v != "naaice") Fail(file, n, v, "imm must be plain (the seed's) or naaice (the library's)");
      c->imm_naaice = v == "naaice";
    } else if (k == "mrs") {
      c->mrs = static_cast<uint8_t>(Num(file, n, v, 8));
      if (c->mrs == 0 || c->mrs > kRegions) Fail(file, n, v, "mrs must be 1.." + std::to_string(kRegions));
      *have_mrs = true;
    } else {
      Fail(file, n, k, "unknown ctl key (pool, pool_size, rxbuf, txbuf, rkey_base, mr_first, mrs, budget)");
    }
  }
  const char* missing = !pool ? "pool" : !size ? "pool_size" : !rx ? "rxbuf" : !tx ? "txbuf" : !rkey ? "rkey_base" : "";
  if (*missing) Fail(file, n, "ctl", std::string("ctl needs '") + missing + " <value>'");
  if (c->pool + c->pool_size > (uint64_t{1} << 56)) Fail(file, n, "pool_size", "the pool ends beyond 2^56");
}

// The controller's MR slots follow the static `mr` lines; its receive buffers are the qp line's RQ.
void CheckCtl(const std::string& file, int n, bool have_mrs, bool have_first, NaaConfig* c) {
  CtlCfg& t = c->ctl;
  const int statics = static_cast<int>(c->rdma.mrs.size());
  if (!have_first) t.mr_first = static_cast<uint8_t>(statics);
  if (t.mr_first < statics) Fail(file, n, "mr_first", "slot " + std::to_string(t.mr_first) + " holds a static mr");
  const int left = rdma::kMrs - t.mr_first;
  if (!have_mrs) t.mrs = static_cast<uint8_t>(std::min(left, kRegions));
  if (left <= 0 || t.mrs > left) {
    Fail(file, n, "mrs",
         "the responder has " + std::to_string(rdma::kMrs) + " MR slots; " + std::to_string(t.mrs) + " from slot " +
             std::to_string(t.mr_first) + " do not fit");
  }
  rdma::QpQueuesCfg& q = c->rdma.queues.at(0);
  if (!q.valid || q.rq_entries == 0) Fail(file, n, "ctl", "the controller needs the qp line's rq and cq");
  if (q.rq_entries > kCqeFifo) {
    Fail(file, n, "ctl",
         "rq_entries " + std::to_string(q.rq_entries) + " > " + std::to_string(kCqeFifo) +
             " (NaaCqeFifo: every posted buffer's completion must fit the event FIFO)");
  }
  // Every receive buffer is posted from the start: WQE j names buffer j (address, NaaRxBufBytes, wr_id j).
  q.rq_posted = q.rq_entries;
  for (uint32_t j = 0; j < q.rq_entries; ++j) {
    rdma::MemInit m;
    m.pa = q.rq + 16ull * j;
    const uint64_t addr = t.rxbuf + uint64_t{kRxBufBytes} * j;
    for (int i = 0; i < 8; ++i) m.bytes.push_back(static_cast<uint8_t>(addr >> (8 * i)));
    for (int i = 0; i < 4; ++i) m.bytes.push_back(static_cast<uint8_t>(kRxBufBytes >> (8 * i)));
    for (int i = 0; i < 4; ++i) m.bytes.push_back(static_cast<uint8_t>(j >> (8 * i)));
    c->rdma.memory.push_back(m);
  }
  t.qp_slot = 0;
  t.qpn = c->rdma.qps.at(0).qpn;
  t.queues = q;
}

}  // namespace

std::vector<CfgWrite> NaaConfig::Writes() const {
  std::vector<CfgWrite> w;
  for (const CfgWrite& c : rdma.Writes()) {
    // The QP and its queues become templates the CM writes when a connection is established.
    if (c.table != params::kRdmaTblQp && c.table != params::kRdmaTblQpQueues) w.push_back(c);
  }
  auto add = [&w](uint8_t table, uint16_t index, const CfgData& d) {
    CfgWrite c;
    c.valid = true;
    c.table = table;
    c.index = index;
    c.data = d;
    w.push_back(c);
  };
  add(params::kNaaTblCm, 0, Encode(cm));
  add(params::kNaaTblCm, 1, rdma::Encode(rdma.qps.at(0)));
  add(params::kNaaTblCm, 2, rdma::Encode(rdma.queues.at(0)));
  add(params::kNaaTblReq, 0, Encode(req));
  for (const ReqCmd& p : posts) add(params::kNaaTblReq, 1, Encode(p));
  if (ctl.enable) {
    const CfgData words[] = {EncodeCtl0(ctl), EncodeCtl1(ctl), rdma::Encode(ctl.queues)};
    for (uint16_t i = 0; i < 3; ++i) {
      add(params::kNaaTblCtl, i, words[i]);
    }
  }
  return w;
}

NaaConfig ParseNaaConfig(const std::string& text, const std::string& file) {
  NaaConfig c;
  std::istringstream in(text);
  std::ostringstream rest;  // the responder's lines; cm lines become blank so line numbers stay right
  std::string raw;
  int n = 0, cm_line = 0, qp_line = 0, req_line = 0, ctl_line = 0;
  bool ctl_mrs = false, ctl_first = false;
  while (std::getline(in, raw)) {
    ++n;
    std::string body = raw.substr(0, raw.find('#'));
    std::istringstream ws(body);
    std::vector<std::string> w;
    for (std::string t; ws >> t;) w.push_back(t);
    if (!w.empty() && w[0] == "cm") {
      if (cm_line != 0) Fail(file, n, "cm", "a second cm line (the first is line " + std::to_string(cm_line) + ")");
      cm_line = n;
      ParseCmLine(file, n, w, &c.cm);
      rest << "\n";
      continue;
    }
    if (!w.empty() && w[0] == "req") {
      if (req_line != 0) Fail(file, n, "req", "a second req line (the first is line " + std::to_string(req_line) + ")");
      req_line = n;
      ParseReqLine(file, n, w, &c.req);
      rest << "\n";
      continue;
    }
    if (!w.empty() && w[0] == "post") {
      if (c.posts.size() == static_cast<size_t>(params::kNaaReqHostCmds)) {
        Fail(file, n, "post", "at most " + std::to_string(params::kNaaReqHostCmds) + " posted commands");
      }
      c.posts.push_back(ParsePostLine(file, n, w));
      rest << "\n";
      continue;
    }
    if (!w.empty() && w[0] == "ctl") {
      if (ctl_line != 0) {
        Fail(file, n, "ctl", "a second ctl line (the first is line " + std::to_string(ctl_line) + ")");
      }
      ctl_line = n;
      ParseCtlLine(file, n, w, &c.ctl, &ctl_mrs, &ctl_first);
      rest << "\n";
      continue;
    }
    if (!w.empty() && w[0] == "qp") {
      if (qp_line != 0)
        Fail(file, n, "qp", "the endpoint has one QP (the first is line " + std::to_string(qp_line) + ")");
      qp_line = n;
      for (const std::string& t : w) {
        if (t == "dest_qp" || t == "epsn") Fail(file, n, t, "set by the connection manager from the client's REQ");
      }
    }
    rest << raw << "\n";
  }
  c.rdma = rdma::ParseConfig(rest.str(), file);
  if (cm_line == 0) throw rdma::ConfigError(file + ": no 'cm' line");
  if (qp_line == 0) throw rdma::ConfigError(file + ": no 'qp' line (the QP the connection manager connects)");
  if (ctl_line != 0) CheckCtl(file, ctl_line, ctl_mrs, ctl_first, &c);
  return c;
}

NaaConfig LoadNaaConfig(const std::string& path) {
  const std::string text = nettwin::ReadTextFile<rdma::ConfigError>(path);
  return ParseNaaConfig(text, path);
}

}  // namespace nettwin::naa
