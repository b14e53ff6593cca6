// Parses a buffered request's headers (first two beats) into request_t: structure first (runt, malformed),
// then whether it is for this responder (docs/rdma.md "Request processing"). Mirrors ParseRequest().
module rdma_parser
(
  input  logic [8*rdma_pkg::HdrWindow-1:0] hdr_i,
  input  logic [15:0]            frame_len_i,
  input  rdma_pkg::responder_t             resp_i,
  output rdma_pkg::request_t               req_o
);

  function automatic int unsigned ext_len(logic [7:0] opcode);
    unique case (opcode)
      8'h06, 8'h0a, 8'h0c: ext_len = 16;
      8'h0b: ext_len = 20;
      8'h03, 8'h05, 8'h09: ext_len = 4;
      8'h13, 8'h14: ext_len = 28;
      8'h0d, 8'h0f, 8'h10, 8'h11: ext_len = 4;
      8'h12: ext_len = 12;
      default: ext_len = 0;
    endcase
  endfunction

  rdma_pkg::request_t    q;
  logic        done;
  int          l4, ip_len, data_len, len;
  logic [15:0] et, frag;
  logic [7:0]  ver, bth_flags;
  logic [31:0] bth_qp, bth_psn;

  always_comb begin
    q         = '0;
    done      = 1'b0;
    l4        = 34;
    ip_len    = 0;
    data_len  = 0;
    len       = int'(frame_len_i);
    et        = nt_pkg::win_b16(hdr_i, 12);
    frag      = nt_pkg::win_b16(hdr_i, 20);
    ver       = nt_pkg::win_b8(hdr_i, 14);
    bth_flags = '0;
    bth_qp    = '0;
    bth_psn   = '0;
    if (len < 14) begin
      q.drop = 4'(rdma_pkg::DropRunt);
      done   = 1'b1;
    end else if (et == 16'h0800) begin
      ip_len = int'(nt_pkg::win_b16(hdr_i, 16));
      if (len < 34) begin
        q.drop = 4'(rdma_pkg::DropRunt);
        done   = 1'b1;
      end else if (ver != 8'h45) begin
        q.drop = 4'(rdma_pkg::DropMalformed);
        done   = 1'b1;
      end else if (len < 14 + ip_len) begin
        q.drop = 4'(rdma_pkg::DropRunt);
        done   = 1'b1;
      end else if (ip_len < 44 || frag[13:0] != '0 || nt_pkg::win_b8(hdr_i, 23) != 8'd17) begin
        q.drop = 4'(rdma_pkg::DropMalformed);
        done   = 1'b1;
      end else begin
        l4          = 34;
        q.frame_end = 16'(14 + ip_len);
      end
    end else if (et == 16'h86dd) begin
      q.v6   = 1'b1;
      ip_len = int'(nt_pkg::win_b16(hdr_i, 18));
      if (len < 54) begin
        q.drop = 4'(rdma_pkg::DropRunt);
        done   = 1'b1;
      end else if (ver[7:4] != 4'd6) begin
        q.drop = 4'(rdma_pkg::DropMalformed);
        done   = 1'b1;
      end else if (len < 54 + ip_len) begin
        q.drop = 4'(rdma_pkg::DropRunt);
        done   = 1'b1;
      end else if (nt_pkg::win_b8(hdr_i, 20) != 8'd17 || ip_len < 24) begin
        q.drop = 4'(rdma_pkg::DropMalformed);
        done   = 1'b1;
      end else begin
        l4          = 54;
        q.frame_end = 16'(54 + ip_len);
      end
    end else begin
      q.drop = 4'(rdma_pkg::DropMalformed);
      done   = 1'b1;
    end
    if (!done) begin
      bth_flags = nt_pkg::win_b8(hdr_i, l4 + 9);
      q.opcode  = nt_pkg::win_b8(hdr_i, l4 + 8);
      q.pad     = bth_flags[5:4];
      q.hdr_len = 16'(l4 + 20 + int'(ext_len(q.opcode)));
      data_len  = int'(q.frame_end) - 4 - int'(q.hdr_len);
      if (nt_pkg::win_b16(hdr_i, l4 + 2) != 16'(nt_pkg::RdmaUdpPort) || int'(nt_pkg::win_b16(hdr_i, l4 + 4)) != int'(q.frame_end) - l4 ||
          bth_flags[3:0] != 4'd0 || (q.opcode > 8'h14 && q.opcode != 8'h81) || data_len < 0 || int'(q.pad) > data_len) begin
        q.drop = 4'(rdma_pkg::DropMalformed);
        done   = 1'b1;
      end
    end
    if (!done) begin
      q.plen = 32'(data_len - int'(q.pad));
      if ({nt_pkg::win_b32(hdr_i, 0), nt_pkg::win_b16(hdr_i, 4)} != resp_i.mac) begin
        q.drop = 4'(rdma_pkg::DropNotForUs);
        done   = 1'b1;
      end else if (q.v6 ? (!resp_i.has_ip6 || {nt_pkg::win_b64(hdr_i, 38), nt_pkg::win_b64(hdr_i, 46)} != resp_i.ip6)
                        : (!resp_i.has_ip4 || nt_pkg::win_b32(hdr_i, 30) != resp_i.ip4)) begin
        q.drop = 4'(rdma_pkg::DropNotForUs);
        done   = 1'b1;
      end
    end
    if (!done) begin
      bth_qp    = nt_pkg::win_b32(hdr_i, l4 + 12);
      bth_psn   = nt_pkg::win_b32(hdr_i, l4 + 16);
      q.src_mac = {nt_pkg::win_b32(hdr_i, 6), nt_pkg::win_b16(hdr_i, 10)};
      q.src_ip4 = q.v6 ? 32'd0 : nt_pkg::win_b32(hdr_i, 26);
      q.src_ip6 = q.v6 ? {nt_pkg::win_b64(hdr_i, 22), nt_pkg::win_b64(hdr_i, 30)} : 128'd0;
      q.sport   = nt_pkg::win_b16(hdr_i, l4);
      q.dqpn    = bth_qp[23:0];
      q.ackreq  = bth_psn[31];
      q.psn     = bth_psn[23:0];
      unique case (q.opcode)
        8'h06, 8'h0a, 8'h0b, 8'h0c: begin
          q.va     = nt_pkg::win_b64(hdr_i, l4 + 20);
          q.rkey   = nt_pkg::win_b32(hdr_i, l4 + 28);
          q.dmalen = nt_pkg::win_b32(hdr_i, l4 + 32);
        end
        8'h13, 8'h14: begin
          q.va      = nt_pkg::win_b64(hdr_i, l4 + 20);
          q.rkey    = nt_pkg::win_b32(hdr_i, l4 + 28);
          q.swap    = nt_pkg::win_b64(hdr_i, l4 + 32);
          q.compare = nt_pkg::win_b64(hdr_i, l4 + 40);
          q.dmalen  = 32'd8;
        end
        default: ;
      endcase
      if (q.opcode == 8'h03 || q.opcode == 8'h05 || q.opcode == 8'h09) q.imm = nt_pkg::win_b32(hdr_i, l4 + 20);
      if (q.opcode == 8'h0b) q.imm = nt_pkg::win_b32(hdr_i, l4 + 36);
    end
  end

  // Header bytes read whole and used in part.
  logic unused_bits;
  assign unused_bits = ^{resp_i.aq_linear, frag[15:14], ver[3:0], bth_flags[7:6], bth_qp[31:24],
                         bth_psn[30:24]};

  assign req_o = q;
endmodule
