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
  naa_pkg::kernel_state_e state_q;
  // The DMA request's valid and write, registered with the state they decode (SVA dma_flags_eq): they go
  // through naa_ctl to naa_top's arbiter and come back as ready, a LUT less on that loop.
  logic          kvalid_q, kwrite_q;
  logic [31:0]   cycles_q, crc_q;
  logic          is_add_q, is_crc_q;  // the function code, decoded at the start
  logic [7:0]    status_q;
  logic [2:0][63:0] addr_q;
  logic [31:0]   size0_q;        // size[0] (the other sizes are only tested at the start)
  logic [6:0]    k_q;
  logic [1:0]    out_idx_q;
  logic [31:0]   out_len_q;
  // Depth (issue 27; docs/naa-microarchitecture.md "Kernel depth"): what main computed every cycle from the
  // bytes done (32-bit subtractions, compares and 64-bit address adders, up to 39 logic levels) is kept in
  // registers stepped once a chunk. left_q = size[0] - at (at: the bytes of region 0 whose reads are issued
  // (crc) or whose chunks are written (add, copy)); a chunk is min(left, 4 KiB), so every chunk but the last is
  // 4 KiB and the addresses step by 4 KiB a chunk (64 bytes a write beat): a_addr_q = addr[0] + at, b_addr_q =
  // addr[1] + at, w_addr_q = the next write beat's address. A beat count fits 27 bits (size < 2^32).
  logic [31:0]   left_q;
  logic [63:0]   a_addr_q, b_addr_q, w_addr_q;
  logic [7:0]    a_ones_q, b_ones_q, w_ones_q;  // naa_pkg::step_ones of each address (its groups all ones)
  logic [26:0]   expect_q, got_q;
  // got_q == expect_q (every beat asked for has arrived) and cycles_q == budget_m1_q (the budget's last
  // working cycle), as flags registered with the counters (issue 27, branch naa17: the two wide compares ahead of
  // the next state were 15 levels). expect_m1_q = expect_q - 1, budget_m2_q = budget - 2. Both flags equal
  // their compares whenever the next state reads them (naa_kernel_sva checks it every cycle).
  logic          got_all_q, budget_hit_q;
  logic [26:0]   expect_m1_q;
  logic [31:0]   budget_m2_q;
  // Check's verdict (the function code, the region count, the sizes), computed from the start's ports and
  // registered with them, and size[0] == 0: Check's next state is then a few gates of registers (issue 27:
  // through 32-bit compares it was 14 levels, through the registered tests 13).
  logic [7:0]    check_status_q, check_status_d;
  logic          check_ok_q;      // check_status_q == RpcOk
  logic          size0_z_q;       // size[0] == 0
  logic          budget_le1_q;    // budget <= 1: over budget in Check already
  logic          budget_z_q;    // budget 0
  logic [31:0]   budget_m1_q;   // budget - 1
`ifndef SYNTHESIS
  // The chunk arithmetic below is of 4 KiB chunks of 64-byte beats (a 6-bit beat index).
  if (nt_pkg::NaaChunkBeats != 64 || nt_pkg::StreamBytes != 64) begin : g_chunk_check
    $error("naa_kernel: chunks of 64 beats of 64 bytes");
  end
`endif
  // The chunk buffer: one write port and one registered read port, no reset - block RAM (issue 27;
  // docs/naa-microarchitecture.md "Kernel chunk buffer"). Every beat is written (A's read data) before it is
  // read (B's add, the write-back), so its contents after reset are never seen.
  logic [nt_pkg::StreamBits-1:0] buf_q [nt_pkg::NaaChunkBeats];
  logic [nt_pkg::StreamBits-1:0] buf_rd_q, buf_wr_q, buf_word, buf_wd, buf_sum;
  logic                  buf_fwd_q, buf_we, buf_b;
  logic [5:0]            buf_wa, buf_ra, buf_ra0;
  // The CRC kernel's pipeline (below, "The CRC kernel as GF(2) matrices").
  logic [31:0]   crc_d_q, crc_nxt;
  logic          crc_dv_q;
  logic [nt_pkg::StreamBytes-1:0] crc_mask_q, crc_low;
  logic [25:0]   crc_part_m1_q;  // size / 64 - 1: got_q equal to it means the next beat is beat size / 64
  logic [5:0]    crc_tail_q;     // -size mod 64: the last beat's zero tail, taken back at the end
  logic [nt_pkg::StreamBits-1:0] crc_z;

  // The chunk of left_q, registered with it (chunk_info of its next value): ge4k (a whole 4 KiB chunk), last
  // (this chunk ends the region: left <= 4 KiB), its beats nb and nb - 1, the bytes of its last beat; then
  // whether this write beat is the chunk's last.
  logic        is_crc, is_add, ge4k_q, last_chunk_q, last_w;
  logic [12:0] chunk;
  logic [6:0]  nb_q, last_len_q, wr_len;
  logic [5:0]  nb_m1_q;
  logic [31:0] crc_now;
  logic [32*32-1:0] crc_take;  // CrcTake(crc_tail_q), below
  assign is_crc     = is_crc_q;
  assign is_add     = is_add_q;
  assign chunk      = ge4k_q ? 13'h1000 : {1'b0, left_q[11:0]};
  assign last_w     = k_q[5:0] == nb_m1_q;
  assign wr_len     = last_w ? last_len_q : 7'd64;
  assign crc_now    = ~nt_pkg::crc32_mat(crc_take, crc_q);
  // The chunk values of a left whose 4 KiB test (ge4k), last-chunk test and low 12 bits are given.
  logic        ci_ge4k, ci_last;
  logic [11:0] ci_low;
  logic [6:0]  ci_nb, ci_last_len;
  logic [5:0]  ci_nb_m1;
  always_comb begin
    if (state_q == naa_pkg::KCheck) begin
      ci_ge4k = |size0_q[31:12];
      ci_last = !(|size0_q[31:13] || (size0_q[12] && |size0_q[11:0]));
      ci_low  = size0_q[11:0];
    end else begin  // after a step: left - 4 KiB (its low 12 bits unchanged)
      ci_ge4k = |left_q[31:13];
      ci_last = !(|left_q[31:14] || (left_q[13] && |left_q[12:0]));
      ci_low  = left_q[11:0];
    end
    ci_nb       = ci_ge4k ? 7'd64 : {1'b0, ci_low[11:6]} + {6'd0, |ci_low[5:0]};
    ci_nb_m1    = ci_ge4k ? 6'd63 : ci_low[11:6] - {5'd0, ~|ci_low[5:0]};
    ci_last_len = (ci_ge4k || ci_low[5:0] == 6'd0) ? 7'd64 : {1'b0, ci_low[5:0]};
  end

  always_comb begin
    dma_req_valid_o = kvalid_q;  // RdA, RdB, Write, CrcWrite, registered
    dma_req_write_o = kwrite_q;  // Write, CrcWrite
    dma_req_addr_o  = '0;
    dma_req_len_o   = '0;
    dma_req_data_o  = '0;
    unique case (state_q)
      naa_pkg::KRdA: begin
        dma_req_addr_o  = a_addr_q;
        dma_req_len_o   = {3'd0, chunk};
      end
      naa_pkg::KRdB: begin
        dma_req_addr_o  = b_addr_q;
        dma_req_len_o   = {3'd0, chunk};
      end
      naa_pkg::KWrite: begin
        dma_req_addr_o  = w_addr_q;
        dma_req_len_o   = {9'd0, wr_len};
        dma_req_data_o  = buf_word;  // buf_q[k_q], read a cycle ahead
        for (int i = 0; i < nt_pkg::StreamBytes; i++) begin
          if (7'(i) >= wr_len) dma_req_data_o[8*i+:8] = 8'd0;
        end
      end
      naa_pkg::KCrcWrite: begin
        dma_req_addr_o       = addr_q[1];
        dma_req_len_o        = 16'd4;
        dma_req_data_o[31:0] = crc_now;
      end
      default: ;
    endcase
  end

  // The CRC kernel as GF(2) matrices (issue 27; docs/naa-microarchitecture.md "Kernel CRC"): a serial CRC of
  // the 64 bytes of a beat in one cycle was a chain of 257 logic levels. Beat g of region 0 holds its bytes
  // [64g, 64g + 64) below size; every beat but the region's last (g = size / 64, when size % 64 != 0) is whole.
  // 1. Each read beat, its bytes outside the region zeroed (crc_mask_q, the mask of the next beat), is reduced
  //    to its data part d = CrcData x z (from state 0) into crc_d_q.
  // 2. The next cycle the register takes it: crc = CrcBeat x crc ^ d (a 64-byte step, the tail as zeros).
  // 3. The zero tail of the last beat (t = -size mod 64 bytes) is taken back once, after the last beat:
  //    crc_now = ~(CrcTake(t) x crc), read by KCrcWrite only, which follows KWait's last beat step (as the
  //    serial register was): no cycle added, the model unchanged. (Until branch naa17 this product was
  //    registered, crc_fin_q, from the register's next value: the step and the product in one cycle were 13
  //    levels; now the product is on the request's data output, a few levels after crc_q.)
  // The formula is rdma_pkg::icrc_beat's with a = 0 (crc_tables.py checks it against zlib); its serial
  // equivalent is model/naa/naa_kernel.cc's Crc32Byte loop, which lockstep compares at every CRC write.
  always_comb begin
    for (int i = 0; i < nt_pkg::StreamBytes; i++) begin
      crc_low[i]     = 6'(i) < size0_q[5:0];
      crc_z[8*i+:8]  = dma_rsp_data_i[8*i+:8] & {8{crc_mask_q[i]}};
    end
    if (state_q == naa_pkg::KCheck) crc_nxt = '1;
    else if (crc_dv_q) crc_nxt = nt_pkg::crc32_mat(nt_crc_pkg::CrcBeat, crc_q) ^ crc_d_q;
    else crc_nxt = crc_q;
  end

  // CrcTake(crc_tail_q) as a 64-way choice of constants (the same matrix as the indexed part-select, which
  // Yosys expands into a 16-stage shifter of the 65,536-bit table before folding it).
  always_comb begin
    crc_take = '0;
    for (int unsigned t = 0; t < 64; t++) if (crc_tail_q == 6'(t)) crc_take = rdma_crc_pkg::CrcTake[32*32*t+:32*32];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      crc_d_q       <= '0;
      crc_dv_q      <= 1'b0;
      crc_mask_q    <= '1;
      crc_part_m1_q <= '0;
    end else begin
      crc_dv_q  <= state_q != naa_pkg::KCheck && dma_rsp_valid_i && is_crc;
      if (dma_rsp_valid_i) crc_d_q <= nt_pkg::crc32_data(nt_crc_pkg::CrcData, crc_z);
      if (state_q == naa_pkg::KCheck) begin
        crc_part_m1_q <= size0_q[31:6] - 26'd1;
        crc_mask_q    <= (size0_q[31:6] == 26'd0) ? crc_low : '1;
      end else if (dma_rsp_valid_i) begin
        crc_mask_q    <= (got_q == {1'b0, crc_part_m1_q}) ? crc_low : '1;
      end
    end
  end

  // Check's verdict of the start's ports (registered at the start; nreg < 3 and < 2, size[1] < 4 as bit tests).
  logic fn_add, fn_crc, fn_copy;
  always_comb begin
    fn_add  = fn_i == naa_pkg::KernelAdd;
    fn_crc  = fn_i == naa_pkg::KernelCrc;
    fn_copy = fn_i == naa_pkg::KernelCopy;
    check_status_d = naa_pkg::RpcOk;
    if (!(fn_add || fn_crc || fn_copy)) check_status_d = naa_pkg::RpcUnknownFn;
    else if (nreg_i[7:2] == 6'd0 && (fn_add ? nreg_i[1:0] != 2'd3 : !nreg_i[1])) check_status_d = naa_pkg::RpcRegions;
    else if (fn_add ? (size_i[0] != size_i[1] || size_i[0] != size_i[2] || size_i[0][1:0] != 2'd0)
                    : fn_crc ? size_i[1][31:2] == 30'd0 : size_i[1] < size_i[0]) check_status_d = naa_pkg::RpcSize;
  end

  // The next state, the check's verdict and the cycle budget. The budget: cycles_d = cycles + 1 counts the
  // working cycles from 1 (Check) up, so it reaches budget exactly (budget >= 1) before it could pass it:
  // cycles_d >= budget is budget == 0 or cycles == budget - 1 (both registered at the start).
  logic          fire, chunk_done, working, over_budget;
  logic [31:0]   cycles_d;
  naa_pkg::kernel_state_e nxt;
`ifndef SYNTHESIS
  logic          working_ref;  // working as nxt's compare
`endif
  assign fire       = dma_req_valid_o && dma_req_ready_i;
  assign chunk_done = state_q == naa_pkg::KWrite && fire && last_w;
  always_comb begin
    nxt = state_q;
    unique case (state_q)
      naa_pkg::KIdle: if (start_i) nxt = naa_pkg::KCheck;
      naa_pkg::KCheck: begin
        if (!check_ok_q) nxt = naa_pkg::KDone;
        else if (size0_z_q) nxt = is_crc ? naa_pkg::KCrcWrite : naa_pkg::KDone;
        else nxt = naa_pkg::KRdA;
      end
      naa_pkg::KRdA: if (fire) nxt = is_crc ? (last_chunk_q ? naa_pkg::KWait : naa_pkg::KRdA) : (is_add ? naa_pkg::KRdB : naa_pkg::KWait);
      naa_pkg::KRdB: if (fire) nxt = naa_pkg::KWait;
      naa_pkg::KWait: if (got_all_q) nxt = is_crc ? naa_pkg::KCrcWrite : naa_pkg::KWrite;
      naa_pkg::KWrite: if (chunk_done) nxt = last_chunk_q ? naa_pkg::KDone : naa_pkg::KRdA;
      naa_pkg::KCrcWrite: if (fire) nxt = naa_pkg::KDone;
      naa_pkg::KDrain: if (got_all_q) nxt = naa_pkg::KDone;
      naa_pkg::KDone: nxt = naa_pkg::KIdle;
      default: nxt = naa_pkg::KIdle;
    endcase
    // Whether nxt is a working state (RdA, RdB, Wait, Write, CrcWrite), per state from the terms nxt is chosen
    // by rather than from nxt: the DMA port's ready reaches it once (Write, CrcWrite), not through nxt and a
    // compare (the kernel's state -> its state was 13 across naa_top's arbiter; issue 27). SVA working_eq.
    unique case (state_q)
      naa_pkg::KCheck: working = check_ok_q && (!size0_z_q || is_crc);
      naa_pkg::KRdA, naa_pkg::KRdB, naa_pkg::KWait: working = 1'b1;
      naa_pkg::KWrite: working = !(chunk_done && last_chunk_q);
      naa_pkg::KCrcWrite: working = !fire;
      default: working = 1'b0;
    endcase
`ifndef SYNTHESIS
    working_ref = nxt inside {naa_pkg::KRdA, naa_pkg::KRdB, naa_pkg::KWait, naa_pkg::KWrite, naa_pkg::KCrcWrite};
`endif
    cycles_d    = (state_q == naa_pkg::KCheck ? 32'd0 : cycles_q) + 32'd1;
    over_budget = state_q == naa_pkg::KCheck ? budget_le1_q : (budget_z_q || budget_hit_q);
    if (working && over_budget) nxt = naa_pkg::KDrain;
  end

  // The chunk's step: a read of A issued (crc) or a chunk written (add, copy).
  logic step;
  assign step = (state_q == naa_pkg::KRdA && fire && is_crc) || chunk_done;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q     <= naa_pkg::KIdle;
      kvalid_q    <= 1'b0;
      kwrite_q    <= 1'b0;
      is_add_q    <= 1'b0;
      is_crc_q    <= 1'b0;
      check_status_q <= naa_pkg::RpcOk;
      check_ok_q  <= 1'b1;
      crc_tail_q  <= '0;
      ge4k_q      <= 1'b0;
      last_chunk_q <= 1'b0;
      nb_q        <= '0;
      nb_m1_q     <= '0;
      last_len_q  <= '0;
      budget_z_q  <= 1'b0;
      budget_m1_q <= '0;
      budget_m2_q <= '0;
      budget_hit_q <= 1'b0;
      got_all_q   <= 1'b1;
      expect_m1_q <= '1;
      size0_z_q   <= 1'b0;
      budget_le1_q <= 1'b0;
      cycles_q    <= '0;
      left_q      <= '0;
      a_addr_q    <= '0;
      b_addr_q    <= '0;
      w_addr_q    <= '0;
      a_ones_q    <= '0;
      b_ones_q    <= '0;
      w_ones_q    <= '0;
      expect_q    <= '0;
      got_q       <= '0;
      crc_q       <= '1;
      status_q    <= '0;
      addr_q      <= '0;
      size0_q     <= '0;
      k_q         <= '0;
      out_idx_q   <= '0;
      out_len_q   <= '0;
    end else begin
      state_q <= nxt;
      kvalid_q <= nxt == naa_pkg::KRdA || nxt == naa_pkg::KRdB || nxt == naa_pkg::KWrite || nxt == naa_pkg::KCrcWrite;
      kwrite_q <= nxt == naa_pkg::KWrite || nxt == naa_pkg::KCrcWrite;
      unique case (state_q)
        naa_pkg::KIdle: begin
          if (start_i) begin
            is_add_q    <= fn_add;
            is_crc_q    <= fn_crc;
            check_status_q <= check_status_d;
            check_ok_q  <= check_status_d == naa_pkg::RpcOk;
            crc_tail_q  <= 6'd0 - size_i[0][5:0];
            addr_q      <= addr_i;
            size0_q     <= size_i[0];
            budget_z_q  <= budget_i == 32'd0;
            budget_m1_q <= budget_i - 32'd1;
            budget_m2_q <= budget_i - 32'd2;
            size0_z_q   <= size_i[0] == 32'd0;
            budget_le1_q <= budget_i[31:1] == 31'd0;
          end
        end
        naa_pkg::KCheck: begin
          out_idx_q <= is_add ? 2'd2 : 2'd1;
          out_len_q <= is_crc ? 32'd4 : size0_q;
          left_q    <= size0_q;
          a_addr_q  <= addr_q[0];
          b_addr_q  <= addr_q[1];
          w_addr_q  <= addr_q[is_add ? 2 : 1];
          a_ones_q  <= naa_pkg::step_ones(addr_q[0], 12);
          b_ones_q  <= naa_pkg::step_ones(addr_q[1], 12);
          w_ones_q  <= naa_pkg::step_ones(addr_q[is_add ? 2 : 1], 6);
          expect_q  <= '0;
          expect_m1_q <= '1;
          status_q  <= check_status_q;
        end
        naa_pkg::KRdA, naa_pkg::KRdB: begin
          if (fire) begin
            expect_q    <= expect_q + {20'd0, nb_q};
            expect_m1_q <= expect_m1_q + {20'd0, nb_q};
          end
        end
        naa_pkg::KWait: if (got_all_q) k_q <= '0;
        naa_pkg::KWrite: begin
          if (fire) begin
            k_q      <= k_q + 7'd1;
            w_addr_q <= naa_pkg::step_addr(w_addr_q, w_ones_q, 6);
            w_ones_q <= naa_pkg::step_ones_next(w_addr_q, w_ones_q, 6);
          end
          if (chunk_done) begin
            expect_q    <= '0;
            expect_m1_q <= '1;
          end
        end
        default: ;
      endcase
      // Every chunk but the last is 4 KiB; after the last, left is 0 and the addresses are not used again.
      if (step) begin
        left_q   <= last_chunk_q ? 32'd0 : {left_q[31:12] - 20'd1, left_q[11:0]};
        a_addr_q <= naa_pkg::step_addr(a_addr_q, a_ones_q, 12);
        b_addr_q <= naa_pkg::step_addr(b_addr_q, b_ones_q, 12);
        a_ones_q <= naa_pkg::step_ones_next(a_addr_q, a_ones_q, 12);
        b_ones_q <= naa_pkg::step_ones_next(b_addr_q, b_ones_q, 12);
      end
      // The chunk values of left_q's next value (after the last chunk they are not used again).
      if (state_q == naa_pkg::KCheck || step) begin
        ge4k_q       <= ci_ge4k;
        last_chunk_q <= ci_last;
        nb_q         <= ci_nb;
        nb_m1_q      <= ci_nb_m1;
        last_len_q   <= ci_last_len;
      end
      if (working) begin
        cycles_q <= cycles_d;
        // cycles_d == budget - 1: in Check cycles_d is 1; else cycles + 1 == budget - 1
        budget_hit_q <= (state_q == naa_pkg::KCheck) ? budget_m1_q == 32'd1 : cycles_q == budget_m2_q;
        if (over_budget) status_q <= naa_pkg::RpcTimeout;
      end
      // Read data, in the order the reads were issued (the host port's contract); into the buffer below.
      crc_q <= crc_nxt;
      // Beats received since the job (crc) or the chunk (add, copy) started.
      if (state_q == naa_pkg::KCheck || chunk_done) got_q <= '0;
      else if (dma_rsp_valid_i) got_q <= got_q + 27'd1;
      // got_all_q of the counters' next values: both 0 after Check or a chunk; a read issued leaves at least one
      // beat outstanding (nb >= 1; a response this cycle needs one outstanding already: responses follow
      // reads, the host port's contract); else a response makes them equal when got = expect - 1.
      if (state_q == naa_pkg::KCheck || chunk_done) got_all_q <= 1'b1;
      else if ((state_q == naa_pkg::KRdA || state_q == naa_pkg::KRdB) && fire) got_all_q <= 1'b0;
      else if (dma_rsp_valid_i) got_all_q <= got_q == expect_m1_q;
    end
  end

  // ---- Chunk buffer ----
  // Write: A's beat g at g (g < nb), B's beat g added in place at g - nb (32-bit lanes). Read, one cycle
  // ahead, the word the next cycle uses: in Write the beat sent after this edge (k, or k + 1 on fire); when
  // Wait is done, beat 0 (Write follows, no read data is due); else the word B's next beat (got after this
  // edge) adds to. B's beats arrive only in RdB, Wait and Drain, where nb is constant, and no response arrives
  // while waiting is done or in Write. A word written at the edge it is read (A's last beat when nb = 1, B's
  // first) comes from buf_wr_q. The forward compare reads buf_ra0, the address outside Write: nothing is
  // written in Write, and fire (the DMA port's ready, through naa_top's arbiter) stays out of its path
  // (naa_kernel's state -> buf_fwd_q was 17 across naa_top; issue 27). SVA buf_fwd_eq.
  assign buf_word = buf_fwd_q ? buf_wr_q : buf_rd_q;
  assign buf_b    = got_q[7:0] >= {1'b0, nb_q};  // add, copy: got_q counts at most 2 x 64 beats a chunk
  assign buf_we   = dma_rsp_valid_i && !is_crc;
  assign buf_wa   = buf_b ? got_q[5:0] - nb_q[5:0] : got_q[5:0];
  always_comb begin
    for (int i = 0; i < nt_pkg::StreamBytes / 4; i++) buf_sum[32*i+:32] = buf_word[32*i+:32] + dma_rsp_data_i[32*i+:32];
    buf_wd = buf_b ? buf_sum : dma_rsp_data_i;
    if (state_q == naa_pkg::KWait && got_all_q) buf_ra0 = '0;
    else buf_ra0 = got_q[5:0] + {5'd0, dma_rsp_valid_i} - nb_q[5:0];
    buf_ra = (state_q == naa_pkg::KWrite) ? k_q[5:0] + 6'(fire) : buf_ra0;
  end

  always_ff @(posedge clk_i) begin
    if (buf_we) buf_q[buf_wa] <= buf_wd;
    buf_rd_q <= buf_q[buf_ra];
    if (buf_we) buf_wr_q <= buf_wd;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) buf_fwd_q <= 1'b0;
    else         buf_fwd_q <= buf_we && buf_wa == buf_ra0;
  end

  // The registered flags are their compares wherever they are read (simulation only; docs/assertions.md).
`include "nt_assert.svh"
  `NT_ASSERT(buf_fwd_eq, !buf_we || buf_ra0 == buf_ra)
  `NT_ASSERT(working_eq, working == working_ref)
  `NT_ASSERT(dma_flags_eq, {kvalid_q, kwrite_q} == {state_q inside {naa_pkg::KRdA, naa_pkg::KRdB, naa_pkg::KWrite,
      naa_pkg::KCrcWrite}, state_q inside {naa_pkg::KWrite, naa_pkg::KCrcWrite}})
  `NT_ASSERT(got_all_exact, got_all_q == (got_q == expect_q))
  `NT_ASSERT(expect_m1_exact, expect_m1_q == expect_q - 27'd1)
  `NT_ASSERT(budget_hit_exact, !(state_q inside {naa_pkg::KRdA, naa_pkg::KRdB, naa_pkg::KWait, naa_pkg::KWrite,
                                                 naa_pkg::KCrcWrite, naa_pkg::KDrain}) ||
                               budget_hit_q == (cycles_q == budget_m1_q))
  `NT_ASSERT(addr_ones_exact, !(state_q inside {naa_pkg::KRdA, naa_pkg::KRdB, naa_pkg::KWait, naa_pkg::KWrite}) ||
                              (a_ones_q == naa_pkg::step_ones(a_addr_q, 12) && b_ones_q == naa_pkg::step_ones(b_addr_q, 12) &&
                               w_ones_q == naa_pkg::step_ones(w_addr_q, 6)))

  assign done_o    = state_q == naa_pkg::KDone;
  assign status_o  = status_q;
  assign out_idx_o = out_idx_q;
  assign out_len_o = out_len_q;
endmodule
