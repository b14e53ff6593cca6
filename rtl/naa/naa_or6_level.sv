// One level of an OR tree (naa_req's ICRC compare): N outputs, output c the OR of inputs 6c..6c+5 (callers pad
// with zeros). A module of its own for the reason naa_xor6_level gives: one LUT6 a level.
module naa_or6_level #(
  parameter int unsigned N = 1
) (
  input  logic [6*N-1:0] d_i,
  output logic [N-1:0]   q_o
);
  for (genvar c = 0; c < N; c++) begin : g_o
    assign q_o[c] = |d_i[6*c+:6];
  end
endmodule
