// The RPC kernels (docs/naa.md "MRSP and RPC"): streaming units over 512-bit DMA beats on the granted FPGA
// regions in the endpoint's memory. State for state as model/naa/naa_kernel.cc.
//   1 add:  region 2 = region 0 + region 1 (little-endian 32-bit words); per 4 KiB chunk: read A, read B
//           (A into the chunk buffer, B added in place as it arrives), write the chunk back
//   2 crc:  CRC-32 (IEEE, as zlib.crc32; the responder's crc32_byte) of region 0, 64 bytes per beat, every
//           read issued back to back; the 4 bytes (little-endian) written at region 1
//   3 copy: region 1 = region 0; per chunk: read, write back
`include "nt_ports.svh"
module naa_kernel
(
  `NT_CLK_RST,
  input  logic                  start_i,
  input  logic [31:0]           fn_i,
  input  logic [7:0]            nreg_i,
  input  logic [2:0][63:0]      addr_i,
  input  logic [2:0][31:0]      size_i,
  input  logic [31:0]           budget_i,
  output logic                  dma_req_valid_o,
  input  logic                  dma_req_ready_i,
  output logic                  dma_req_write_o,
  output logic [63:0]           dma_req_addr_o,
  output logic [15:0]           dma_req_len_o,
  output logic [nt_pkg::StreamBits-1:0] dma_req_data_o,
  input  logic                  dma_rsp_valid_i,
  input  logic [nt_pkg::StreamBits-1:0] dma_rsp_data_i,
  output logic                  done_o,
  output logic [7:0]            status_o,
  output logic [1:0]            out_idx_o,
  output logic [31:0]           out_len_o
);
  localparam int unsigned ChunkBytes = nt_pkg::NaaChunkBeats * nt_pkg::StreamBytes;

  naa_pkg::kernel_state_e state_q;
  logic [31:0]   fn_q, budget_q, cycles_q, done_q, issued_q, expect_q, got_q, crc_q;
  logic [7:0]    nreg_q, status_q;
  logic [2:0][63:0] addr_q;
  logic [2:0][31:0] size_q;
  logic [6:0]    k_q;
  logic [1:0]    out_idx_q;
  logic [31:0]   out_len_q;
  // The chunk buffer: one write port and one registered read port, no reset - block RAM (issue 27;
  // docs/naa-microarchitecture.md "Kernel chunk buffer"). Every beat is written (A's read data) before it is
  // read (B's add, the write-back), so its contents after reset are never seen.
  logic [nt_pkg::StreamBits-1:0] buf_q [nt_pkg::NaaChunkBeats];
  logic [nt_pkg::StreamBits-1:0] buf_rd_q, buf_wr_q, buf_word, buf_wd, buf_sum;
  logic                  buf_fwd_q, buf_we, buf_b;
  logic [5:0]            buf_wa, buf_ra;

  logic        is_crc, is_add;
  logic [31:0] at, left, chunk, nb, wr_len, crc_now;
  assign is_crc = fn_q == naa_pkg::KernelCrc;
  assign is_add = fn_q == naa_pkg::KernelAdd;
  assign at     = is_crc ? issued_q : done_q;
  assign left   = size_q[0] - at;
  assign chunk  = (left < 32'(ChunkBytes)) ? left : 32'(ChunkBytes);
  assign nb     = (chunk + 32'd63) >> 6;
  assign wr_len = ((chunk - 32'd64 * {25'd0, k_q}) < 32'd64) ? chunk - 32'd64 * {25'd0, k_q} : 32'd64;
  assign crc_now = ~crc_q;

  always_comb begin
    dma_req_valid_o = 1'b0;
    dma_req_write_o = 1'b0;
    dma_req_addr_o  = '0;
    dma_req_len_o   = '0;
    dma_req_data_o  = '0;
    unique case (state_q)
      naa_pkg::KRdA: begin
        dma_req_valid_o = 1'b1;
        dma_req_addr_o  = addr_q[0] + {32'd0, at};
        dma_req_len_o   = chunk[15:0];
      end
      naa_pkg::KRdB: begin
        dma_req_valid_o = 1'b1;
        dma_req_addr_o  = addr_q[1] + {32'd0, done_q};
        dma_req_len_o   = chunk[15:0];
      end
      naa_pkg::KWrite: begin
        dma_req_valid_o = 1'b1;
        dma_req_write_o = 1'b1;
        dma_req_addr_o  = addr_q[is_add ? 2 : 1] + {32'd0, done_q} + 64'd64 * {57'd0, k_q};
        dma_req_len_o   = wr_len[15:0];
        dma_req_data_o  = buf_word;  // buf_q[k_q], read a cycle ahead
        for (int i = 0; i < nt_pkg::StreamBytes; i++) begin
          if (32'(i) >= wr_len) dma_req_data_o[8*i+:8] = 8'd0;
        end
      end
      naa_pkg::KCrcWrite: begin
        dma_req_valid_o      = 1'b1;
        dma_req_write_o      = 1'b1;
        dma_req_addr_o       = addr_q[1];
        dma_req_len_o        = 16'd4;
        dma_req_data_o[31:0] = crc_now;
      end
      default: ;
    endcase
  end

  // The CRC over the bytes of a read beat that lie inside region 0.
  logic [31:0] crc_beat;
  always_comb begin
    crc_beat = crc_q;
    for (int i = 0; i < nt_pkg::StreamBytes; i++) begin
      if (32'd64 * got_q + 32'(i) < size_q[0]) crc_beat = rdma_pkg::crc32_byte(crc_beat, dma_rsp_data_i[8*i+:8]);
    end
  end

  // The next state, the check's verdict and the cycle budget.
  logic          fire, chunk_done, working;
  logic [7:0]    check_status;
  logic [31:0]   cycles_d;
  naa_pkg::kernel_state_e nxt;
  assign fire       = dma_req_valid_o && dma_req_ready_i;
  assign chunk_done = state_q == naa_pkg::KWrite && fire && 32'd64 * ({25'd0, k_q} + 32'd1) >= chunk;
  always_comb begin
    check_status = naa_pkg::RpcOk;
    if (fn_q < naa_pkg::KernelAdd || fn_q > naa_pkg::KernelCopy) check_status = naa_pkg::RpcUnknownFn;
    else if (nreg_q < (is_add ? 8'd3 : 8'd2)) check_status = naa_pkg::RpcRegions;
    else if (is_add ? (size_q[0] != size_q[1] || size_q[0] != size_q[2] || size_q[0][1:0] != 2'd0)
                    : is_crc ? size_q[1] < 32'd4 : size_q[1] < size_q[0]) check_status = naa_pkg::RpcSize;
    nxt = state_q;
    unique case (state_q)
      naa_pkg::KIdle: if (start_i) nxt = naa_pkg::KCheck;
      naa_pkg::KCheck: begin
        if (check_status != naa_pkg::RpcOk) nxt = naa_pkg::KDone;
        else if (size_q[0] == 32'd0) nxt = is_crc ? naa_pkg::KCrcWrite : naa_pkg::KDone;
        else nxt = naa_pkg::KRdA;
      end
      naa_pkg::KRdA: if (fire) nxt = is_crc ? ((issued_q + chunk == size_q[0]) ? naa_pkg::KWait : naa_pkg::KRdA) : (is_add ? naa_pkg::KRdB : naa_pkg::KWait);
      naa_pkg::KRdB: if (fire) nxt = naa_pkg::KWait;
      naa_pkg::KWait: if (got_q == expect_q) nxt = is_crc ? naa_pkg::KCrcWrite : naa_pkg::KWrite;
      naa_pkg::KWrite: if (chunk_done) nxt = (done_q + chunk == size_q[0]) ? naa_pkg::KDone : naa_pkg::KRdA;
      naa_pkg::KCrcWrite: if (fire) nxt = naa_pkg::KDone;
      naa_pkg::KDrain: if (got_q == expect_q) nxt = naa_pkg::KDone;
      naa_pkg::KDone: nxt = naa_pkg::KIdle;
      default: nxt = naa_pkg::KIdle;
    endcase
    working  = nxt == naa_pkg::KRdA || nxt == naa_pkg::KRdB || nxt == naa_pkg::KWait || nxt == naa_pkg::KWrite || nxt == naa_pkg::KCrcWrite;
    cycles_d = (state_q == naa_pkg::KCheck ? 32'd0 : cycles_q) + 32'd1;
    if (working && cycles_d >= budget_q) nxt = naa_pkg::KDrain;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q   <= naa_pkg::KIdle;
      fn_q      <= '0;
      budget_q  <= '0;
      cycles_q  <= '0;
      done_q    <= '0;
      issued_q  <= '0;
      expect_q  <= '0;
      got_q     <= '0;
      crc_q     <= '1;
      nreg_q    <= '0;
      status_q  <= '0;
      addr_q    <= '0;
      size_q    <= '0;
      k_q       <= '0;
      out_idx_q <= '0;
      out_len_q <= '0;
    end else begin
      state_q <= nxt;
      unique case (state_q)
        naa_pkg::KIdle: begin
          if (start_i) begin
            fn_q     <= fn_i;
            nreg_q   <= nreg_i;
            addr_q   <= addr_i;
            size_q   <= size_i;
            budget_q <= budget_i;
          end
        end
        naa_pkg::KCheck: begin
          out_idx_q <= is_add ? 2'd2 : 2'd1;
          out_len_q <= is_crc ? 32'd4 : size_q[0];
          crc_q     <= '1;
          done_q    <= '0;
          issued_q  <= '0;
          expect_q  <= '0;
          status_q  <= check_status;
        end
        naa_pkg::KRdA: begin
          if (fire) begin
            expect_q <= expect_q + nb;
            if (is_crc) issued_q <= issued_q + chunk;
          end
        end
        naa_pkg::KRdB: if (fire) expect_q <= expect_q + nb;
        naa_pkg::KWait: if (got_q == expect_q) k_q <= '0;
        naa_pkg::KWrite: begin
          if (fire) k_q <= k_q + 7'd1;
          if (chunk_done) begin
            done_q   <= done_q + chunk;
            expect_q <= '0;
          end
        end
        default: ;
      endcase
      if (working) begin
        cycles_q <= cycles_d;
        if (cycles_d >= budget_q) status_q <= naa_pkg::RpcTimeout;
      end
      // Read data, in the order the reads were issued (the host port's contract); into the buffer below.
      if (dma_rsp_valid_i && is_crc) crc_q <= crc_beat;
      // Beats received since the job (crc) or the chunk (add, copy) started.
      if (state_q == naa_pkg::KCheck || chunk_done) got_q <= '0;
      else if (dma_rsp_valid_i) got_q <= got_q + 32'd1;
    end
  end

  // ---- Chunk buffer ----
  // Write: A's beat g at g (g < nb), B's beat g added in place at g - nb (32-bit lanes). Read, one cycle
  // ahead, the word the next cycle uses: in Write the beat sent after this edge (k, or k + 1 on fire); when
  // Wait is done, beat 0 (Write follows, no read data is due); else the word B's next beat (got after this
  // edge) adds to. B's beats arrive only in RdB, Wait and Drain, where nb is constant, and no response arrives
  // while waiting is done or in Write. A word written at the edge it is read (A's last beat when nb = 1, B's
  // first) comes from buf_wr_q.
  assign buf_word = buf_fwd_q ? buf_wr_q : buf_rd_q;
  assign buf_b    = got_q >= nb;
  assign buf_we   = dma_rsp_valid_i && !is_crc;
  assign buf_wa   = buf_b ? 6'(got_q - nb) : got_q[5:0];
  always_comb begin
    for (int i = 0; i < nt_pkg::StreamBytes / 4; i++) buf_sum[32*i+:32] = buf_word[32*i+:32] + dma_rsp_data_i[32*i+:32];
    buf_wd = buf_b ? buf_sum : dma_rsp_data_i;
    if (state_q == naa_pkg::KWrite) buf_ra = k_q[5:0] + 6'(fire);
    else if (state_q == naa_pkg::KWait && got_q == expect_q) buf_ra = '0;
    else buf_ra = 6'(got_q + 32'(dma_rsp_valid_i) - nb);
  end

  always_ff @(posedge clk_i) begin
    if (buf_we) buf_q[buf_wa] <= buf_wd;
    buf_rd_q <= buf_q[buf_ra];
    if (buf_we) buf_wr_q <= buf_wd;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) buf_fwd_q <= 1'b0;
    else         buf_fwd_q <= buf_we && buf_wa == buf_ra;
  end

  assign done_o    = state_q == naa_pkg::KDone;
  assign status_o  = status_q;
  assign out_idx_o = out_idx_q;
  assign out_len_o = out_len_q;
endmodule
