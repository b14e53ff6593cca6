// The part of a request's parse that depends on its first beat alone (bytes 0..63: Ethernet, IP, UDP and the
// BTH's opcode and flags, for both IP families), computed as that beat is received and registered per receive
// slot by rdma_top; rdma_parser finishes the parse from these registers, the frame length, the responder and
// the header window (docs/rdma-microarchitecture.md "Parser depth"). No cycle is added: the first beat is
// received at least one cycle before its frame is parsed. Together with rdma_parser the same request_t as
// the one-module parser for every input (a Yosys miter proof, docs/synthesis.md).
module rdma_parse_pre
(
  input  logic [nt_pkg::StreamBits-1:0] beat_i,  // the first beat, byte 0 in bits 7:0
  output rdma_pkg::pre_t                pre_o
);

  function automatic int unsigned ext_len(logic [7:0] opcode);
    unique case (opcode)
      8'h06, 8'h0a, 8'h0c: ext_len = 16;
      8'h0b: ext_len = 20;
      8'h03, 8'h05, 8'h09: ext_len = 4;
      8'h13, 8'h14: ext_len = 28;
      8'h0d, 8'h0f, 8'h10, 8'h11: ext_len = 4;
      8'h12: ext_len = 12;
      default: ext_len = 0;
    endcase
  endfunction

  // The extension headers' length in 4-byte units (every length in ext_len is a multiple of 4), so that
  // ext_len + pad = {ext_q, pad} (at most 28 + 3 = 31) with no adder.
  function automatic logic [2:0] ext_q(logic [7:0] opcode);
    ext_q = 3'(ext_len(opcode) / 4);
  endfunction

  // Whether a + b == c (17 bits): a + b + ~c (carry-save: s, k) is all ones exactly when a + b == c, and a sum
  // s + k is all ones exactly when s ^ k is (no carry anywhere); so no carry chain, one level and an AND tree.
  function automatic logic add_eq(logic [16:0] a, logic [16:0] b, logic [16:0] c);
    logic [16:0] y, s, k;
    y = ~c;
    s = a ^ b ^ y;
    k = ((a & b) | (a & y) | (b & y)) << 1;
    add_eq = &(s ^ k);
  endfunction

  // a - b - n (16 bits, n a constant) as one carry chain: the carry-save sum of a, ~b and 1 - n.
  function automatic logic [15:0] sub2(logic [15:0] a, logic [15:0] b, logic [15:0] n);
    logic [15:0] y, c, s, k;
    y = ~b;
    c = 16'd1 - n;
    s = a ^ y ^ c;
    k = ((a & y) | (a & c) | (y & c)) << 1;
    sub2 = s + k;
  endfunction

  function automatic logic bad_op(logic [7:0] op);
    bad_op = !rdma_pkg::lt_c({8'd0, op}, 16'h15) && op != 8'h81;
  endfunction

  logic [nt_pkg::WindowBits-1:0] w;
  logic [15:0] et, frag, ip4_len, ip6_len;
  logic [7:0]  ver, op4, op6, fl4, fl6;
  logic        is4, is6, ver4, ver6, oth4, oth6, s2_bad4, s2_bad6;
  logic [4:0]  xp4, xp6;      // ext_len + pad = {ext_q, pad}
  logic [31:0] sh4, sh6;      // sh4[x]: ip4_len < 44 + x; sh6[x]: ip6_len < 24 + x (x = ext_len + pad)
  logic [15:0] plen4, plen6;
  rdma_pkg::pre_t p;

  always_comb begin
    w       = {{(nt_pkg::WindowBits - nt_pkg::StreamBits){1'b0}}, beat_i};
    et      = nt_pkg::win_b16(w, 12);
    frag    = nt_pkg::win_b16(w, 20);
    ver     = nt_pkg::win_b8(w, 14);
    is4     = et == 16'h0800;
    is6     = et == 16'h86dd;
    ip4_len = nt_pkg::win_b16(w, 16);
    ip6_len = nt_pkg::win_b16(w, 18);
    // stage 1 without the frame length
    ver4    = ver == 8'h45;
    ver6    = ver[7:4] == 4'd6;
    oth4    = !ver4 || rdma_pkg::lt_c(ip4_len, 16'd44) || frag[13:0] != '0 || nt_pkg::win_b8(w, 23) != 8'd17;
    oth6    = !ver6 || nt_pkg::win_b8(w, 20) != 8'd17 || rdma_pkg::lt_c(ip6_len, 16'd24);
    // stage 2: UDP port and length, BTH flags and opcode, data length >= pad
    op4     = nt_pkg::win_b8(w, 34 + 8);
    op6     = nt_pkg::win_b8(w, 54 + 8);
    fl4     = nt_pkg::win_b8(w, 34 + 9);
    fl6     = nt_pkg::win_b8(w, 54 + 9);
    xp4     = {ext_q(op4), fl4[5:4]};
    xp6     = {ext_q(op6), fl6[5:4]};
    // the least IP length of each ext + pad compared at once, the opcode and pad choosing one result
    for (int x = 0; x < 32; x++) begin
      sh4[x] = rdma_pkg::lt_c(ip4_len, 16'(44 + x));
      sh6[x] = rdma_pkg::lt_c(ip6_len, 16'(24 + x));
    end
    s2_bad4 = nt_pkg::win_b16(w, 34 + 2) != 16'(nt_pkg::RdmaUdpPort) ||
              !add_eq(17'(nt_pkg::win_b16(w, 34 + 4)), 17'd20, 17'(ip4_len)) || fl4[3:0] != 4'd0 ||
              bad_op(op4) || sh4[xp4];
    s2_bad6 = nt_pkg::win_b16(w, 54 + 2) != 16'(nt_pkg::RdmaUdpPort) ||
              nt_pkg::win_b16(w, 54 + 4) != ip6_len || fl6[3:0] != 4'd0 || bad_op(op6) || sh6[xp6];
    plen4   = sub2(ip4_len, 16'(xp4), 16'd44);
    plen6   = sub2(ip6_len, 16'(xp6), 16'd24);

    p           = '0;
    p.is4       = is4;
    p.is6       = !is4 && is6;
    p.ver_ok    = is4 ? ver4 : ver6;
    p.oth       = is4 ? oth4 : oth6;
    p.s2_bad    = is4 ? s2_bad4 : s2_bad6;
    p.frame_end = is4 ? 17'd14 + 17'(ip4_len) : 17'd54 + 17'(ip6_len);
    p.opcode    = is4 ? op4 : op6;
    p.pad       = is4 ? fl4[5:4] : fl6[5:4];
    p.hdr_len   = is4 ? 16'(54 + ext_len(op4)) : 16'(74 + ext_len(op6));  // l4 + BTH (20) + ext
    p.plen      = is4 ? plen4 : plen6;
  end

  // The window read in part (the MACs and addresses are rdma_parser's, the second beat is zero here).
  logic unused_bits;
  assign unused_bits = ^{w, frag[15:14], fl4[7:6], fl6[7:6]};

  assign pre_o = p;
endmodule
