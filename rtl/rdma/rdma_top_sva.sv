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
  input logic       rf_valid_q
);
`include "nt_assert.svh"
  // legal FSM states (state_e has 8 values in 4 bits)
  `NT_ASSERT(state_legal, state_q <= rdma_pkg::StLookup)
  // the back end offers a response exactly in BkSend
  `NT_ASSERT(m_valid_is_send, m_valid_o == (back_q == rdma_pkg::BkSend))
  // the head-WQE register of a QP whose RQ head Check just moved is refilled from the ring in the cycle
  // after; Check, its only reader, is never in that cycle (docs/rdma-microarchitecture.md "Block RAM")
  `NT_ASSERT(no_check_on_refill, !(rf_valid_q && state_q == rdma_pkg::StCheck))
endmodule

bind rdma_top rdma_top_sva u_sva (.clk_i, .rst_ni, .m_valid_o, .state_q, .back_q, .rf_valid_q);
`endif  // SYNTHESIS
