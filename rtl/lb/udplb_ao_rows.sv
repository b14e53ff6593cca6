// Rows of a two-step AND-OR against one shared vector (udplb_prio_lookup: each beat row against the matches,
// each field column against the winner one-hot): row r's N bits ANDed with b_i's and ORed by threes
// (udplb_step_ao3), then those ORed by sixes (udplb_step_or6), T2 = ceil(ceil(N / 3) / 6) outputs per row;
// the caller ORs or NORs a row's outputs. Both steps are child modules, so the per-module synthesis maps each
// alone (one LUT6 per output; udplb_step_ao3 says why). The padding of a row to a multiple of 3, and of its
// threes to a multiple of 6, is 0.
module udplb_ao_rows #(
  parameter int unsigned R = 1,   // rows
  parameter int unsigned N = 64,  // bits per row
  localparam int unsigned T1 = (N + 2) / 3,
  localparam int unsigned T2 = (T1 + 5) / 6
) (
  input  logic [R*N-1:0]  a_i,  // row r at N*r
  input  logic [N-1:0]    b_i,  // ANDed with every row
  output logic [R*T2-1:0] y_o   // row r's ORs at T2*r
);
  logic [3*T1*R-1:0] a1, b1;
  logic [T1*R-1:0]   y1;
  logic [6*T2*R-1:0] a2;
  for (genvar r = 0; r < R; r++) begin : g_r
    assign a1[3*T1*r+:3*T1] = (3*T1)'(a_i[N*r+:N]);
    assign b1[3*T1*r+:3*T1] = (3*T1)'(b_i);
    assign a2[6*T2*r+:6*T2] = (6*T2)'(y1[T1*r+:T1]);
  end
  udplb_step_ao3 #(.K(R*T1)) u_ao3 (
    .a_i (a1),
    .b_i (b1),
    .y_o (y1)
  );
  udplb_step_or6 #(.K(R*T2)) u_or6 (
    .a_i (a2),
    .y_o (y_o)
  );
endmodule
