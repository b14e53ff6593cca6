// New header fields of a forwarded packet and the terms of its new checksums (docs/lb.md, "Rewrite").
// The member-independent checksum terms arrive already reduced to a pair of words each in the carry
// (lb_pkg::carry_of); this adds the member's address and port to them, again in carry-save form
// (lb_pkg::csa_reduce: no carry chain), and leaves each checksum as a pair (sums_o) that S6 folds with one
// end-around-carry addition (lb_pkg::csum_finish). Computes only while en_i (a first beat is in S5), else
// all zeros. rw_o's checksum fields are 0 here; S6 fills them.
module lb_rewrite_calc
(
  input  logic          en_i,
  input  lb_pkg::carry_t        info_i,
  input  lb_pkg::member_entry_t member_i,
  output lb_pkg::rewrite_t      rw_o,
  output lb_pkg::csum_pair_t    sums_o
);
  lb_pkg::rewrite_t   rw;
  lb_pkg::csum_pair_t sums;
  logic [18*16-1:0]   w, v;
  logic [31:0]        udp_pr, ip_pr;

  always_comb begin
    rw     = '0;
    sums   = '0;
    w      = '0;
    v      = '0;
    udp_pr = '0;
    ip_pr  = '0;
    if (en_i) begin
      rw.reason  = info_i.reason;
      rw.forward = info_i.reason == lb_pkg::reason_t'(nt_pkg::LbDropNone);
    end
    if (rw.forward) begin
      rw.is_v6    = info_i.is_v6;
      rw.l4_off   = info_i.l4_off;
      rw.mac_da   = member_i.mac;
      rw.mac_sa   = info_i.mac;
      rw.ip_dst   = info_i.is_v6 ? member_i.ip : {96'd0, member_i.ip[31:0]};
      rw.ip_len   = info_i.ip_len - 16'(nt_pkg::LbHeaderBytes);
      rw.udp_port = member_i.port;
      rw.udp_len  = info_i.udp_len - 16'(nt_pkg::LbHeaderBytes);
      // UDP: the carried pair, the new destination address words (IPv4: the low two; the others are 0), the
      // new port. IPv4 header: the carried pair and the new address.
      for (int i = 0; i < 8; i++) w[16*i+:16] = rw.ip_dst[16*i+:16];
      w[16*8+:16]  = rw.udp_port;
      w[16*9+:16]  = info_i.u_a;
      w[16*10+:16] = info_i.u_b;
      udp_pr       = lb_pkg::csa_reduce(w);
      v[0+:16]     = info_i.i_a;
      v[16+:16]    = info_i.i_b;
      v[32+:32]    = rw.ip_dst[31:0];
      ip_pr        = lb_pkg::csa_reduce(v);
      sums.udp_none = !info_i.is_v6 && info_i.udp_zero;
      sums.udp_a    = udp_pr[31:16];
      sums.udp_b    = udp_pr[15:0];
      sums.ip_a     = ip_pr[31:16];
      sums.ip_b     = ip_pr[15:0];
    end
  end

  // The lookups already used these.
  logic unused_in;
  assign unused_in = ^{info_i.slot, member_i.valid, member_i.drop, member_i.tag};

  assign rw_o   = rw;
  assign sums_o = sums;
endmodule
