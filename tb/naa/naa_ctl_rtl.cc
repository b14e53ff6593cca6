#include "tb/naa/naa_ctl_rtl.h"

#include "Vnaa_ctl.h"
#include "port_groups.h"
#include "tb/common/verilated_block.h"

namespace nettwin::naa {
namespace {

class NaaCtlRtl : public tb::VerilatedBlock<Vnaa_ctl, NaaCtlIn, NaaCtlOut> {
 public:
  NaaCtlRtl() : VerilatedBlock("naa_ctl") {}
  const NaaCtlOut& Eval(const NaaCtlIn& in) override {
    Vnaa_ctl& t = top();
    t.clk_i = 0;
    t.connected_i = in.connected;
    t.cqe_valid_i = in.cqe.valid;
    // rdma_pkg::cqe_t, packed from the last field up: psn, opcode, qpn, imm, len, wr_id.
    tb::SetWideField(t.cqe_i, 0, 24, in.cqe.psn);
    tb::SetWideField(t.cqe_i, 24, 8, in.cqe.opcode);
    tb::SetWideField(t.cqe_i, 32, 24, in.cqe.qpn);
    tb::SetWideField(t.cqe_i, 56, 32, in.cqe.imm);
    tb::SetWideField(t.cqe_i, 88, 32, in.cqe.len);
    tb::SetWideField(t.cqe_i, 120, 32, in.cqe.wr_id);
    t.dma_req_ready_i = in.dma_ready;
    tb::DriveDmaRsp(t, in.dma_rsp);
    t.rcfg_ready_i = in.cfg_ready;
    t.cmd_ready_i = in.cmd_ready;
    t.cpl_valid_i = in.cpl.valid;
    t.cpl_i = static_cast<uint32_t>(in.cpl.tag) << 2 | static_cast<uint32_t>(in.cpl.status);
    tb::DriveCfg(t, in.cfg);
    t.eval();
    tb::SampleDmaReq(t, &out_.dma_req);
    out_.cfg.valid = t.rcfg_valid_o;
    out_.cfg.table = t.rcfg_table_o;
    out_.cfg.index = t.rcfg_index_o;
    out_.cfg.data = CfgData{};
    for (int i = 0; i < CfgData::kWords * 2; ++i) out_.cfg.data.Set(32 * i, 32, t.rcfg_data_o[i]);
    out_.cmd_valid = t.cmd_valid_o;
    // naa_pkg::naa_req_cmd_t: op, laddr, len, raddr, rkey, imm, tag (tag in the low bits).
    ReqCmd& c = out_.cmd;
    c.tag = static_cast<uint8_t>(tb::WideField(t.cmd_o, 0, 8));
    c.imm = static_cast<uint32_t>(tb::WideField(t.cmd_o, 8, 32));
    c.rkey = static_cast<uint32_t>(tb::WideField(t.cmd_o, 40, 32));
    c.raddr = tb::WideField(t.cmd_o, 72, 64);
    c.len = static_cast<uint32_t>(tb::WideField(t.cmd_o, 136, 32));
    c.laddr = tb::WideField(t.cmd_o, 168, 64);
    c.op = static_cast<ReqOp>(tb::WideField(t.cmd_o, 232, 2));
    CtlCounters& k = out_.counters;
    k.events = t.cnt_events_o;
    k.requests = t.cnt_requests_o;
    k.grants = t.cnt_grants_o;
    k.answers = t.cnt_answers_o;
    k.reposts = t.cnt_reposts_o;
    k.send_failed = t.cnt_send_failed_o;
    k.rpcs = t.cnt_rpcs_o;
    k.rpc_errors = t.cnt_rpc_errors_o;
    for (int i = 0; i < 5; ++i) k.errors[i] = t.cnt_errors_o[i];
    for (int i = 0; i < kNumCtlDrops; ++i) k.drops[i] = t.cnt_drops_o[i];
    k.regions = t.regions_o;
    k.state = static_cast<CtlState>(t.state_o);
    out_.busy = t.busy_o;
    return out_;
  }

 protected:
  void IdleInputs() override {
    top().cqe_valid_i = 0;
    top().cfg_valid_i = 0;
    top().dma_rsp_valid_i = 0;
    top().cpl_valid_i = 0;
  }

 private:
  NaaCtlOut out_;
};

}  // namespace

std::unique_ptr<tb::RtlBlock<NaaCtlIn, NaaCtlOut>> MakeNaaCtlRtl() { return std::make_unique<NaaCtlRtl>(); }

}  // namespace nettwin::naa
