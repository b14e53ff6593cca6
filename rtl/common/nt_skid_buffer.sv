// Output register with a skid register behind it. in_ready_o is a flop (skid empty), so no combinational
// path runs from out_ready_i back into the pipeline that feeds this buffer.
`include "nt_ports.svh"
module nt_skid_buffer #(
  parameter int unsigned Width = 8
) (
  `NT_CLK_RST,
  input  logic             in_valid_i,
  input  logic [Width-1:0] in_data_i,
  output logic             in_ready_o,
  output logic             out_valid_o,
  output logic [Width-1:0] out_data_o,
  input  logic             out_ready_i
);
  logic             out_valid_q, skid_valid_q;
  logic [Width-1:0] out_data_q, skid_data_q;

  assign in_ready_o  = ~skid_valid_q;
  assign out_valid_o = out_valid_q;
  assign out_data_o  = out_data_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      out_valid_q  <= 1'b0;
      skid_valid_q <= 1'b0;
      out_data_q   <= '0;
      skid_data_q  <= '0;
    end else if (!skid_valid_q) begin
      if (out_valid_q && !out_ready_i) begin
        skid_valid_q <= in_valid_i;
        skid_data_q  <= in_data_i;
`ifdef NT_MUTATE_LB
        out_data_q   <= ~out_data_q;  // a planted protocol bug (docs/assertions.md): the waiting beat changes
`endif
      end else begin
        out_valid_q <= in_valid_i;
        out_data_q  <= in_data_i;
      end
    end else if (out_ready_i) begin
      out_data_q   <= skid_data_q;
      skid_valid_q <= 1'b0;
    end
  end
endmodule
