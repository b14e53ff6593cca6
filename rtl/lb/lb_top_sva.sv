// lb_top's own assertions (docs/assertions.md); its stream ports are checked by rtl/common/nt_stream_ports_sva.sv
// and its output register by rtl/common/nt_skid_buffer_sva.sv. Bound by the `bind` at the end of this file,
// so the RTL itself is not edited. Simulation only: empty under SYNTHESIS.
`ifndef SYNTHESIS  // the whole file: assertions are simulation only
`include "nt_ports.svh"
module lb_top_sva (
  `NT_CLK_RST,
  input logic       drop_fire,    // S7 counts a dropped packet ...
  input logic [4:0] drop_reason   // ... in drops_q[drop_reason]
);
`include "nt_assert.svh"
  // the drop counter array is indexed by the reason: a drop has a reason, and it is in range
  //   drop_fire |-> drop_reason != '0 && drop_reason < nt_pkg::LbDropReasons
  // reason_ok is that implication, computed here so that the assertion reads one bit: Verilator copies
  // every variable an assertion reads on every eval(), and the bind's expressions read the 690-bit s7_q
  // and the 319-bit s7_rw_q (docs/assertions.md "Cost in simulation").
  logic reason_ok;
  always_comb begin
    reason_ok = 1'b1;
    if (drop_fire) reason_ok = drop_reason != '0 && 32'(drop_reason) < nt_pkg::LbDropReasons;
  end
  `NT_ASSERT(drop_reason_bound, reason_ok)
endmodule

bind lb_top lb_top_sva u_sva (
  .clk_i, .rst_ni,
  .drop_fire   (adv && s7_q.valid && s7_q.sop && !s7_rw_q.forward),
  .drop_reason (s7_rw_q.reason));
`endif  // SYNTHESIS
