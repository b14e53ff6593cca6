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
  logic              cur_valid_q, next_valid_q;
  re_pkg::job_t              cur_q, next_q;
  logic [re_pkg::BeatsW-1:0] beat_q;
  logic [re_pkg::BeatsW-1:0] beat_d;
  logic [re_pkg::FifoW-1:0]  rd_q, rd_d;
  logic              finish, take, advance;
  assign finish      = cur_valid_q && (cur_q.skip || (beat_q + 1'b1 == cur_q.beats && advance));
  assign take        = next_valid_q && (!cur_valid_q || finish);
  assign job_ready_o = !next_valid_q || take;
  // The input FIFO's read is registered: fifo_rdata_i is the beat at rd_q + beat_q because the address of
  // the next cycle's beat (rd_d + beat_d) is presented one cycle ahead.
  always_comb begin
    rd_d   = rd_q;
    beat_d = beat_q;
    if (finish) begin
      rd_d   = rd_q + re_pkg::FifoW'(cur_q.beats);
      beat_d = '0;
    end else if (cur_valid_q && advance) begin
      beat_d = beat_q + 1'b1;
    end
  end
  assign fifo_raddr_o    = rd_d + re_pkg::FifoW'(beat_d);
  assign release_o       = finish;
  assign release_beats_o = cur_q.beats;

  // Lane j of the buffer takes input byte (j - delta) mod 64 of the beat: buffer address = offset + frame
  // position - data_at.
  logic [5:0]        delta;
  logic [nt_pkg::StreamBytes-1:0] we;
  logic [7:0]        wbyte [nt_pkg::StreamBytes];
  logic [re_pkg::RowW-1:0]   wrow [nt_pkg::StreamBytes];
  always_comb begin
    logic [5:0]  i;
    logic [31:0] pos;
    // verilator lint_off UNUSEDSIGNAL
    logic [31:0] a;  // < ReBufBytes when written
    // verilator lint_on UNUSEDSIGNAL
    delta = 6'(cur_q.offset) - 6'(cur_q.data_at);
    for (int j = 0; j < nt_pkg::StreamBytes; j++) begin
      i   = 6'(j) - delta;
      pos = {17'd0, beat_q, 6'd0} + 32'(i);
      a   = 32'(cur_q.offset) + pos - 32'(cur_q.data_at);
      we[j]    = !cfg_host_i && cur_valid_q && !cur_q.skip && pos >= 32'(cur_q.data_at) &&
                 pos < 32'(cur_q.data_at) + 32'(cur_q.len);
      wbyte[j] = fifo_rdata_i[8*i+:8];
      wrow[j]  = {cur_q.ctx, a[6+:LaneRowW]};
    end
  end

  // ---- `buffer host`: the beat's data bytes [lo, hi) go to slot + offset + 64 beat + lo - data_at ----
  logic [63:0] slot_bytes, wr_slot;
  logic [31:0] slot32, wbase, dend, wlo, whi;
  always_comb begin
    slot32     = (cfg_buffer_bytes_i + 32'd4095) & ~32'd4095;
    slot_bytes = 64'(slot32);
    wr_slot    = cfg_host_base_i + 64'(cur_q.ctx) * slot_bytes;
    wbase      = {17'd0, beat_q, 6'd0};
    dend       = 32'(cur_q.data_at) + 32'(cur_q.len);
    wlo        = 32'(cur_q.data_at) > wbase ? 32'(cur_q.data_at) - wbase : '0;
    whi        = dend > wbase ? dend - wbase : '0;
    if (wlo > 32'(nt_pkg::StreamBytes)) wlo = 32'(nt_pkg::StreamBytes);
    if (whi > 32'(nt_pkg::StreamBytes)) whi = 32'(nt_pkg::StreamBytes);
    dma_req_valid_o = cfg_host_i && cur_valid_q && !cur_q.skip && wlo < whi;
    dma_req_write_o = 1'b1;
    dma_req_addr_o  = wr_slot + 64'(cur_q.offset) + 64'(wbase) + 64'(wlo) - 64'(cur_q.data_at);
    dma_req_len_o   = 16'(whi - wlo);
    dma_req_off_o   = wlo[5:0];
    for (int j = 0; j < nt_pkg::StreamBytes; j++) begin
      dma_req_data_o[8*j+:8] = (32'(j) >= wlo && 32'(j) < whi) ? fifo_rdata_i[8*j+:8] : 8'd0;
    end
  end
  assign advance = !dma_req_valid_o || dma_req_ready_i;

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
  // base's, bits 37:12 one 26-bit sum and bits 63:38 the base's plus its carry (chosen, not added after it).
  logic [25:0] rec_prod;
  logic [26:0] rec_mid;
  logic [25:0] base_hi, base_hi_p1;
  always_comb begin
    rec_prod   = 26'(q_head) * slot32[31:12];
    rec_mid    = {1'b0, cfg_host_base_i[37:12]} + {1'b0, rec_prod};
    base_hi    = cfg_host_base_i[63:38];
    base_hi_p1 = base_hi + 26'd1;
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
      beat_q       <= '0;
      rd_q         <= '0;
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
        rec_addr_q <= {rec_mid[26] ? base_hi_p1 : base_hi, rec_mid[25:0], cfg_host_base_i[11:0]};
        o_ctx_q    <= q_head;
        o_active_q <= 1'b1;
        o_beat_q   <= '0;
        qrd_q      <= qrd_q + 1'b1;
      end
      if (push) qwr_q <= qwr_q + 1'b1;
      qcnt_q <= qcnt_q + (QW + 1)'(push) - (QW + 1)'(pop);
      // write
      rd_q   <= rd_d;
      beat_q <= beat_d;
      if (take) begin
        cur_q        <= next_q;
        cur_valid_q  <= 1'b1;
        next_valid_q <= 1'b0;
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
