// One level of an XOR tree (naa_req's CRC trees): N outputs, output c the XOR of inputs 6c..6c+5 (callers pad
// with zeros). A module of its own so that the mapper keeps one LUT6 a level: inside one module ABC maps a wide
// XOR tree as LUT6 + MUXF7/8/9 groups, one level for ABC but up to four for ltp (docs/synthesis.md "naa_req
// after branch naa23"); each module is mapped alone, so its ports cut the tree where the caller puts them.
module naa_xor6_level #(
  parameter int unsigned N = 1
) (
  input  logic [6*N-1:0] d_i,
  output logic [N-1:0]   q_o
);
  for (genvar c = 0; c < N; c++) begin : g_x
    assign q_o[c] = ^d_i[6*c+:6];
  end
endmodule
