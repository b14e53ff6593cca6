// Two implementations of nt_stream_checker on the same random stream, side by side (scripts/sva_checker_equiv.sh):
// u_new_* the tree's rtl/common/nt_stream_checker.sv, u_ref_* a reference revision of it renamed
// nt_stream_checker_ref. Three shapes: the stream port (64 keep bits), the same with LastOnlyWithValid, and the
// stability-only check of a 577-bit inner handshake (the LB's skid buffer). Simulation only.
module stream_checker_equiv_top (
  input logic         clk_i,
  input logic         rst_ni,
  input logic         valid_i,
  input logic         ready_i,
  input logic [511:0] data_i,
  input logic [63:0]  keep_i,
  input logic         last_i,
  input logic [576:0] wdata_i
);
  nt_stream_checker     #(.KeepBits(64)) u_new_s (.*);
  nt_stream_checker_ref #(.KeepBits(64)) u_ref_s (.*);
  nt_stream_checker     #(.KeepBits(64), .LastOnlyWithValid(1'b1)) u_new_l (.*);
  nt_stream_checker_ref #(.KeepBits(64), .LastOnlyWithValid(1'b1)) u_ref_l (.*);
  nt_stream_checker     #(.KeepBits(1), .DataBits(577), .HasKeep(1'b0), .HasLast(1'b0)) u_new_w (
    .clk_i, .rst_ni, .valid_i, .ready_i, .data_i(wdata_i), .keep_i(1'b1), .last_i(1'b0));
  nt_stream_checker_ref #(.KeepBits(1), .DataBits(577), .HasKeep(1'b0), .HasLast(1'b0)) u_ref_w (
    .clk_i, .rst_ni, .valid_i, .ready_i, .data_i(wdata_i), .keep_i(1'b1), .last_i(1'b0));
endmodule
