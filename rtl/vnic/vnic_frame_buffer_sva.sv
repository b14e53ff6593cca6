// Assertions of vnic_frame_buffer (docs/assertions.md), bound onto every instance by the `bind` at the end of
// this file. Simulation only: empty under SYNTHESIS.
`ifndef SYNTHESIS  // the whole file: assertions are simulation only
`include "nt_ports.svh"
module vnic_frame_buffer_sva #(
  parameter int unsigned PtrBits = 8
) (
  `NT_CLK_RST,
  input logic               wr_valid_i,
  input logic               full_o,
  input logic [PtrBits-1:0] used
);
`include "nt_assert.svh"
  // a beat written into a full ring overwrites the oldest stored beat of a frame not yet sent
  `NT_ASSERT_NO_OVERFLOW(overflow, wr_valid_i, full_o)
  `NT_ASSERT(used_bound, 32'(used) <= nt_pkg::VnicBufBeats)
endmodule

bind vnic_frame_buffer vnic_frame_buffer_sva #(.PtrBits(PtrBits)) u_sva (
  .clk_i, .rst_ni, .wr_valid_i, .full_o, .used);
`endif  // SYNTHESIS
