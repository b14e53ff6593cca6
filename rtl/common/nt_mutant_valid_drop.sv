// A planted protocol bug, for the assertion evidence only (docs/assertions.md, scripts/sva_mutants.sh): the
// valid of a valid/ready output drops on every other cycle its beat waits. A block instantiates it in place
// of its output valid only when built with its -DNT_MUTATE_<BLOCK>; no normal build uses it.
`include "nt_ports.svh"
module nt_mutant_valid_drop (
  `NT_CLK_RST,
  input  logic valid_i,  // the block's real output valid
  input  logic ready_i,
  output logic valid_o   // what the mutant offers instead
);
  logic stall_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) stall_q <= 1'b0;
    else stall_q <= valid_o && !ready_i;
  end
  assign valid_o = valid_i && !stall_q;
endmodule
