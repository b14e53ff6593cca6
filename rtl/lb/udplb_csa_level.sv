// One level of a one's-complement carry-save tree (udplb_csum_tree): N 16-bit words (word k in bits
// 16k+15:16k) to 2 (N / 3) + N mod 3, each triple by nt_csum_pkg::csa3 (one LUT a bit), the N mod 3 words left
// over passed on last; all outputs 0 unless en_i. A module of its own so that the mapper keeps one LUT a level
// (docs/synthesis.md "udplb_hdr_calc after branch hdr17": inside one module ABC merges levels into wide
// LUTs, a LUT6 and up to three MUXF levels each).
module udplb_csa_level #(
  parameter int unsigned N = 48
) (
  input  logic [N*16-1:0]                   w_i,
  input  logic                              en_i,
  output logic [(2*(N/3)+N%3)*16-1:0]       w_o
);
  localparam int unsigned T = N / 3;
  localparam int unsigned R = N % 3;
  logic [(2*T+R)*16-1:0] w;

  for (genvar i = 0; i < T; i++) begin : g_triple
    assign w[32*i+:32] = nt_csum_pkg::csa3(w_i[48*i+:16], w_i[48*i+16+:16], w_i[48*i+32+:16]);
  end
  if (R > 0) begin : g_rest
    assign w[32*T+:16*R] = w_i[48*T+:16*R];
  end

  assign w_o = {(2*T+R)*16{en_i}} & w;
endmodule
