// One step of a lookup tree (udplb_prio_lookup): K outputs, each the OR of six inputs, one LUT6. A module of
// its own so that the per-module synthesis maps it alone, its ports cutting the tree (udplb_step_ao3 says why).
module udplb_step_or6 #(
  parameter int unsigned K = 1
) (
  input  logic [6*K-1:0] a_i,
  output logic [K-1:0]   y_o   // y_o[k] = |a_i[6k+5:6k]
);
  for (genvar k = 0; k < K; k++) begin : g_k
    assign y_o[k] = |a_i[6*k+:6];
  end
endmodule
