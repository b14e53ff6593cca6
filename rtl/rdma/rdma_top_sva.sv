// rdma_top's own assertions (docs/assertions.md); its stream ports are checked by
// rtl/common/nt_stream_ports_sva.sv and its DMA request port by rdma_dma_req_sva.sv. Bound by the `bind` at
// the end of this file, so the RTL itself is not edited. Simulation only: empty under SYNTHESIS.
`ifndef SYNTHESIS  // the whole file: assertions are simulation only
`include "nt_ports.svh"
module rdma_top_sva (
  `NT_CLK_RST,
  input logic       m_valid_o,
  input logic [3:0] state_q,
  input rdma_pkg::back_e back_q,
  input logic       rf_valid_q,
  // the slot registers (docs/rdma-microarchitecture.md "Slot registers"): the prefetch QP's and the CQE's
  input logic [15:0] pf_slot, pf_iss, cqe_slot, pff_k,
  // the slot dividers (rdma_slot_div) busy per QP, the prefetch QP and the pending CQE's QP
  input logic [nt_pkg::RdmaQps-1:0] rq_div_busy, cq_div_busy,
  input logic [3:0]  pf_qp, cq_qp,
  input logic        pf_src,
  // verilator lint_off UNUSEDSIGNAL
  input rdma_pkg::qp_queues_t pqq,                  // (whole words: a few fields are read)
  input rdma_pkg::qp_state_t  cq_jq, chk_qp, chk_qs,
  // verilator lint_on UNUSEDSIGNAL
  input logic        chk_wr
);
`include "nt_assert.svh"
  // legal FSM states (state_e has 8 values in 4 bits)
  `NT_ASSERT(state_legal, state_q <= rdma_pkg::StLookup)
  // the back end offers a response exactly in BkSend
  `NT_ASSERT(m_valid_is_send, m_valid_o == (back_q == rdma_pkg::BkSend))
  // the head-WQE register of a QP whose RQ head Check just moved is refilled from the ring in the cycle
  // after; Check, its only reader, is never in that cycle (docs/rdma-microarchitecture.md "Block RAM")
  `NT_ASSERT(no_check_on_refill, !(rf_valid_q && state_q == rdma_pkg::StCheck))
  // the slot registers equal the % they stand for, every cycle but while that QP's divider works (0 for 0
  // entries, as Verilator's x % 0)
  `NT_ASSERT(pf_slot_mod, rq_div_busy[pf_qp] || pf_slot == ((pqq.rq_entries == '0) ? 16'd0 : pf_iss % pqq.rq_entries))
  `NT_ASSERT(cqe_slot_mod, cq_div_busy[cq_qp] || cqe_slot == ((cq_jq.queues.cq_entries == '0) ? 16'd0 : cq_jq.cq_tail % cq_jq.queues.cq_entries))
  // a new prefetch is never offered for a QP whose RQ slot is being divided (a held one may be taken)
  `NT_ASSERT(pf_not_dividing, !(pf_src && rq_div_busy[pf_qp]))
  // what their updates assume: a prefetch reads at most 4 WQEs; Check moves the RQ head by at most one
  `NT_ASSERT(pff_k_bound, pff_k <= 16'd4)
  `NT_ASSERT(rq_head_step, !chk_wr || chk_qp.rq_head == chk_qs.rq_head || chk_qp.rq_head == chk_qs.rq_head + 16'd1)
endmodule

bind rdma_top rdma_top_sva u_sva (.clk_i, .rst_ni, .m_valid_o, .state_q, .back_q, .rf_valid_q, .pf_slot, .pf_iss,
                                  .cqe_slot, .pff_k, .rq_div_busy, .cq_div_busy, .pf_qp, .cq_qp, .pf_src, .pqq,
                                  .cq_jq, .chk_qp, .chk_qs, .chk_wr);
`endif  // SYNTHESIS
