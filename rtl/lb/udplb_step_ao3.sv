// One step of a lookup tree (udplb_prio_lookup): K outputs, each the OR of three ANDed pairs, six inputs, so
// one LUT6. A module of its own so that the per-module synthesis (scripts/synth/synth.py) maps it alone, with
// its ports as cuts: ABC cannot merge it with the steps before and after it into 7- to 9-input LUTs (a LUT6 +
// MUXF7/8/9 cascade of up to 4 levels), which a (* keep *) wire did not prevent (docs/synthesis.md, branches
// udt22 and udt23).
module udplb_step_ao3 #(
  parameter int unsigned K = 1
) (
  input  logic [3*K-1:0] a_i,
  input  logic [3*K-1:0] b_i,
  output logic [K-1:0]   y_o   // y_o[k] = |(a_i[3k+2:3k] & b_i[3k+2:3k])
);
  for (genvar k = 0; k < K; k++) begin : g_k
    assign y_o[k] = |(a_i[3*k+:3] & b_i[3*k+:3]);
  end
endmodule
