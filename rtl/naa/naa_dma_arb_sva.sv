// Assertions of naa_dma_arb (docs/assertions.md), bound onto every instance by the `bind` at the end of this
// file. Simulation only: empty under SYNTHESIS.
`ifndef SYNTHESIS  // the whole file: assertions are simulation only
`include "nt_ports.svh"
module naa_dma_arb_sva #(
  parameter int unsigned PtrBits = 3
) (
  `NT_CLK_RST,
  input logic               full,
  input logic               m_req_valid_o,
  input logic               m_req_ready_i,
  input logic               m_req_write_o,
  input logic [PtrBits:0]   wr_q,
  input logic [PtrBits:0]   rd_q
);
`include "nt_assert.svh"
  logic [PtrBits:0] used;
  assign used = wr_q - rd_q;
  // the read-id FIFO (which master a read response belongs to) never holds more than its depth, and a read
  // is not granted while it is full
  `NT_ASSERT(ids_bound, 32'(used) <= nt_pkg::NaaDmaIdDepth)
  `NT_ASSERT_NO_OVERFLOW(ids_overflow, m_req_valid_o && m_req_ready_i && !m_req_write_o, full)
endmodule

bind naa_dma_arb naa_dma_arb_sva #(.PtrBits(PtrBits)) u_sva (
  .clk_i, .rst_ni, .full, .m_req_valid_o, .m_req_ready_i, .m_req_write_o, .wr_q, .rd_q);
`endif  // SYNTHESIS
