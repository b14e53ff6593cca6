// re_top's own assertions (docs/assertions.md); its stream ports are checked by
// rtl/common/nt_stream_ports_sva.sv. Bound by the `bind` at the end of this file, so the RTL itself is not
// edited. Simulation only: empty under SYNTHESIS.
`ifndef SYNTHESIS  // the whole file: assertions are simulation only
`include "nt_ports.svh"
module re_top_sva #(
  parameter int unsigned JobBits = 8
) (
  `NT_CLK_RST,
  input logic                                    rep_valid_o,
  input logic                                    busy_o,
  input logic [7:0]                              cfg_contexts_i,
  input logic                                    desc_valid,
  input logic                                    desc_pop,
  input logic                                    job_valid,
  input logic                                    job_ready,
  input logic [JobBits-1:0]                      job,
  input logic                                    ev_done,
  input logic [$clog2(nt_pkg::ReContexts)-1:0]   ev_ctx
);
`include "nt_assert.svh"
  // the decision stage's job to the event buffer: held, unchanged, until taken
  nt_stream_checker #(.KeepBits(1), .DataBits(JobBits), .HasKeep(1'b0), .HasLast(1'b0)) u_job (
    .clk_i, .rst_ni, .valid_i(job_valid), .ready_i(job_ready), .data_i(job), .keep_i(1'b1), .last_i(1'b0));
  `NT_ASSERT_KNOWN(outputs_known, {rep_valid_o, busy_o})
  // the descriptor FIFO is popped only when it has a descriptor
  `NT_ASSERT_NO_UNDERFLOW(desc_underflow, desc_pop, !desc_valid)
  // the event buffer finishes an event of a configured context (the context tables' index bound)
  `NT_ASSERT(ev_ctx_bound, ev_done |-> 32'(ev_ctx) < 32'(cfg_contexts_i))
endmodule

bind re_top re_top_sva #(.JobBits($bits(re_pkg::job_t))) u_sva (
  .clk_i, .rst_ni, .rep_valid_o, .busy_o, .cfg_contexts_i, .desc_valid, .desc_pop, .job_valid, .job_ready,
  .job, .ev_done, .ev_ctx);
`endif  // SYNTHESIS
