// Stage S8 of udplb_top: the output header bytes of a frame and all its checksums (docs/lb-udplb.md
// "Processing", "Deparser order", "Checksum arithmetic"). Combinational.
// Every emitted frame is the Ethernet header followed by the tag-less layer 3 onwards (hw): an IEEE 802
// group frame as parsed, a reply or an LB frame with its fields rewritten, an ND advertisement built over
// the solicitation. hdr holds output bytes 0..lo-1; the rest of the frame is input byte p + d.
module udplb_hdr_calc
(
  input  udplb_pkg::uparse_t                   p_i,
  input  logic [8*udplb_pkg::UWindowBytes-1:0] hw_i,     // the frame's first bytes, VLAN tag taken out
  input  udplb_pkg::uctx_t                     c_i,
  input  logic                      ttl_dec_i,
  input  logic [3:0]                port_i,   // ingress port
  output udplb_pkg::uout_t                     o_o
);
  udplb_pkg::uout_t                     o;
  logic [8*udplb_pkg::UWindowBytes-1:0] hw, h;
  int unsigned               l4;
  logic [31:0]               acc;
  logic [15:0]               ck, ulen, ulen_new, dport, pmask, iplen;
  logic [47:0]               mac_sa_old, nd_mac;
  logic [127:0]              src_old, dst_old, nd_ip;
  logic [31:0]               src4_old, dst4_old;
  logic                      keep, sol;
  logic [7:0]                ttl_new;

  always_comb begin
    o          = '0;
    hw         = hw_i;
    h          = hw;
    l4         = int'(p_i.l4o);
    acc        = '0;
    ck         = '0;
    mac_sa_old = {nt_pkg::win_b32(hw, 6), nt_pkg::win_b16(hw, 10)};
    src4_old   = nt_pkg::win_b32(hw, 26);
    dst4_old   = nt_pkg::win_b32(hw, 30);
    src_old    = {nt_pkg::win_b64(hw, 22), nt_pkg::win_b64(hw, 30)};
    dst_old    = {nt_pkg::win_b64(hw, 38), nt_pkg::win_b64(hw, 46)};
    keep       = c_i.mem.keep;
    ulen       = nt_pkg::win_b16(hw, l4 + 4);
    ulen_new   = keep ? ulen : ulen - 16'(nt_pkg::UdplbHeaderBytes);
    pmask      = c_i.mem.port_bits >= 5'd16 ? 16'hffff : (16'd1 << c_i.mem.port_bits) - 16'd1;
    dport      = c_i.mem.udp_base + (p_i.port_sel & pmask);
    ttl_new    = ttl_dec_i ? p_i.ttl - 8'd1 : p_i.ttl;
    iplen      = '0;
    sol        = 1'b0;
    nd_mac     = '0;
    nd_ip      = '0;
    o.send     = c_i.reason == udplb_pkg::ureason_t'(nt_pkg::UdplbDropNone);
    o.port     = c_i.kind == udplb_pkg::KindHost ? port_i | 4'd2 : port_i;
    o.lo       = p_i.lo_host;

    if (o.send) begin
      unique case (c_i.kind)
        udplb_pkg::KindHost: ;  // headers as parsed
        udplb_pkg::KindReply: begin
          // Back to the sender, from our unicast MAC (the ND advertisement replaces the destination below).
          h[0+:48] = nt_pkg::byte_rev48(mac_sa_old);
          h[48+:48] = nt_pkg::byte_rev48(c_i.uc_mac);
          if (p_i.arp) begin
            h[8*20+:16]  = nt_pkg::byte_rev16(16'd2);
            h[8*22+:48]  = nt_pkg::byte_rev48(c_i.uc_mac);
            h[8*28+:32]  = nt_pkg::byte_rev32(c_i.uc_ip[31:0]);
            h[8*32+:48]  = hw[8*22+:48];  // THA = SHA
            h[8*38+:32]  = hw[8*28+:32];  // TPA = SPA
            o.lo = 7'd42;
          end else if (p_i.icmp4_echo) begin
            acc = udplb_pkg::csum_w(acc, src4_old[31:16], 1'b1);
            acc = udplb_pkg::csum_w(acc, src4_old[15:0], 1'b1);
            acc = udplb_pkg::csum_w(acc, dst4_old[31:16], 1'b1);
            acc = udplb_pkg::csum_w(acc, dst4_old[15:0], 1'b1);
            acc = udplb_pkg::csum_w(acc, nt_pkg::win_b16(hw, 16), 1'b1);
            acc = udplb_pkg::csum_w(acc, {8'd0, nt_pkg::win_b8(hw, 23)}, 1'b1);
            acc = udplb_pkg::csum_w(acc, nt_pkg::win_b16(hw, l4), 1'b1);
            acc = udplb_pkg::csum_w(acc, nt_pkg::win_b16(hw, l4 + 2), 1'b1);
            acc = udplb_pkg::csum_w(acc, nt_pkg::win_b16(hw, l4 + 4), 1'b1);
            acc = udplb_pkg::csum_w(acc, nt_pkg::win_b16(hw, l4 + 6), 1'b1);
            acc = udplb_pkg::csum_w(acc, c_i.uc_ip[31:16], 1'b0);
            acc = udplb_pkg::csum_w(acc, c_i.uc_ip[15:0], 1'b0);
            acc = udplb_pkg::csum_w(acc, src4_old[31:16], 1'b0);
            acc = udplb_pkg::csum_w(acc, src4_old[15:0], 1'b0);
            acc = udplb_pkg::csum_w(acc, nt_pkg::win_b16(hw, 16), 1'b0);
            acc = udplb_pkg::csum_w(acc, {8'd0, nt_pkg::win_b8(hw, 23)}, 1'b0);
            acc = udplb_pkg::csum_w(acc, nt_pkg::win_b16(hw, l4 + 4), 1'b0);
            acc = udplb_pkg::csum_w(acc, nt_pkg::win_b16(hw, l4 + 6), 1'b0);
            ck  = ~udplb_pkg::csum_fold(acc);
            h[8*26+:32]     = nt_pkg::byte_rev32(c_i.uc_ip[31:0]);
            h[8*30+:32]     = nt_pkg::byte_rev32(src4_old);
            h[8*l4+:16]     = '0;  // echo reply 0/0
            h[8*(l4+2)+:16] = nt_pkg::byte_rev16(ck);
            o.lo = 7'(l4 + 8);
          end else if (p_i.icmp6_echo) begin
            acc = udplb_pkg::csum_w128(acc, src_old, 1'b1);
            acc = udplb_pkg::csum_w128(acc, dst_old, 1'b1);
            acc = udplb_pkg::csum_w(acc, nt_pkg::win_b16(hw, 18), 1'b1);  // 16w0 ++ payload length
            acc = udplb_pkg::csum_w(acc, 16'd0, 1'b1);
            acc = udplb_pkg::csum_w(acc, {8'd0, nt_pkg::win_b8(hw, 20)}, 1'b1);  // 24w0 ++ next header
            acc = udplb_pkg::csum_w(acc, 16'd0, 1'b1);
            acc = udplb_pkg::csum_w(acc, nt_pkg::win_b16(hw, 54), 1'b1);
            acc = udplb_pkg::csum_w(acc, nt_pkg::win_b16(hw, 56), 1'b1);
            acc = udplb_pkg::csum_w(acc, nt_pkg::win_b16(hw, 58), 1'b1);
            acc = udplb_pkg::csum_w(acc, nt_pkg::win_b16(hw, 60), 1'b1);
            acc = udplb_pkg::csum_w128(acc, c_i.uc_ip, 1'b0);
            acc = udplb_pkg::csum_w128(acc, src_old, 1'b0);
            acc = udplb_pkg::csum_w(acc, nt_pkg::win_b16(hw, 18), 1'b0);
            acc = udplb_pkg::csum_w(acc, {8'd0, nt_pkg::win_b8(hw, 20)}, 1'b0);
            acc = udplb_pkg::csum_w(acc, 16'h8100, 1'b0);
            acc = udplb_pkg::csum_w(acc, nt_pkg::win_b16(hw, 58), 1'b0);
            acc = udplb_pkg::csum_w(acc, nt_pkg::win_b16(hw, 60), 1'b0);
            ck  = ~udplb_pkg::csum_fold(acc);
            h[8*22+:128] = nt_pkg::byte_rev128(c_i.uc_ip);
            h[8*38+:128] = nt_pkg::byte_rev128(src_old);
            h[8*54+:16]  = nt_pkg::byte_rev16(16'h8100);
            h[8*56+:16]  = nt_pkg::byte_rev16(ck);
            o.lo = 7'd62;
          end else begin
            // Neighbour advertisement over the solicitation (ICMPv6 at 54, the target at 62).
            sol    = src_old != '0;
            nd_ip  = sol ? src_old : 128'hff02_0000_0000_0000_0000_0000_0000_0001;
            nd_mac = !sol ? 48'h3333_0000_0001 : p_i.ns_ll ? {nt_pkg::win_b32(hw, 80), nt_pkg::win_b16(hw, 84)} : mac_sa_old;
            acc = udplb_pkg::csum_w128(acc, c_i.uc_ip, 1'b0);
            acc = udplb_pkg::csum_w128(acc, nd_ip, 1'b0);
            acc = udplb_pkg::csum_w(acc, 16'd32, 1'b0);
            acc = udplb_pkg::csum_w(acc, {8'd0, nt_pkg::win_b8(hw, 20)}, 1'b0);
            acc = udplb_pkg::csum_w(acc, 16'h8800, 1'b0);
            acc = udplb_pkg::csum_w(acc, {1'b0, sol, 14'd0}, 1'b0);
            acc = udplb_pkg::csum_w128(acc, p_i.nd_target, 1'b0);
            acc = udplb_pkg::csum_w(acc, 16'h0201, 1'b0);
            acc = udplb_pkg::csum_w(acc, c_i.uc_mac[47:32], 1'b0);
            acc = udplb_pkg::csum_w(acc, c_i.uc_mac[31:16], 1'b0);
            acc = udplb_pkg::csum_w(acc, c_i.uc_mac[15:0], 1'b0);
            ck  = ~udplb_pkg::csum_fold(acc);
            h[0+:48]     = nt_pkg::byte_rev48(nd_mac);
            h[8*18+:16]  = nt_pkg::byte_rev16(16'd32);
            h[8*21+:8]   = 8'd255;
            h[8*22+:128] = nt_pkg::byte_rev128(c_i.uc_ip);
            h[8*38+:128] = nt_pkg::byte_rev128(nd_ip);
            h[8*54+:16]  = nt_pkg::byte_rev16(16'h8800);
            h[8*56+:16]  = nt_pkg::byte_rev16(ck);
            h[8*58+:32]  = nt_pkg::byte_rev32({1'b0, sol, 30'd0});
            h[8*62+:128] = nt_pkg::byte_rev128(p_i.nd_target);
            h[8*78+:16]  = nt_pkg::byte_rev16(16'h0201);
            h[8*80+:48]  = nt_pkg::byte_rev48(c_i.uc_mac);
            o.lo = 7'd86;
          end
        end
        default: begin  // KindForward: the member rewrite
          h[0+:48]  = nt_pkg::byte_rev48(c_i.mem.mac);
          h[48+:48] = nt_pkg::byte_rev48(c_i.uc_mac);
          if (p_i.ipv4) begin
            iplen = keep ? nt_pkg::win_b16(hw, 16) : nt_pkg::win_b16(hw, 16) - 16'(nt_pkg::UdplbHeaderBytes);
            for (int i = 0; i < 10; i++) acc = udplb_pkg::csum_w(acc, nt_pkg::win_b16(hw, 14 + 2 * i), 1'b1);
            h[8*16+:16] = nt_pkg::byte_rev16(iplen);
            h[8*22+:8]  = ttl_new;
            h[8*24+:16] = '0;
            h[8*26+:32] = nt_pkg::byte_rev32(c_i.uc_ip[31:0]);
            h[8*30+:32] = nt_pkg::byte_rev32(c_i.mem.ip[31:0]);
            for (int i = 0; i < 10; i++) acc = udplb_pkg::csum_w(acc, nt_pkg::win_b16(h, 14 + 2 * i), 1'b0);
            h[8*24+:16] = nt_pkg::byte_rev16(~udplb_pkg::csum_fold(acc));
          end else begin
            iplen = keep ? nt_pkg::win_b16(hw, 18) : nt_pkg::win_b16(hw, 18) - 16'(nt_pkg::UdplbHeaderBytes);
            h[8*18+:16]  = nt_pkg::byte_rev16(iplen);
            h[8*21+:8]   = ttl_new;
            h[8*22+:128] = nt_pkg::byte_rev128(c_i.uc_ip);
            h[8*38+:128] = nt_pkg::byte_rev128(c_i.mem.ip);
          end
          h[8*(l4+2)+:16] = nt_pkg::byte_rev16(dport);
          h[8*(l4+4)+:16] = nt_pkg::byte_rev16(ulen_new);
          if (nt_pkg::win_b16(hw, l4 + 6) != '0) begin
            acc = '0;
            if (p_i.ipv4) begin
              acc = udplb_pkg::csum_w(acc, src4_old[31:16], 1'b1);
              acc = udplb_pkg::csum_w(acc, src4_old[15:0], 1'b1);
              acc = udplb_pkg::csum_w(acc, dst4_old[31:16], 1'b1);
              acc = udplb_pkg::csum_w(acc, dst4_old[15:0], 1'b1);
              acc = udplb_pkg::csum_w(acc, ulen, 1'b1);
              acc = udplb_pkg::csum_w(acc, {8'd0, nt_pkg::win_b8(hw, 23)}, 1'b1);
              acc = udplb_pkg::csum_w(acc, c_i.uc_ip[31:16], 1'b0);
              acc = udplb_pkg::csum_w(acc, c_i.uc_ip[15:0], 1'b0);
              acc = udplb_pkg::csum_w(acc, c_i.mem.ip[31:16], 1'b0);
              acc = udplb_pkg::csum_w(acc, c_i.mem.ip[15:0], 1'b0);
              acc = udplb_pkg::csum_w(acc, ulen_new, 1'b0);
              acc = udplb_pkg::csum_w(acc, {8'd0, nt_pkg::win_b8(hw, 23)}, 1'b0);
            end else begin
              acc = udplb_pkg::csum_w128(acc, src_old, 1'b1);
              acc = udplb_pkg::csum_w128(acc, dst_old, 1'b1);
              acc = udplb_pkg::csum_w(acc, 16'd0, 1'b1);
              acc = udplb_pkg::csum_w(acc, ulen, 1'b1);
              acc = udplb_pkg::csum_w(acc, 16'd0, 1'b1);
              acc = udplb_pkg::csum_w(acc, {8'd0, nt_pkg::win_b8(hw, 20)}, 1'b1);
              acc = udplb_pkg::csum_w128(acc, c_i.uc_ip, 1'b0);
              acc = udplb_pkg::csum_w128(acc, c_i.mem.ip, 1'b0);
              acc = udplb_pkg::csum_w(acc, ulen_new, 1'b0);
              acc = udplb_pkg::csum_w(acc, {8'd0, nt_pkg::win_b8(hw, 20)}, 1'b0);
            end
            for (int i = 0; i < 4; i++) acc = udplb_pkg::csum_w(acc, nt_pkg::win_b16(hw, l4 + 2 * i), 1'b1);
            for (int i = 0; i < 8; i++) acc = udplb_pkg::csum_w(acc, nt_pkg::win_b16(hw, l4 + 8 + 2 * i), 1'b1);
            acc = udplb_pkg::csum_w(acc, nt_pkg::win_b16(hw, l4), 1'b0);
            acc = udplb_pkg::csum_w(acc, dport, 1'b0);
            acc = udplb_pkg::csum_w(acc, ulen_new, 1'b0);
            if (keep) begin
              for (int i = 0; i < 8; i++) acc = udplb_pkg::csum_w(acc, nt_pkg::win_b16(hw, l4 + 8 + 2 * i), 1'b0);
            end
            ck = ~udplb_pkg::csum_fold(acc);
            if (ck == '0) ck = 16'hffff;
            h[8*(l4+6)+:16] = nt_pkg::byte_rev16(ck);
          end
          o.lo = 7'(l4 + 8 + (keep ? nt_pkg::UdplbHeaderBytes : 0));
        end
      endcase
    end
    o.d   = signed'({1'b0, p_i.li} - {1'b0, o.lo});
    o.hdr = h;
  end

  assign o_o = o;

  // The lookups already used the rest of the parse and of the context.
  logic unused_in;
  assign unused_in = ^{p_i, c_i};
endmodule
