// Beside stage S7 of udplb_top: what S8 (udplb_hdr_calc) needs of a frame's checksums and new L4 fields,
// formed a stage ahead from what S7 holds (the parse, the header bytes, the context, the member entry read
// this cycle, and the bytes after layer 4 that S6 took out, l4_i) and registered beside s7_q
// (docs/lb-microarchitecture.md "udplb_hdr_calc depth"). Combinational.
// Every checksum is the P4 program's chain (docs/lb-udplb.md "Checksum arithmetic") with the words that
// cancel taken out (a word and its complement: their sum is 0xffff, 0 in one's complement; where the chain
// would otherwise lose the "not all zero" it had, a 0xffff word stands for them), each length pair ~x, x - 16
// as one constant word, the rest reduced by a carry-save tree to a pair (udplb_csum_tree) that S8 adds with
// one carry chain. The forwarded frame's new UDP port and the ND advertisement's one late word are not in
// its pair: S8 adds them (l4_add).
module udplb_hdr_sum
(
  input  udplb_pkg::uparse_t                   p_i,
  input  logic [8*udplb_pkg::UWindowBytes-1:0] hw_i,   // the frame's first bytes, VLAN tag taken out
  input  udplb_pkg::ul4_t                      l4_i,   // the bytes after layer 4 (S6, udplb_pkg::l4_window)
  input  udplb_pkg::uctx_t                     c_i,    // the context S7 holds (its member not yet set)
  input  udplb_pkg::umember_t                  mem_i,  // the member entry S7 reads
  output udplb_pkg::usum_t                     s_o
);
  udplb_pkg::usum_t                   s;
  logic [8*udplb_pkg::UL4Bytes-1:0]   l4w;
  logic [48*16-1:0]                   f4, f6, e4, e6, nd, ip;
  logic [31:0]                        pf4, pf6, pe4, pe6, pnd;
  logic [15:0]                        ulen, pmask, ulen2, iplen_old;
  logic [11:0]                        tl4;  // the IPv4 total length's upper 12 bits
  logic [31:0]                        pip;
  logic [127:0]                       src_old, dst_old;
  logic [15:0]                        nd_late;
  logic                               fwd, rep, sol, keep, en_f4, en_f6, en_e4, en_e6, en_nd;

  function automatic logic [15:0] b16(logic [8*udplb_pkg::UWindowBytes-1:0] w, int unsigned off);
    b16 = nt_pkg::win_b16(w, off);
  endfunction
  function automatic logic [15:0] l4b16(logic [8*udplb_pkg::UL4Bytes-1:0] w, int unsigned off);
    l4b16 = {w[8*off+:8], w[8*(off+1)+:8]};
  endfunction
  // The pair ~x, (x - 16 mod 2^16) as one word (0xffef, or 0xfff0 when x < 16), twice if `twice` (0xffdf,
  // 0xffe1), or the pair ~x, x (0xffff) when the member keeps the LB header.
  function automatic logic [15:0] len_term(logic short, logic kept, logic twice);
    len_term = kept ? 16'hffff : short ? (twice ? 16'hffe1 : 16'hfff0) : (twice ? 16'hffdf : 16'hffef);
  endfunction

  always_comb begin
    s       = '0;
    f4      = '0;
    f6      = '0;
    e4      = '0;
    e6      = '0;
    nd      = '0;
    ip      = '0;
    l4w     = l4_i.w;
    keep    = mem_i.keep;
    src_old = {nt_pkg::win_b64(hw_i, 22), nt_pkg::win_b64(hw_i, 30)};
    dst_old = {nt_pkg::win_b64(hw_i, 38), nt_pkg::win_b64(hw_i, 46)};
    // The cases as udplb_hdr_calc's: forward (IPv4 / IPv6), or a reply other than ARP (ICMPv4 echo, ICMPv6
    // echo, ND advertisement).
    fwd   = c_i.kind != udplb_pkg::KindHost && c_i.kind != udplb_pkg::KindReply;
    rep   = c_i.kind == udplb_pkg::KindReply && !p_i.arp;
    en_f4 = fwd && p_i.ipv4;
    en_f6 = fwd && !p_i.ipv4;
    en_e4 = rep && p_i.icmp4_echo;
    en_e6 = rep && !p_i.icmp4_echo && p_i.icmp6_echo;
    en_nd = rep && !p_i.icmp4_echo && !p_i.icmp6_echo;

    s.l4oh     = l4_i.oh;
    ulen       = l4b16(l4w, 4);
    s.ulen_new = keep ? ulen : ulen - 16'(nt_pkg::UdplbHeaderBytes);
    iplen_old  = p_i.ipv4 ? b16(hw_i, 16) : b16(hw_i, 18);
    s.iplen    = keep ? iplen_old : iplen_old - 16'(nt_pkg::UdplbHeaderBytes);
    s.udp_ck   = l4b16(l4w, 6) != '0;
    pmask      = mem_i.port_bits[4] ? 16'hffff : ~(16'hffff << mem_i.port_bits[3:0]);  // no carry chain
    s.dport    = mem_i.udp_base + (p_i.port_sel & pmask);

    // Forwarded UDP (only when its received checksum is not 0): the pseudo header's old addresses out and
    // the new ones in, the UDP and pseudo-header lengths (twice the pair), the old port and checksum out,
    // the LB header's words out unless the member keeps it (S8 adds the new port).
    ulen2 = len_term(l4_i.ulen_short, keep, 1'b1);
    for (int i = 0; i < 2; i++) begin
      f4[16*i+:16]      = ~b16(hw_i, 26 + 2 * i);
      f4[16*(2+i)+:16]  = ~b16(hw_i, 30 + 2 * i);
      f4[16*(4+i)+:16]  = c_i.uc_ip[16*(1-i)+:16];
      f4[16*(6+i)+:16]  = mem_i.ip[16*(1-i)+:16];
    end
    for (int i = 0; i < 8; i++) begin
      f6[16*i+:16]      = ~src_old[16*i+:16];
      f6[16*(8+i)+:16]  = ~dst_old[16*i+:16];
      f6[16*(16+i)+:16] = c_i.uc_ip[16*i+:16];
      f6[16*(24+i)+:16] = mem_i.ip[16*i+:16];
    end
    f4[16*32+:16] = ulen2;
    f4[16*33+:16] = ~l4b16(l4w, 2);
    f4[16*34+:16] = ~l4b16(l4w, 6);
    for (int i = 0; i < 8; i++) f4[16*(35+i)+:16] = ~l4b16(l4w, 8 + 2 * i);
    // A kept LB header: its words go out and back in, a net 0.
    if (keep) for (int i = 0; i < 8; i++) f4[16*(35+i)+:16] = '0;
    f6[16*32+:16*16] = f4[16*32+:16*16];

    // ICMPv4 echo reply: the old destination and the type/code and checksum words out, our address in (the
    // old source, lengths, protocol, identifier and sequence go out and back in: a 0xffff word for them).
    e4[0+:16]  = ~b16(hw_i, 30);
    e4[16+:16] = ~b16(hw_i, 32);
    e4[32+:16] = c_i.uc_ip[31:16];
    e4[48+:16] = c_i.uc_ip[15:0];
    e4[64+:16] = 16'hffff;
    e4[80+:16] = ~l4b16(l4w, 0);
    e4[96+:16] = ~l4b16(l4w, 2);

    // ICMPv6 echo reply: the old destination, type/code and checksum out, our address and 0x8100 in.
    for (int i = 0; i < 8; i++) begin
      e6[16*i+:16]     = ~dst_old[16*i+:16];
      e6[16*(8+i)+:16] = c_i.uc_ip[16*i+:16];
    end
    e6[16*16+:16] = ~b16(hw_i, 54);
    e6[16*17+:16] = ~b16(hw_i, 56);
    e6[16*18+:16] = 16'h8100;

    // Neighbour advertisement, from scratch: pseudo header (ours, the destination, length 32, next header),
    // type/code 0x8800, flags, target, the target link-layer address option (0x0201 and our MAC).
    // The destination is the solicitation's source, or ff02::1 when that is unspecified (all zero): its
    // words are the source's either way, plus 0xff02 + 0x0001 when unspecified. That word and the flags
    // word (solicited: 0x4000) depend on the 128-bit zero test, so they join the tree's pair afterwards
    // (S8 adds it with the pair: l4_add), not the tree.
    sol     = src_old != '0;
    nd_late = sol ? 16'h4000 : 16'hff03;
    s.l4_add = ({16{fwd}} & s.dport) | ({16{en_nd}} & nd_late);
    for (int i = 0; i < 8; i++) begin
      nd[16*i+:16]      = c_i.uc_ip[16*i+:16];
      nd[16*(8+i)+:16]  = src_old[16*i+:16];
      nd[16*(16+i)+:16] = p_i.nd_target[16*i+:16];
    end
    for (int i = 0; i < 3; i++) nd[16*(24+i)+:16] = c_i.uc_mac[16*i+:16];
    nd[16*27+:16] = {8'd0, nt_pkg::win_b8(hw_i, 20)};
    nd[16*28+:16] = 16'd32 + 16'h8800 + 16'h0201;

    // IPv4 header of a forwarded frame: the total length pair, the old TTL/protocol and checksum words, the
    // old addresses out, the TTL/protocol word as parsed, our address and the member's in (S8 adds the
    // decrement's correction: the TTL rule is read there).
    s.ttl_zero = p_i.ttl == '0;
    ip[16*11+:16] = {p_i.ttl, nt_pkg::win_b8(hw_i, 23)};
    tl4        = 12'(b16(hw_i, 16) >> 4);
    ip[0+:16]  = len_term(tl4 == '0, keep, 1'b0);
    ip[16+:16] = ~b16(hw_i, 22);
    ip[32+:16] = ~b16(hw_i, 24);
    for (int i = 0; i < 2; i++) begin
      ip[16*(3+i)+:16] = ~b16(hw_i, 26 + 2 * i);
      ip[16*(5+i)+:16] = ~b16(hw_i, 30 + 2 * i);
      ip[16*(7+i)+:16] = c_i.uc_ip[16*(1-i)+:16];
      ip[16*(9+i)+:16] = mem_i.ip[16*(1-i)+:16];
    end
  end

  udplb_csum_tree u_f4 (.w_i (f4), .en_i (en_f4), .pair_o (pf4));
  udplb_csum_tree u_f6 (.w_i (f6), .en_i (en_f6), .pair_o (pf6));
  udplb_csum_tree u_e4 (.w_i (e4), .en_i (en_e4), .pair_o (pe4));
  udplb_csum_tree u_e6 (.w_i (e6), .en_i (en_e6), .pair_o (pe6));
  udplb_csum_tree u_nd (.w_i (nd), .en_i (en_nd), .pair_o (pnd));
  udplb_csum_tree u_ip (.w_i (ip), .en_i (en_f4), .pair_o (pip));

  // One pair per case, zero unless it is the frame's (en_i): their OR is the frame's.
  always_comb begin
    s_o    = s;
    s_o.l4 = pf4 | pf6 | pe4 | pe6 | pnd;
    s_o.ip = pip;
  end

  // The lookups used the rest of the parse, the context and the entry.
  logic unused_in;
  assign unused_in = ^{p_i, c_i, mem_i};
endmodule
