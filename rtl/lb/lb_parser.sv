// Header parse: Ethernet, IPv4 (with options) or IPv6, UDP, LB header, from the first two beats of a frame.
// Combinational; the first failing check gives the drop reason, in the order of docs/lb.md. Parses only
// while en_i (a frame's first beat leaves the lookahead register); otherwise the window reads as empty (a
// runt, which the pipeline ignores: it keeps a parse only for first beats), so a simulator stops after the
// first check instead of re-parsing the window on every evaluation (docs/PERF.md).
module lb_parser
(
  input  logic [8*lb_pkg::WindowBytes-1:0] window_i,  // frame bytes 0..127, byte 0 in bits 7:0
  input  logic [7:0]               len_i,     // valid bytes in the window (the frame length if shorter)
  input  logic                     en_i,      // the window holds a frame's first two beats
  output lb_pkg::parse_t                   info_o
);

  lb_pkg::parse_t      info;
  logic        done;
  int unsigned len, ip_hdr, l4;
  int          ip_payload;
  logic [3:0]  ihl;
  logic [7:0]  proto;

  always_comb begin
    info       = '0;
    done       = 1'b0;
    len        = en_i ? int'(len_i) : 0;
    ihl        = window_i[8*14+:4];
    ip_hdr     = 0;
    ip_payload = 0;
    proto      = '0;
    l4         = 0;
    if (len < 14) begin
      info.reason = lb_pkg::reason_t'(nt_pkg::LbDropRunt);
      done = 1'b1;
    end else begin
      info.mac       = {nt_pkg::win_b32(window_i, 0), nt_pkg::win_b16(window_i, 4)};
      info.ethertype = nt_pkg::win_b16(window_i, 12);
      if (info.ethertype != 16'h0800 && info.ethertype != 16'h86dd) begin
        info.reason = lb_pkg::reason_t'(nt_pkg::LbDropNotIp);
        done = 1'b1;
      end
    end
    if (!done) begin
      info.is_v6 = info.ethertype == 16'h86dd;
      if (!info.is_v6) begin
        if (len < 14 + 20) begin
          info.reason = lb_pkg::reason_t'(nt_pkg::LbDropTruncated);
          done = 1'b1;
        end else if (window_i[8*14+4+:4] != 4'd4 || ihl < 4'd5) begin
          info.reason = lb_pkg::reason_t'(nt_pkg::LbDropBadIp);
          done = 1'b1;
        end else begin
          ip_hdr = 4 * int'(ihl);
          if (len < 14 + ip_hdr) begin
            info.reason = lb_pkg::reason_t'(nt_pkg::LbDropTruncated);
            done = 1'b1;
          end else if (14'(nt_pkg::win_b16(window_i, 20)) != '0) begin  // MF flag or fragment offset
            info.reason = lb_pkg::reason_t'(nt_pkg::LbDropIpFragment);
            done = 1'b1;
          end else begin
            proto        = nt_pkg::win_b8(window_i, 23);
            info.ip_len  = nt_pkg::win_b16(window_i, 16);
            info.ip_csum = nt_pkg::win_b16(window_i, 24);
            info.ip      = {96'd0, nt_pkg::win_b32(window_i, 30)};
            ip_payload   = int'(info.ip_len) - int'(ip_hdr);
          end
        end
      end else begin
        if (len < 14 + 40) begin
          info.reason = lb_pkg::reason_t'(nt_pkg::LbDropTruncated);
          done = 1'b1;
        end else if (window_i[8*14+4+:4] != 4'd6) begin
          info.reason = lb_pkg::reason_t'(nt_pkg::LbDropBadIp);
          done = 1'b1;
        end else begin
          ip_hdr      = 40;
          proto       = nt_pkg::win_b8(window_i, 20);
          info.ip_len = nt_pkg::win_b16(window_i, 18);
          info.ip     = {nt_pkg::win_b64(window_i, 38), nt_pkg::win_b64(window_i, 46)};
          ip_payload  = int'(info.ip_len);
        end
      end
    end
    if (!done) begin
      l4 = 14 + ip_hdr;
      if (proto != 8'd17) begin
        info.reason = lb_pkg::reason_t'(nt_pkg::LbDropNotUdp);
        done = 1'b1;
      end else begin
        info.l4_off = 8'(l4);
        if (len < l4 + 8) begin
          info.reason = lb_pkg::reason_t'(nt_pkg::LbDropTruncated);
          done = 1'b1;
        end else begin
          info.port = nt_pkg::win_b16(window_i, l4 + 2);
          if (info.port != 16'(nt_pkg::LbUdpPort)) begin
            info.reason = lb_pkg::reason_t'(nt_pkg::LbDropNotLbPort);
            done = 1'b1;
          end else if (len < l4 + 8 + nt_pkg::LbHeaderBytes) begin
            info.reason = lb_pkg::reason_t'(nt_pkg::LbDropTruncated);
            done = 1'b1;
          end
        end
      end
    end
    if (!done) begin
      info.udp_len  = nt_pkg::win_b16(window_i, l4 + 4);
      info.udp_csum = nt_pkg::win_b16(window_i, l4 + 6);
      info.lb_hdr   = {nt_pkg::win_b32(window_i, l4 + 8), nt_pkg::win_b64(window_i, l4 + 12)};
      info.tick     = nt_pkg::win_b64(window_i, l4 + 12);
      if (ip_payload < 8 + int'(nt_pkg::LbHeaderBytes) || int'(info.udp_len) < 8 + int'(nt_pkg::LbHeaderBytes) ||
          int'(info.udp_len) > ip_payload) begin
        info.reason = lb_pkg::reason_t'(nt_pkg::LbDropBadLength);
      end else if (info.lb_hdr[95:80] != 16'(nt_pkg::LbMagic)) begin
        info.reason = lb_pkg::reason_t'(nt_pkg::LbDropBadMagic);
      end else if (info.lb_hdr[79:72] != 8'(nt_pkg::LbVersion)) begin
        info.reason = lb_pkg::reason_t'(nt_pkg::LbDropBadVersion);
      end else if (info.is_v6 && info.udp_csum == '0) begin
        info.reason = lb_pkg::reason_t'(nt_pkg::LbDropUdp6ZeroCsum);
      end
    end
  end

  assign info_o = info;
endmodule
