// udplb's parse verdict for one path, in two parts (udplb_parser instantiates both per path and ORs them):
// Udp = 1: e0 (the first beat's terms and the ICMPv6 body's, udplb_parser's path_err0) or the UDP (+ LB header)
// checks (u4 / u6: udplb_parse_pre's UDP over IPv4 / IPv6) or layer 4 past the frame's end; Udp = 0: the
// ICMPv4 checks (i4) or layer 4 past the frame's end. The candidate the IHL selects (su / si, u6 at 54) comes
// as its bytes and keep bits (udplb_l4_slice), so each check is formed once. Modules of their own so that the
// mapper forms each OR of AND terms by itself (about 30 inputs), not merged with the other part or the
// parser's other outputs into wider functions (issue 27: <= 12 levels; in one module ABC mapped the verdict
// 13-15 levels deep, docs/synthesis.md "udplb_parser after branch uparse18"; both parts in one module 8, apart
// 6 and 7, and e0 comes in so that the parser's last gate is one LUT after them: "... after branch uparse19").
// Combinational; the checks are udplb_pkg::udp_err / icmp4_err, as udplb_parser's flags use them.
module udplb_l4_verdict #(
  parameter bit Udp = 1'b1  // 1: e0 and the UDP part; 0: the ICMPv4 part
) (
  // Each part reads some of the ports only (Udp = 1: not i4 nor g c = 4, 32; Udp = 0: not e0, u4, u6, g c = 12).
  // verilator lint_off UNUSEDSIGNAL
  input  logic [8*24-1:0] s_i,   // bytes l4 .. l4 + 23 of the chosen candidate (udplb_l4_slice)
  input  logic [5:0]      g_i,   // its "hl >= l4 + c" for c = 0, 4, 8, 12, 24, 32
  input  logic            e0_i,  // the path's verdict but for layer 4 (udplb_parser's path_err0)
  input  logic            u4_i,  // UDP over IPv4 (= |su: hdr4_ok means IHL >= 5)
  input  logic            i4_i,  // ICMPv4 (= |si)
  input  logic            u6_i,  // UDP over IPv6 (l4 = 54: IHL 10's candidate)
  // verilator lint_on UNUSEDSIGNAL
  output logic            err_o
);
  // At most one of u4, i4, u6 is set, and s_i / g_i are its candidate's: main's OR over the candidates of
  // su[h] & (short[h] | udp_err[h]) etc. is that candidate's term.
  if (Udp) begin : g_udp
    assign err_o = e0_i || (u4_i && !g_i[0]) ||
                   ((u4_i || u6_i) && udplb_pkg::udp_err(s_i, g_i[2], g_i[3], g_i[4]));
  end else begin : g_icmp
    assign err_o = i4_i && (!g_i[0] || udplb_pkg::icmp4_err(s_i, g_i[1], g_i[2], g_i[4], g_i[5]));
  end
endmodule
