// re_event_buffer's own assertions (docs/assertions.md), bound onto re_event_buffer by the `bind` at the end of
// this file, so the RTL itself is not edited. Simulation only: empty under SYNTHESIS.
`ifndef SYNTHESIS  // the whole file: assertions are simulation only
`include "nt_ports.svh"
module re_event_buffer_sva (
  `NT_CLK_RST,
  input logic [re_pkg::BeatsW-1:0] left_q,
  input logic                      last_q,
  input logic [6:0]                wlo,
  input logic [6:0]                whi,
  input logic                      wnz_q
);
`include "nt_assert.svh"
  // The beat's flags registered with it (issue 27 item 2, session 25) are the compares they replace, every
  // cycle: the job's last beat, and a beat with data bytes.
  `NT_ASSERT(last_current, last_q == (left_q == '0))
  `NT_ASSERT(wnz_current, wnz_q == (wlo < whi))
endmodule

bind re_event_buffer re_event_buffer_sva u_sva (
  .clk_i, .rst_ni, .left_q, .last_q, .wlo, .whi, .wnz_q);
`endif  // SYNTHESIS
