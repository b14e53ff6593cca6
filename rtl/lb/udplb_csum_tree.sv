// A one's-complement carry-save tree (udplb_hdr_pre, udplb_hdr_sum): N 16-bit words (word k in bits
// 16k+15:16k; unused words 0) reduced to an end-around-carry pair {a, b} with the same sum, by levels of
// udplb_csa_level (N -> 2 (N / 3) + N mod 3 each, one LUT each) until two words are left: 48 words take
// nine levels (48 32 22 15 10 7 5 4 3 2), 32 eight, 22 seven, 15 six. N is at most 63 (nine levels). The pair
// is 0 unless en_i (gated in the first level's LUT, or in this module's when N <= 2).
module udplb_csum_tree #(
  parameter int unsigned N = 48
) (
  input  logic [N*16-1:0] w_i,
  input  logic            en_i,
  output logic [31:0]     pair_o
);
  // The words after each level (a level is left out, a wire, once two words are left).
  localparam int unsigned N1 = N  > 2 ? 2 * (N  / 3) + N  % 3 : N;
  localparam int unsigned N2 = N1 > 2 ? 2 * (N1 / 3) + N1 % 3 : N1;
  localparam int unsigned N3 = N2 > 2 ? 2 * (N2 / 3) + N2 % 3 : N2;
  localparam int unsigned N4 = N3 > 2 ? 2 * (N3 / 3) + N3 % 3 : N3;
  localparam int unsigned N5 = N4 > 2 ? 2 * (N4 / 3) + N4 % 3 : N4;
  localparam int unsigned N6 = N5 > 2 ? 2 * (N5 / 3) + N5 % 3 : N5;
  localparam int unsigned N7 = N6 > 2 ? 2 * (N6 / 3) + N6 % 3 : N6;
  localparam int unsigned N8 = N7 > 2 ? 2 * (N7 / 3) + N7 % 3 : N7;
  localparam int unsigned N9 = N8 > 2 ? 2 * (N8 / 3) + N8 % 3 : N8;

  logic [N1*16-1:0] l1;
  logic [N2*16-1:0] l2;
  logic [N3*16-1:0] l3;
  logic [N4*16-1:0] l4;
  logic [N5*16-1:0] l5;
  logic [N6*16-1:0] l6;
  logic [N7*16-1:0] l7;
  logic [N8*16-1:0] l8;
  logic [N9*16-1:0] l9;

  if (N > 2) begin : g_l1
    udplb_csa_level #(.N (N)) u_l1 (.w_i (w_i), .en_i (en_i), .w_o (l1));
  end else begin : g_p1
    assign l1 = {N*16{en_i}} & w_i;
  end
  if (N1 > 2) begin : g_l2
    udplb_csa_level #(.N (N1)) u_l2 (.w_i (l1), .en_i (1'b1), .w_o (l2));
  end else begin : g_p2
    assign l2 = l1;
  end
  if (N2 > 2) begin : g_l3
    udplb_csa_level #(.N (N2)) u_l3 (.w_i (l2), .en_i (1'b1), .w_o (l3));
  end else begin : g_p3
    assign l3 = l2;
  end
  if (N3 > 2) begin : g_l4
    udplb_csa_level #(.N (N3)) u_l4 (.w_i (l3), .en_i (1'b1), .w_o (l4));
  end else begin : g_p4
    assign l4 = l3;
  end
  if (N4 > 2) begin : g_l5
    udplb_csa_level #(.N (N4)) u_l5 (.w_i (l4), .en_i (1'b1), .w_o (l5));
  end else begin : g_p5
    assign l5 = l4;
  end
  if (N5 > 2) begin : g_l6
    udplb_csa_level #(.N (N5)) u_l6 (.w_i (l5), .en_i (1'b1), .w_o (l6));
  end else begin : g_p6
    assign l6 = l5;
  end
  if (N6 > 2) begin : g_l7
    udplb_csa_level #(.N (N6)) u_l7 (.w_i (l6), .en_i (1'b1), .w_o (l7));
  end else begin : g_p7
    assign l7 = l6;
  end
  if (N7 > 2) begin : g_l8
    udplb_csa_level #(.N (N7)) u_l8 (.w_i (l7), .en_i (1'b1), .w_o (l8));
  end else begin : g_p8
    assign l8 = l7;
  end
  if (N8 > 2) begin : g_l9
    udplb_csa_level #(.N (N8)) u_l9 (.w_i (l8), .en_i (1'b1), .w_o (l9));
  end else begin : g_p9
    assign l9 = l8;
  end

  assign pair_o = 32'(l9);
endmodule
