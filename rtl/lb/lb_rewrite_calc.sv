// New header fields and incrementally updated checksums of a forwarded packet (docs/lb.md, "Rewrite").
// The member-independent checksum terms arrive already summed in the carry (lb_pkg::carry_of); this adds
// the member's address and port. Computes only while en_i (a first beat is in S5), else all zeros.
module lb_rewrite_calc
(
  input  logic          en_i,
  input  lb_pkg::carry_t        info_i,
  input  lb_pkg::member_entry_t member_i,
  output lb_pkg::rewrite_t      rw_o
);
  lb_pkg::rewrite_t    rw;
  logic [15:0] dst, ip_d, udp_d;

  always_comb begin
    rw    = '0;
    dst   = '0;
    ip_d  = '0;
    udp_d = '0;
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
      // Destination address words (IPv4: the low two), shared by the IP header and the pseudo-header.
      dst = info_i.dst_old;
      for (int i = 0; i < 8; i++) begin
        if (info_i.is_v6 || i >= 6) dst = lb_pkg::ones_add(dst, rw.ip_dst[127-16*i-:16]);
      end
      if (!info_i.is_v6) begin
        ip_d       = lb_pkg::ones_add(dst, info_i.ip_fix);
        rw.ip_csum = lb_pkg::csum_apply(info_i.ip_csum, ip_d);
      end
      if (!info_i.is_v6 && info_i.udp_csum == '0) begin
        rw.udp_csum = '0;  // the IPv4 sender sent no checksum
      end else begin
        udp_d       = lb_pkg::ones_add(lb_pkg::ones_add(dst, info_i.udp_fix), rw.udp_port);
        rw.udp_csum = lb_pkg::csum_apply(info_i.udp_csum, udp_d);
        if (rw.udp_csum == '0) rw.udp_csum = 16'hffff;  // RFC 768
      end
    end
  end

  // The lookups already used these.
  logic unused_in;
  assign unused_in = ^{info_i.slot, member_i.valid, member_i.drop, member_i.tag};

  assign rw_o = rw;
endmodule
