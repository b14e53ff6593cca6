// The udplb parser (udplb.p4 ParserImpl; docs/lb-udplb.md "Parser") over a frame's first two beats.
// Combinational. Every header it extracts ends by byte 110, inside the window. An extract past the frame's
// end, a select without a matching case and a failed verify are all one verdict: parse error. Parses only
// while en_i (a frame's first beat leaves the lookahead register); otherwise it answers zero, which the
// pipeline never reads (it keeps a parse only for first beats).
// Written for depth (issue 27: <= 12 logic levels; docs/lb-microarchitecture.md "udplb_parser depth"), as
// lb_parser: every check is computed at once and the verdict, the flags and the end offset are AND/OR terms of
// them, never a chain of ifs; no arithmetic on lengths (a check "hl < c" is "byte c - 1 of the untagged frame
// is absent", one keep bit); the layer-4 bytes at l4 = 14 + 4 * IHL are checked at each of the 11 candidate
// offsets (IHL 5..15) and the IHL, as a one-hot folded with the protocol, selects the verdicts by AND/OR terms
// (IPv6: l4 = 54, IHL 10's candidate); the whole parse is formed twice, for an untagged and a VLAN-tagged frame
// (offsets fixed in each), each answering zero unless it is the frame's, and the two are ORed. What the first
// beat decides alone (the EtherTypes and the tag, the IP headers, the protocol with the IHL one-hot, the ICMPv6
// type, and the end offsets and verdict terms of those cases) comes in registered (pre_i: udplb_parse_pre of
// the first beat, loaded as the beat entered H); this module adds the layer-4 checks, which read the successor
// beat too. The verdict and the slot selector check layer 4 once, on the candidate's bytes selected by pre_i's
// index l4i (udplb_l4_slice per path); the verdict is two modules per path (udplb_l4_verdict: the UDP part with
// the path's other terms, and the ICMPv4 part), ORed here.
module udplb_parser
(
  input  logic [8*udplb_pkg::UWindowBytes-1:0] window_i,  // frame bytes 0..127, byte 0 in bits 7:0
  input  logic [udplb_pkg::UWindowBytes-1:0]   keep_i,    // window bytes present (contiguous from byte 0)
  input  logic                                 en_i,      // the window holds a frame's first two beats
  input  udplb_pkg::upre_t                     pre_i,     // udplb_parse_pre of the window's first beat
  output udplb_pkg::uparse_t                   info_o
);
  localparam int unsigned WBits  = 8 * udplb_pkg::UWindowBytes;
  localparam int unsigned WBytes = udplb_pkg::UWindowBytes;
  localparam int unsigned Slice  = 24;  // layer-4 bytes read: l4 .. l4 + 23 (UDP + LB header, ICMPv4)

  // 7-bit constant v where c, else 0 (an end offset chosen by one of a set of exclusive conditions).
  function automatic logic [6:0] k7(logic c, int unsigned v);
    k7 = 7'({32{c}} & v);
  endfunction

  // The functions below take the whole window, keep and first-beat terms so that offsets read as in the frame;
  // each reads a few of their bits (pp.l4i is read by udplb_l4_slice only).
  // verilator lint_off UNUSEDSIGNAL
  // ICMPv6 at l4 = 54 (pp's type flags), what the successor beat decides: {emb6, echo6, ns6, emb6_17, ns_opt,
  // ns_ll6}. Destination unreachable: 44, 52 with an embedded UDP header (emb6_17); echo request: 8; neighbour
  // solicitation: 24, 26 with an option header when the payload is not 24 bytes (ns_opt), 32 when that option
  // is the source link-layer address (ns_ll6). Each type flag is ANDed with pp.i6.
  function automatic logic [5:0] icmp6_flags(logic [WBits-1:0] hw, logic [WBytes-1:0] hk,
                                             udplb_pkg::upre_path_t pp);
    logic ns_opt;
    ns_opt      = hk[77] && pp.ns_len;
    icmp6_flags = {pp.i6 && pp.emb6, pp.i6 && pp.echo6, pp.i6 && pp.ns6, hk[97] && nt_pkg::win_b8(hw, 64) == 8'd17,
                   ns_opt, ns_opt && hk[79] && nt_pkg::win_b8(hw, 78) == 8'd1};
  endfunction

  // The path's verdict but for layer 4's checks (udplb_l4_verdict ORs them in): the first beat's terms, or the
  // ICMPv6 body's.
  function automatic logic path_err0(logic [WBits-1:0] hw, logic [WBytes-1:0] hk, udplb_pkg::upre_path_t pp);
    logic emb6, echo6, ns6, emb6_17, ns_opt, ns_ll6;
    {emb6, echo6, ns6, emb6_17, ns_opt, ns_ll6} = icmp6_flags(hw, hk, pp);
    path_err0 = pp.perr || (emb6 && (!hk[97] || (emb6_17 && !hk[105]))) || (echo6 && !hk[61]) ||
                (ns6 && (!hk[77] || (ns_opt && (!hk[79] || (ns_ll6 && !hk[85])))));
  endfunction

  // The parse of the untagged frame hw (the VLAN tag taken out when vl), hk its keep (bit c: hl > c), pp the
  // path's first-beat terms (zero unless it is the frame's path), ls and lg0 / lg8 / lg12 the layer-4 bytes and
  // keep bits of the candidate its IHL selects (udplb_l4_slice). vl is a constant at each call. Not set here:
  // vlan, vid, mac_da, ethertype.
  function automatic udplb_pkg::uparse_t parse_path(logic [WBits-1:0] hw, logic [WBytes-1:0] hk,
                                                    udplb_pkg::upre_path_t pp, logic vl, logic l4err,
                                                    logic [8*Slice-1:0] ls, logic lg0, logic lg8,
                                                    logic lg12);
    udplb_pkg::uparse_t p;
    int unsigned adj;  // li - fin: the tag's 4 bytes
    // Per candidate IHL h (l4 = 14 + 4 h): what the layer-4 bytes there decide.
    logic [Slice*8-1:0]  s;
    logic                g0, g4, g8, g24;  // "hl >= l4 + c": keep bit l4 - 1 + c
    // Element h - 5 for IHL h = 5..15 (an IHL under 5 fails the header check: pp's su / si are 0 there).
    logic [10:0]         c_short;                      // hl < l4
    logic [10:0][15:0]   c_port;
    logic [10:0][63:0]   c_tick;
    logic [10:0]         c_iemb, c_iecho;               // ICMPv4: destination unreachable; echo
    logic [10:0][6:0]    c_fin_u, c_li_u, c_li_i;  // fin (and li) after UDP / ICMPv4 at this l4
    logic                u_lb, i_emb, i_echo, i_o32;
    logic                s_lb, s_v3;  // the LB header and its version 3 at the selected candidate (ls, lg)
    logic [10:0][6:0]    c_lo_i;                      // lo_host after ICMPv4 at this l4
    // ICMPv6 at l4 = 54: what the successor beat decides.
    logic                emb6, echo6, ns6, ns_opt, ns_ll6, emb6_17;
    logic [6:0]          lo_v4, li_v4;

    p   = '0;
    adj = vl ? 4 : 0;

    // Layer 4 at each candidate offset l4 = 14 + 4 h: UDP (+ LB header) and ICMPv4, as the parser would walk
    // them there once the IP header has passed.
    c_short = '0;
    c_port  = '0;
    c_tick  = '0;
    c_iemb  = '0;
    c_iecho = '0;
    c_fin_u = '0;
    c_li_u  = '0;
    c_li_i  = '0;
    c_lo_i  = '0;
    for (int unsigned h = 5; h < 16; h++) begin
      s  = hw[8*(14+4*h)+:8*Slice];
      g0  = hk[13+4*h];
      g4  = hk[17+4*h];
      g8  = hk[21+4*h];
      g24 = hk[37+4*h];
      c_short[h-5] = !g0;
      // UDP: the LB header if the destination port says so (its magic and version: udplb_l4_verdict and the
      // lb / lb_v3 / slot_sel terms below, on the selected candidate's bytes).
      u_lb  = udplb_pkg::udp_lb(s, g8);
      c_port[h-5] = {16{u_lb}} & {s[8*14+:8], s[8*15+:8]};
      for (int unsigned b = 0; b < 8; b++) c_tick[h-5][63-8*b-:8] = {8{u_lb}} & s[8*(16+b)+:8];
      // ICMPv4: destination unreachable (32 bytes with an embedded UDP header), echo request.
      i_emb  = g4 && s[0+:8] == 8'd3;
      i_echo = g4 && s[0+:8] == 8'd8 && s[8+:8] == 8'd0;
      i_o32  = g24 && s[8*13+:8] == 8'd17;
      c_iemb[h-5]  = i_emb;
      c_iecho[h-5] = i_echo;
      // The end offset at this l4: l4 itself if the layer-4 parse does not run (hl < l4), else as walked.
      c_fin_u[h-5] = k7(!g0, 14 + 4 * h) | k7(g0 && !u_lb, 22 + 4 * h) | k7(g0 && u_lb, 38 + 4 * h);
      c_li_u[h-5]  = k7(!g0, 14 + 4 * h + adj) | k7(g0 && !u_lb, 22 + 4 * h + adj) |
                     k7(g0 && u_lb, 38 + 4 * h + adj);
      c_li_i[h-5]  = k7(!g0, 14 + 4 * h + adj) | k7(g0 && !i_emb && !i_echo, 18 + 4 * h + adj) |
                     k7(g0 && i_emb && !i_o32, 38 + 4 * h + adj) | k7(g0 && i_emb && i_o32, 46 + 4 * h + adj) |
                     k7(g0 && i_echo, 22 + 4 * h + adj);
      c_lo_i[h-5]  = k7(!g0, 14 + 4 * h) | k7(g0 && !i_emb && !i_echo, 18 + 4 * h) | k7(g0 && i_emb, 18 + 4 * h) |
                     k7(g0 && i_echo, 22 + 4 * h);
    end

    // ICMPv6 at l4 = 54: what the successor beat decides (icmp6_flags).
    {emb6, echo6, ns6, emb6_17, ns_opt, ns_ll6} = icmp6_flags(hw, hk, pp);

    // The verdict: udplb_l4_verdict's two parts ORed (l4err), which take in the first beat's terms and the
    // ICMPv6 body's (path_err0) with layer 4's checks of the chosen candidate, so that the verdict's last gate
    // here (both paths, en_i) is one LUT after them.
    p.perr = l4err;

    // The flags and fields, each set as the walk would have set it (also on a path that fails later).
    p.arp        = pp.farp;
    p.ipv4       = pp.f4;
    p.ipv6       = pp.f6;
    p.icmp4      = pp.i4;
    p.icmp4_emb  = |(pp.si & ~c_short & c_iemb);
    p.icmp4_echo = |(pp.si & ~c_short & c_iecho);
    p.icmp6      = pp.i6;
    p.icmp6_emb  = emb6;
    p.icmp6_echo = echo6;
    p.ns         = ns6;
    p.ns_ll      = ns6 && ns_ll6;
    p.udp        = pp.u4 || pp.u6;
    // The LB header, its version 3 and the slot: from the selected candidate's bytes (udplb_l4_slice), so the
    // magic and version tests are formed once, after the selection, not at every candidate before it (13
    // levels so, docs/synthesis.md "udplb_parser after branch uparse19"). An IPv4 UDP candidate counts only if
    // layer 4 is in the frame (lg0); IPv6's UDP at 54 as before, without that test.
    s_lb         = udplb_pkg::udp_lb(ls, lg8);
    s_v3         = s_lb && lg12 && {ls[8*8+:8], ls[8*9+:8]} == 16'h4c42 && ls[8*10+:8] == 8'd3;
    p.lb         = ((pp.u4 && lg0) || pp.u6) && s_lb;
    p.lb_v3      = ((pp.u4 && lg0) || pp.u6) && s_v3;
    p.slot_sel   = {16{((pp.u4 && lg0) || pp.u6) && s_lb}} &
                   (s_v3 ? {ls[8*12+:8], ls[8*13+:8]} : {ls[8*22+:8], ls[8*23+:8]});
    p.port_sel   = {16{pp.u6}} & c_port[5];
    p.tick       = {64{pp.u6}} & c_tick[5];
    for (int unsigned h = 0; h < 11; h++) begin
      p.port_sel = p.port_sel | ({16{pp.su[h] && !c_short[h]}} & c_port[h]);
      p.tick     = p.tick | ({64{pp.su[h] && !c_short[h]}} & c_tick[h]);
    end
    p.ttl        = ({8{pp.hdr4_ok}} & nt_pkg::win_b8(hw, 22)) | ({8{pp.hdr6_ok}} & nt_pkg::win_b8(hw, 21));
    p.ip_sa      = ({128{pp.hdr4_ok}} & {96'd0, nt_pkg::win_b32(hw, 26)}) |
                   ({128{pp.hdr6_ok}} & {nt_pkg::win_b64(hw, 22), nt_pkg::win_b64(hw, 30)});
    p.ip_da      = ({128{pp.hdr4_ok}} & {96'd0, nt_pkg::win_b32(hw, 30)}) |
                   ({128{pp.hdr6_ok}} & {nt_pkg::win_b64(hw, 38), nt_pkg::win_b64(hw, 46)}) |
                   ({128{pp.farp}} & {96'd0, nt_pkg::win_b32(hw, 38)});  // TPA
    p.nd_target  = {128{ns6}} & {nt_pkg::win_b64(hw, 62), nt_pkg::win_b64(hw, 70)};
    p.l4o        = pp.l4o;

    // li (the end offset fin plus the tag) and lo_host, one term per exclusive case: pp's (every case the
    // first beat decides), IPv4's candidate end after UDP or ICMPv4, IPv6's after UDP at 54, and the ICMPv6
    // ends the successor beat decides. lo_host: fin, but l4 + 4 after the ICMP-embedded headers and the ND
    // solicitation (never followed by another header).
    lo_v4 = '0;
    li_v4 = '0;
    for (int unsigned h = 0; h < 11; h++) begin
      lo_v4 = lo_v4 | ({7{pp.su[h]}} & c_fin_u[h]) | ({7{pp.si[h]}} & c_lo_i[h]);
      li_v4 = li_v4 | ({7{pp.su[h]}} & c_li_u[h]) | ({7{pp.si[h]}} & c_li_i[h]);
    end
    p.lo_host = pp.lo | lo_v4 | ({7{pp.u6}} & c_fin_u[5]);
    p.li      = pp.li | li_v4 | ({7{pp.u6}} & c_li_u[5]) | k7(emb6 && !emb6_17, 98 + adj) |
                k7(emb6 && emb6_17, 106 + adj) | k7(ns6 && !ns_opt, 78 + adj) |
                k7(ns6 && ns_opt && !ns_ll6, 80 + adj) | k7(ns6 && ns_ll6, 86 + adj);
    parse_path = p;
  endfunction
  // verilator lint_on UNUSEDSIGNAL

  // The two paths' frames (0: untagged, 1: the tag taken out) and keeps, their first-beat terms that the
  // layer-4 modules read, and their verdicts.
  logic [1:0][WBits-1:0]   hw;
  logic [1:0][WBytes-1:0]  hk;
  logic [1:0][3:0]         l4i;       // pre_i's slice index
  logic [1:0]              u4, i4, u6;
  logic [1:0]              err0;      // the paths' verdicts but for layer 4 (path_err0)
  logic [1:0][8*Slice-1:0] ls;        // the selected candidate's layer-4 bytes and keep bits (udplb_l4_slice)
  logic [1:0][5:0]         lg;
  logic [1:0][1:0]         l4err_p;   // udplb_l4_verdict's parts: [0] Udp = 1 (e0 and UDP), [1] ICMPv4
  logic [1:0]              l4err;     // the paths' verdicts: the two parts ORed
  assign hw[0]   = window_i;
  assign hw[1]   = udplb_pkg::untag(window_i, 1'b1);
  assign hk[0]   = keep_i;
  assign hk[1]   = {4'd0, keep_i[WBytes-1:4]};
  assign l4i     = {pre_i.t.l4i, pre_i.u.l4i};
  assign u4      = {pre_i.t.u4, pre_i.u.u4};
  assign i4      = {pre_i.t.i4, pre_i.u.i4};
  assign u6      = {pre_i.t.u6, pre_i.u.u6};
  assign err0[0] = path_err0(hw[0], hk[0], pre_i.u);
  assign err0[1] = path_err0(hw[1], hk[1], pre_i.t);

  for (genvar i = 0; i < 2; i++) begin : g_path
    udplb_l4_slice u_slice (
      .hw_i  (hw[i]),
      .hk_i  (hk[i]),
      .l4i_i (l4i[i]),
      .s_o   (ls[i]),
      .g_o   (lg[i])
    );

    for (genvar k = 0; k < 2; k++) begin : g_part
      udplb_l4_verdict #(.Udp(k == 0)) u_l4 (
        .s_i   (ls[i]),
        .g_i   (lg[i]),
        .e0_i  (err0[i]),
        .u4_i  (u4[i]),
        .i4_i  (i4[i]),
        .u6_i  (u6[i]),
        .err_o (l4err_p[i][k])
      );
    end

    assign l4err[i] = |l4err_p[i];
  end

  udplb_pkg::uparse_t info, p_untagged, p_tagged;

  // One block, all of it under en_i: a simulator evaluates it on every change of the window (every cycle)
  // and skips it but for a frame's first beat; in hardware en_i only gates the result.
  always_comb begin
    info       = '0;
    p_untagged = '0;
    p_tagged   = '0;
    if (en_i) begin
      p_untagged = parse_path(hw[0], hk[0], pre_i.u, 1'b0, l4err[0], ls[0], lg[0][0], lg[0][2],
                              lg[0][3]);
      // The frame with the tag taken out: every later header sits where the deparser will emit it.
      p_tagged   = parse_path(hw[1], hk[1], pre_i.t, 1'b1, l4err[1], ls[1], lg[1][0], lg[1][2],
                              lg[1][3]);
      // Each path answers zero unless it is the frame's (pre_i's `here`): the two are ORed, not multiplexed.
      info           = p_tagged | p_untagged;
      info.vlan      = pre_i.vl;
      info.vid       = {12{pre_i.vl}} & {window_i[8*14+:4], window_i[8*15+:8]};
      info.mac_da    = {nt_pkg::win_b32(window_i, 0), nt_pkg::win_b16(window_i, 4)};
      info.ethertype = nt_pkg::win_b16(window_i, 12);
    end
  end

  assign info_o = info;
endmodule
