#include "tb/naa/naa_rtl.h"

#include "Vnaa_top.h"
#include "tb/common/verilated_block.h"
#include "tb/rdma/rdma_ports.h"

namespace nettwin::naa {
namespace {

// naa_conn_t, packed MSB first: connected, mac, ip, sport, qpn, local_qpn, start_psn, mtu_log2 (181 bits).
template <class Words>
void ReadConn(const Words& w, NaaConn* c) {
  auto bits = [&w](int lo, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(w[(lo + i) / 32] >> ((lo + i) % 32) & 1) << i;
    return v;
  };
  c->mtu_log2 = static_cast<uint8_t>(bits(0, 4));
  c->start_psn = static_cast<uint32_t>(bits(4, 24));
  c->local_qpn = static_cast<uint32_t>(bits(28, 24));
  c->qpn = static_cast<uint32_t>(bits(52, 24));
  c->sport = static_cast<uint16_t>(bits(76, 16));
  c->ip = static_cast<uint32_t>(bits(92, 32));
  c->mac = bits(124, 48);
  c->connected = bits(172, 1) != 0;
}

class NaaRtl : public tb::VerilatedBlock<Vnaa_top, NaaIn, NaaOut> {
 public:
  NaaRtl() : VerilatedBlock("naa_top") {}
  const NaaOut& Eval(const NaaIn& in) override {
    Vnaa_top& t = top();
    rdma::DriveRdmaPorts(in, &t);
    t.eval();
    rdma::RdmaOut r;
    rdma::ReadRdmaPorts(t, &r);
    out_.s_ready = r.s_ready;
    out_.busy = r.busy;
    out_.m = r.m;
    out_.dma_req = r.dma_req;
    out_.rdma = r.counters;
    out_.cqe = rdma::ReadCqe(t);
    out_.cm_busy = t.cm_busy_o;
    CmCounters& c = out_.cm;
    c.packets_in = t.cm_packets_in_o;
    c.processed = t.cm_processed_o;
    c.responses = t.cm_responses_o;
    for (int i = 0; i < kNumCmDrops; ++i) c.drops[i] = t.cm_drops_o[i];
    c.rejects = t.cm_rejects_o;
    c.connects = t.cm_connects_o;
    c.disconnects = t.cm_disconnects_o;
    c.conn = static_cast<Conn>(t.cm_conn_o);
    ReadConn(t.conn_info_o, &out_.conn);
    ReqCounters& q = out_.req;
    q.packets_in = t.req_packets_in_o;
    q.processed = t.req_processed_o;
    for (int i = 0; i < kNumReqDrops; ++i) q.drops[i] = t.req_drops_o[i];
    for (int i = 0; i < kNumReqCnts; ++i) q.cnt[i] = t.req_cnt_o[i];
    out_.req_cpl.valid = t.req_cpl_valid_o;
    out_.req_cpl.tag = static_cast<uint8_t>(t.req_cpl_o >> 2);
    out_.req_cpl.status = static_cast<CplStatus>(t.req_cpl_o & 3);
    out_.req_busy = t.req_busy_o;
    CtlCounters& k = out_.ctl;
    k.events = t.ctl_events_o;
    k.requests = t.ctl_requests_o;
    k.grants = t.ctl_grants_o;
    k.answers = t.ctl_answers_o;
    k.reposts = t.ctl_reposts_o;
    k.send_failed = t.ctl_send_failed_o;
    k.rpcs = t.ctl_rpcs_o;
    k.rpc_errors = t.ctl_rpc_errors_o;
    for (int i = 0; i < 5; ++i) k.errors[i] = t.ctl_errors_o[i];
    for (int i = 0; i < kNumCtlDrops; ++i) k.drops[i] = t.ctl_drops_o[i];
    k.regions = t.ctl_regions_o;
    k.state = static_cast<CtlState>(t.ctl_state_o);
    out_.ctl_busy = t.ctl_busy_o;
    return out_;
  }

 private:
  void IdleInputs() override {
    top().s_valid_i = 0;
    top().cfg_valid_i = 0;
    top().dma_rsp_valid_i = 0;
  }
  NaaOut out_;
};

}  // namespace

std::unique_ptr<tb::RtlBlock<NaaIn, NaaOut>> MakeNaaRtl() { return std::make_unique<NaaRtl>(); }

}  // namespace nettwin::naa
