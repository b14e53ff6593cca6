// The udplb parser (udplb.p4 ParserImpl; docs/lb-udplb.md "Parser") over a frame's first two beats.
// Combinational. Every header it extracts ends by byte 110, inside the window. An extract past the frame's
// end, a select without a matching case and a failed verify are all one verdict: parse error.
module udplb_parser
(
  input  logic [8*udplb_pkg::UWindowBytes-1:0] window_i,  // frame bytes 0..127, byte 0 in bits 7:0
  input  logic [7:0]                len_i,     // valid bytes in the window (the frame length if shorter)
  output udplb_pkg::uparse_t                   info_o
);
  udplb_pkg::uparse_t                   p;
  logic [8*udplb_pkg::UWindowBytes-1:0] hw;
  logic                      err, vl, slow, lldp;
  logic [15:0]               et0, et;
  logic [3:0]                ihl;
  logic [7:0]                proto, ity, icode, nh_emb;
  int unsigned               len, hl, l4, fin, ip_hdr;

  always_comb begin
    p      = '0;
    err    = 1'b0;
    slow   = 1'b0;
    lldp   = 1'b0;
    len    = int'(len_i);
    et0    = nt_pkg::win_b16(window_i, 12);
    vl     = len >= 18 && et0 == 16'h8100;
    // The frame with the tag taken out: every later header sits where the deparser will emit it.
    hw     = udplb_pkg::untag(window_i, vl);
    hl     = vl ? len - 4 : len;
    et     = vl ? nt_pkg::win_b16(window_i, 16) : et0;
    ihl    = hw[8*14+:4];
    proto  = '0;
    ity    = '0;
    icode  = '0;
    nh_emb = '0;
    l4     = 0;
    ip_hdr = 0;
    fin    = 14;

    p.vlan      = vl;
    p.vid       = vl ? {window_i[8*14+:4], window_i[8*15+:8]} : 12'd0;
    p.mac_da    = {nt_pkg::win_b32(window_i, 0), nt_pkg::win_b16(window_i, 4)};
    p.ethertype = et0;

    // ethernet / vlan
    if (len < 14 || (et0 == 16'h8100 && len < 18)) begin
      err = 1'b1;
    end else if (vl) begin
      unique case (et)
        16'h0800: p.ipv4 = 1'b1;
        16'h0806: p.arp = 1'b1;
        16'h86dd: p.ipv6 = 1'b1;
        default:  err = 1'b1;
      endcase
    end else begin
      unique case (et)
        16'h0800: p.ipv4 = 1'b1;
        16'h0806: p.arp = 1'b1;
        16'h86dd: p.ipv6 = 1'b1;
        16'h8809: slow = 1'b1;
        16'h88cc: lldp = 1'b1;
        default:  err = 1'b1;
      endcase
    end

    if (slow) begin
      if (hl < 15) begin
        err = 1'b1;
      end else begin
        fin = 15;
        if (nt_pkg::win_b8(hw, 14) == 8'd1) begin
          if (hl < 16) err = 1'b1;
          fin = 16;
        end
      end
    end
    if (lldp) begin
      if (hl < 16) err = 1'b1;
      fin = 16;
    end

    if (p.arp) begin
      fin = 42;
      if (hl < 42 || nt_pkg::win_b16(hw, 14) != 16'd1 || nt_pkg::win_b16(hw, 16) != 16'h0800 || nt_pkg::win_b8(hw, 18) != 8'd6 ||
          nt_pkg::win_b8(hw, 19) != 8'd4 || nt_pkg::win_b16(hw, 20) != 16'd1) begin
        err = 1'b1;
      end
      p.ip_da = {96'd0, nt_pkg::win_b32(hw, 38)};  // TPA
    end

    if (p.ipv4) begin
      if (hl < 34 || hw[8*14+4+:4] != 4'd4 || ihl < 4'd5) begin
        err = 1'b1;
      end else begin
        ip_hdr = 4 * int'(ihl);
        l4     = 14 + ip_hdr;
        fin    = l4;
        if (hl < l4) err = 1'b1;
        proto = nt_pkg::win_b8(hw, 23);
        p.ttl = nt_pkg::win_b8(hw, 22);
        p.ip_sa = {96'd0, nt_pkg::win_b32(hw, 26)};
        p.ip_da = {96'd0, nt_pkg::win_b32(hw, 30)};
        if (proto == 8'd1) p.icmp4 = 1'b1;
        else if (proto == 8'd17) p.udp = 1'b1;
        else err = 1'b1;
      end
    end

    if (p.ipv6) begin
      if (hl < 54 || hw[8*14+4+:4] != 4'd6) begin
        err = 1'b1;
      end else begin
        ip_hdr = 40;
        l4     = 54;
        fin    = 54;
        proto  = nt_pkg::win_b8(hw, 20);
        p.ttl  = nt_pkg::win_b8(hw, 21);
        p.ip_sa = {nt_pkg::win_b64(hw, 22), nt_pkg::win_b64(hw, 30)};
        p.ip_da = {nt_pkg::win_b64(hw, 38), nt_pkg::win_b64(hw, 46)};
        if (proto == 8'd58) p.icmp6 = 1'b1;
        else if (proto == 8'd17) p.udp = 1'b1;
        else err = 1'b1;
      end
    end

    if (!err && (p.icmp4 || p.icmp6)) begin
      ity   = nt_pkg::win_b8(hw, l4);
      icode = nt_pkg::win_b8(hw, l4 + 1);
      fin   = l4 + 4;
      if (hl < l4 + 4) err = 1'b1;
    end

    if (!err && p.icmp4) begin
      if (ity == 8'd3) begin
        p.icmp4_emb = 1'b1;
        fin = l4 + 24;
        if (hl < l4 + 24) begin
          err = 1'b1;
        end else if (nt_pkg::win_b8(hw, l4 + 13) == 8'd17) begin
          fin = l4 + 32;
          if (hl < l4 + 32) err = 1'b1;
        end
      end else if (ity == 8'd8 && icode == 8'd0) begin
        p.icmp4_echo = 1'b1;
        fin = l4 + 8;
        if (hl < l4 + 8) err = 1'b1;
      end
    end

    if (!err && p.icmp6) begin
      nh_emb = nt_pkg::win_b8(hw, l4 + 10);
      if (ity == 8'd1) begin
        p.icmp6_emb = 1'b1;
        fin = l4 + 44;
        if (hl < l4 + 44) begin
          err = 1'b1;
        end else if (nh_emb == 8'd17) begin
          fin = l4 + 52;
          if (hl < l4 + 52) err = 1'b1;
        end
      end else if (ity == 8'd128 && icode == 8'd0) begin
        p.icmp6_echo = 1'b1;
        fin = l4 + 8;
        if (hl < l4 + 8) err = 1'b1;
      end else if (ity == 8'd135 && icode == 8'd0) begin
        p.ns = 1'b1;
        fin = l4 + 24;
        p.nd_target = {nt_pkg::win_b64(hw, l4 + 8), nt_pkg::win_b64(hw, l4 + 16)};
        if (hl < l4 + 24) begin
          err = 1'b1;
        end else if (nt_pkg::win_b16(hw, 18) != 16'd24) begin
          fin = l4 + 26;  // option header
          if (hl < l4 + 26) begin
            err = 1'b1;
          end else if (nt_pkg::win_b8(hw, l4 + 24) == 8'd1) begin
            p.ns_ll = 1'b1;
            fin = l4 + 32;
            if (hl < l4 + 32) err = 1'b1;
          end
        end
      end else begin
        err = 1'b1;
      end
    end

    if (!err && p.udp) begin
      fin = l4 + 8;
      if (hl < l4 + 8) begin
        err = 1'b1;
      end else if ((nt_pkg::win_b16(hw, l4 + 2) & 16'hc000) == 16'h4000) begin
        p.lb = 1'b1;
        fin = l4 + 24;
        if (hl < l4 + 12 || nt_pkg::win_b16(hw, l4 + 8) != 16'h4c42) begin
          err = 1'b1;
        end else if (nt_pkg::win_b8(hw, l4 + 10) == 8'd2 || nt_pkg::win_b8(hw, l4 + 10) == 8'd3) begin
          p.lb_v3 = nt_pkg::win_b8(hw, l4 + 10) == 8'd3;
          if (hl < l4 + 24) err = 1'b1;
        end else begin
          err = 1'b1;
        end
        p.slot_sel = p.lb_v3 ? nt_pkg::win_b16(hw, l4 + 12) : nt_pkg::win_b16(hw, l4 + 22);
        p.port_sel = nt_pkg::win_b16(hw, l4 + 14);
        p.tick     = nt_pkg::win_b64(hw, l4 + 16);
      end
    end

    p.perr = err;
    p.l4o  = 7'(l4);
    p.li   = 7'(fin + (vl ? 4 : 0));
    // Emitted as parsed: everything but the ICMP-embedded headers and the ND solicitation (never followed
    // by another header), so the extracted bytes minus those.
    p.lo_host = 7'(fin);
    if (p.icmp4_emb || p.icmp6_emb || p.ns) p.lo_host = 7'(l4 + 4);
  end

  assign info_o = p;
endmodule
