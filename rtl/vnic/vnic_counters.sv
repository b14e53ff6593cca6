// Packets in, packets out and drops by reason (index = reason code of nt_pkg; index 0 unused).
// One enable per drop counter (drop_i and reason_i == r) rather than drops_q[reason_i] + 1: the read
// multiplexer of 16 counters in front of the increment was on the deepest path (issue 27; 20 levels).
`include "nt_ports.svh"
module vnic_counters
(
  `NT_CLK_RST,
  input  logic                             in_i,
  input  logic                             drop_i,
  input  logic [3:0]                       reason_i,
  input  logic                             out_i,
  output logic [31:0]                      cnt_in_o,
  output logic [31:0]                      cnt_out_o,
  output logic [vnic_pkg::NumReasons*32-1:0] cnt_drops_o
);
  logic [31:0] in_q, out_q;
  logic [vnic_pkg::NumReasons-1:0][31:0] drops_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_q    <= '0;
      out_q   <= '0;
      drops_q <= '0;
    end else begin
      if (in_i) in_q <= in_q + 1'b1;
      if (out_i) out_q <= out_q + 1'b1;
      for (int r = 0; r < vnic_pkg::NumReasons; r++) begin
        if (drop_i && reason_i == 4'(r)) drops_q[r] <= drops_q[r] + 1'b1;
      end
    end
  end

  assign cnt_in_o    = in_q;
  assign cnt_out_o   = out_q;
  assign cnt_drops_o = drops_q;
endmodule
