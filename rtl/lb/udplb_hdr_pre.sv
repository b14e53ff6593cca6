// Beside stage S6 of udplb_top: the part of udplb_hdr_sum's checksums that S6 can already form (branch udp25,
// issue 27 item 2: S7's trees over up to 43 words were 14 levels from s6_q, 9 in the trees). Every word of a
// checksum that depends neither on the member entry (read by S7) nor on the bytes after layer 4 (taken out in
// S6 by l4_window, several levels deep) is known from s5_q: the header bytes, the parse and the context fields
// the checksums read (kind, uc_ip, uc_mac: S6 changes only the reason and the member). Each case's such words
// are reduced here to a pair, registered beside s6_q (s6_pre_q) on the same advance; udplb_hdr_sum adds the
// pair to the late words. The end-around-carry sum of a list of words does not depend on the grouping, and a
// pair is (0, 0) only if all its words are 0, so the sums S8 folds are the same (docs/lb-microarchitecture.md
// "udplb_hdr_calc depth"). Combinational.
module udplb_hdr_pre
(
  input  udplb_pkg::uparse_t                   p_i,
  input  logic [8*udplb_pkg::UWindowBytes-1:0] hw_i,   // the frame's first bytes, VLAN tag taken out
  input  udplb_pkg::uctx_t                     c_i,    // the context S6 holds (s5_q's)
  output udplb_pkg::uhpre_t                    pre_o
);
  // Each tree takes 15 or 32 words (the widths the 48-word tree's levels already have).
  logic [15*16-1:0]  f4, e4, ip;
  logic [32*16-1:0]  f6, e6, nd;
  logic [127:0]      src_old, dst_old;
  logic [31:0]       pf4, pf6, pe4, pe6, pnd, pip;
  logic [11:0]       tl4;  // the IPv4 total length's upper 12 bits

  function automatic logic [15:0] b16(logic [8*udplb_pkg::UWindowBytes-1:0] w, int unsigned off);
    b16 = nt_pkg::win_b16(w, off);
  endfunction

  always_comb begin
    f4      = '0;
    f6      = '0;
    e4      = '0;
    e6      = '0;
    nd      = '0;
    ip      = '0;
    src_old = {nt_pkg::win_b64(hw_i, 22), nt_pkg::win_b64(hw_i, 30)};
    dst_old = {nt_pkg::win_b64(hw_i, 38), nt_pkg::win_b64(hw_i, 46)};

    // Forwarded UDP: the pseudo header's old addresses out, ours in (udplb_hdr_sum adds the member's
    // address, the lengths, the old port and checksum, the LB header's words).
    for (int i = 0; i < 2; i++) begin
      f4[16*i+:16]     = ~b16(hw_i, 26 + 2 * i);
      f4[16*(2+i)+:16] = ~b16(hw_i, 30 + 2 * i);
      f4[16*(4+i)+:16] = c_i.uc_ip[16*(1-i)+:16];
    end
    for (int i = 0; i < 8; i++) begin
      f6[16*i+:16]      = ~src_old[16*i+:16];
      f6[16*(8+i)+:16]  = ~dst_old[16*i+:16];
      f6[16*(16+i)+:16] = c_i.uc_ip[16*i+:16];
    end

    // ICMPv4 echo reply: the old destination out, our address in, a 0xffff word for the words that go out
    // and back in (udplb_hdr_sum adds the type/code and checksum words out).
    e4[0+:16]  = ~b16(hw_i, 30);
    e4[16+:16] = ~b16(hw_i, 32);
    e4[32+:16] = c_i.uc_ip[31:16];
    e4[48+:16] = c_i.uc_ip[15:0];
    e4[64+:16] = 16'hffff;

    // ICMPv6 echo reply: the old destination, type/code and checksum out, our address and 0x8100 in.
    for (int i = 0; i < 8; i++) begin
      e6[16*i+:16]     = ~dst_old[16*i+:16];
      e6[16*(8+i)+:16] = c_i.uc_ip[16*i+:16];
    end
    e6[16*16+:16] = ~b16(hw_i, 54);
    e6[16*17+:16] = ~b16(hw_i, 56);
    e6[16*18+:16] = 16'h8100;

    // Neighbour advertisement from scratch (udplb_hdr_sum: the late word, S8 adds it): pseudo header (ours,
    // the solicitation's source, length 32, next header), type/code 0x8800, target, option 0x0201 and our MAC.
    for (int i = 0; i < 8; i++) begin
      nd[16*i+:16]      = c_i.uc_ip[16*i+:16];
      nd[16*(8+i)+:16]  = src_old[16*i+:16];
      nd[16*(16+i)+:16] = p_i.nd_target[16*i+:16];
    end
    for (int i = 0; i < 3; i++) nd[16*(24+i)+:16] = c_i.uc_mac[16*i+:16];
    nd[16*27+:16] = {8'd0, nt_pkg::win_b8(hw_i, 20)};
    nd[16*28+:16] = 16'd32 + 16'h8800 + 16'h0201;

    // IPv4 header: the old TTL/protocol and checksum words and the old addresses out, the TTL/protocol word
    // as parsed and our address in (udplb_hdr_sum adds the length pair and the member's address).
    ip[0+:16]  = ~b16(hw_i, 22);
    ip[16+:16] = ~b16(hw_i, 24);
    for (int i = 0; i < 2; i++) begin
      ip[16*(2+i)+:16] = ~b16(hw_i, 26 + 2 * i);
      ip[16*(4+i)+:16] = ~b16(hw_i, 30 + 2 * i);
      ip[16*(6+i)+:16] = c_i.uc_ip[16*(1-i)+:16];
    end
    ip[16*8+:16] = {p_i.ttl, nt_pkg::win_b8(hw_i, 23)};
  end

  udplb_csum_tree #(.N (15)) u_f4 (.w_i (f4), .en_i (1'b1), .pair_o (pf4));
  udplb_csum_tree #(.N (32)) u_f6 (.w_i (f6), .en_i (1'b1), .pair_o (pf6));
  udplb_csum_tree #(.N (15)) u_e4 (.w_i (e4), .en_i (1'b1), .pair_o (pe4));
  udplb_csum_tree #(.N (32)) u_e6 (.w_i (e6), .en_i (1'b1), .pair_o (pe6));
  udplb_csum_tree #(.N (32)) u_nd (.w_i (nd), .en_i (1'b1), .pair_o (pnd));
  udplb_csum_tree #(.N (15)) u_ip (.w_i (ip), .en_i (1'b1), .pair_o (pip));

  // The IPv4 total length (bytes 16, 17) under 16: its upper 12 bits 0.
  assign tl4 = 12'(b16(hw_i, 16) >> 4);
  always_comb begin
    pre_o          = '0;
    pre_o.f4       = pf4;
    pre_o.f6       = pf6;
    pre_o.e4       = pe4;
    pre_o.e6       = pe6;
    pre_o.nd       = pnd;
    pre_o.ip       = pip;
    pre_o.tl4_zero = tl4 == '0;
  end

  // The checksums read only these fields of the parse and the context.
  logic unused_in;
  assign unused_in = ^{p_i, c_i};
endmodule
