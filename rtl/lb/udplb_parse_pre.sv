// The part of udplb's parse that a frame's first beat decides alone (bytes 0..63 and their keep: the
// EtherTypes and the tag's presence, the IP header's checks, the protocol with the IHL as a one-hot, the
// ICMPv6 type, ARP / slow protocols / LLDP, and the end offsets of every case those decide), for the
// untagged and the tagged path. udplb_top computes it from the beat entering H and registers it with the beat
// (as lb_top's h_et_q); udplb_parser finishes the parse from the registers and the two-beat window, so no
// parse path starts at the EtherType compares (issue 27: <= 12 levels; docs/lb-microarchitecture.md
// "udplb_parser depth"). No cycle is added: a first beat is in H at least one cycle before it is parsed.
// Combinational. Answers zero unless en_i (a frame's first beat is offered): only those are ever read.
// With udplb_parser the same uparse_t as main's one-module parser for every window (scripts/udplb_parse_diff.sh).
module udplb_parse_pre
(
  input  logic [nt_pkg::StreamBits-1:0]  beat_i,  // a frame's first beat, byte 0 in bits 7:0
  input  logic [nt_pkg::StreamBytes-1:0] keep_i,  // its keep (contiguous from byte 0)
  input  logic                           en_i,    // beat_i is a frame's first beat, offered
  output udplb_pkg::upre_t               pre_o
);
  localparam int unsigned WBytes = udplb_pkg::UWindowBytes;
  localparam int unsigned WBits  = 8 * WBytes;

  function automatic logic [6:0] k7(logic c, int unsigned v);
    k7 = 7'({32{c}} & v);
  endfunction

  // l4 = 14 + 4 * IHL (+ 4 when tag: the tag's bytes) = {IHL + 3 (+ 1), 2'b10}, as gates: an adder would map to
  // a carry cell (a level), and the one-hot of the IHL ORed into lo was the module's deepest path (13 levels).
  function automatic logic [6:0] l4_end(logic [3:0] i, logic tag);
    if (tag) begin  // IHL + 4
      l4_end = {i[3] & i[2], i[3] ^ i[2], !i[2], i[1], i[0], 2'b10};
    end else begin  // IHL + 3
      l4_end = {i[3] & i[2] & (i[1] | i[0]), i[3] ^ (i[2] & (i[1] | i[0])), i[2] ^ (i[1] | i[0]), !(i[1] ^ i[0]),
                !i[0], 2'b10};
    end
  endfunction

  // One path over hw (the frame with the tag taken out when vl), hk its keep (bit c: hl > c), et the EtherType
  // after the tag; `here`: this path is the frame's. Every byte and keep bit read lies in the first beat for
  // both paths (tagged: hw byte c is beat byte c + 4; the highest read is byte 55 / keep bit 57 of hw, beat
  // byte 59 / keep bit 61 tagged).
  // The expressions are udplb_parser's before this split (main @ 6bbb01d), term for term.
  // hw and hk are the window's width so that offsets read as in udplb_parser; most of their bits are not read.
  // verilator lint_off UNUSEDSIGNAL
  function automatic udplb_pkg::upre_path_t pre_path(logic [WBits-1:0] hw, logic [WBytes-1:0] hk,
                                                     logic [15:0] et, logic vl, logic here);
    udplb_pkg::upre_path_t r;
    logic [3:0]  ihl;
    logic        fslow, flldp, eth_bad, slow_err, arp_err, hdr4_bad, hdr6_bad;
    logic        p4_1, p4_17, p6_58, p6_17, proto4_bad, proto6_bad, p6_none, first_cases, e6, other6;
    logic [7:0]  ity6, icode6;
    logic        sp;  // an IPv4 protocol of no case (its end: l4)
    int unsigned adj;

    r   = '0;
    adj = vl ? 4 : 0;
    ihl = hw[8*14+:4];

    r.f4    = here && hk[13] && et == 16'h0800;
    r.farp  = here && hk[13] && et == 16'h0806;
    r.f6    = here && hk[13] && et == 16'h86dd;
    fslow   = here && !vl && hk[13] && et == 16'h8809;
    flldp   = here && !vl && hk[13] && et == 16'h88cc;
    eth_bad = here && !(r.f4 || r.farp || r.f6 || fslow || flldp);

    slow_err = !hk[14] || (hw[8*14+:8] == 8'd1 && !hk[15]);
    arp_err  = !hk[41] || nt_pkg::win_b16(hw, 14) != 16'd1 || nt_pkg::win_b16(hw, 16) != 16'h0800 ||
               nt_pkg::win_b8(hw, 18) != 8'd6 || nt_pkg::win_b8(hw, 19) != 8'd4 || nt_pkg::win_b16(hw, 20) != 16'd1;

    hdr4_bad   = !hk[33] || hw[8*14+4+:4] != 4'd4 || ihl < 4'd5;
    hdr6_bad   = !hk[53] || hw[8*14+4+:4] != 4'd6;
    r.hdr4_ok  = r.f4 && !hdr4_bad;
    r.hdr6_ok  = r.f6 && !hdr6_bad;
    p4_1       = nt_pkg::win_b8(hw, 23) == 8'd1;
    p4_17      = nt_pkg::win_b8(hw, 23) == 8'd17;
    p6_58      = nt_pkg::win_b8(hw, 20) == 8'd58;
    p6_17      = nt_pkg::win_b8(hw, 20) == 8'd17;
    proto4_bad = !p4_1 && !p4_17;
    proto6_bad = !p6_58 && !p6_17;
    r.u4       = r.hdr4_ok && p4_17;
    r.i4       = r.hdr4_ok && p4_1;
    r.u6       = r.hdr6_ok && p6_17;
    r.i6       = r.hdr6_ok && p6_58;
    p6_none    = r.hdr6_ok && proto6_bad;
    sp         = r.hdr4_ok && proto4_bad;
    for (int unsigned h = 5; h < 16; h++) begin
      r.su[h-5] = r.u4 && ihl == 4'(h);
      r.si[h-5] = r.i4 && ihl == 4'(h);
    end
    // Registered apart so that udplb_l4_slice selects the layer-4 bytes by a 4-bit index (16:1 multiplexers,
    // two LUT levels), not by the one-hots su | si and u6.
    r.l4i    = ({4{r.u4 || r.i4}} & ihl) | ({4{r.u6}} & 4'd10);

    // ICMPv6 at 54: the type and code (bytes 54, 55) and its first 4 bytes (keep bit 57).
    ity6     = nt_pkg::win_b8(hw, 54);
    icode6   = nt_pkg::win_b8(hw, 55);
    e6       = !hk[57];
    r.emb6   = !e6 && ity6 == 8'd1;
    r.echo6  = !e6 && ity6 == 8'd128 && icode6 == 8'd0;
    r.ns6    = !e6 && ity6 == 8'd135 && icode6 == 8'd0;
    other6   = !e6 && !(ity6 == 8'd1) && !(ity6 == 8'd128 && icode6 == 8'd0) &&
             !(ity6 == 8'd135 && icode6 == 8'd0);
    r.ns_len = nt_pkg::win_b16(hw, 18) != 16'd24;

    // The verdict's first-beat terms: the Ethernet case, ARP, slow protocols, LLDP, the IP headers and the
    // protocols, an ICMPv6 message too short or of no case. udplb_parser ORs in the layer-4 terms.
    r.perr = eth_bad || (fslow && slow_err) || (flldp && !hk[15]) || (r.farp && arp_err) ||
             (r.f4 && (hdr4_bad || proto4_bad)) || (r.f6 && (hdr6_bad || proto6_bad)) ||
             (r.i6 && (e6 || other6));

    // End offsets of the cases decided here: a header check that fails, slow protocols, LLDP, ARP, an IP
    // protocol of no case (l4), ICMPv6 too short or of no case (58), ICMPv6 echo (62); lo_host of every ICMPv6.
    first_cases = eth_bad || (r.f4 && hdr4_bad) || (r.f6 && hdr6_bad) || (fslow && !hk[14]);
    r.lo = k7(first_cases, 14) | k7(fslow && hk[14] && hw[8*14+:8] != 8'd1, 15) |
           k7(fslow && hk[14] && hw[8*14+:8] == 8'd1, 16) | k7(flldp, 16) | k7(r.farp, 42) | k7(p6_none, 54) |
           k7(r.i6 && (e6 || other6 || r.emb6 || r.ns6), 58) | k7(r.i6 && r.echo6, 62);
    r.li = k7(first_cases, 14 + adj) | k7(fslow && hk[14] && hw[8*14+:8] != 8'd1, 15 + adj) |
           k7(fslow && hk[14] && hw[8*14+:8] == 8'd1, 16 + adj) | k7(flldp, 16 + adj) | k7(r.farp, 42 + adj) |
           k7(p6_none, 54 + adj) | k7(r.i6 && (e6 || other6), 58 + adj) | k7(r.i6 && r.echo6, 62 + adj);
    r.lo  = r.lo | ({7{sp}} & l4_end(ihl, 1'b0));
    r.li  = r.li | ({7{sp}} & l4_end(ihl, vl));
    r.l4o = ({7{r.hdr4_ok}} & l4_end(ihl, 1'b0)) | ({7{r.hdr6_ok}} & 7'd54);
    pre_path = r;
  endfunction
  // verilator lint_on UNUSEDSIGNAL

  udplb_pkg::upre_t        pre;
  logic [WBits-1:0]        w;
  logic [WBytes-1:0]       k;
  logic [15:0]             et0;

  // Under en_i, as udplb_parser: a simulator skips the block but for a frame's first beat.
  always_comb begin
    pre = '0;
    w   = '0;
    k   = '0;
    et0 = '0;
    if (en_i) begin
      w      = {{nt_pkg::StreamBits{1'b0}}, beat_i};
      k      = {{nt_pkg::StreamBytes{1'b0}}, keep_i};
      et0    = nt_pkg::win_b16(w, 12);
      pre.vl = k[17] && et0 == 16'h8100;
      pre.u  = pre_path(w, k, et0, 1'b0, !pre.vl);
      pre.t  = pre_path(udplb_pkg::untag(w, 1'b1), {4'd0, k[WBytes-1:4]}, nt_pkg::win_b16(w, 16), 1'b1, pre.vl);
    end
  end

  assign pre_o = pre;
endmodule
