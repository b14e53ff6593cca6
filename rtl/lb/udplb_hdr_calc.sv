// Stage S8 of udplb_top: the output header bytes of a frame and all its checksums (docs/lb-udplb.md
// "Processing", "Deparser order", "Checksum arithmetic"). Combinational.
// Every emitted frame is the Ethernet header followed by the tag-less layer 3 onwards (hw): an IEEE 802
// group frame as parsed, a reply or an LB frame with its fields rewritten, an ND advertisement built over
// the solicitation. hdr holds output bytes 0..lo-1; the rest of the frame is input byte p + d.
// The checksums arrive as end-around-carry pairs and the new L4 fields ready-made, formed beside S7
// (udplb_hdr_sum, registered in udplb_top): here the TTL rule's correction or the L4 pair's late word is
// added to a pair (one carry-save level), one carry chain folds it, and the bytes after layer 4 are placed
// by the one-hot of layer 4's offset (docs/lb-microarchitecture.md "udplb_hdr_calc depth").
module udplb_hdr_calc
(
  input  udplb_pkg::uparse_t                   p_i,
  input  logic [8*udplb_pkg::UWindowBytes-1:0] hw_i,     // the frame's first bytes, VLAN tag taken out
  input  udplb_pkg::uctx_t                     c_i,
  input  udplb_pkg::usum_t                     s_i,      // udplb_hdr_sum's, for this frame
  input  logic                      ttl_dec_i,
  input  logic [3:0]                port_i,   // ingress port
  output udplb_pkg::uout_t                     o_o
);
  udplb_pkg::uout_t                     o;
  logic [8*udplb_pkg::UWindowBytes-1:0] hw, h;
  logic [15:0]               ck, ip_ck, ip_corr;
  logic [47:0]               mac_sa_old, nd_mac;
  logic [127:0]              src_old, nd_ip;
  logic [31:0]               src4_old, ip_pr, l4_pr;
  logic [63:0]               nl4;      // the new bytes after layer 4, byte r in bits 8r+7:8r
  logic [7:0]                nl4_we;   // which of them are written
  logic                      keep, sol;
  logic [7:0]                ttl_new;

  always_comb begin
    o          = '0;
    hw         = hw_i;
    h          = hw;
    mac_sa_old = {nt_pkg::win_b32(hw, 6), nt_pkg::win_b16(hw, 10)};
    src4_old   = nt_pkg::win_b32(hw, 26);
    src_old    = {nt_pkg::win_b64(hw, 22), nt_pkg::win_b64(hw, 30)};
    keep       = c_i.mem.keep;
    ttl_new    = ttl_dec_i ? p_i.ttl - 8'd1 : p_i.ttl;
    sol        = 1'b0;
    nd_mac     = '0;
    nd_ip      = '0;
    nl4        = '0;
    nl4_we     = '0;
    // The frame's L4 checksum (its case's pair; the others are 0), and the IPv4 header's with the new
    // TTL/protocol word added to its pair.
    l4_pr      = nt_csum_pkg::csa3(s_i.l4[31:16], s_i.l4[15:0], s_i.l4_add);  // the new port / ND word
    ck         = ~nt_csum_pkg::eac2(l4_pr[31:16], l4_pr[15:0]);
    // {ttl - 1, protocol} = {ttl, protocol} + 0xfeff in one's complement, or + 0xff00 when ttl is 0 (wraps).
    ip_corr    = !ttl_dec_i ? 16'h0000 : s_i.ttl_zero ? 16'hff00 : 16'hfeff;
    ip_pr      = nt_csum_pkg::csa3(s_i.ip[31:16], s_i.ip[15:0], ip_corr);
    ip_ck      = ~nt_csum_pkg::eac2(ip_pr[31:16], ip_pr[15:0]);
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
            h[8*26+:32] = nt_pkg::byte_rev32(c_i.uc_ip[31:0]);
            h[8*30+:32] = nt_pkg::byte_rev32(src4_old);
            nl4[0+:16]  = '0;  // echo reply 0/0
            nl4[16+:16] = nt_pkg::byte_rev16(ck);
            nl4_we      = 8'h0f;
            o.lo = 7'(p_i.l4o + 7'd8);
          end else if (p_i.icmp6_echo) begin
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
            h[8*16+:16] = nt_pkg::byte_rev16(s_i.iplen);
            h[8*22+:8]  = ttl_new;
            h[8*24+:16] = nt_pkg::byte_rev16(ip_ck);
            h[8*26+:32] = nt_pkg::byte_rev32(c_i.uc_ip[31:0]);
            h[8*30+:32] = nt_pkg::byte_rev32(c_i.mem.ip[31:0]);
          end else begin
            h[8*18+:16]  = nt_pkg::byte_rev16(s_i.iplen);
            h[8*21+:8]   = ttl_new;
            h[8*22+:128] = nt_pkg::byte_rev128(c_i.uc_ip);
            h[8*38+:128] = nt_pkg::byte_rev128(c_i.mem.ip);
          end
          nl4[16+:16] = nt_pkg::byte_rev16(s_i.dport);
          nl4[32+:16] = nt_pkg::byte_rev16(s_i.ulen_new);
          nl4[48+:16] = nt_pkg::byte_rev16(nt_csum_pkg::eac2_ones(l4_pr[31:16], l4_pr[15:0]) ? 16'hffff : ck);  // RFC 768
          nl4_we      = {{2{s_i.udp_ck}}, 6'b111100};
          o.lo = 7'(p_i.l4o + 7'd8 + (keep ? 7'(nt_pkg::UdplbHeaderBytes) : 7'd0));
        end
      endcase
    end
    // The bytes after layer 4, at its offset (34 + 4k, one-hot): two candidates a byte at most.
    for (int unsigned k = 0; k < udplb_pkg::UL4Offsets; k++) begin
      for (int unsigned r = 0; r < 8; r++) begin
        if (s_i.l4oh[k] && nl4_we[r]) h[8*(34+4*k+r)+:8] = nl4[8*r+:8];
      end
    end
    o.d   = signed'({1'b0, p_i.li} - {1'b0, o.lo});
    o.hdr = h;
  end

  assign o_o = o;

  // The lookups already used the rest of the parse and of the context.
  logic unused_in;
  assign unused_in = ^{p_i, c_i};
endmodule
