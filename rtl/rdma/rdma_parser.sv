// Parses a buffered request's headers (first two beats) into request_t; docs/rdma.md "Request processing".
module rdma_parser
  import nt_pkg::*;
  import rdma_pkg::*;
(
  input  logic [8*HdrWindow-1:0] hdr_i,
  input  logic [15:0]            frame_len_i,
  input  responder_t             resp_i,
  output request_t               req_o
);
  function automatic logic [7:0] b8(logic [8*HdrWindow-1:0] w, int unsigned off);
    return w[8*off+:8];
  endfunction
  function automatic logic [15:0] b16(logic [8*HdrWindow-1:0] w, int unsigned off);
    return {b8(w, off), b8(w, off + 1)};
  endfunction
  function automatic logic [31:0] b32(logic [8*HdrWindow-1:0] w, int unsigned off);
    return {b16(w, off), b16(w, off + 2)};
  endfunction
  function automatic logic [63:0] b64(logic [8*HdrWindow-1:0] w, int unsigned off);
    return {b32(w, off), b32(w, off + 4)};
  endfunction

  function automatic int unsigned ext_len(logic [7:0] opcode);
    unique case (opcode)
      8'h06, 8'h0a, 8'h0c: return 16;
      8'h0b: return 20;
      8'h03, 8'h05, 8'h09: return 4;
      8'h13, 8'h14: return 28;
      8'h0d, 8'h0f, 8'h10, 8'h11: return 4;
      8'h12: return 12;
      default: return 0;
    endcase
  endfunction

  request_t    q;
  logic        done;
  int unsigned udp_off, ip_payload, ext_off;
  logic [15:0] et, frag;
  logic [7:0]  v6_ver, bth_op, bth_flags;
  logic [31:0] bth_qp, bth_psn;

  always_comb begin
    q          = '0;
    done       = 1'b0;
    udp_off    = 34;
    ip_payload = 0;
    ext_off    = 0;
    et         = b16(hdr_i, 12);
    frag       = b16(hdr_i, 20);
    v6_ver     = b8(hdr_i, 14);
    bth_op     = '0;
    bth_flags  = '0;
    bth_qp     = '0;
    bth_psn    = '0;
    if (frame_len_i < 16'(MinFrame)) begin
      q.drop = 4'(DropRunt);
      done   = 1'b1;
    end else if ({b32(hdr_i, 0), b16(hdr_i, 4)} != resp_i.mac) begin
      q.drop = 4'(DropNotForUs);
      done   = 1'b1;
    end else if (et != 16'h0800 && et != 16'h86dd) begin
      q.drop = 4'(DropMalformed);
      done   = 1'b1;
    end else begin
      q.v6 = et == 16'h86dd;
      if ((q.v6 && !resp_i.has_ip6) || (!q.v6 && !resp_i.has_ip4)) begin
        q.drop = 4'(DropNotForUs);
        done   = 1'b1;
      end
    end
    if (!done) begin
      q.src_mac = {b32(hdr_i, 6), b16(hdr_i, 10)};
      if (!q.v6) begin
        if (b8(hdr_i, 14) != 8'h45 || b8(hdr_i, 23) != 8'd17 || frag[13:0] != '0) begin
          q.drop = 4'(DropMalformed);
          done   = 1'b1;
        end else if (b32(hdr_i, 30) != resp_i.ip4) begin
          q.drop = 4'(DropNotForUs);
          done   = 1'b1;
        end else begin
          q.src_ip4   = b32(hdr_i, 26);
          udp_off     = 34;
          ip_payload  = int'(b16(hdr_i, 16)) - 20;
          q.frame_end = 16'(14 + int'(b16(hdr_i, 16)));
        end
      end else begin
        if (v6_ver[7:4] != 4'd6 || b8(hdr_i, 20) != 8'd17) begin
          q.drop = 4'(DropMalformed);
          done   = 1'b1;
        end else if ({b64(hdr_i, 38), b64(hdr_i, 46)} != resp_i.ip6) begin
          q.drop = 4'(DropNotForUs);
          done   = 1'b1;
        end else begin
          q.src_ip6   = {b64(hdr_i, 22), b64(hdr_i, 30)};
          udp_off     = 54;
          ip_payload  = int'(b16(hdr_i, 18));
          q.frame_end = 16'(54 + int'(b16(hdr_i, 18)));
        end
      end
    end
    if (!done) begin
      bth_op    = b8(hdr_i, udp_off + 8);
      bth_flags = b8(hdr_i, udp_off + 9);
      bth_qp    = b32(hdr_i, udp_off + 12);
      bth_psn   = b32(hdr_i, udp_off + 16);
      if (b16(hdr_i, udp_off + 2) != 16'(RdmaUdpPort) || q.frame_end > frame_len_i ||
          int'(b16(hdr_i, udp_off + 4)) != ip_payload || ip_payload < 24 ||
          bth_op[7:5] != 3'd0) begin
        q.drop = 4'(DropMalformed);
        done   = 1'b1;
      end
    end
    if (!done) begin
      q.sport   = b16(hdr_i, udp_off);
      q.opcode  = b8(hdr_i, udp_off + 8);
      q.pad     = bth_flags[5:4];
      q.dqpn    = bth_qp[23:0];
      q.ackreq  = bth_psn[31];
      q.psn     = bth_psn[23:0];
      q.hdr_len = 16'(udp_off + 20 + ext_len(q.opcode));
      q.plen    = 32'(int'(q.frame_end) - 4 - int'(q.hdr_len) - int'(q.pad));
      ext_off   = udp_off + 20;
      if (q.plen[31]) begin
        q.drop = 4'(DropMalformed);
      end else begin
        unique case (q.opcode)
          8'h06, 8'h0a, 8'h0b, 8'h0c: begin
            q.va     = b64(hdr_i, ext_off);
            q.rkey   = b32(hdr_i, ext_off + 8);
            q.dmalen = b32(hdr_i, ext_off + 12);
          end
          8'h13, 8'h14: begin
            q.va      = b64(hdr_i, ext_off);
            q.rkey    = b32(hdr_i, ext_off + 8);
            q.swap    = b64(hdr_i, ext_off + 12);
            q.compare = b64(hdr_i, ext_off + 20);
            q.dmalen  = 32'd8;
          end
          default: ;
        endcase
      end
    end
  end

  // Header bytes read whole and used in part.
  logic unused_bits;
  assign unused_bits = ^{resp_i.aq_linear, frag[15:14], v6_ver[3:0], bth_op[4:0], bth_flags[7:6],
                         bth_flags[3:0], bth_qp[31:24], bth_psn[30:24]};

  assign req_o = q;
endmodule
