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
  output lb_pkg::parse_t                   info_o
);
  localparam int unsigned SliceBytes = 8 + nt_pkg::LbHeaderBytes;  // UDP header + LB header

  lb_pkg::parse_t                  info;
  logic [lb_pkg::WindowBytes-1:0]  k;      // byte c is present <=> the window holds more than c bytes
  logic [15:0]                     ethertype, ip_len;
  logic [3:0]                      ihl;
  logic [7:0]                      proto;
  logic                            is_v6;
  logic [8*SliceBytes-1:0]         l4h;    // frame bytes l4 .. l4 + 19, byte l4 in bits 7:0
  logic                            k_hdr, k_udp, k_lb;  // bytes l4 - 1, l4 + 7, l4 + 19 present
  logic [15:0]                     udp_len;
  // The checks in docs/lb.md order; each is computed on its own (a later check may read fields an earlier
  // failing one says are not there: they are gated below).
  logic f_runt, f_not_ip, f_trunc_ip, f_bad_ip, f_trunc_hdr, f_frag, f_not_udp, f_trunc_udp, f_port, f_trunc_lb;
  logic ok_eth, ok_ip, ok_udp, ok_port, ok_all;  // every check up to and including that point passed

  assign k         = en_i ? keep_i : '0;
  assign ethertype = nt_pkg::win_b16(window_i, 12);
  assign ihl       = window_i[8*14+:4];
  assign is_v6     = ethertype == 16'h86dd;
  assign proto     = is_v6 ? nt_pkg::win_b8(window_i, 20) : nt_pkg::win_b8(window_i, 23);
  assign ip_len    = is_v6 ? nt_pkg::win_b16(window_i, 18) : nt_pkg::win_b16(window_i, 16);

  // The 20 bytes at l4 = 14 + 4 * IHL (IPv4) or 54 (IPv6), and the keep bits at l4 - 1, l4 + 7, l4 + 19: one
  // candidate per IHL value, selected by the IHL (a 16:1 multiplexer, no offset arithmetic). Only while en_i,
  // so a simulator builds the candidates once per frame.
  logic [15:0][8*SliceBytes-1:0] cand;
  logic [15:0]                   cand_hdr, cand_udp, cand_lb;
  always_comb begin
    cand     = '0;
    cand_hdr = '0;
    cand_udp = '0;
    cand_lb  = '0;
    l4h      = '0;
    k_hdr    = 1'b0;
    k_udp    = 1'b0;
    k_lb     = 1'b0;
    if (en_i) begin
      if (is_v6) begin
        l4h   = window_i[8*54+:8*SliceBytes];
        k_hdr = k[53];
        k_udp = k[61];
        k_lb  = k[73];
      end else begin
        for (int h = 0; h < 16; h++) begin
          cand[h]     = window_i[8*(14+4*h)+:8*SliceBytes];
          cand_hdr[h] = k[13+4*h];
          cand_udp[h] = k[21+4*h];
          cand_lb[h]  = k[33+4*h];
        end
        l4h   = cand[ihl];
        k_hdr = cand_hdr[ihl];
        k_udp = cand_udp[ihl];
        k_lb  = cand_lb[ihl];
      end
    end
  end
  assign udp_len = {l4h[8*4+:8], l4h[8*5+:8]};

  // The IP payload (total length - IP header; IPv6: the payload length) is under 8 + 12 bytes: the length is
  // under 128 and its low 7 bits under the header + 20 (IPv4: 4 * IHL + 20 = 4 * (IHL + 5), compared on
  // bits 6:2, a 5-bit compare rather than a 16-bit subtraction and compare).
  logic ip_short;
  assign ip_short = ip_len[15:7] == '0 &&
                    (is_v6 ? ip_len[6:0] < 7'(8 + nt_pkg::LbHeaderBytes) : ip_len[6:2] < {1'b0, ihl} + 5'd5);

  always_comb begin
    f_runt      = !k[13];
    f_not_ip    = ethertype != 16'h0800 && !is_v6;
    f_trunc_ip  = is_v6 ? !k[53] : !k[33];
    f_bad_ip    = is_v6 ? window_i[8*14+4+:4] != 4'd6 : (window_i[8*14+4+:4] != 4'd4 || ihl < 4'd5);
    f_trunc_hdr = !is_v6 && !k_hdr;
    f_frag      = !is_v6 && 14'(nt_pkg::win_b16(window_i, 20)) != '0;  // MF flag or fragment offset
    f_not_udp   = proto != 8'd17;
    f_trunc_udp = !k_udp;
    f_port      = {l4h[8*2+:8], l4h[8*3+:8]} != 16'(nt_pkg::LbUdpPort);
    f_trunc_lb  = !k_lb;
    ok_eth  = !f_runt && !f_not_ip;
    ok_ip   = ok_eth && !f_trunc_ip && !f_bad_ip && !f_trunc_hdr && !f_frag;
    ok_udp  = ok_ip && !f_not_udp;
    ok_port = ok_udp && !f_trunc_udp;
    ok_all  = ok_port && !f_port && !f_trunc_lb;

    info = '0;
    if (f_runt) info.reason = lb_pkg::reason_t'(nt_pkg::LbDropRunt);
    else if (f_not_ip) info.reason = lb_pkg::reason_t'(nt_pkg::LbDropNotIp);
    else if (f_trunc_ip) info.reason = lb_pkg::reason_t'(nt_pkg::LbDropTruncated);
    else if (f_bad_ip) info.reason = lb_pkg::reason_t'(nt_pkg::LbDropBadIp);
    else if (f_trunc_hdr) info.reason = lb_pkg::reason_t'(nt_pkg::LbDropTruncated);
    else if (f_frag) info.reason = lb_pkg::reason_t'(nt_pkg::LbDropIpFragment);
    else if (f_not_udp) info.reason = lb_pkg::reason_t'(nt_pkg::LbDropNotUdp);
    else if (f_trunc_udp) info.reason = lb_pkg::reason_t'(nt_pkg::LbDropTruncated);
    else if (f_port) info.reason = lb_pkg::reason_t'(nt_pkg::LbDropNotLbPort);
    else if (f_trunc_lb) info.reason = lb_pkg::reason_t'(nt_pkg::LbDropTruncated);

    // The fields, each only once the checks before it have passed (as a walk that stops at the first
    // failing check would leave them).
    if (!f_runt) begin
      info.mac       = {nt_pkg::win_b32(window_i, 0), nt_pkg::win_b16(window_i, 4)};
      info.ethertype = ethertype;
    end
    if (ok_eth) info.is_v6 = is_v6;
    if (ok_ip) begin
      info.ip_len = ip_len;
      if (is_v6) begin
        info.ip     = {nt_pkg::win_b64(window_i, 38), nt_pkg::win_b64(window_i, 46)};
        info.ip_pay = ip_len;
      end else begin
        info.ip_csum = nt_pkg::win_b16(window_i, 24);
        info.ip      = {96'd0, nt_pkg::win_b32(window_i, 30)};
        info.ip_pay  = ip_len - {10'd0, ihl, 2'd0};  // wraps below 0: then ip_short says bad length
      end
    end
    if (ok_udp) info.l4_off = is_v6 ? 8'd54 : 8'd14 + {2'd0, ihl, 2'd0};
    if (ok_port) info.port = {l4h[8*2+:8], l4h[8*3+:8]};
    if (ok_all) begin
      info.udp_len  = udp_len;
      info.udp_csum = {l4h[8*6+:8], l4h[8*7+:8]};
      for (int b = 0; b < int'(nt_pkg::LbHeaderBytes); b++) info.lb_hdr[95-8*b-:8] = l4h[8*(8+b)+:8];
      info.tick     = info.lb_hdr[63:0];
      // The checks after the headers' presence, but for "UDP length > IP payload" (lb_pkg::parse_reason).
      if (ip_short || udp_len < 16'(8 + nt_pkg::LbHeaderBytes)) begin
        info.tail = lb_pkg::reason_t'(nt_pkg::LbDropBadLength);
      end else if (info.lb_hdr[95:80] != 16'(nt_pkg::LbMagic)) begin
        info.tail = lb_pkg::reason_t'(nt_pkg::LbDropBadMagic);
      end else if (info.lb_hdr[79:72] != 8'(nt_pkg::LbVersion)) begin
        info.tail = lb_pkg::reason_t'(nt_pkg::LbDropBadVersion);
      end else if (is_v6 && info.udp_csum == '0) begin
        info.tail = lb_pkg::reason_t'(nt_pkg::LbDropUdp6ZeroCsum);
      end
    end
  end

  assign info_o = info;
endmodule
