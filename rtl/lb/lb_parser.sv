// Header parse: Ethernet, IPv4 (with options) or IPv6, UDP, LB header, from the first two beats of a frame.
// Combinational; the first failing check gives the drop reason, in the order of docs/lb.md. Parses only
// while en_i (a frame's first beat leaves the lookahead register); otherwise the window reads as empty (a
// runt, which the pipeline ignores: it keeps a parse only for first beats).
// Written for depth (issue 27: <= 12 logic levels): every check is computed at once and the reason is the
// first failing one; no arithmetic on the window's length (a length check "len < c" is "byte c - 1 is
// absent", one bit of the window's keep); the UDP and LB headers at the IP-header-dependent offset l4 are
// one 20-byte slice selected by the IHL (IPv6: l4 = 54, the offset of IHL 10). One check is left to the next
// stage: "UDP length > IP payload", a compare of two header fields (reason_t tail and ip_pay carry it; the
// pipeline finishes it in S1 with lb_pkg::parse_reason, docs/lb-microarchitecture.md).
module lb_parser
(
  input  logic [8*lb_pkg::WindowBytes-1:0] window_i,  // frame bytes 0..127, byte 0 in bits 7:0
  input  logic [lb_pkg::WindowBytes-1:0]   keep_i,    // window bytes present (contiguous from byte 0)
  input  logic                             en_i,      // the window holds a frame's first two beats
  input  logic [1:0]                       et_i,      // its EtherType is {IPv6, IPv4}: registered with the beat
  output lb_pkg::parse_t                   info_o
);
  localparam int unsigned SliceBytes = 8 + nt_pkg::LbHeaderBytes;  // UDP header + LB header

  lb_pkg::parse_t                  info;
  logic [lb_pkg::WindowBytes-1:0]  k;      // byte c is present <=> the window holds more than c bytes
  logic [15:0]                     ethertype, ip_len;
  logic [3:0]                      ihl;
  logic                            is_v6;
  logic [8*SliceBytes-1:0]         l4h;    // frame bytes l4 .. l4 + 19, byte l4 in bits 7:0
  logic                            k_hdr, k_udp, k_lb;  // bytes l4 - 1, l4 + 7, l4 + 19 present
  logic [15:0]                     udp_len;
  // The checks in docs/lb.md order; each is computed on its own (a later check may read fields an earlier
  // failing one says are not there: they are gated below).
  logic f_runt, f_not_ip, f_trunc_ip, f_bad_ip, f_trunc_hdr, f_frag, f_not_udp, f_trunc_udp, f_port, f_trunc_lb;
  logic ok_eth, ok_ip, ok_udp, ok_port, ok_all;  // every check up to and including that point passed
  localparam int unsigned NumChecks = 10;
  logic [NumChecks-1:0] fails, first;  // the checks above, bit 0 = f_runt; the first failing one (one-hot)
  logic [3:0]           tails, tfirst; // the tail checks (bit 0 = bad length); the first failing one

  // The drop reason of check c (bit c of fails).
  function automatic lb_pkg::reason_t check_reason(int c);
    unique case (c)
      0:       check_reason = lb_pkg::reason_t'(nt_pkg::LbDropRunt);
      1:       check_reason = lb_pkg::reason_t'(nt_pkg::LbDropNotIp);
      3:       check_reason = lb_pkg::reason_t'(nt_pkg::LbDropBadIp);
      5:       check_reason = lb_pkg::reason_t'(nt_pkg::LbDropIpFragment);
      6:       check_reason = lb_pkg::reason_t'(nt_pkg::LbDropNotUdp);
      8:       check_reason = lb_pkg::reason_t'(nt_pkg::LbDropNotLbPort);
      default: check_reason = lb_pkg::reason_t'(nt_pkg::LbDropTruncated);  // 2, 4, 7, 9
    endcase
  endfunction

  // Bad length (the IP payload or the UDP length under 8 + 12; ip_short: the former), bad magic, bad version,
  // of a family's 20-byte UDP + LB header slice (bit 0 first in docs/lb.md order).
  function automatic logic [2:0] tail_checks(logic [15:0] ulen, logic [15:0] mg, logic [7:0] ver, logic pay_short);
    tail_checks = {ver != 8'(nt_pkg::LbVersion), mg != 16'(nt_pkg::LbMagic),
                   pay_short || ulen < 16'(8 + nt_pkg::LbHeaderBytes)};
  endfunction

  // The lowest set bit of f, one-hot (0 if none): each bit and no lower one.
  function automatic logic [NumChecks-1:0] first_fail(logic [NumChecks-1:0] f);
    logic below;
    below = 1'b0;
    for (int c = 0; c < NumChecks; c++) begin
      first_fail[c] = f[c] && !below;
      below         = below || f[c];
    end
  endfunction

  // The 20 bytes at l4 = 14 + 4 * IHL (IPv4) or 54 (IPv6), and the keep bits at l4 - 1, l4 + 7, l4 + 19. IPv4:
  // one candidate per IHL value, selected by the IHL (a 16:1 multiplexer, no offset arithmetic). Both
  // families are formed side by side and the EtherType chooses between them last (for the checks, per check),
  // so the EtherType compare is not in front of the IHL multiplexer.
  logic [15:0][8*SliceBytes-1:0] cand;
  logic [15:0]                   cand_hdr, cand_udp, cand_lb;
  logic [8*SliceBytes-1:0]       l4h4, l4h6;
  logic                          port4_bad, port6_bad;
  // The IP payload (total length - IP header; IPv6: the payload length) is under 8 + 12 bytes: the length is
  // under 128 and its low 7 bits under the header + 20 (IPv4: 4 * IHL + 20 = 4 * (IHL + 5), compared on
  // bits 6:2, a 5-bit compare rather than a 16-bit subtraction and compare).
  logic                          ip_short4, ip_short6;
  logic [3:0]                    tails4, tails6;  // tails of each family

  // One block, all of it under en_i: a simulator evaluates it on every change of the window (every cycle)
  // and skips it but for a frame's first beat; in hardware en_i only gates the result.
  always_comb begin
    info        = '0;
    info.reason = lb_pkg::reason_t'(nt_pkg::LbDropRunt);  // not a first beat: read as an empty window
    k           = '0;
    ethertype   = '0;
    ihl         = '0;
    is_v6       = 1'b0;
    ip_len      = '0;
    cand        = '0;
    cand_hdr    = '0;
    cand_udp    = '0;
    cand_lb     = '0;
    l4h4        = '0;
    l4h6        = '0;
    l4h         = '0;
    k_hdr       = 1'b0;
    k_udp       = 1'b0;
    k_lb        = 1'b0;
    port4_bad   = 1'b0;
    port6_bad   = 1'b0;
    udp_len     = '0;
    ip_short4   = 1'b0;
    ip_short6   = 1'b0;
    tails4      = '0;
    tails6      = '0;
    f_runt      = 1'b0;
    f_not_ip    = 1'b0;
    f_trunc_ip  = 1'b0;
    f_bad_ip    = 1'b0;
    f_trunc_hdr = 1'b0;
    f_frag      = 1'b0;
    f_not_udp   = 1'b0;
    f_trunc_udp = 1'b0;
    f_port      = 1'b0;
    f_trunc_lb  = 1'b0;
    ok_eth      = 1'b0;
    ok_ip       = 1'b0;
    ok_udp      = 1'b0;
    ok_port     = 1'b0;
    ok_all      = 1'b0;
    fails       = '0;
    first       = '0;
    tails       = '0;
    tfirst      = '0;
    if (en_i) begin
      k         = keep_i;
      ethertype = nt_pkg::win_b16(window_i, 12);
      ihl       = window_i[8*14+:4];
      is_v6     = et_i[1];
      ip_len    = is_v6 ? nt_pkg::win_b16(window_i, 18) : nt_pkg::win_b16(window_i, 16);
      for (int h = 0; h < 16; h++) begin
        cand[h]     = window_i[8*(14+4*h)+:8*SliceBytes];
        cand_hdr[h] = k[13+4*h];
        cand_udp[h] = k[21+4*h];
        cand_lb[h]  = k[33+4*h];
      end
      l4h4      = cand[ihl];
      l4h6      = window_i[8*54+:8*SliceBytes];
      l4h       = is_v6 ? l4h6 : l4h4;
      k_hdr     = is_v6 ? k[53] : cand_hdr[ihl];
      k_udp     = is_v6 ? k[61] : cand_udp[ihl];
      k_lb      = is_v6 ? k[73] : cand_lb[ihl];
      port4_bad = {l4h4[8*2+:8], l4h4[8*3+:8]} != 16'(nt_pkg::LbUdpPort);
      port6_bad = {l4h6[8*2+:8], l4h6[8*3+:8]} != 16'(nt_pkg::LbUdpPort);
      udp_len   = {l4h[8*4+:8], l4h[8*5+:8]};
      ip_short4 = nt_pkg::win_b16(window_i, 16) < 16'd128 && window_i[8*17+2+:5] < {1'b0, ihl} + 5'd5;
      ip_short6 = nt_pkg::win_b16(window_i, 18) < 16'(8 + nt_pkg::LbHeaderBytes);

      f_runt      = !k[13];
      f_not_ip    = !et_i[0] && !et_i[1];
      f_trunc_ip  = is_v6 ? !k[53] : !k[33];
      f_bad_ip    = is_v6 ? window_i[8*14+4+:4] != 4'd6 : (window_i[8*14+4+:4] != 4'd4 || ihl < 4'd5);
      f_trunc_hdr = !is_v6 && !k_hdr;
      f_frag      = !is_v6 && 14'(nt_pkg::win_b16(window_i, 20)) != '0;  // MF flag or fragment offset
      f_not_udp   = is_v6 ? nt_pkg::win_b8(window_i, 20) != 8'd17 : nt_pkg::win_b8(window_i, 23) != 8'd17;
      f_trunc_udp = !k_udp;
      f_port      = is_v6 ? port6_bad : port4_bad;
      f_trunc_lb  = !k_lb;
      ok_eth  = !f_runt && !f_not_ip;
      ok_ip   = ok_eth && !f_trunc_ip && !f_bad_ip && !f_trunc_hdr && !f_frag;
      ok_udp  = ok_ip && !f_not_udp;
      ok_port = ok_udp && !f_trunc_udp;
      ok_all  = ok_port && !f_port && !f_trunc_lb;

      // The reason of the first failing check, and each field only once the checks before it have passed (as
      // a walk that stops at the first failing check would leave them). Written as AND/OR terms rather than
      // if/else chains: Yosys maps a chain of multiplexers to MUXF7/8/9 cascades before ABC can flatten it.
      fails = {f_trunc_lb, f_port, f_trunc_udp, f_not_udp, f_frag, f_trunc_hdr, f_bad_ip, f_trunc_ip, f_not_ip,
               f_runt};
      info  = '0;
      first = first_fail(fails);
      for (int c = 0; c < NumChecks; c++) begin
        info.reason = info.reason | ({lb_pkg::ReasonBits{first[c]}} & check_reason(c));
      end
      info.mac       = {nt_pkg::win_b32(window_i, 0), nt_pkg::win_b16(window_i, 4)} & {48{!f_runt}};
      info.ethertype = ethertype & {16{!f_runt}};
      info.is_v6     = is_v6 && ok_eth;
      info.ip_len    = ip_len & {16{ok_ip}};
      info.ip_csum   = nt_pkg::win_b16(window_i, 24) & {16{ok_ip && !is_v6}};
      info.ip        = (is_v6 ? {nt_pkg::win_b64(window_i, 38), nt_pkg::win_b64(window_i, 46)}
                              : {96'd0, nt_pkg::win_b32(window_i, 30)}) & {128{ok_ip}};
      // IPv4: total length - header; wraps below 0, when ip_short says bad length already.
      info.ip_pay    = (is_v6 ? ip_len : ip_len - {10'd0, ihl, 2'd0}) & {16{ok_ip}};
      info.l4_off    = (is_v6 ? 8'd54 : 8'd14 + {2'd0, ihl, 2'd0}) & {8{ok_udp}};
      info.port      = {l4h[8*2+:8], l4h[8*3+:8]} & {16{ok_port}};
      info.udp_len   = udp_len & {16{ok_all}};
      info.udp_csum  = {l4h[8*6+:8], l4h[8*7+:8]} & {16{ok_all}};
      for (int b = 0; b < int'(nt_pkg::LbHeaderBytes); b++) info.lb_hdr[95-8*b-:8] = l4h[8*(8+b)+:8] & {8{ok_all}};
      info.tick      = info.lb_hdr[63:0];
      // The checks after the headers' presence, but for "UDP length > IP payload" (lb_pkg::parse_reason), in
      // docs/lb.md order: bad length, bad magic, bad version, IPv6 zero UDP checksum; per family, the EtherType
      // choosing last. Read only when every check above passed (reason none), so not gated by them.
      tails4 = {1'b0, tail_checks({l4h4[8*4+:8], l4h4[8*5+:8]}, {l4h4[8*8+:8], l4h4[8*9+:8]}, l4h4[8*10+:8],
                                      ip_short4)};
      tails6 = {{l4h6[8*6+:8], l4h6[8*7+:8]} == '0, tail_checks({l4h6[8*4+:8], l4h6[8*5+:8]},
                                                                   {l4h6[8*8+:8], l4h6[8*9+:8]}, l4h6[8*10+:8], ip_short6)};
      tails  = is_v6 ? tails6 : tails4;
      tfirst = tails & ~{tails[2:0], 1'b0} & ~{tails[1:0], 2'b0} & ~{tails[0], 3'b0};
      info.tail = ({lb_pkg::ReasonBits{tfirst[0]}} & lb_pkg::reason_t'(nt_pkg::LbDropBadLength)) |
                  ({lb_pkg::ReasonBits{tfirst[1]}} & lb_pkg::reason_t'(nt_pkg::LbDropBadMagic)) |
                  ({lb_pkg::ReasonBits{tfirst[2]}} & lb_pkg::reason_t'(nt_pkg::LbDropBadVersion)) |
                  ({lb_pkg::ReasonBits{tfirst[3]}} & lb_pkg::reason_t'(nt_pkg::LbDropUdp6ZeroCsum));
    end
  end

  assign info_o = info;
endmodule
