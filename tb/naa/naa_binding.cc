#include "tb/naa/naa_binding.h"

#include <string>

namespace nettwin::naa {
namespace {

rdma::RdmaOut AsRdma(const NaaOut& o) {
  rdma::RdmaOut r;
  r.s_ready = o.s_ready;
  r.busy = o.busy;
  r.m = o.m;
  r.dma_req = o.dma_req;
  r.counters = o.rdma;
  r.cqe = o.cqe;
  return r;
}

}  // namespace

std::optional<tb::SignalDiff> NaaBinding::Compare(const Out& r, const Out& m) {
  if (auto d = rdma::RdmaBinding::Compare(AsRdma(r), AsRdma(m))) return d;
  auto diff = [](const std::string& sig, uint64_t a, uint64_t b) {  // called only when a != b
    return tb::SignalDiff{sig, tb::HexValue(a), tb::HexValue(b)};
  };
  if (r.cm_busy != m.cm_busy) return diff("cm_busy_o", r.cm_busy, m.cm_busy);
  const CmCounters &a = r.cm, &b = m.cm;
  if (a.conn != b.conn) return tb::SignalDiff{"cm_conn_o", ConnName(a.conn), ConnName(b.conn)};
  if (a.packets_in != b.packets_in) return diff("cm_packets_in_o", a.packets_in, b.packets_in);
  if (a.processed != b.processed) return diff("cm_processed_o", a.processed, b.processed);
  if (a.responses != b.responses) return diff("cm_responses_o", a.responses, b.responses);
  for (int i = 0; i < kNumCmDrops; ++i) {
    if (a.drops[i] != b.drops[i]) return diff(std::string("cm_drops_o[") + CmDropName(i) + "]", a.drops[i], b.drops[i]);
  }
  if (a.rejects != b.rejects) return diff("cm_rejects_o", a.rejects, b.rejects);
  if (a.connects != b.connects) return diff("cm_connects_o", a.connects, b.connects);
  if (a.disconnects != b.disconnects) return diff("cm_disconnects_o", a.disconnects, b.disconnects);
  const NaaConn &x = r.conn, &y = m.conn;
  if (x.connected != y.connected) return diff("conn_info_o.connected", x.connected, y.connected);
  if (x.mac != y.mac) return diff("conn_info_o.mac", x.mac, y.mac);
  if (x.ip != y.ip) return diff("conn_info_o.ip", x.ip, y.ip);
  if (x.sport != y.sport) return diff("conn_info_o.sport", x.sport, y.sport);
  if (x.qpn != y.qpn) return diff("conn_info_o.qpn", x.qpn, y.qpn);
  if (x.local_qpn != y.local_qpn) return diff("conn_info_o.local_qpn", x.local_qpn, y.local_qpn);
  if (x.start_psn != y.start_psn) return diff("conn_info_o.start_psn", x.start_psn, y.start_psn);
  if (x.mtu_log2 != y.mtu_log2) return diff("conn_info_o.mtu_log2", x.mtu_log2, y.mtu_log2);
  if (r.req_busy != m.req_busy) return diff("req_busy_o", r.req_busy, m.req_busy);
  if (r.req_cpl.valid != m.req_cpl.valid) return diff("req_cpl_valid_o", r.req_cpl.valid, m.req_cpl.valid);
  if (!(r.req_cpl == m.req_cpl)) {
    return tb::SignalDiff{"req_cpl_o", std::to_string(r.req_cpl.tag) + "/" + CplStatusName(r.req_cpl.status),
                          std::to_string(m.req_cpl.tag) + "/" + CplStatusName(m.req_cpl.status)};
  }
  const ReqCounters &p = r.req, &q = m.req;
  if (p.packets_in != q.packets_in) return diff("req_packets_in_o", p.packets_in, q.packets_in);
  if (p.processed != q.processed) return diff("req_processed_o", p.processed, q.processed);
  for (int i = 0; i < kNumReqDrops; ++i) {
    if (p.drops[i] != q.drops[i]) return diff(std::string("req_drops_o[") + ReqDropName(i) + "]", p.drops[i], q.drops[i]);
  }
  for (int i = 0; i < kNumReqCnts; ++i) {
    if (p.cnt[i] != q.cnt[i]) return diff(std::string("req_cnt_o[") + ReqCntName(i) + "]", p.cnt[i], q.cnt[i]);
  }
  if (r.ctl_busy != m.ctl_busy) return diff("ctl_busy_o", r.ctl_busy, m.ctl_busy);
  const CtlCounters &k = r.ctl, &l = m.ctl;
  if (k.state != l.state) return tb::SignalDiff{"ctl_state_o", CtlStateName(k.state), CtlStateName(l.state)};
  if (k.events != l.events) return diff("ctl_events_o", k.events, l.events);
  if (k.requests != l.requests) return diff("ctl_requests_o", k.requests, l.requests);
  if (k.grants != l.grants) return diff("ctl_grants_o", k.grants, l.grants);
  if (k.answers != l.answers) return diff("ctl_answers_o", k.answers, l.answers);
  if (k.reposts != l.reposts) return diff("ctl_reposts_o", k.reposts, l.reposts);
  if (k.send_failed != l.send_failed) return diff("ctl_send_failed_o", k.send_failed, l.send_failed);
  if (k.rpcs != l.rpcs) return diff("ctl_rpcs_o", k.rpcs, l.rpcs);
  if (k.rpc_errors != l.rpc_errors) return diff("ctl_rpc_errors_o", k.rpc_errors, l.rpc_errors);
  for (int i = 0; i < 5; ++i) {
    if (k.errors[i] != l.errors[i]) return diff("ctl_errors_o[" + std::to_string(i) + "]", k.errors[i], l.errors[i]);
  }
  for (int i = 0; i < kNumCtlDrops; ++i) {
    if (k.drops[i] != l.drops[i]) {
      return diff(std::string("ctl_drops_o[") + CtlDropName(i) + "]", k.drops[i], l.drops[i]);
    }
  }
  if (k.regions != l.regions) return diff("ctl_regions_o", k.regions, l.regions);
  return std::nullopt;
}

// The responder's accounting (a request in its back end is not yet out) plus the CM's: a CM frame is out
// once it is processed (its response sent, its QP writes done) or counted as a drop; and the requester's.
tb::Accounting NaaBinding::Account(const Out& o) {
  tb::Accounting a = rdma::RdmaBinding::Account(AsRdma(o));
  a.in += o.cm.packets_in;
  a.out += o.cm.processed;
  for (uint32_t d : o.cm.drops) a.dropped += d;
  // The requester's ACK/NAK frames: processed or dropped once taken in.
  a.in += o.req.packets_in;
  a.out += o.req.processed;
  for (uint32_t d : o.req.drops) a.dropped += d;
  return a;
}

}  // namespace nettwin::naa
