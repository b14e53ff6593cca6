// The layer-4 bytes of one udplb parse path at the candidate its IHL selects (udplb_parser instantiates one
// per path): l4h (udplb_parse_pre's su | si, the protocol x IHL one-hots, bit h - 5 for IHL h = 5..15, and
// IPv6's UDP at bit 5, l4 = 54) picks the slice l4 .. l4 + 23 (l4 = 14 + 4 h) and its keep bits "hl >= l4 + c",
// an AND/OR of one-hot terms (at most one bit of l4h is set). The checks then run once, on this
// slice, in udplb_l4_verdict and udplb_parser (the slot selector), not once per candidate before the
// selection. A module of its own so that the mapper forms the selection by itself (a cut), not merged into the
// checks' wide functions (issue 27: <= 12 levels; docs/synthesis.md "udplb_parser after branch uparse19").
// Combinational. Only the bytes a check or the slot selector reads are formed; the others are zero.
module udplb_l4_slice
(
  input  logic [8*udplb_pkg::UWindowBytes-1:0] hw_i,  // the path's frame (the tag taken out when tagged)
  input  logic [udplb_pkg::UWindowBytes-1:0]   hk_i,  // its keep (bit c: hl > c)
  input  logic [10:0]                          l4h_i, // the candidate in use, one-hot (or none): bit h - 5
  output logic [8*24-1:0]                      s_o,   // bytes l4 .. l4 + 23 of the chosen candidate (byte r in 8r+7:8r)
  output logic [5:0]                           g_o    // "hl >= l4 + c" for c = 0, 4, 8, 12, 24, 32 (bit 0: c = 0)
);
  // The bytes read: ICMPv4 type, code (0, 1) and the embedded protocol (13); UDP's destination port (2, 3), the
  // LB header's magic (8, 9), version (10) and the two slot fields (12, 13; 22, 23).
  localparam logic [23:0] Read = 24'b1100_0000_0011_0111_0000_1111;

  always_comb begin
    s_o   = '0;
    g_o   = '0;
    for (int unsigned h = 5; h < 16; h++) begin
      for (int unsigned r = 0; r < 24; r++) begin
        if (Read[r]) s_o[8*r+:8] = s_o[8*r+:8] | ({8{l4h_i[h-5]}} & hw_i[8*(14+4*h+r)+:8]);
      end
      g_o = g_o | ({6{l4h_i[h-5]}} & {hk_i[45+4*h], hk_i[37+4*h], hk_i[25+4*h], hk_i[21+4*h], hk_i[17+4*h],
                                   hk_i[13+4*h]});
    end
  end
endmodule
