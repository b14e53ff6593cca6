// Beside stage S7 of udplb_top: what S8 (udplb_hdr_calc) needs of a frame's checksums and new L4 fields,
// formed a stage ahead from what S7 holds (the parse, the header bytes, the context, the member entry read
// this cycle, the bytes after layer 4 that S6 took out, l4_i, and the pairs S6 formed, pre_i) and registered
// beside s7_q (docs/lb-microarchitecture.md "udplb_hdr_calc depth"). Combinational.
// Every checksum is the P4 program's chain (docs/lb-udplb.md "Checksum arithmetic") with the words that
// cancel taken out (a word and its complement: their sum is 0xffff, 0 in one's complement; where the chain
// would otherwise lose the "not all zero" it had, a 0xffff word stands for them), each length pair ~x, x - 16
// as one constant word, the rest reduced by a carry-save tree to a pair (udplb_csum_tree) that S8 adds with
// one carry chain. The words known in S6 arrive as one pair per case (udplb_hdr_pre, since branch udp25);
// the trees here add to it only the member's address, the lengths (the member may keep the LB header) and
// the bytes after layer 4. The forwarded frame's new UDP port and the ND advertisement's one late word are
// not in its pair: S8 adds them (l4_add).
module udplb_hdr_sum
(
  input  udplb_pkg::uparse_t                   p_i,
  input  logic [8*udplb_pkg::UWindowBytes-1:0] hw_i,   // the frame's first bytes, VLAN tag taken out
  input  udplb_pkg::ul4_t                      l4_i,   // the bytes after layer 4 (S6, udplb_pkg::l4_window)
  input  udplb_pkg::uctx_t                     c_i,    // the context S7 holds (its member not yet set)
  input  udplb_pkg::umember_t                  mem_i,  // the member entry S7 reads
  input  udplb_pkg::uhpre_t                    pre_i,  // each case's words known in S6, as a pair (s6_pre_q)
  output udplb_pkg::usum_t                     s_o
);
  udplb_pkg::usum_t                   s;
  logic [8*udplb_pkg::UL4Bytes-1:0]   l4w;
  logic [15*16-1:0]                   f4, e4, ip;  // the trees' widths: 15 words (six levels), 22 (seven)
  logic [22*16-1:0]                   f6;
  logic [31:0]                        pf4, pf6, pe4, pe6, pnd;
  logic [15:0]                        ulen, pmask, ulen2, iplen_old;
  logic [31:0]                        pip;
  logic [127:0]                       src_old;
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
    ip      = '0;
    l4w     = l4_i.w;
    keep    = mem_i.keep;
    src_old = {nt_pkg::win_b64(hw_i, 22), nt_pkg::win_b64(hw_i, 30)};
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

    // Forwarded UDP (only when its received checksum is not 0): S6's pair (the pseudo header's old addresses
    // out, ours in), the member's address in, the UDP and pseudo-header lengths (twice the pair), the old port
    // and checksum out, the LB header's words out unless the member keeps it (S8 adds the new port).
    ulen2 = len_term(l4_i.ulen_short, keep, 1'b1);
    f4[0+:32]     = pre_i.f4;
    f4[16*2+:16]  = ulen2;
    f4[16*3+:16]  = ~l4b16(l4w, 2);
    f4[16*4+:16]  = ~l4b16(l4w, 6);
    for (int i = 0; i < 8; i++) f4[16*(5+i)+:16] = ~l4b16(l4w, 8 + 2 * i);
    // A kept LB header: its words go out and back in, a net 0.
    if (keep) for (int i = 0; i < 8; i++) f4[16*(5+i)+:16] = '0;
    for (int i = 0; i < 2; i++) f4[16*(13+i)+:16] = mem_i.ip[16*(1-i)+:16];
    f6[0+:32]        = pre_i.f6;
    f6[16*2+:16*11]  = f4[16*2+:16*11];
    for (int i = 0; i < 8; i++) f6[16*(13+i)+:16] = mem_i.ip[16*i+:16];
    f6[16*21+:16]    = '0;

    // ICMPv4 echo reply: S6's pair, the type/code and checksum words out.
    e4[0+:32]  = pre_i.e4;
    e4[32+:16] = ~l4b16(l4w, 0);
    e4[48+:16] = ~l4b16(l4w, 2);

    // Neighbour advertisement: its words are all in S6's pair but the destination's 0xff02 + 0x0001 when the
    // solicitation's source is unspecified (all zero), and the flags word (solicited: 0x4000). Both depend on
    // the 128-bit zero test, so they join the pair afterwards (S8 adds it with the pair: l4_add).
    sol     = src_old != '0;
    nd_late = sol ? 16'h4000 : 16'hff03;
    s.l4_add = ({16{fwd}} & s.dport) | ({16{en_nd}} & nd_late);

    // IPv4 header of a forwarded frame: S6's pair (the old TTL/protocol and checksum words and the old
    // addresses out, the TTL/protocol word as parsed and our address in), the total length pair and the
    // member's address in (S8 adds the decrement's correction: the TTL rule is read there).
    s.ttl_zero = p_i.ttl == '0;
    ip[0+:32]  = pre_i.ip;
    ip[32+:16] = len_term(pre_i.tl4_zero, keep, 1'b0);
    for (int i = 0; i < 2; i++) ip[16*(3+i)+:16] = mem_i.ip[16*(1-i)+:16];
  end

  udplb_csum_tree #(.N (15)) u_f4 (.w_i (f4), .en_i (en_f4), .pair_o (pf4));
  udplb_csum_tree #(.N (22)) u_f6 (.w_i (f6), .en_i (en_f6), .pair_o (pf6));
  udplb_csum_tree #(.N (15)) u_e4 (.w_i (e4), .en_i (en_e4), .pair_o (pe4));
  udplb_csum_tree #(.N (15)) u_ip (.w_i (ip), .en_i (en_f4), .pair_o (pip));
  assign pe6 = {32{en_e6}} & pre_i.e6;  // all of its words are in S6's pair
  assign pnd = {32{en_nd}} & pre_i.nd;

  // One pair per case, zero unless it is the frame's (en_i): their OR is the frame's.
  always_comb begin
    s_o    = s;
    s_o.l4 = pf4 | pf6 | pe4 | pe6 | pnd;
    s_o.ip = pip;
  end

  // The lookups used the rest of the parse, the context and the entry.
  logic unused_in;
  assign unused_in = ^{p_i, c_i, mem_i, pre_i};
endmodule
