// Assertions of nt_skid_buffer (every instance; docs/assertions.md). Simulation only.
//   u_in / u_out   stream rules on both sides (the feeding pipeline holds its beat while in_ready_o is low)
//   skid_only_behind_out  the skid register is only full while the output register is full
`ifndef SYNTHESIS  // the whole file: assertions are simulation only
`include "nt_ports.svh"
module nt_skid_buffer_sva #(
  parameter int unsigned Width = 8
) (
  `NT_CLK_RST,
  input logic             in_valid_i,
  input logic [Width-1:0] in_data_i,
  input logic             in_ready_o,
  input logic             out_valid_o,
  input logic [Width-1:0] out_data_o,
  input logic             out_ready_i,
  input logic             skid_valid_q
);
`include "nt_assert.svh"
  nt_stream_checker #(.KeepBits(1), .DataBits(Width), .HasKeep(1'b0), .HasLast(1'b0)) u_in (
    .clk_i, .rst_ni, .valid_i(in_valid_i), .ready_i(in_ready_o), .data_i(in_data_i), .keep_i(1'b1),
    .last_i(1'b0));
  nt_stream_checker #(.KeepBits(1), .DataBits(Width), .HasKeep(1'b0), .HasLast(1'b0)) u_out (
    .clk_i, .rst_ni, .valid_i(out_valid_o), .ready_i(out_ready_i), .data_i(out_data_o), .keep_i(1'b1),
    .last_i(1'b0));
  `NT_ASSERT(skid_only_behind_out, skid_valid_q |-> out_valid_o)
  `NT_ASSERT_KNOWN(ready_known, in_ready_o)
endmodule

bind nt_skid_buffer nt_skid_buffer_sva #(.Width(Width)) u_sva (
  .clk_i, .rst_ni, .in_valid_i, .in_data_i, .in_ready_o, .out_valid_o, .out_data_o, .out_ready_i, .skid_valid_q);
`endif  // SYNTHESIS
