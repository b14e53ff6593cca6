// Ingress: stores each frame's first ReSegBeats beats in the input FIFO (one beat per cycle), checks its
// headers after the last beat and queues a descriptor for the decide stage. The checks run in six stages
// P1..P6 (docs/re-microarchitecture.md "Header checks in stages"), each from the previous one's registers, so
// the descriptor is queued five cycles later than when the checks ran in the last beat's cycle; a frame per
// cycle. A frame the header checks drop keeps its beats in the FIFO: its descriptor says so (code != 0, the
// beats stored), the decide stage counts it and expires contexts by its time like any other frame (docs/re.md:
// expiry before each segment), and the write stage releases its beats as for any dropped frame. The RE header
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
  logic [DescW-1:0]      dwr_q, drd_q;
  logic [DescW:0]        dcnt_q, davail_q;
  logic [31:0]           cnt_in_q;

  logic fire, store, eof;
  assign s_ready_o = (dcnt_q < (DescW + 1)'(nt_pkg::ReDescFifo)) &&
                     (used_q < (re_pkg::FifoW + 1)'(nt_pkg::ReFifoBeats) || idx_q >= IdxW'(nt_pkg::ReSegBeats));
  assign fire  = s_valid_i && s_ready_o;
  assign store = fire && idx_q < IdxW'(nt_pkg::ReSegBeats);
  assign eof   = fire && s_last_i;

  // ---- header checks (docs/re.md "Drops", in order) over the first two beats, in stages ----
  // Each stage computes from the previous stage's registers only, so no check meets the input's keep or data
  // in the cycle it arrives (issue 27: 73 logic levels from s_keep_i to the FIFO pointers before).
  // P1 (the last beat's cycle): the two-beat window, the frame length (64 x beats + the last beat's bytes),
  //     the first beat's time, the beats stored.
  logic [nt_pkg::WindowBits-1:0] win;
  logic [18:0]                   flen;
  always_comb begin
    flen = {idx_q, 6'd0} + 19'(nt_pkg::keep_count(s_keep_i));
    if (idx_q == '0)      win = {{nt_pkg::StreamBits{1'b0}}, s_data_i};
    else if (idx_q == 1)  win = {s_data_i, hdr0_q};
    else                  win = {hdr1_q, hdr0_q};
  end
  logic                          p1_valid_q;
  logic [nt_pkg::WindowBits-1:0] p1_win_q;
  logic [18:0]                   p1_flen_q;
  logic [63:0]                   p1_time_q;
  logic [re_pkg::BeatsW-1:0]     p1_stored_q;

  // P2: the L2/L3 checks; the UDP header at l4 = 14 + 4 k (IPv4: k = IHL; otherwise 54, k = 10), so every
  //     field behind it is one of 16 fixed places (a 16-way multiplexer, not a shifter): the UDP length, the
  //     first bytes of its payload (an LB header: "LB", version) and evio6's tick16.
  logic [15:0]              et, ulen, plb, tick;
  logic [3:0]               ihl, k;
  logic [7:0]               lbv;
  logic [re_pkg::CodeW-1:0] code_l3;
  always_comb begin
    et = nt_pkg::win_b16(p1_win_q, 12);
    ihl = p1_win_q[8*14+:4];
    k = 4'd10;
    code_l3 = '0;
    if (p1_flen_q < 19'd14) begin
      code_l3 = re_pkg::CodeW'(nt_pkg::ReDropRunt);
    end else if (et == 16'h0800) begin
      k = ihl;
      if (p1_flen_q < 19'd34) code_l3 = re_pkg::CodeW'(nt_pkg::ReDropTruncated);
      else if (p1_win_q[8*14+4+:4] != 4'd4 || ihl < 4'd5) code_l3 = re_pkg::CodeW'(nt_pkg::ReDropNotIp);
      else if (nt_pkg::win_b8(p1_win_q, 23) != 8'd17 || (nt_pkg::win_b16(p1_win_q, 20) & 16'h3FFF) != 16'd0)
        code_l3 = re_pkg::CodeW'(nt_pkg::ReDropNotUdp);
    end else if (et == 16'h86DD) begin
      if (p1_flen_q < 19'd54) code_l3 = re_pkg::CodeW'(nt_pkg::ReDropTruncated);
      else if (p1_win_q[8*14+4+:4] != 4'd6) code_l3 = re_pkg::CodeW'(nt_pkg::ReDropNotIp);
      else if (nt_pkg::win_b8(p1_win_q, 20) != 8'd17) code_l3 = re_pkg::CodeW'(nt_pkg::ReDropNotUdp);
    end else begin
      code_l3 = re_pkg::CodeW'(nt_pkg::ReDropNotIp);
    end
    ulen = '0;
    plb  = '0;
    lbv  = '0;
    tick = '0;
    for (int unsigned i = 0; i < 16; i++) begin
      if (k == 4'(i)) begin
        ulen = nt_pkg::win_b16(p1_win_q, 18 + 4 * i);
        plb  = nt_pkg::win_b16(p1_win_q, 22 + 4 * i);
        lbv  = nt_pkg::win_b8(p1_win_q, 24 + 4 * i);
        tick = nt_pkg::win_b16(p1_win_q, 14 + 4 * i);
      end
    end
  end
  logic                          p2_valid_q;
  logic [nt_pkg::WindowBits-1:0] p2_win_q;
  logic [re_pkg::CodeW-1:0]      p2_code_q;
  logic [15:0]                   p2_ulen_q, p2_plb_q, p2_tick_q;
  logic [7:0]                    p2_lbv_q;
  logic [3:0]                    p2_k_q;
  logic [18:0]                   p2_flen_q;
  logic [63:0]                   p2_time_q;
  logic [47:0]                   p2_mac_dst_q, p2_mac_src_q;
  logic [re_pkg::BeatsW-1:0]     p2_stored_q;

  // P3: the LB header (skipped or dropped), the RE header's place h, the bytes from l4 to the frame's end.
  logic [6:0]  l4, skip, h;
  logic        lb_magic;
  logic [19:0] avail;
  always_comb begin
    l4 = 7'd14 + {1'b0, p2_k_q, 2'b00};
    // an LB header still in front ("LB", version 1: 12 bytes, 2/3: 16) is skipped or dropped
    lb_magic = p2_ulen_q >= 16'd10 && p2_plb_q == 16'(nt_pkg::ReLbMagic);
    skip = '0;
    if (lb_magic && p2_ulen_q >= 16'd11) begin
      if (p2_lbv_q == 8'd2 || p2_lbv_q == 8'd3) skip = 7'd16;
      else if (p2_lbv_q == 8'd1) skip = 7'd12;
    end
    h = l4 + 7'd8 + skip;
    avail = {1'b0, p2_flen_q} - 20'(l4);  // flen - l4, signed: flen < l4 + 8 <=> avail < 8
  end
  logic                          p3_valid_q;
  logic [nt_pkg::WindowBits-1:0] p3_win_q;
  logic [re_pkg::CodeW-1:0]      p3_code_q;
  logic [15:0]                   p3_ulen_q, p3_tick_q;
  logic [6:0]                    p3_skip_q, p3_h_q;
  logic                          p3_lb_magic_q;
  logic [19:0]                   p3_avail_q;
  logic [63:0]                   p3_time_q;
  logic [47:0]                   p3_mac_dst_q, p3_mac_src_q;
  logic [re_pkg::BeatsW-1:0]     p3_stored_q;

  // P4: the RE header's fields at h, the segment's length and data start, the length and LB checks.
  logic [15:0] pay, len, data_id;
  logic [6:0]  hdr_n, data_at;
  logic [31:0] offset, ev_end_e2;
  logic [63:0] event_num;
  logic        last, trunc, lb_drop, pay_short;
  logic [15:0] ver;  // the RE header's first two bytes (the version check in P5)
  always_comb begin
    hdr_n = cfg_format_i ? 7'(nt_pkg::ReHdrBytesE2sar) : 7'(nt_pkg::ReHdrBytesEvio6);
    pay = p3_ulen_q - 16'd8;
    data_id = nt_pkg::win_b16(p3_win_q, 32'(p3_h_q) + 2);
    offset  = nt_pkg::win_b32(p3_win_q, 32'(p3_h_q) + 4);
    len     = pay - 16'(p3_skip_q) - 16'(hdr_n);
    data_at = p3_h_q + hdr_n;
    ev_end_e2 = nt_pkg::win_b32(p3_win_q, 32'(p3_h_q) + 8);
    if (cfg_format_i) begin
      last      = 1'b1;
      event_num = nt_pkg::win_b64(p3_win_q, 32'(p3_h_q) + 12);
    end else begin
      last      = p3_win_q[8*(32'(p3_h_q) + 1)];
      event_num = {48'd0, p3_tick_q};
    end
    // flen < l4 + 8, or ulen < 8, or l4 + ulen > flen
    trunc = $signed(p3_avail_q) < $signed(20'd8) || p3_ulen_q < 16'd8 ||
            $signed({4'd0, p3_ulen_q}) > $signed(p3_avail_q);
    lb_drop = p3_lb_magic_q && (cfg_lb_drop_i || p3_skip_q == '0);
    pay_short = pay < 16'(p3_skip_q) + 16'(hdr_n);
    ver = {nt_pkg::win_b8(p3_win_q, 32'(p3_h_q)), nt_pkg::win_b8(p3_win_q, 32'(p3_h_q) + 1)};
  end
  logic                      p4_valid_q;
  logic [re_pkg::CodeW-1:0]  p4_code_q;
  logic                      p4_trunc_q, p4_lb_drop_q, p4_pay_short_q, p4_last_q;
  logic [15:0]               p4_ver_q;
  logic [63:0]               p4_event_num_q, p4_time_q;
  logic [15:0]               p4_data_id_q, p4_len_q;
  logic [31:0]               p4_offset_q, p4_ev_end_e2_q;
  logic [6:0]                p4_data_at_q;
  logic [47:0]               p4_mac_dst_q, p4_mac_src_q;
  logic [re_pkg::BeatsW-1:0] p4_stored_q;

  // P5: the segment's end, the end the event declares, the host buffer's bound, the version check (E2SAR:
  //     version << 4 then a reserved 0 byte; evio6: the version in the first byte's high nibble).
  logic [32:0] seg_end;
  logic        host_big, bad_version;
  always_comb begin
    bad_version = cfg_format_i ? (p4_ver_q[15:8] != {cfg_version_i, 4'd0} || p4_ver_q[7:0] != 8'd0)
                               : p4_ver_q[15:12] != cfg_version_i;
    seg_end  = {1'b0, p4_offset_q} + 33'(p4_len_q);
    host_big = cfg_host_i && 32'(p4_data_at_q) + 32'(p4_len_q) > 32'(nt_pkg::ReSegBeats * nt_pkg::StreamBytes);
  end
  logic                      p5_valid_q;
  logic [re_pkg::CodeW-1:0]  p5_code_q;
  logic                      p5_trunc_q, p5_lb_drop_q, p5_pay_short_q, p5_bad_version_q, p5_last_q, p5_host_big_q;
  logic [63:0]               p5_event_num_q, p5_time_q;
  logic [15:0]               p5_data_id_q, p5_len_q;
  logic [31:0]               p5_offset_q;
  logic [32:0]               p5_seg_end_q, p5_ev_end_q;
  logic [6:0]                p5_data_at_q;
  logic [47:0]               p5_mac_dst_q, p5_mac_src_q;
  logic [re_pkg::BeatsW-1:0] p5_stored_q;

  // P6: the bounds, the verdict in docs/re.md's order, the descriptor (queued at the end of the cycle).
  re_pkg::desc_t d;
  // The descriptor FIFO as plain vectors: declared as an unpacked array of the packed struct, Yosys 0.55 read
  // `desc_mem[i]` as a bit select of one flat vector (desc_o one bit wide, the rest constant), so the whole
  // descriptor logic was removed as unused in synthesis (docs/synthesis.md).
  localparam int unsigned DescBits = $bits(d);
  logic [DescBits-1:0] desc_mem [nt_pkg::ReDescFifo];
  always_comb begin
    d = '0;
    d.code = p5_code_q;
    if (d.code == '0) begin
      if (p5_trunc_q) d.code = re_pkg::CodeW'(nt_pkg::ReDropTruncated);
      else if (p5_lb_drop_q) d.code = re_pkg::CodeW'(nt_pkg::ReDropLbHeader);
      else if (p5_pay_short_q) d.code = re_pkg::CodeW'(nt_pkg::ReDropTruncated);
      else if (p5_bad_version_q) d.code = re_pkg::CodeW'(nt_pkg::ReDropBadVersion);
      else if (p5_len_q == '0 && !(p5_last_q && p5_ev_end_q == p5_seg_end_q)) d.code = re_pkg::CodeW'(nt_pkg::ReDropEmpty);
      else if (p5_seg_end_q > {1'b0, cfg_buffer_bytes_i} || p5_ev_end_q > {1'b0, cfg_buffer_bytes_i} || p5_host_big_q)
        d.code = re_pkg::CodeW'(nt_pkg::ReDropTooBig);
      else if (p5_seg_end_q > p5_ev_end_q) d.code = re_pkg::CodeW'(nt_pkg::ReDropInconsistent);
    end
    d.event_num = p5_event_num_q;
    d.data_id   = p5_data_id_q;
    d.last      = p5_last_q;
    d.offset    = p5_offset_q;
    d.ev_end    = p5_ev_end_q[31:0];
    d.len       = p5_len_q;
    d.data_at   = p5_data_at_q;
    d.time_ns   = p5_time_q;
    d.mac_dst   = p5_mac_dst_q;
    d.mac_src   = p5_mac_src_q;
    d.stored    = p5_stored_q;
  end

  // The stages' registers: no reset but the valid bits (a stage's fields are used only while it is valid).
  always_ff @(posedge clk_i) begin
    if (eof) begin
      p1_win_q    <= win;
      p1_flen_q   <= flen;
      p1_time_q   <= (idx_q == '0) ? s_time_i : time_q;
      p1_stored_q <= stored_q + re_pkg::BeatsW'(store);
    end
    if (p1_valid_q) begin
      p2_win_q     <= p1_win_q;
      p2_code_q    <= code_l3;
      p2_ulen_q    <= ulen;
      p2_plb_q     <= plb;
      p2_lbv_q     <= lbv;
      p2_tick_q    <= tick;
      p2_k_q       <= k;
      p2_flen_q    <= p1_flen_q;
      p2_time_q    <= p1_time_q;
      p2_mac_dst_q <= {nt_pkg::win_b32(p1_win_q, 0), nt_pkg::win_b16(p1_win_q, 4)};
      p2_mac_src_q <= {nt_pkg::win_b16(p1_win_q, 6), nt_pkg::win_b32(p1_win_q, 8)};
      p2_stored_q  <= p1_stored_q;
    end
    if (p2_valid_q) begin
      p3_win_q      <= p2_win_q;
      p3_code_q     <= p2_code_q;
      p3_ulen_q     <= p2_ulen_q;
      p3_tick_q     <= p2_tick_q;
      p3_skip_q     <= skip;
      p3_h_q        <= h;
      p3_lb_magic_q <= lb_magic;
      p3_avail_q    <= avail;
      p3_time_q     <= p2_time_q;
      p3_mac_dst_q  <= p2_mac_dst_q;
      p3_mac_src_q  <= p2_mac_src_q;
      p3_stored_q   <= p2_stored_q;
    end
    if (p3_valid_q) begin
      p4_code_q        <= p3_code_q;
      p4_trunc_q       <= trunc;
      p4_lb_drop_q     <= lb_drop;
      p4_pay_short_q   <= pay_short;
      p4_ver_q         <= ver;
      p4_last_q        <= last;
      p4_event_num_q   <= event_num;
      p4_data_id_q     <= data_id;
      p4_len_q         <= len;
      p4_offset_q      <= offset;
      p4_ev_end_e2_q   <= ev_end_e2;
      p4_data_at_q     <= data_at;
      p4_time_q        <= p3_time_q;
      p4_mac_dst_q     <= p3_mac_dst_q;
      p4_mac_src_q     <= p3_mac_src_q;
      p4_stored_q      <= p3_stored_q;
    end
    if (p4_valid_q) begin
      p5_code_q        <= p4_code_q;
      p5_trunc_q       <= p4_trunc_q;
      p5_lb_drop_q     <= p4_lb_drop_q;
      p5_pay_short_q   <= p4_pay_short_q;
      p5_bad_version_q <= bad_version;
      p5_last_q        <= p4_last_q;
      p5_host_big_q    <= host_big;
      p5_event_num_q   <= p4_event_num_q;
      p5_data_id_q     <= p4_data_id_q;
      p5_len_q         <= p4_len_q;
      p5_offset_q      <= p4_offset_q;
      p5_seg_end_q     <= seg_end;
      p5_ev_end_q      <= cfg_format_i ? {1'b0, p4_ev_end_e2_q} : seg_end;
      p5_data_at_q     <= p4_data_at_q;
      p5_time_q        <= p4_time_q;
      p5_mac_dst_q     <= p4_mac_dst_q;
      p5_mac_src_q     <= p4_mac_src_q;
      p5_stored_q      <= p4_stored_q;
    end
  end

  // The FIFO's read is registered (read-first), so it maps to block RAM/URAM. The write stage presents the
  // address one cycle ahead; a beat it reads was stored at least two edges earlier (its frame's descriptor
  // is decided after its last beat is stored), so a read never meets the write of the same beat.
  always_ff @(posedge clk_i) begin
    if (store) fifo_mem[wr_q] <= s_data_i;
    fifo_rdata_q <= fifo_mem[fifo_raddr_i];
  end
  always_ff @(posedge clk_i) begin
    if (p5_valid_q) desc_mem[dwr_q] <= d;
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
      davail_q <= '0;
      cnt_in_q <= '0;
      p1_valid_q <= 1'b0;
      p2_valid_q <= 1'b0;
      p3_valid_q <= 1'b0;
      p4_valid_q <= 1'b0;
      p5_valid_q <= 1'b0;
    end else begin
      used_q <= used_q + (re_pkg::FifoW + 1)'(store) -
                (release_i ? (re_pkg::FifoW + 1)'(release_beats_i) : '0);
      wr_q   <= wr_q + re_pkg::FifoW'(store);
      p1_valid_q <= eof;
      p2_valid_q <= p1_valid_q;
      p3_valid_q <= p2_valid_q;
      p4_valid_q <= p3_valid_q;
      p5_valid_q <= p4_valid_q;
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
      if (p5_valid_q) dwr_q <= dwr_q + 1'b1;
      if (desc_pop_i) drd_q <= drd_q + 1'b1;
      // dcnt_q: descriptors queued or in the stages (s_ready_o keeps room for them); davail_q: queued
      dcnt_q   <= dcnt_q + (DescW + 1)'(eof) - (DescW + 1)'(desc_pop_i);
      davail_q <= davail_q + (DescW + 1)'(p5_valid_q) - (DescW + 1)'(desc_pop_i);
    end
  end

  assign desc_valid_o = davail_q != '0;
  assign desc_o       = desc_mem[drd_q];
  assign fifo_rdata_o = fifo_rdata_q;
  // no frame half in, none in the check stages
  assign frame_idle_o = idx_q == '0 && !(p1_valid_q || p2_valid_q || p3_valid_q || p4_valid_q || p5_valid_q);
  assign busy_o       = idx_q != '0 || used_q != '0 || dcnt_q != '0;
  assign cnt_in_o     = cnt_in_q;
endmodule
