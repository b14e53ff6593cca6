// udplb's parse verdict for one path (udplb_parser instantiates one per path): e0 (the first beat's terms and
// the ICMPv6 body's, udplb_parser's path_err0) or layer 4's: the UDP (+ LB header) or ICMPv4 checks of the
// candidate the IHL selects (u4 / i4: udplb_parse_pre's IPv4 UDP / ICMPv4, whose one-hots su / si chose it),
// IPv6's UDP at 54 (u6), or layer 4 past the frame's end. The candidate's bytes and keep bits come selected
// (udplb_l4_slice), so each check is formed once. A module of its own so that the mapper forms this one OR of
// AND terms by itself, not merged into the parser's other outputs (issue 27: <= 12 levels; in one module ABC
// mapped the verdict 13-15 levels deep, docs/synthesis.md "udplb_parser after branch uparse18"); e0 comes in so
// that the parser's last gate is one LUT after it (docs/synthesis.md "udplb_parser after branch uparse19").
// Combinational; the checks are udplb_pkg::udp_err / icmp4_err, as udplb_parser's flags use them.
module udplb_l4_verdict
(
  input  logic [8*24-1:0] s_i,   // bytes l4 .. l4 + 23 of the chosen candidate (udplb_l4_slice)
  input  logic [5:0]      g_i,   // its "hl >= l4 + c" for c = 0, 4, 8, 12, 24, 32
  input  logic            e0_i,  // the path's verdict but for layer 4 (udplb_parser's path_err0)
  input  logic            u4_i,  // UDP over IPv4 (= |su: hdr4_ok means IHL >= 5)
  input  logic            i4_i,  // ICMPv4 (= |si)
  input  logic            u6_i,  // UDP over IPv6 (l4 = 54: IHL 10's candidate)
  output logic            err_o
);
  // At most one of u4, i4, u6 is set, and s_i / g_i are its candidate's: main's OR over the candidates of
  // su[h] & (short[h] | udp_err[h]) etc. is that candidate's term.
  assign err_o = e0_i || ((u4_i || i4_i) && !g_i[0]) ||
                 ((u4_i || u6_i) && udplb_pkg::udp_err(s_i, g_i[2], g_i[3], g_i[4])) ||
                 (i4_i && udplb_pkg::icmp4_err(s_i, g_i[1], g_i[2], g_i[4], g_i[5]));
endmodule
