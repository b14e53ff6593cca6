// One step of a lookup tree (udplb_prio_lookup): K outputs, each the AND of three inputs, one LUT3. A module of
// its own so that the per-module synthesis maps it alone, its ports cutting the tree (udplb_step_ao3 says why).
module udplb_step_and3 #(
  parameter int unsigned K = 1
) (
  input  logic [3*K-1:0] a_i,
  output logic [K-1:0]   y_o   // y_o[k] = &a_i[3k+2:3k]
);
  for (genvar k = 0; k < K; k++) begin : g_k
    assign y_o[k] = &a_i[3*k+:3];
  end
endmodule
