// Write stage, event buffer and output stage. The write stage takes decided frames in order: it writes an
// accepted segment's data, one input beat per cycle, into its context's buffer (64 byte-wide lanes, each
// with its own row address, so a beat rotated to any byte offset is one write), or releases a dropped
// frame's beats in one cycle. When the segment that completes an event is written, the event is queued;
// the output stage sends it as a frame: a 26-byte header (32 with E2SAR's RE header; docs/re.md "Output"),
// then the event's bytes.
// With `buffer host` (cfg_host_i) the buffer is not used: each accepted beat's data bytes go to the context's
// slot in host memory as one DMA write (the beat waits while dma_req_ready_i is low), and the output stage
// sends a one-beat completion record: the same header, then the slot's 8-byte host address.
`include "nt_ports.svh"
module re_event_buffer
(
  `NT_CLK_RST,
  input  logic                   cfg_format_i,  // 1: E2SAR's header (the output header carries a 64-bit event number)
  input  logic                   cfg_host_i,    // 1: event bytes to host memory by DMA, completion records out
  input  logic [63:0]            cfg_host_base_i,
  input  logic [31:0]            cfg_buffer_bytes_i,  // the slot stride: rounded up to 4 KiB
  `NT_DMA_REQ_OUT(dma),
  input  logic                   job_valid_i,
  input  re_pkg::job_t                   job_i,
  output logic                   job_ready_o,
  output logic [re_pkg::FifoW-1:0]       fifo_raddr_o,
  input  logic [nt_pkg::StreamBits-1:0]  fifo_rdata_i,
  output logic                   release_o,
  output logic [re_pkg::BeatsW-1:0]      release_beats_o,
  output logic [re_pkg::CtxW-1:0]        ev_ctx_o,
  input  re_pkg::event_t                 ev_i,
  output logic                   ev_done_o,
  `NT_STREAM_OUT(m),
  output logic                   busy_o,
  output logic [31:0]            cnt_out_o
);
  localparam int unsigned QW = $clog2(nt_pkg::ReContexts);
  localparam int unsigned LaneRowW = $clog2(re_pkg::RowsPerCtx);

  // ---- write stage: the job in progress and the next one ----
  // Per job, registers set when the job is taken (from next_q) and stepped once per beat, so no beat computes
  // a 32- or 64-bit sum of the job's fields (issue 27: the DMA address was 30 logic levels from cur_q):
  //   left_q   beats after the current one (the last beat: left_q == 0)
  //   ptr_q    the input FIFO address of the current beat; end_q the job's end (= the next job's first beat)
  //   dat_q    max(data_at - 64 b, 0) and drem_q max(data_at + len - 64 b, 0): the current beat's data bytes
  //            are [lo, hi) = [min(dat_q, 64), min(drem_q, 64))
  //   delta_q  (offset - data_at) mod 64: lane j takes the beat's byte (j - delta) mod 64
  //   wrow_q   (offset - data_at + 64 b) div 64, the buffer row of lanes j >= delta; lanes j < delta write
  //            row wrow_q + 1 (wrow1_q)
  //   eoff_q   `buffer host`: the event offset of the beat's first data byte, offset + max(64 b - data_at, 0)
  //   slot_*_q `buffer host`: the context's slot address (base + ctx x slot), bits 24:0, and bits 63:25 and
  //            bits 63:25 + 1, so the DMA address slot + eoff_q (eoff_q < 2^25) is a 25-bit sum whose carry
  //            selects the upper part
  logic              cur_valid_q, next_valid_q;
  // verilator lint_off UNUSEDSIGNAL
  re_pkg::job_t              cur_q;  // offset, len, data_at: only through the per-job registers below
  // verilator lint_on UNUSEDSIGNAL
  re_pkg::job_t              next_q;
  logic [re_pkg::BeatsW-1:0] left_q;
  logic [re_pkg::FifoW-1:0]  ptr_q, end_q;
  logic [6:0]                dat_q;
  logic [16:0]               drem_q;
  logic [5:0]                delta_q;
  logic [LaneRowW-1:0]       wrow_q, wrow1_q;
  logic [24:0]               eoff_q;
  logic [24:0]               slot_lo_q;
  logic [38:0]               slot_hi_q, slot_hi1_q;
  // Registered with the beat (issue 27 item 2, session 25): the beat is the job's last (left_q == 0) and it has
  // data bytes (wlo < whi), set from the same next values as left_q, dat_q and drem_q, so `finish` and
  // `job_ready_o` are a LUT or two from registers (the window compare was 8 levels in front of re_decide's
  // `place` and the ingress's descriptor counters). re_event_buffer_sva checks both every cycle.
  logic              last_q, wnz_q;
  logic              finish, take, advance, step;
  assign finish      = cur_valid_q && (cur_q.skip || (last_q && advance));
  assign take        = next_valid_q && (!cur_valid_q || finish);
  assign job_ready_o = !next_valid_q || take;
  assign step        = cur_valid_q && advance && !finish;
  // The input FIFO's read is registered: fifo_rdata_i is the beat at ptr_q because the address of the next
  // cycle's beat is presented one cycle ahead (the next job's first beat, at end_q, after the last).
  assign fifo_raddr_o    = finish ? end_q : (step ? ptr_q + 1'b1 : ptr_q);
  assign release_o       = finish;
  assign release_beats_o = cur_q.beats;

  // The current beat's data bytes [wlo, whi), each 0..64.
  logic [6:0] wlo, whi, wlen, wstep;
  assign wlo   = dat_q[6] ? 7'd64 : dat_q;
  assign whi   = (drem_q[16:6] != '0) ? 7'd64 : {1'b0, drem_q[5:0]};
  assign wlen  = whi - wlo;
  assign wstep = 7'd64 - wlo;  // eoff_q's step to the next beat

  // Lane j of the buffer takes input byte i = (j - delta) mod 64 of the beat: buffer address = offset + 64 b
  // + i - data_at, so its row is wrow_q, or wrow_q + 1 where j < delta (i + delta wrapped past 64).
  logic [nt_pkg::StreamBytes-1:0] we;
  logic [7:0]        wbyte [nt_pkg::StreamBytes];
  logic [re_pkg::RowW-1:0]   wrow [nt_pkg::StreamBytes];
  always_comb begin
    logic [5:0] i;
    for (int j = 0; j < nt_pkg::StreamBytes; j++) begin
      i        = 6'(j) - delta_q;
      we[j]    = !cfg_host_i && cur_valid_q && !cur_q.skip && {1'b0, i} >= wlo && {1'b0, i} < whi;
      wbyte[j] = fifo_rdata_i[8*i+:8];
      wrow[j]  = {cur_q.ctx, (6'(j) < delta_q) ? wrow1_q : wrow_q};
    end
  end

  // ---- `buffer host`: the beat's data bytes [lo, hi) go to slot + offset + 64 beat + lo - data_at ----
  logic [25:0] daddr_lo;
  always_comb begin
    daddr_lo        = {1'b0, slot_lo_q} + {1'b0, eoff_q};
    dma_req_valid_o = cfg_host_i && cur_valid_q && !cur_q.skip && wnz_q;
    dma_req_write_o = 1'b1;
    dma_req_addr_o  = {daddr_lo[25] ? slot_hi1_q : slot_hi_q, daddr_lo[24:0]};
    dma_req_len_o   = 16'(wlen);
    dma_req_off_o   = wlo[5:0];
    for (int j = 0; j < nt_pkg::StreamBytes; j++) begin
      dma_req_data_o[8*j+:8] = (7'(j) >= wlo && 7'(j) < whi) ? fifo_rdata_i[8*j+:8] : 8'd0;
    end
  end
  assign advance = !dma_req_valid_o || dma_req_ready_i;

  // The next job's registers, from next_q (taken this cycle when `take`). The slot address base + ctx x slot
  // (slot a multiple of 4096, ctx x slot < 2^38) is formed as the record's (below): bits 11:0 the base's,
  // bits 37:12 one 26-bit sum with the product, bits 63:38 the base's plus its carry (chosen among
  // precomputed values); slot + 2^25 the same way from base + 2^25 (hb_*: the base's parts, registered from
  // the static configuration).
  logic [19:0] hb_str_q;              // slot bytes / 4096
  logic [25:0] hb_mid_q, hb_midp_q;   // base[37:12], (base[37:12] + 2^13) mod 2^26
  logic        hb_cp_q;               // that sum's carry
  logic [25:0] hb_hi0_q, hb_hi1_q, hb_hi2_q;  // base[63:38] + 0, 1, 2
  logic [11:0] hb_lo_q;
  logic [19:0] slot_4k;  // the slot stride (cfg_buffer_bytes_i rounded up to 4 KiB) / 4096
  assign slot_4k = cfg_buffer_bytes_i[31:12] + 20'(cfg_buffer_bytes_i[11:0] != '0);
  logic [25:0] n_prod;
  logic [26:0] n_mid;
  // verilator lint_off UNUSEDSIGNAL
  logic [26:0] n_midp;  // bits 12:0 are n_mid's
  // verilator lint_on UNUSEDSIGNAL
  logic [25:0] n_hi, n_hip;
  logic [13:0] n_rel;                 // (offset - data_at) mod 2^14: a buffer address < ReBufBytes
  logic [7:0]  n_rel1;
  always_comb begin
    n_prod = 26'(next_q.ctx) * hb_str_q;
    n_mid  = {1'b0, hb_mid_q} + {1'b0, n_prod};
    n_midp = {1'b0, hb_midp_q} + {1'b0, n_prod};
    n_hi   = n_mid[26] ? hb_hi1_q : hb_hi0_q;
    unique case ({hb_cp_q, n_midp[26]})
      2'b00:   n_hip = hb_hi0_q;
      2'b11:   n_hip = hb_hi2_q;
      default: n_hip = hb_hi1_q;
    endcase
    n_rel  = 14'(next_q.offset) - 14'(next_q.data_at);
    n_rel1 = n_rel[13:6] + 8'd1;
  end

  // The next values of left_q, dat_q and drem_q (taken from next_q at a take, stepped a beat at a step), and
  // from them last_q and wnz_q.
  logic [re_pkg::BeatsW-1:0] left_d;
  logic [6:0]                dat_d, wlo_d, whi_d;
  logic [16:0]               drem_d;
  always_comb begin
    left_d = left_q;
    dat_d  = dat_q;
    drem_d = drem_q;
    if (take) begin
      left_d = next_q.beats - 1'b1;
      dat_d  = next_q.data_at;
      drem_d = 17'(next_q.data_at) + 17'(next_q.len);
    end else if (step) begin
      left_d = left_q - 1'b1;
      dat_d  = dat_q[6] ? {1'b0, dat_q[5:0]} : 7'd0;
      drem_d = (drem_q[16:6] != '0) ? drem_q - 17'd64 : 17'd0;
    end
    wlo_d = dat_d[6] ? 7'd64 : dat_d;
    whi_d = (drem_d[16:6] != '0) ? 7'd64 : {1'b0, drem_d[5:0]};
  end

  // ---- completed events, in completion order ----
  logic [re_pkg::CtxW-1:0] q_mem [nt_pkg::ReContexts];
  logic [QW-1:0]   qwr_q, qrd_q;
  logic [QW:0]     qcnt_q;
  logic            push, pop;
  assign push = finish && cur_q.completes && !cur_q.skip;

  // ---- output stage ----
  logic             o_active_q;
  logic [re_pkg::CtxW-1:0]  o_ctx_q;
  logic [re_pkg::BeatsW-1:0] o_beat_q;
  logic [nt_pkg::StreamBits-1:0] prev_q;
  logic [nt_pkg::StreamBits-1:0] rd_row;
  logic             o_last, o_fire;
  logic [nt_pkg::StreamBits-1:0] beat_data;
  logic [nt_pkg::StreamBytes-1:0] keep;
  logic [8*nt_pkg::ReOutHdrBytes-1:0] hdr;
  logic [8*nt_pkg::ReOutHdrBytesE2sar-1:0] hdr2;
  logic [7:0] b_evio, b_e2sar;
  // Per event, from registers (issue 27: the frame length H + length and its compares were computed every beat
  // from cfg_host_i and ev_i, 33 logic levels): at the pop the popped context is read (ev_ctx_o looks ahead
  // to it in that cycle) and its byte count kept (o_len_q; `buffer host`: the 8-byte record address), with the
  // record's slot address (rec_addr_q). Beat 0 is the last if H + o_len <= 64; from beat 1 o_rem_q is the
  // frame's bytes from the current beat on (H + o_len - 64 b), decremented by 64 a beat, and a beat is the
  // last if o_rem_q <= 64. The last beat's keep has (H + o_len) mod 64 bytes (0: all 64), the same for
  // every beat of the event.
  logic [31:0] o_len_q, o_rem_q;
  logic [63:0] rec_addr_q;  // `buffer host`: the record's slot address
  logic [5:0]  hdr_bytes, tail;
  logic        last0, last_n;
  logic [nt_pkg::StreamBytes-1:0] keep_last;
  logic [re_pkg::CtxW-1:0] q_head;
  assign q_head = q_mem[qrd_q];
  assign pop = !o_active_q && qcnt_q != '0;
  assign ev_ctx_o = pop ? q_head : o_ctx_q;
  // The slot address: base + ctx x slot, slot a multiple of 4096 and ctx x slot < 2^38, so bits 11:0 are the
  // base's, bits 37:12 one 26-bit sum and bits 63:38 the base's plus its carry (chosen, not added after it;
  // the base's parts are the write stage's hb_* registers).
  logic [25:0] rec_prod;
  logic [26:0] rec_mid;
  always_comb begin
    rec_prod = 26'(q_head) * hb_str_q;
    rec_mid  = {1'b0, hb_mid_q} + {1'b0, rec_prod};
  end
  always_comb begin
    hdr_bytes = cfg_format_i ? 6'(nt_pkg::ReOutHdrBytesE2sar) : 6'(nt_pkg::ReOutHdrBytes);
    last0     = o_len_q[31:6] == '0 && o_len_q[5:0] <= 6'd63 - hdr_bytes + 6'd1;
    last_n    = o_rem_q[31:7] == '0 && (!o_rem_q[6] || o_rem_q[5:0] == '0);
    o_last    = (o_beat_q == '0) ? last0 : last_n;
    tail      = hdr_bytes + o_len_q[5:0];
    for (int k = 0; k < nt_pkg::StreamBytes; k++) keep_last[k] = tail == '0 || 6'(k) < tail;
    keep      = o_last ? keep_last : '1;
    // header bytes in frame order (byte 0 = bits 7:0)
    hdr = '0;
    for (int k = 0; k < 6; k++) begin
      hdr[8*k+:8]       = ev_i.mac_dst[8*(5-k)+:8];
      hdr[8*(6+k)+:8]   = ev_i.mac_src[8*(5-k)+:8];
    end
    hdr[8*12+:8] = 8'(nt_pkg::ReEtherType >> 8);
    hdr[8*13+:8] = 8'(nt_pkg::ReEtherType);
    hdr2 = '0;
    hdr2[0+:8*14] = hdr[0+:8*14];
    for (int k = 0; k < 2; k++) begin
      hdr[8*(14+k)+:8]  = ev_i.event_num[8*(1-k)+:8];  // tick16
      hdr[8*(16+k)+:8]  = ev_i.data_id[8*(1-k)+:8];
      hdr2[8*(22+k)+:8] = ev_i.data_id[8*(1-k)+:8];
    end
    for (int k = 0; k < 4; k++) begin
      hdr[8*(18+k)+:8]  = ev_i.length[8*(3-k)+:8];
      hdr[8*(22+k)+:8]  = ev_i.segments[8*(3-k)+:8];
      hdr2[8*(24+k)+:8] = ev_i.length[8*(3-k)+:8];
      hdr2[8*(28+k)+:8] = ev_i.segments[8*(3-k)+:8];
    end
    for (int k = 0; k < 8; k++) hdr2[8*(14+k)+:8] = ev_i.event_num[8*(7-k)+:8];
    for (int k = 0; k < nt_pkg::StreamBytes; k++) begin
      if (k < nt_pkg::ReOutHdrBytes) begin
        b_evio = (o_beat_q == '0) ? hdr[8*k+:8] : prev_q[8*(k + nt_pkg::StreamBytes - nt_pkg::ReOutHdrBytes)+:8];
      end else begin
        b_evio = rd_row[8*(k - nt_pkg::ReOutHdrBytes)+:8];
      end
      if (k < nt_pkg::ReOutHdrBytesE2sar) begin
        b_e2sar = (o_beat_q == '0) ? hdr2[8*k+:8] : prev_q[8*(k + nt_pkg::StreamBytes - nt_pkg::ReOutHdrBytesE2sar)+:8];
      end else begin
        b_e2sar = rd_row[8*(k - nt_pkg::ReOutHdrBytesE2sar)+:8];
      end
      // a completion record: the header, then the slot address (big endian)
      if (cfg_host_i) begin
        if (k >= nt_pkg::ReOutHdrBytes && k < nt_pkg::ReOutHdrBytes + 8) b_evio = rec_addr_q[8*(nt_pkg::ReOutHdrBytes + 7 - k)+:8];
        if (k >= nt_pkg::ReOutHdrBytesE2sar && k < nt_pkg::ReOutHdrBytesE2sar + 8)
          b_e2sar = rec_addr_q[8*(nt_pkg::ReOutHdrBytesE2sar + 7 - k)+:8];
      end
      beat_data[8*k+:8] = cfg_format_i ? b_e2sar : b_evio;
      if (!keep[k]) beat_data[8*k+:8] = 8'd0;
    end
  end
  assign o_fire = o_active_q && m_ready_i;

  // ---- the buffer: one memory per byte lane ----
  // The read is registered (read-first), so the lanes map to block RAM/URAM: rd_row is the row at
  // {o_ctx_q, o_beat_q} because the next cycle's row is addressed one cycle ahead: the popped context's row 0,
  // or the next row when a beat is sent (also after the last beat, whose next row is never used; the
  // following pop readdresses). A row is read at least one edge after its last write: an event is queued at
  // its last beat's write and popped the cycle after; its context is not written again until it was sent.
  logic [re_pkg::CtxW-1:0]   o_rd_ctx;
  logic [LaneRowW-1:0]       o_rd_beat;
  logic [re_pkg::RowW-1:0]   o_rd_row;
  always_comb begin
    o_rd_ctx  = o_ctx_q;
    o_rd_beat = o_beat_q[LaneRowW-1:0] + LaneRowW'(o_fire);
    if (pop) begin
      o_rd_ctx  = q_head;
      o_rd_beat = '0;
    end
  end
  assign o_rd_row = {o_rd_ctx, o_rd_beat};
  for (genvar j = 0; j < nt_pkg::StreamBytes; j++) begin : g_lane
    logic [7:0] mem [nt_pkg::ReContexts * re_pkg::RowsPerCtx];
    logic [7:0] lane_q;
    always_ff @(posedge clk_i) begin
      if (we[j]) mem[wrow[j]] <= wbyte[j];
      lane_q <= mem[o_rd_row];
    end
    assign rd_row[8*j+:8] = lane_q;
  end

  logic [31:0] out_q;
  always_ff @(posedge clk_i) begin
    if (push) q_mem[qwr_q] <= cur_q.ctx;
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cur_valid_q  <= 1'b0;
      next_valid_q <= 1'b0;
      cur_q        <= '0;
      next_q       <= '0;
      left_q       <= '0;
      last_q       <= 1'b1;  // left_q == 0
      wnz_q        <= 1'b0;  // dat_q = drem_q = 0: no data byte
      ptr_q        <= '0;
      end_q        <= '0;
      dat_q        <= '0;
      drem_q       <= '0;
      delta_q      <= '0;
      wrow_q       <= '0;
      wrow1_q      <= '0;
      eoff_q       <= '0;
      slot_lo_q    <= '0;
      slot_hi_q    <= '0;
      slot_hi1_q   <= '0;
      hb_str_q     <= '0;
      hb_mid_q     <= '0;
      hb_midp_q    <= '0;
      hb_cp_q      <= 1'b0;
      hb_hi0_q     <= '0;
      hb_hi1_q     <= '0;
      hb_hi2_q     <= '0;
      hb_lo_q      <= '0;
      qwr_q        <= '0;
      qrd_q        <= '0;
      qcnt_q       <= '0;
      o_active_q   <= 1'b0;
      o_ctx_q      <= '0;
      o_beat_q     <= '0;
      o_len_q      <= '0;
      o_rem_q      <= '0;
      rec_addr_q   <= '0;
      prev_q       <= '0;
      out_q        <= '0;
    end else begin
      // output
      if (o_fire) begin
        prev_q <= rd_row;
        if (o_last) begin
          o_active_q <= 1'b0;
          out_q      <= out_q + 1'b1;
        end else begin
          o_beat_q <= o_beat_q + 1'b1;
          o_rem_q  <= (o_beat_q == '0) ? o_len_q - (32'd64 - 32'(hdr_bytes)) : o_rem_q - 32'd64;
        end
      end
      if (pop) begin
        o_len_q    <= cfg_host_i ? 32'd8 : ev_i.length;
        rec_addr_q <= {rec_mid[26] ? hb_hi1_q : hb_hi0_q, rec_mid[25:0], hb_lo_q};
        o_ctx_q    <= q_head;
        o_active_q <= 1'b1;
        o_beat_q   <= '0;
        qrd_q      <= qrd_q + 1'b1;
      end
      if (push) qwr_q <= qwr_q + 1'b1;
      qcnt_q <= qcnt_q + (QW + 1)'(push) - (QW + 1)'(pop);
      // write: the configuration's parts (static during a run; ready one edge after reset)
      hb_str_q  <= slot_4k;
      hb_mid_q  <= cfg_host_base_i[37:12];
      {hb_cp_q, hb_midp_q} <= {1'b0, cfg_host_base_i[37:12]} + 27'(1 << 13);
      hb_hi0_q  <= cfg_host_base_i[63:38];
      hb_hi1_q  <= cfg_host_base_i[63:38] + 26'd1;
      hb_hi2_q  <= cfg_host_base_i[63:38] + 26'd2;
      hb_lo_q   <= cfg_host_base_i[11:0];
      // write: the current beat's registers step to the next beat
      left_q <= left_d;
      dat_q  <= dat_d;
      drem_q <= drem_d;
      last_q <= left_d == '0;
      wnz_q  <= wlo_d < whi_d;
      if (finish) begin
        ptr_q <= end_q;
      end else if (step) begin
        ptr_q  <= ptr_q + 1'b1;
        wrow_q  <= wrow1_q;
        wrow1_q <= wrow1_q + 1'b1;
        eoff_q <= eoff_q + 25'(wstep);
      end
      if (take) begin
        cur_q        <= next_q;
        cur_valid_q  <= 1'b1;
        next_valid_q <= 1'b0;
        end_q        <= end_q + re_pkg::FifoW'(next_q.beats);
        delta_q      <= n_rel[5:0];
        wrow_q       <= n_rel[13:6];
        wrow1_q      <= n_rel1;
        eoff_q       <= next_q.offset;
        slot_lo_q    <= {n_mid[12:0], hb_lo_q};
        slot_hi_q    <= {n_hi, n_mid[25:13]};
        slot_hi1_q   <= {n_hip, n_midp[25:13]};
      end else if (finish) begin
        cur_valid_q <= 1'b0;
      end
      if (job_valid_i) begin
        next_q       <= job_i;
        next_valid_q <= 1'b1;
      end
    end
  end

  assign ev_done_o = o_fire && o_last;
`ifdef NT_MUTATE_RE  // a planted protocol bug (docs/assertions.md)
  nt_mutant_valid_drop u_mutant (
    .clk_i, .rst_ni, .valid_i(o_active_q), .ready_i(m_ready_i), .valid_o(m_valid_o));
`else
  assign m_valid_o = o_active_q;
`endif
  assign m_data_o  = beat_data;
  assign m_keep_o  = keep;
  assign m_last_o  = o_last;
  assign busy_o    = cur_valid_q || next_valid_q || qcnt_q != '0 || o_active_q;
  assign cnt_out_o = out_q;
endmodule
