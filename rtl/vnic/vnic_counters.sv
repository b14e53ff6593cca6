// Packets in, packets out and drops by reason (index = reason code of nt_pkg; index 0 unused).
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
      if (drop_i) drops_q[reason_i] <= drops_q[reason_i] + 1'b1;
    end
  end

  assign cnt_in_o    = in_q;
  assign cnt_out_o   = out_q;
  assign cnt_drops_o = drops_q;
endmodule
