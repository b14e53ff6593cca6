#include "tb/naa/naa_rtl.h"

#include "Vnaa_top.h"
#include "tb/common/verilated_block.h"
#include "tb/rdma/rdma_ports.h"

namespace nettwin::naa {
namespace {

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
