// EJFAT load balancer: parse -> dst filter -> epoch assign -> calendar -> member info -> rewrite.
// One beat per cycle in and out with no bubbles for any packet mix; LbLatency cycles from a packet's last
// beat in to the corresponding beat out. Stage by stage as model/lb/lb_cycle_model.h; see
// docs/lb-microarchitecture.md.
`include "nt_ports.svh"
module lb_top
(
  `NT_CLK_RST,
  // Ingress stream.
  `NT_STREAM_IN(s),
  // Egress stream.
  `NT_STREAM_OUT(m),
  // Table programming.
  `NT_CFG_IN(cfg),
  // Counters: packets in, packets out, drops by reason (reason r in bits 32r+31:32r; r = 0 unused).
  output logic [nt_pkg::LbCounterBits-1:0]            pkts_in_o,
  output logic [nt_pkg::LbCounterBits-1:0]            pkts_out_o,
  output logic [nt_pkg::LbDropReasons*nt_pkg::LbCounterBits-1:0] drops_o
);
  // Per-stage state: the beat's valid and first-beat flags and what the stage has learned about its packet
  // (first beats only). S1 holds the whole parse (the CAM and TCAM keys); S2..S5 carry only what later
  // stages read (carry_t); S6 the rewrite with its checksums as carry-save pairs, S7 the finished rewrite.
  // The beat itself (its bytes, keep, successor bytes) is read only by S7, so it waits in a 7-entry delay
  // line (beat_q) instead of moving through six registers: written when it enters S1, read while it is in
  // S7, seven advances later (docs/lb-microarchitecture.md).
  typedef struct packed {
    lb_pkg::parse_t p;
    logic           valid;
    logic           sop;
  } stage_t;
  typedef struct packed {
    lb_pkg::carry_t c;
    logic           valid;
    logic           sop;
  } cstage_t;
  localparam int unsigned BeatDelay = 7;  // S1 .. S7

  logic adv;  // all stages advance together while the output skid register is empty

  // ---- H: lookahead register; S1: parse ----
  logic                     h_emit, h_last, s_first;
  logic [nt_pkg::StreamBits-1:0]    h_data;
  logic [nt_pkg::StreamBytes-1:0]   h_keep;
  logic [1:0]               h_idx;
  logic [3:0]               h_port;  // lb_top has no port sideband
  logic [8*lb_pkg::WindowBytes-1:0] window;
  logic [7:0]               window_len;
  stage_t                   s1_d, s1_q;
  lb_pkg::pipe_beat_t       h_beat;  // the beat leaving H, with its successor's first bytes
  lb_pkg::parse_t                   parsed;

  assign s_ready_o = adv;

  lb_lookahead u_h (
    `NT_CLK_RST_CONN,
    .adv_i        (adv),
    .s_valid_i,
    .s_data_i,
    .s_keep_i,
    .s_last_i,
    .s_port_i     (4'd0),
    .s_first_o    (s_first),
    .emit_o       (h_emit),
    .h_data_o     (h_data),
    .h_keep_o     (h_keep),
    .h_last_o     (h_last),
    .h_idx_o      (h_idx),
    .h_port_o     (h_port),
    .window_o     (window),
    .window_len_o (window_len)
  );

  // The window's keep: the held beat's, then (unless it is the frame's last) its successor's.
  logic [lb_pkg::WindowBytes-1:0] window_keep;
  assign window_keep = h_last ? {{nt_pkg::StreamBytes{1'b0}}, h_keep} : {s_keep_i, h_keep};

  // The held beat's EtherType is IPv6 / IPv4, decided as the beat enters H (the parser then reads two flops,
  // not a 16-bit compare, before its IPv4/IPv6 choices; issue 27 <= 12 levels). Loaded as H's beat is.
  logic [1:0] h_et_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      h_et_q <= '0;
    end else if (adv && s_valid_i) begin
      h_et_q <= {{s_data_i[8*12+:8], s_data_i[8*13+:8]} == 16'h86dd,
                 {s_data_i[8*12+:8], s_data_i[8*13+:8]} == 16'h0800};
    end
  end

  lb_parser u_parser (
    .window_i (window),
    .keep_i   (window_keep),
    .en_i     (h_emit && h_idx == 2'd0),
    .et_i     (h_et_q),
    .info_o   (parsed)
  );

  always_comb begin
    s1_d   = '0;
    h_beat = '0;
    if (h_emit) begin
      h_beat.valid = 1'b1;
      h_beat.data  = h_data;
      h_beat.keep  = h_keep;
      h_beat.last  = h_last;
      h_beat.idx   = h_idx;
      h_beat.sop   = h_idx == 2'd0;
      if (!h_last) begin
        h_beat.next12 = s_data_i[8*nt_pkg::LbHeaderBytes-1:0];
        // keep is contiguous from byte 0 (stream rules, asserted as keep_contig): the successor has at most
        // 12 bytes exactly when its byte 12 is empty.
        h_beat.next_keep = s_keep_i[nt_pkg::LbHeaderBytes-1:0];
        h_beat.fold      = s_last_i && !s_keep_i[nt_pkg::LbHeaderBytes];
      end
      s1_d.valid = 1'b1;
      s1_d.sop   = h_beat.sop;
    end
    // The parse of a first beat, zero for any other: the parser answers zero unless its en_i, which is
    // exactly h_emit && sop, so no gate here (one logic level off the path from H through the parser to
    // s1_q; issue 27: 13 -> 12 levels stitched).
    s1_d.p = parsed;
  end

  // The beat delay line: one write and one read per advance (the write replaces the entry just read).
  // A word of the struct's width, not the struct: Yosys 0.55 reads an unpacked array of a struct type as ONE
  // element (docs/synthesis.md "One RTL source"); Verilator reads both.
  logic [$bits(h_beat)-1:0]           beat_q [BeatDelay];
  logic [$clog2(BeatDelay)-1:0]       beat_wr_q;
  logic                               s6_valid_q, s6_sop_q, s7_valid_q, s7_sop_q;
  lb_pkg::pipe_beat_t                 s7_q;  // the beat in S7

  always_ff @(posedge clk_i) begin
    if (adv) beat_q[beat_wr_q] <= h_beat;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      beat_wr_q <= '0;
    end else if (adv) begin
      beat_wr_q <= 32'(beat_wr_q) == BeatDelay - 1 ? '0 : beat_wr_q + 1'b1;
    end
  end

  // Entries are read only behind the valid flag of S7 (the delay line has no reset).
  always_comb begin
    s7_q       = beat_q[beat_wr_q];
    s7_q.valid = s7_valid_q;
    s7_q.sop   = s7_sop_q;
  end

  // ---- Table lookups ----
  logic          flt_hit, flt_drop;
  logic [lb_pkg::EpochGroups-1:0]       map_hit;  // the calendar row of each group's epoch
  logic [lb_pkg::EpochGroups-1:0][1:0]  map_row;
  // The epoch TCAM's group winners: lb_tables' answer (ep_*) and S3's registers (s3_*_q), a vector per field.
  logic [lb_pkg::EpochGroups-1:0]       ep_hit_g, ep_drop_g, s3_hit_q, s3_drop_q;
  logic [lb_pkg::EpochGroups-1:0][15:0] ep_prio_g, s3_prio_q;
  logic [lb_pkg::EpochGroups-1:0][31:0] ep_epoch_g, s3_epoch_q;
  lb_pkg::cal_entry_t    cal_entry;
  lb_pkg::member_entry_t mem_entry;
  logic [9:0]    mem_addr;

  // S2 holds every filter and TCAM entry's match (lb_tables' registers), S3 the filter verdict and the group
  // winners, S4 the final epoch, its row and the calendar words of every row at the slot (lb_tables' read
  // registers), S5 the member entry (likewise), S6 the rewrite and its checksum pairs, S7 the rewrite.
  cstage_t       s2_q, s3_q, s4_q, s5_q;
  logic          lookup;
  logic          ep_hit, ep_drop;  // the second TCAM stage's answer
  logic          row_hit;          // the calendar row of its epoch
  logic [1:0]    row;
  logic          s3_lookup;
  logic          s4_ep_miss_q, s4_ep_drop_q;  // S3's epoch verdict (a clean first beat: no hit, a drop entry)
  logic          s4_row_hit_q;
  logic [1:0]    s4_row_q;
  logic [6:0]    s5_tag_q;  // member id[15:9], checked against the member entry's tag in S5
  lb_pkg::carry_t        s5_c;  // S5's carry with the member verdict
  lb_pkg::rewrite_t      s6_rw_q, rw_calc, rw_fin, s7_rw_q, ctx_q, rw_use;
  lb_pkg::csum_pair_t    s6_sums_q, sums_calc;

  lb_tables u_tables (
    `NT_CLK_RST_CONN,
    `NT_CFG_CONN(cfg),
    .lookup_i        (lookup),
    .flt_mac_i       (s1_q.p.mac),
    .flt_ethertype_i (s1_q.p.ethertype),
    .flt_ip_i        (s1_q.p.ip),
    .flt_port_i      (s1_q.p.port),
    .flt_hit_o       (flt_hit),
    .flt_drop_o      (flt_drop),
    .ep_tick_i       (s1_q.p.tick),
    .ep_hit_o        (ep_hit_g),
    .ep_drop_o       (ep_drop_g),
    .ep_prio_o       (ep_prio_g),
    .ep_epoch_o      (ep_epoch_g),
    .map_lookup_i    (s3_lookup),
    .map_epoch_i     (s3_epoch_q),
    .map_hit_o       (map_hit),
    .map_row_o       (map_row),
    .rd_en_i         (adv),
    .cal_slot_i      (s3_q.c.slot),
    .cal_row_i       (s4_row_q),
    .cal_entry_o     (cal_entry),
    .mem_addr_i      (mem_addr),
    .mem_entry_o     (mem_entry)
  );

  // Second TCAM stage: lowest priority wins, ties to the lower group (only for a clean first beat in S3).
  // As in each group (lb_tables): all 28 pairs of groups compared at once, group a wins if it hits and no
  // other hitting group beats it (a lower priority, or the same one and a lower group); the answer is the OR
  // of the winner's fields. The epoch map is looked up for every group's epoch beside the compares, and the
  // winner's row is ORed likewise: the map's lookup of the winning epoch, without a 16-bit compare chain and
  // the map's 32-bit compares in series (issue 27: <= 12 levels; a chain of 8 compare-and-select steps was
  // far deeper). The compares read the registers directly; the enable gates the answer, not their inputs.
  localparam int unsigned Groups = lb_pkg::EpochGroups;
  logic [Groups-1:0]          g_win;
  logic [Groups-1:0][Groups-1:0] g_le;  // g_le[a][b] (a < b): group a's priority <= group b's (a beats b)
  assign s3_lookup = first_ok(s3_q.valid, s3_q.sop, s3_q.c.reason);
  always_comb begin
    ep_hit   = 1'b0;
    ep_drop  = 1'b0;
    row_hit  = 1'b0;
    row      = '0;
    g_win    = '0;
    g_le     = '0;
    if (s3_lookup) begin
      for (int a = 0; a < Groups; a++) begin
        for (int b = 0; b < Groups; b++) if (b > a) g_le[a][b] = s3_prio_q[a] <= s3_prio_q[b];
      end
      for (int a = 0; a < Groups; a++) begin
        g_win[a] = s3_hit_q[a];
        for (int b = 0; b < Groups; b++) begin
          if (b < a && s3_hit_q[b] && g_le[b][a]) g_win[a] = 1'b0;
          if (b > a && s3_hit_q[b] && !g_le[a][b]) g_win[a] = 1'b0;
        end
      end
      for (int a = 0; a < Groups; a++) begin
        ep_hit   = ep_hit | g_win[a];
        ep_drop  = ep_drop | (g_win[a] && s3_drop_q[a]);
        row_hit  = row_hit | (g_win[a] && map_hit[a]);
        row      = row | ({2{g_win[a]}} & map_row[a]);
      end
    end
  end

  assign mem_addr = {s4_q.c.is_v6, cal_entry.member[8:0]};

  // Takes the three fields, not the whole stage: a simulator copies a struct argument per call.
  function automatic logic first_ok(logic valid, logic sop, lb_pkg::reason_t reason);
    first_ok = valid && sop && reason == lb_pkg::reason_t'(nt_pkg::LbDropNone);
  endfunction

  // The CAM and the TCAM groups search only for a clean first beat in S1 (one search per frame).
  assign lookup = first_ok(s1_q.valid, s1_q.sop, s1_q.p.reason);

  // Each stage sets the drop reason of its lookup if the packet is still clean. The filter's and the TCAM's
  // matches are registered in S2 and chosen among there, so the filter's verdict is taken in S2; the calendar
  // and member entries are read registered, so their verdicts are taken in S4 and S5, from the read registers.
  // S1 narrows a first beat's parse to its carry (non-first beats carry zeros, as their parse is).
  cstage_t s2_d, s3_d, s4_d, s5_d;
  always_comb begin
    s2_d.valid = s1_q.valid;
    s2_d.sop   = s1_q.sop;
    s2_d.c     = '0;
    if (s1_q.valid && s1_q.sop) s2_d.c = lb_pkg::carry_of(s1_q.p);
    // S1's lookup follows the parser's own checks; the last of the parse checks (parse_reason in carry_of)
    // is in S2's reason, so the filter's verdict counts only for a frame that passes all of them (a clean
    // first beat in S2 was looked up in S1).
    s3_d = s2_q;
    if (first_ok(s2_q.valid, s2_q.sop, s2_q.c.reason)) begin
      if (!flt_hit) s3_d.c.reason = lb_pkg::reason_t'(nt_pkg::LbDropFilterMiss);
      else if (flt_drop) s3_d.c.reason = lb_pkg::reason_t'(nt_pkg::LbDropFilterDrop);
    end
    // The epoch verdict is found in S3 and registered on its own (s4_ep_miss_q, s4_ep_drop_q), then written
    // into the reason with the calendar's verdict as S4 passes the carry on (only a clean frame has either
    // flag), so the reason's multiplexer is off the path from the compares.
    s4_d = s3_q;
    s5_d = s4_q;
    if (s4_ep_miss_q) begin
      s5_d.c.reason = lb_pkg::reason_t'(nt_pkg::LbDropEpochMiss);
    end else if (s4_ep_drop_q) begin
      s5_d.c.reason = lb_pkg::reason_t'(nt_pkg::LbDropEpochDrop);
    end else if (first_ok(s4_q.valid, s4_q.sop, s4_q.c.reason)) begin
      if (!s4_row_hit_q || !cal_entry.valid) s5_d.c.reason = lb_pkg::reason_t'(nt_pkg::LbDropCalendarMiss);
      else if (cal_entry.drop) s5_d.c.reason = lb_pkg::reason_t'(nt_pkg::LbDropCalendarDrop);
    end
    s5_c = s5_q.c;
    if (first_ok(s5_q.valid, s5_q.sop, s5_q.c.reason)) begin
      if (!mem_entry.valid || mem_entry.tag != s5_tag_q) begin
        s5_c.reason = lb_pkg::reason_t'(nt_pkg::LbDropMemberMiss);
      end else if (mem_entry.drop) begin
        s5_c.reason = lb_pkg::reason_t'(nt_pkg::LbDropMemberDrop);
      end
    end
  end

  lb_rewrite_calc u_rewrite (
    .en_i     (s5_q.valid && s5_q.sop),
    .info_i   (s5_c),
    .member_i (mem_entry),
    .rw_o     (rw_calc),
    .sums_o   (sums_calc)
  );

  // S6: the checksums folded from their pairs (first beats only; the rewrite of any other beat is 0).
  always_comb begin
    rw_fin = '0;
    if (s6_valid_q && s6_sop_q) rw_fin = lb_pkg::csum_finish(s6_rw_q, s6_sums_q);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s1_q         <= '0;
      s2_q         <= '0;
      s3_q         <= '0;
      s4_q         <= '0;
      s5_q         <= '0;
      s6_valid_q   <= 1'b0;
      s6_sop_q     <= 1'b0;
      s7_valid_q   <= 1'b0;
      s7_sop_q     <= 1'b0;
      s3_hit_q     <= '0;
      s3_drop_q    <= '0;
      s3_prio_q    <= '0;
      s3_epoch_q   <= '0;
      s4_row_hit_q <= 1'b0;
      s4_ep_miss_q <= 1'b0;
      s4_ep_drop_q <= 1'b0;
      s4_row_q     <= '0;
      s5_tag_q     <= '0;
      s6_rw_q      <= '0;
      s6_sums_q    <= '0;
      s7_rw_q      <= '0;
      ctx_q        <= '0;
    end else if (adv) begin
      s1_q         <= s1_d;
      s2_q         <= s2_d;
      s3_q         <= s3_d;
      s3_hit_q     <= ep_hit_g;
      s3_drop_q    <= ep_drop_g;
      s3_prio_q    <= ep_prio_g;
      s3_epoch_q   <= ep_epoch_g;
      s4_q         <= s4_d;
      s4_row_hit_q <= row_hit;
      s4_ep_miss_q <= s3_lookup && !ep_hit;
      s4_ep_drop_q <= s3_lookup && ep_hit && ep_drop;
      s4_row_q     <= row;
      s5_q         <= s5_d;
      s5_tag_q     <= cal_entry.member[15:9];
      s6_valid_q   <= s5_q.valid;
      s6_sop_q     <= s5_q.sop;
      s6_rw_q      <= rw_calc;
      s6_sums_q    <= sums_calc;
      s7_valid_q   <= s6_valid_q;
      s7_sop_q     <= s6_sop_q;
      s7_rw_q      <= rw_fin;
      if (s7_q.valid && s7_q.sop) ctx_q <= s7_rw_q;
    end
  end

  // ---- O: output register + skid ----
  assign rw_use = s7_q.sop ? s7_rw_q : ctx_q;

  logic                   form_valid, form_last;
  logic [nt_pkg::StreamBits-1:0]  form_data;
  logic [nt_pkg::StreamBytes-1:0] form_keep;

  lb_beat_former u_former (
    .beat_i  (s7_q),
    .rw_i    (rw_use),
    .valid_o (form_valid),
    .data_o  (form_data),
    .keep_o  (form_keep),
    .last_o  (form_last)
  );

  nt_skid_buffer #(
    .Width (nt_pkg::StreamBits + nt_pkg::StreamBytes + 1)
  ) u_out (
    `NT_CLK_RST_CONN,
    .in_valid_i  (form_valid),
    .in_data_i   ({form_last, form_keep, form_data}),
    .in_ready_o  (adv),
    .out_valid_o (m_valid_o),
    .out_data_o  ({m_last_o, m_keep_o, m_data_o}),
    .out_ready_i (m_ready_i)
  );

  // ---- Counters ----
  logic [nt_pkg::LbCounterBits-1:0] pkts_in_q, pkts_out_q;
  logic [nt_pkg::LbDropReasons-1:0][nt_pkg::LbCounterBits-1:0] drops_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pkts_in_q  <= '0;
      pkts_out_q <= '0;
      drops_q    <= '0;
    end else begin
      if (adv && s_valid_i && s_first) pkts_in_q <= pkts_in_q + 1'b1;
      if (m_valid_o && m_ready_i && m_last_o) pkts_out_q <= pkts_out_q + 1'b1;
      // One enable per counter rather than drops_q[reason] <= drops_q[reason] + 1: the same counts, without
      // a multiplexer over every counter in front of the increment (24 logic levels; issue 27).
      if (adv && s7_q.valid && s7_q.sop && !s7_rw_q.forward) begin
        for (int r = 0; r < nt_pkg::LbDropReasons; r++) begin
          if (32'(s7_rw_q.reason) == r) drops_q[r] <= drops_q[r] + 1'b1;
        end
      end
    end
  end

  assign pkts_in_o  = pkts_in_q;
  assign pkts_out_o = pkts_out_q;
  assign drops_o    = drops_q;

  logic unused_port;
  assign unused_port = ^{h_port, window_len};  // the parser reads the window's keep, not its length
endmodule
