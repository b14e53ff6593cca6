// Assertions of vnic_desc_fifo (docs/assertions.md), bound onto every instance by the `bind` at the end of
// this file. Simulation only: empty under SYNTHESIS.
`ifndef SYNTHESIS  // the whole file: assertions are simulation only
`include "nt_ports.svh"
module vnic_desc_fifo_sva #(
  parameter int unsigned Depth = 32
) (
  `NT_CLK_RST,
  input logic                    push_i,
  input logic                    pop_i,
  input logic                    empty_o,
  input logic                    full_o,
  input logic [$clog2(Depth):0]  count
);
`include "nt_assert.svh"
  // a push into a full FIFO overwrites its head; a pop from an empty one wraps the count
  `NT_ASSERT_NO_OVERFLOW(overflow, push_i, full_o)
  `NT_ASSERT_NO_UNDERFLOW(underflow, pop_i, empty_o)
  `NT_ASSERT(count_bound, 32'(count) <= Depth)
  // the pointers' wrap bit needs a power of two
  `NT_ASSERT(depth_pow2, (Depth & (Depth - 1)) == 0)
endmodule

bind vnic_desc_fifo vnic_desc_fifo_sva #(.Depth(Depth)) u_sva (
  .clk_i, .rst_ni, .push_i, .pop_i, .empty_o, .full_o, .count);
`endif  // SYNTHESIS
