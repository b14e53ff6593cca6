// Assertions of reorder_ctrl_gen (docs/assertions.md), bound onto every reorder_ctrl_gen by the `bind` at the end of this file, so the
// RTL itself is not edited. Simulation only: empty under SYNTHESIS.
`ifndef SYNTHESIS  // the whole file: assertions are simulation only
`include "nt_ports.svh"
module reorder_ctrl_gen_sva #(
  parameter int unsigned DepthA = 8,
  parameter int unsigned DepthB = 32
) (
  `NT_CLK_RST,
  input logic                        push_a_i,
  input logic                        pop_a,
  input logic [$clog2(DepthA):0]     a_cnt_q,
  input logic [3:0]                  free_a_q,
  input logic                        push_b_i,
  input logic                        pop_b,
  input logic [$clog2(DepthB):0]     b_cnt_q
);
`include "nt_assert.svh"
  // FIFO A (requests from the ingress) and B (queue releases): no push when full, no pop when empty.
  // A push into a full FIFO overwrites its head (the write address wraps onto the read address).
  `NT_ASSERT_NO_OVERFLOW(a_overflow, push_a_i, 32'(a_cnt_q) == DepthA)
  `NT_ASSERT_NO_UNDERFLOW(a_underflow, pop_a, a_cnt_q == '0)
  `NT_ASSERT_NO_OVERFLOW(b_overflow, push_b_i, 32'(b_cnt_q) == DepthB)
  `NT_ASSERT_NO_UNDERFLOW(b_underflow, pop_b, b_cnt_q == '0)
  // the free count kept as its own register is the depth less the count
  `NT_ASSERT(free_a_current, free_a_q == 4'(DepthA) - 4'(a_cnt_q))
endmodule

bind reorder_ctrl_gen reorder_ctrl_gen_sva #(.DepthA(DepthA), .DepthB(DepthB)) u_sva (
  .clk_i, .rst_ni, .push_a_i, .pop_a, .a_cnt_q, .free_a_q, .push_b_i, .pop_b, .b_cnt_q);
`endif  // SYNTHESIS
