#include "tb/re/re_rtl.h"

#include "Vre_top.h"
#include "tb/common/verilated_block.h"

namespace nettwin::re {
namespace {

class ReRtl : public tb::VerilatedBlock<Vre_top, ReIn, ReOut> {
 public:
  ReRtl() : tb::VerilatedBlock<Vre_top, ReIn, ReOut>("re_top") {}

  const ReOut& Eval(const ReIn& in) override {
    Vre_top& t = top();
    t.clk_i = 0;
    tb::DriveS(t, in.s);
    t.s_time_i = in.s_time_ns;
    t.m_ready_i = in.m_ready;
    t.flush_i = in.flush;
    t.cfg_contexts_i = static_cast<uint8_t>(in.cfg_contexts > 255 ? 255 : in.cfg_contexts);
    t.cfg_buffer_bytes_i = in.cfg_buffer_bytes;
    t.cfg_timeout_ns_i = in.cfg_timeout_ns;
    t.cfg_format_i = in.cfg_format == HeaderFormat::kE2sar;
    t.cfg_version_i = in.cfg_version & 0xF;
    t.cfg_lb_drop_i = in.cfg_lb_header == LbHeaderMode::kDrop;
    t.cfg_host_i = in.cfg_host;
    t.cfg_host_base_i = in.cfg_host_base;
    t.dma_req_ready_i = in.dma_ready;
    t.eval();
    out_.dma.valid = t.dma_req_valid_o;
    out_.dma.write = t.dma_req_write_o;
    out_.dma.addr = t.dma_req_addr_o;
    out_.dma.len = t.dma_req_len_o;
    out_.dma.off = t.dma_req_off_o;
    tb::GetBytes(t.dma_req_data_o, out_.dma.data.data(), kDmaBeatBytes);
    out_.s_ready = t.s_ready_o;
    tb::SampleM(t, &out_.m);
    out_.report = ReReport{static_cast<bool>(t.rep_valid_o),
                           static_cast<uint16_t>(t.rep_event_num_o),
                           t.rep_data_id_o,
                           t.rep_event_num_o,
                           t.rep_received_o,
                           t.rep_segments_o,
                           t.rep_length_o,
                           static_cast<bool>(t.rep_end_known_o),
                           static_cast<bool>(t.rep_at_end_o)};
    out_.busy = t.busy_o;
    out_.cnt.in = t.cnt_in_o;
    out_.cnt.used = t.cnt_used_o;
    out_.cnt.completed = t.cnt_completed_o;
    out_.cnt.timed_out = t.cnt_timed_out_o;
    out_.cnt.out = t.cnt_out_o;
    for (int i = 0; i < kReDropCodes; ++i) out_.cnt.drops[static_cast<size_t>(i)] = t.cnt_drops_o[i];
    return out_;
  }

 private:
  void IdleInputs() override {
    top().s_valid_i = 0;
    top().m_ready_i = 0;
    top().flush_i = 0;
    top().dma_req_ready_i = 0;
  }
  ReOut out_;
};

}  // namespace

std::unique_ptr<tb::RtlBlock<ReIn, ReOut>> MakeReRtl() { return std::make_unique<ReRtl>(); }

}  // namespace nettwin::re
