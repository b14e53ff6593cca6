// A one's-complement carry-save tree (udplb_hdr_sum): up to 48 16-bit words (word k in bits 16k+15:16k;
// unused words 0, which cost nothing) reduced to an end-around-carry pair {a, b} with the same sum, by nine
// levels of udplb_csa_level (48 32 22 15 10 7 5 4 3 2), one LUT each. A word that is ready late is best
// placed last: it passes the first levels untouched when its neighbours are 0. The pair is 0 unless en_i
// (gated in the last level's LUT).
module udplb_csum_tree
(
  input  logic [48*16-1:0] w_i,
  input  logic             en_i,
  output logic [31:0]      pair_o
);
  logic [32*16-1:0] l1;
  logic [22*16-1:0] l2;
  logic [15*16-1:0] l3;
  logic [10*16-1:0] l4;
  logic [7*16-1:0]  l5;
  logic [5*16-1:0]  l6;
  logic [4*16-1:0]  l7;
  logic [3*16-1:0]  l8;

  udplb_csa_level #(.N (48)) u_l1 (.w_i (w_i), .en_i (1'b1), .w_o (l1));
  udplb_csa_level #(.N (32)) u_l2 (.w_i (l1),  .en_i (1'b1), .w_o (l2));
  udplb_csa_level #(.N (22)) u_l3 (.w_i (l2),  .en_i (1'b1), .w_o (l3));
  udplb_csa_level #(.N (15)) u_l4 (.w_i (l3),  .en_i (1'b1), .w_o (l4));
  udplb_csa_level #(.N (10)) u_l5 (.w_i (l4),  .en_i (1'b1), .w_o (l5));
  udplb_csa_level #(.N (7))  u_l6 (.w_i (l5),  .en_i (1'b1), .w_o (l6));
  udplb_csa_level #(.N (5))  u_l7 (.w_i (l6),  .en_i (1'b1), .w_o (l7));
  udplb_csa_level #(.N (4))  u_l8 (.w_i (l7),  .en_i (1'b1), .w_o (l8));
  udplb_csa_level #(.N (3))  u_l9 (.w_i (l8),  .en_i (en_i), .w_o (pair_o));
endmodule
