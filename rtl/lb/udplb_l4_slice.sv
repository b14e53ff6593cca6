// The layer-4 bytes of one udplb parse path at the candidate its IHL selects (udplb_parser instantiates one
// per path): l4i (udplb_parse_pre's index: the IHL for UDP or ICMPv4 over IPv4, 10 for UDP over IPv6, whose
// layer 4 is at 54) picks the slice l4 .. l4 + 23 (l4 = 14 + 4 l4i) and its keep bits "hl >= l4 + c", each a
// 16:1 multiplexer by the 4 index bits (two LUT6 levels). The checks then run once, on this slice, in
// udplb_l4_verdict and udplb_parser (the slot selector), not once per candidate before a selection. The
// consumers gate every use with u4 / i4 / u6, so what the slice holds for another frame is never read. A
// module of its own so that the mapper forms the multiplexers by themselves (a cut), not merged into the
// checks' wide functions (issue 27: <= 12 levels; docs/synthesis.md "udplb_parser after branch uparse19").
// Combinational. Only the bytes a check or the slot selector reads are formed; the others are zero.
module udplb_l4_slice
(
  input  logic [8*udplb_pkg::UWindowBytes-1:0] hw_i,   // the path's frame (the tag taken out when tagged)
  input  logic [udplb_pkg::UWindowBytes-1:0]   hk_i,   // its keep (bit c: hl > c)
  input  logic [3:0]                           l4i_i,  // the candidate: l4 = 14 + 4 l4i
  output logic [8*24-1:0]                      s_o,    // bytes l4 .. l4 + 23 (byte r in 8r+7:8r)
  output logic [5:0]                           g_o     // "hl >= l4 + c" for c = 0, 4, 8, 12, 24, 32 (bit 0: c = 0)
);
  // The bytes read: ICMPv4 type, code (0, 1) and the embedded protocol (13); UDP's destination port (2, 3), the
  // LB header's magic (8, 9), version (10) and the two slot fields (12, 13; 22, 23).
  localparam logic [23:0] Read = 24'b1100_0000_0011_0111_0000_1111;

  always_comb begin
    s_o = '0;
    for (int unsigned r = 0; r < 24; r++) begin
      if (Read[r]) s_o[8*r+:8] = hw_i[8*(14+r) + 32*l4i_i +: 8];
    end
    g_o = {hk_i[45 + 4*l4i_i], hk_i[37 + 4*l4i_i], hk_i[25 + 4*l4i_i], hk_i[21 + 4*l4i_i], hk_i[17 + 4*l4i_i],
           hk_i[13 + 4*l4i_i]};
  end
endmodule
