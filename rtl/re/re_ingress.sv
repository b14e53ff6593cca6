// Ingress: stores each frame's first ReSegBeats beats in the input FIFO (one beat per cycle), checks its
// headers at the last beat and queues a descriptor for the decide stage. A frame the header checks drop
// is rewound out of the FIFO at once; its descriptor still goes to the decide stage, which counts it and
// expires contexts by its time like any other frame (docs/re.md: expiry before each segment). The RE header
// is the seed's 8 bytes or E2SAR's 20 (cfg_format_i), behind an LB header the LB kept when the UDP payload
// starts with "LB" (skipped or dropped, cfg_lb_drop_i); all of it lies in the first two beats.
`include "nt_ports.svh"
module re_ingress
(
  `NT_CLK_RST,
  `NT_STREAM_IN(s),
  input  logic [63:0]               s_time_i,
  input  logic [31:0]               cfg_buffer_bytes_i,
  input  logic                      cfg_format_i,   // 0: the seed's 8-byte header, 1: E2SAR's 20-byte REHdr
  input  logic [3:0]                cfg_version_i,  // the RE header version accepted
  input  logic                      cfg_lb_drop_i,  // 1: drop a frame that still has an LB header; 0: skip it
  input  logic                      cfg_host_i,     // `buffer host`: data past the stored beats is too_big
  // descriptor FIFO head
  output logic                      desc_valid_o,
  output re_pkg::desc_t                     desc_o,
  input  logic                      desc_pop_i,
  // input FIFO read port (write stage) and its releases; a registered read (block RAM): fifo_rdata_o is
  // the beat at the fifo_raddr_i of the cycle before
  input  logic [re_pkg::FifoW-1:0]          fifo_raddr_i,
  output logic [nt_pkg::StreamBits-1:0]     fifo_rdata_o,
  input  logic                      release_i,
  input  logic [re_pkg::BeatsW-1:0]         release_beats_i,
  output logic                      frame_idle_o,
  output logic                      busy_o,
  output logic [31:0]               cnt_in_o
);
  localparam int unsigned DescW = $clog2(nt_pkg::ReDescFifo);
  localparam int unsigned IdxW = 12;  // beats of the frame so far, saturating (longer frames only fail checks)

  logic [nt_pkg::StreamBits-1:0] fifo_mem [nt_pkg::ReFifoBeats];
  logic [nt_pkg::StreamBits-1:0] fifo_rdata_q;
  logic [re_pkg::FifoW-1:0]      wr_q;
  logic [re_pkg::FifoW:0]        used_q;
  logic [IdxW-1:0]       idx_q;
  logic [re_pkg::BeatsW-1:0]     stored_q;
  logic [nt_pkg::StreamBits-1:0] hdr0_q, hdr1_q;
  logic [63:0]           time_q;
  re_pkg::desc_t                 desc_mem [nt_pkg::ReDescFifo];
  logic [DescW-1:0]      dwr_q, drd_q;
  logic [DescW:0]        dcnt_q;
  logic [31:0]           cnt_in_q;

  logic fire, store, eof;
  assign s_ready_o = (dcnt_q < (DescW + 1)'(nt_pkg::ReDescFifo)) &&
                     (used_q < (re_pkg::FifoW + 1)'(nt_pkg::ReFifoBeats) || idx_q >= IdxW'(nt_pkg::ReSegBeats));
  assign fire  = s_valid_i && s_ready_o;
  assign store = fire && idx_q < IdxW'(nt_pkg::ReSegBeats);
  assign eof   = fire && s_last_i;

  // ---- header checks over the first two beats (docs/re.md "Drops", in order) ----
  logic [nt_pkg::WindowBits-1:0] win;
  logic [18:0]           flen;
  logic [6:0]            popc;
  always_comb begin
    popc = '0;
    for (int i = 0; i < nt_pkg::StreamBytes; i++) popc = popc + 7'(s_keep_i[i]);
    flen = {idx_q, 6'd0} + 19'(popc);
    if (idx_q == '0)      win = {{nt_pkg::StreamBits{1'b0}}, s_data_i};
    else if (idx_q == 1)  win = {s_data_i, hdr0_q};
    else                  win = {hdr1_q, hdr0_q};
  end

  re_pkg::desc_t d;
  logic [15:0] et, ulen, pay;
  logic [6:0]  l4, p, h, hdr_n, skip;
  logic [3:0]  ihl;
  logic [7:0]  lbv;
  logic        lb_magic;
  logic [32:0] seg_end, ev_end;
  always_comb begin
    d = '0;
    et = nt_pkg::win_b16(win, 12);
    ihl = win[8*14+:4];
    l4 = 7'd54;
    d.code = '0;
    if (flen < 19'd14) begin
      d.code = re_pkg::CodeW'(nt_pkg::ReDropRunt);
    end else if (et == 16'h0800) begin
      l4 = 7'd14 + {1'b0, ihl, 2'b00};
      if (flen < 19'd34) d.code = re_pkg::CodeW'(nt_pkg::ReDropTruncated);
      else if (win[8*14+4+:4] != 4'd4 || ihl < 4'd5) d.code = re_pkg::CodeW'(nt_pkg::ReDropNotIp);
      else if (nt_pkg::win_b8(win, 23) != 8'd17 || (nt_pkg::win_b16(win, 20) & 16'h3FFF) != 16'd0) d.code = re_pkg::CodeW'(nt_pkg::ReDropNotUdp);
    end else if (et == 16'h86DD) begin
      if (flen < 19'd54) d.code = re_pkg::CodeW'(nt_pkg::ReDropTruncated);
      else if (win[8*14+4+:4] != 4'd6) d.code = re_pkg::CodeW'(nt_pkg::ReDropNotIp);
      else if (nt_pkg::win_b8(win, 20) != 8'd17) d.code = re_pkg::CodeW'(nt_pkg::ReDropNotUdp);
    end else begin
      d.code = re_pkg::CodeW'(nt_pkg::ReDropNotIp);
    end
    // UDP payload at p; an LB header still in front ("LB", version 1: 12 bytes, 2/3: 16) is skipped or dropped.
    ulen = nt_pkg::win_b16(win, 32'(l4) + 4);
    p = l4 + 7'd8;
    pay = ulen - 16'd8;
    lb_magic = ulen >= 16'd10 && nt_pkg::win_b16(win, 32'(p)) == 16'(nt_pkg::ReLbMagic);
    lbv = nt_pkg::win_b8(win, 32'(p) + 2);
    skip = '0;
    if (lb_magic && ulen >= 16'd11) begin
      if (lbv == 8'd2 || lbv == 8'd3) skip = 7'd16;
      else if (lbv == 8'd1) skip = 7'd12;
    end
    hdr_n = cfg_format_i ? 7'(nt_pkg::ReHdrBytesE2sar) : 7'(nt_pkg::ReHdrBytesEvio6);
    h = p + skip;
    d.data_id = nt_pkg::win_b16(win, 32'(h) + 2);
    d.offset  = nt_pkg::win_b32(win, 32'(h) + 4);
    d.len     = pay - 16'(skip) - 16'(hdr_n);
    d.data_at = h + hdr_n;
    seg_end   = {1'b0, d.offset} + 33'(d.len);
    if (cfg_format_i) begin
      d.last      = 1'b1;
      d.event_num = nt_pkg::win_b64(win, 32'(h) + 12);
      ev_end      = {1'b0, nt_pkg::win_b32(win, 32'(h) + 8)};
    end else begin
      d.last      = win[8*(32'(h) + 1)];
      d.event_num = {48'd0, nt_pkg::win_b16(win, 32'(l4))};
      ev_end      = seg_end;
    end
    d.ev_end = ev_end[31:0];
    if (d.code == '0) begin
      if (flen < 19'(l4) + 19'd8) d.code = re_pkg::CodeW'(nt_pkg::ReDropTruncated);
      else if (ulen < 16'd8 || 19'(l4) + 19'(ulen) > flen) d.code = re_pkg::CodeW'(nt_pkg::ReDropTruncated);
      else if (lb_magic && (cfg_lb_drop_i || skip == '0)) d.code = re_pkg::CodeW'(nt_pkg::ReDropLbHeader);
      else if (pay < 16'(skip) + 16'(hdr_n)) d.code = re_pkg::CodeW'(nt_pkg::ReDropTruncated);
      else if (cfg_format_i ? (nt_pkg::win_b8(win, 32'(h)) != {cfg_version_i, 4'd0} || nt_pkg::win_b8(win, 32'(h) + 1) != 8'd0)
                            : win[8*32'(h)+4+:4] != cfg_version_i) d.code = re_pkg::CodeW'(nt_pkg::ReDropBadVersion);
      else if (d.len == '0 && !(d.last && ev_end == seg_end)) d.code = re_pkg::CodeW'(nt_pkg::ReDropEmpty);
      else if (seg_end > {1'b0, cfg_buffer_bytes_i} || ev_end > {1'b0, cfg_buffer_bytes_i} ||
               (cfg_host_i && 32'(d.data_at) + 32'(d.len) > 32'(nt_pkg::ReSegBeats * nt_pkg::StreamBytes)))
        d.code = re_pkg::CodeW'(nt_pkg::ReDropTooBig);
      else if (seg_end > ev_end) d.code = re_pkg::CodeW'(nt_pkg::ReDropInconsistent);
    end
    d.time_ns = (idx_q == '0) ? s_time_i : time_q;
    d.mac_dst = {nt_pkg::win_b32(win, 0), nt_pkg::win_b16(win, 4)};
    d.mac_src = {nt_pkg::win_b16(win, 6), nt_pkg::win_b32(win, 8)};
    d.stored  = (d.code == '0) ? stored_q + re_pkg::BeatsW'(store) : '0;
  end

  // ---- FIFO occupancy: + the stored beat, - a rewound frame, - the write stage's releases ----
  logic [re_pkg::FifoW:0] rewind;
  assign rewind = (eof && d.code != '0) ? (re_pkg::FifoW + 1)'(stored_q) + (re_pkg::FifoW + 1)'(store) : '0;

  // The FIFO's read is registered (read-first), so it maps to block RAM/URAM. The write stage presents the
  // address one cycle ahead; a beat it reads was stored at least two edges earlier (its frame's descriptor
  // is decided after its last beat is stored), so a read never meets the write of the same beat.
  always_ff @(posedge clk_i) begin
    if (store) fifo_mem[wr_q] <= s_data_i;
    fifo_rdata_q <= fifo_mem[fifo_raddr_i];
  end
  always_ff @(posedge clk_i) begin
    if (eof) desc_mem[dwr_q] <= d;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_q     <= '0;
      used_q   <= '0;
      idx_q    <= '0;
      stored_q <= '0;
      hdr0_q   <= '0;
      hdr1_q   <= '0;
      time_q   <= '0;
      dwr_q    <= '0;
      drd_q    <= '0;
      dcnt_q   <= '0;
      cnt_in_q <= '0;
    end else begin
      used_q <= used_q + (re_pkg::FifoW + 1)'(store) - rewind -
                (release_i ? (re_pkg::FifoW + 1)'(release_beats_i) : '0);
      wr_q   <= wr_q + re_pkg::FifoW'(store) - re_pkg::FifoW'(rewind);
      if (fire) begin
        if (idx_q == '0) time_q <= s_time_i;
        if (idx_q == '0) hdr0_q <= s_data_i;
        if (idx_q == 1) hdr1_q <= s_data_i;
        if (s_last_i) begin
          idx_q    <= '0;
          stored_q <= '0;
          cnt_in_q <= cnt_in_q + 1'b1;
        end else begin
          if (idx_q != '1) idx_q <= idx_q + 1'b1;
          stored_q <= stored_q + re_pkg::BeatsW'(store);
        end
      end
      if (eof) dwr_q <= dwr_q + 1'b1;
      if (desc_pop_i) drd_q <= drd_q + 1'b1;
      dcnt_q <= dcnt_q + (DescW + 1)'(eof) - (DescW + 1)'(desc_pop_i);
    end
  end

  assign desc_valid_o = dcnt_q != '0;
  assign desc_o       = desc_mem[drd_q];
  assign fifo_rdata_o = fifo_rdata_q;
  assign frame_idle_o = idx_q == '0;
  assign busy_o       = idx_q != '0 || used_q != '0 || dcnt_q != '0;
  assign cnt_in_o     = cnt_in_q;
endmodule
