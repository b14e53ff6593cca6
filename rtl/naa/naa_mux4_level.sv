// W 4-to-1 multiplexers with one select (naa_req's payload window: one of four shifts of the two-beat window).
// A module of its own so that the mapper keeps one LUT6 a bit and a level: inside naa_req ABC merged the
// window's choice with the beat's header / payload / ICRC choices into a 5-level cone in front of the ICRC's
// XOR tree (docs/synthesis.md "naa_req after branch naa23").
module naa_mux4_level #(
  parameter int unsigned W = 1
) (
  input  logic [W-1:0] d0_i,
  input  logic [W-1:0] d1_i,
  input  logic [W-1:0] d2_i,
  input  logic [W-1:0] d3_i,
  input  logic [1:0]   sel_i,
  output logic [W-1:0] q_o
);
  always_comb begin
    unique case (sel_i)
      2'b00:   q_o = d0_i;
      2'b01:   q_o = d1_i;
      2'b10:   q_o = d2_i;
      default: q_o = d3_i;
    endcase
  end
endmodule
