// ConWeave source-ToR rerouting block (docs/reroute.md, "Cycle behaviour"): host frames in (s), control
// packets back from destination ToRs in (r), fabric frames with their path out (m, m_path). Stages, as
// model/reroute/reroute_cycle_model.cc:
//   A  host ingress into one of two frame banks (store-and-forward), s_ready low while a complete frame
//      waits for the decision
//   K  control ingress: the first two beats of a control packet, r_ready low while one waits
//   D  one decision per cycle: a control packet first, else a host frame when the output is free
//   O  output: beat k of the fabric frame from beats k and k-1 of the bank, the 4-byte CW header inserted
//   S  path-status scan, one path per cycle
`include "nt_ports.svh"
module reroute_top
(
  `NT_CLK_RST,
  `NT_STREAM_IN(s),
  `NT_STREAM_IN(r),
  `NT_STREAM_OUT(m),
  output logic [7:0]             m_path_o,
  input  logic [15:0]            now_us_i,
  input  logic [15:0]            cfg_flows_mask_i,
  input  logic [7:0]             cfg_paths_i,
  input  logic [15:0]            cfg_reply_cutoff_us_i,
  input  logic [15:0]            cfg_path_busy_us_i,
  input  logic [15:0]            cfg_flow_idle_us_i,
  input  logic                   cfg_p4_format_i,  // conweave-p4's wire format instead of the seed's
  output logic                   idle_o,
  output logic [31:0]            cnt_in_o,
  output logic [31:0]            cnt_out_o,
  output logic [31:0]            cnt_drop_malformed_o,
  output logic [31:0]            cnt_rtt_requests_o,
  output logic [31:0]            cnt_reroutes_o,
  output logic [31:0]            cnt_reroute_blocked_clear_o,
  output logic [31:0]            cnt_reroute_no_path_o,
  output logic [31:0]            cnt_fallback_ecmp_o,
  output logic [31:0]            cnt_evictions_o,
  output logic [31:0]            cnt_idle_resets_o,
  output logic [31:0]            cnt_ctrl_in_o,
  output logic [31:0]            cnt_rtt_replies_o,
  output logic [31:0]            cnt_stale_replies_o,
  output logic [31:0]            cnt_notifies_o,
  output logic [31:0]            cnt_clears_o,
  output logic [31:0]            cnt_stale_clears_o,
  output logic [31:0]            cnt_bad_control_o
);
  localparam logic [2:0] CwRttRequest = 3'd1, CwRttReply = 3'd2, CwClear = 3'd3, CwNotify = 3'd4;

  // ---- state ----
  // The two frame banks: one RAM of 2 x 128 beats (address {bank, beat}; beats 72..127 unused), written by A,
  // read registered by O one cycle ahead at O's next beat (docs/reroute-microarchitecture.md "Frame-bank
  // RAM"); beats 0 and 1 of each bank, which D parses, also in registers (hd_q).
  logic [nt_pkg::StreamBits-1:0] bank_mem_q [256];
  logic [1:0][1:0][nt_pkg::StreamBits-1:0] hd_q;
  // the flow hash's parts and the family of each bank's header beats (reroute_pkg hash_b0 / hash_b1_lin of
  // hd_q[b][0] / [1], EtherType IPv6), written with them, so the prefetch hashes only s's live beat
  logic [1:0][15:0]      hb4_q, hb6_q, hb6b_q;
  logic [1:0]            hv6_q;
  // the same of K's window cx_q (written with it; cx_q's clear sets them to the hash parts of zero beats)
  logic [15:0]           cb4_q, cb6_q, cb6b_q;
  logic [nt_pkg::StreamBits-1:0] ob_rd_q, ob_prev_q;
  logic                  ob_bank_d;
  logic [reroute_pkg::BeatW-1:0] ob_idx_d;
  logic                  wsel_q;
  logic [15:0]           rx_len_q;
  logic                  rx_full_q, rx_long_q;
  logic [nt_pkg::StreamBits-1:0] cx_q [2];
  // K's byte count, saturating at 255: everything that reads it (parse_cw's "shorter than 62 / 82 bytes", the
  // beat slot below RerouteCtrlBytes = 128, idle's 0) has the same value for every length of 255 and more, so
  // 8 bits serve (the model counts to 65,535; issue 27 item 2: the 16-bit sum was 15-19 levels)
  logic [7:0]            cx_len_q;
  logic                  cx_full_q;
  logic                  ob_valid_q, ob_bank_q, ob_v6_q;
  logic [reroute_pkg::BeatW-1:0]      ob_idx_q, ob_lastb_q;
  logic [6:0]            ob_lastn_q;  // bytes of the last beat (1..64)
  logic [7:0]            ob_path_q, ob_b8_q;
  logic [15:0]           ob_ip_len_q, ob_csum_q, ob_udp_len_q, ob_tx_q, ob_tail_tx_q;
  logic [reroute_pkg::PathW-1:0]      scan_q;
  logic [nt_pkg::ReroutePaths-1:0] busy_q;
  logic [15:0]           busy_ts_q [nt_pkg::ReroutePaths];
  logic [nt_pkg::RerouteFlows-1:0] fl_valid_q;
  // The flow table: a RAM of whole entries, one registered read and one write per cycle (block RAM; docs/
  // reroute-microarchitecture.md "Flow-table RAM"). The read is prefetched: in the cycle before a decision
  // the entry of the flow D will decide on is read (its key and hash computed from K's and A's next state),
  // so no cycle is added; a write in that edge to the same entry is bypassed.
  logic [reroute_pkg::FlowEntryBits-1:0] fl_mem_q [nt_pkg::RerouteFlows];  // reroute_pkg::flow_t words
  reroute_pkg::flow_t    fl_rdata_q, fl_byp_data_q, fl_e, fl_wdata;
  logic                  fl_byp, byp_we_q, byp_eq_q, fl_we;
  logic [reroute_pkg::FlowW-1:0] fl_raddr, fl_waddr;
  // the prefetch's results, registered: the key, hash and table index of the flow D decides on in this cycle
  // (the control packet's in a cycle with d_ctrl, the host frame's in one with d_data: the read address's
  // choice, pf_cx_full, is cx_full_q after the edge), so both decisions share one key compare and one valid bit
  logic [reroute_pkg::KeyBits-1:0]    key_q;
  logic [15:0]           hash_q;
  logic [reroute_pkg::FlowW-1:0] idx_q;
  logic [16:0][31:0]     cnt_q;

  localparam int unsigned CIn = 0, COut = 1, CMal = 2, CReq = 3, CRer = 4, CBlk = 5, CNoP = 6, CEcmp = 7,
                          CEvi = 8, CIdl = 9, CCin = 10, CRep = 11, CStRep = 12, CNot = 13, CClr = 14,
                          CStClr = 15, CBad = 16;

  // `now_us_i` is sampled at the clock edge (now_q): a decision in cycle n reads the microsecond of cycle n - 1,
  // so the path-busy checks of all paths can be registered from it a cycle ahead (p_busy_q) and no `elapsed`
  // of the input is in series with the decision (issue 27 item 2; docs/reroute.md "Cycle behaviour")
  logic [15:0] now, now_q;
  logic [7:0]  pmask;
  assign now = now_q;
  assign pmask = reroute_pkg::add8(cfg_paths_i, 8'hff);  // paths - 1

  // ---- D: control decision ----
  logic                 d_ctrl, d_data;
  logic [reroute_pkg::WinBits-1:0]   cwin;
  reorder_pkg::meta_t   cm;
  reorder_pkg::cw_pre_t c_pre, pf_c_pre;
  logic                 c_et6_q, c_hdr_ok_q, c_port_ok_q;
  logic [2:0]           c_op;
  logic [1:0]           c_epoch;
  logic                 c_is_ctrl, c_notify_ok, c_mine;
  logic                 c_reply_ok, c_clear_ok;
  // the flow entry D reads (the prefetched index's): valid, and its key the prefetched one
  logic                 e_valid, e_key_eq, e_mine;
  assign fl_byp = byp_we_q && byp_eq_q;
  assign e_valid = fl_valid_q[idx_q];
  // the compare on each of the two words fl_e chooses from, then the choice (the bypass mux off the compare's
  // path; issue 27 item 2)
  assign e_key_eq = fl_byp ? fl_byp_data_q.key == key_q : fl_rdata_q.key == key_q;
  assign e_mine = e_valid && e_key_eq;
  always_comb begin
    cwin = {cx_q[1], cx_q[0]};
    // Parsed in the seed's format; conweave-p4's (docs/reroute.md "Wire format"): the seed's op field is
    // {opcode, phase} once the headers are good (0 otherwise): 4 REPLY phase 0 = RTT_REPLY, 5 REPLY phase 1
    // = CLEAR, 6 / 7 NOTIFY; the seed's epoch = conweave-p4's epoch + phase (model: MapP4Control).
    // parse_cw(cwin, cx_len_q <= RerouteCtrlBytes ? cx_len_q : -1) reads the length only as "shorter than 62 /
    // 82 bytes", which a length over RerouteCtrlBytes never is: the two flags as LUT-tree compares of cx_len_q
    // (parse_cw's int compares were carry chains in series with the control decision; issue 27 item 2)
    // The parse's first-beat part (the EtherType, the IP header checks, the UDP port) is registered from the
    // prefetch's next K window (c_et6_q, c_hdr_ok_q, c_port_ok_q: always cw_pre(cwin)'s fields, as pf_cwin is
    // cx_q after the edge), so only the bytes after the UDP header and the length flags are parsed here; the
    // cw_pre fields left 0 feed only parts of cm this block does not read (in `unused`).
    c_pre = '0;
    c_pre.et6 = c_et6_q;
    c_pre.hdr_ok = c_hdr_ok_q;
    c_pre.port_ok = c_port_ok_q;
    cm = reorder_pkg::parse_cw_pre(cwin, c_pre, !reroute_pkg::ge16({8'd0, cx_len_q}, 16'd62),
                                   !reroute_pkg::ge16({8'd0, cx_len_q}, 16'd82), 1'b0);
    c_op = cm.op;
    c_epoch = cm.epoch;
    if (cfg_p4_format_i) begin
      c_op = cm.op == 3'd4 ? CwRttReply : cm.op == 3'd5 ? CwClear : cm.op[2:1] == 2'd3 ? CwNotify : 3'd0;
      c_epoch = cm.epoch + {1'b0, cm.op[0]};
    end
    c_is_ctrl = !cm.ok && cm.cw_off != 16'd0 &&
                (c_op == CwRttReply || c_op == CwClear || c_op == CwNotify);
    c_notify_ok = !reroute_pkg::ge16({8'd0, cm.path_id}, {8'd0, cfg_paths_i});  // path_id < paths, a LUT tree
    c_mine = e_mine;
    // on both words fl_e chooses from, then the choice (as e_key_eq)
    c_reply_ok = c_mine && (fl_byp ? fl_byp_data_q.rw && cm.tx_ts == fl_byp_data_q.req_ts :
                                     fl_rdata_q.rw && cm.tx_ts == fl_rdata_q.req_ts);
    c_clear_ok = c_mine && fl_e.rr && c_epoch == fl_e.epoch;
  end

  // ---- D: data decision ----
  // Written on the entry's fields directly (fl_e, e_valid, e_key_eq) rather than through the seed's state
  // (docs/reroute.md "Rerouting"): a frame whose entry is its own flow's (mine) continues it; one whose entry
  // is free or idle (new) takes it, with the ECMP path, epoch 0 and no flags; else (fallback) it goes ECMP
  // untracked. Only a flow of its own can reroute (the new entry has no request outstanding), so every
  // reroute term needs `mine` and the entry's fields as read, and the path and busy checks run beside the
  // compares that decide mine / new (issue 27 depth; the same values as the chain of muxes it replaces).
  logic [reroute_pkg::WinBits-1:0] hwin;
  reroute_pkg::host_meta_t         hm;
  logic [15:0]        h_hash;
  logic [7:0]         ecmp, c0, c1;
  logic               el_idle, el_req, h_mine, h_new, h_fallback, st_rr, st_rw;
  logic               cond_i, blocked, try_rr, ok0, ok1, take, new_req;
  // the decision for a valid entry (e_valid = 1), before e_valid chooses
  logic               h_new_v, h_fallback_v, cond_i_v, take_v, new_req_v;
  logic [7:0]         fl_path_v;
  logic [1:0]         fl_epoch_v;
  logic [15:0]        o_tail_tx_v, fl_req_ts_v;
  // path p busy and its stamp not expired at `now` (= now_q), registered: reroute_top_sva p_busy_reg
  logic [nt_pkg::ReroutePaths-1:0] p_busy_q, p_busy_d, scan_clr;
  logic                            notify_we, notify_el;
  logic [7:0]         new_path;
  logic [7:0]         o_path;
  logic [1:0]         o_epoch;
  logic               o_rr;
  logic [15:0]        o_tail_tx;
  logic [2:0]         o_op;
  always_comb begin
    hwin = {hd_q[wsel_q][1], hd_q[wsel_q][0]};
    hm = reroute_pkg::parse_host(hwin, rx_len_q, rx_long_q);
    h_hash = hash_q;
    ecmp = 8'(h_hash >> 4) & pmask;
    c0 = reroute_pkg::add8(h_hash[7:0], now[7:0]) & pmask;
    c1 = c0 ^ ((8'(h_hash >> 6) & pmask) | 8'd1);
    // each on both words fl_e chooses from, then the choice (as e_key_eq)
    el_idle = fl_byp ? reroute_pkg::elapsed(now, fl_byp_data_q.last, cfg_flow_idle_us_i) :
                       reroute_pkg::elapsed(now, fl_rdata_q.last, cfg_flow_idle_us_i);
    el_req = fl_byp ? reroute_pkg::elapsed(now, fl_byp_data_q.req_ts, cfg_reply_cutoff_us_i) :
                      reroute_pkg::elapsed(now, fl_rdata_q.req_ts, cfg_reply_cutoff_us_i);
    // mine = valid && key; idle = valid && el_idle; new = !valid || (!mine && idle); fallback = !new && !mine
    // e_valid, a 1,024:1 read of fl_valid_q, is about as deep as the entry's compares: every term is written
    // first for a valid entry (the _v values: mine = e_key_eq) and e_valid chooses last (an invalid entry is
    // a new flow: ECMP, epoch 0, no flags, a request), so the read runs beside the compares instead of in
    // front of them (issue 27 item 2, session 22; the same values: substitute e_valid = 0 / 1)
    h_new_v = !e_key_eq && el_idle;
    h_fallback_v = !e_key_eq && !el_idle;
    // the state a frame of its own flow continues from (a new entry's: path ECMP, all else 0)
    st_rr = fl_e.rr && !el_idle;
    st_rw = fl_e.rw && !el_idle;
    cond_i_v = e_key_eq && st_rw && el_req;
    // the candidates are compared with the flow's own path: only a flow of its own reroutes
    ok0 = c0 != fl_e.path && !p_busy_q[c0[reroute_pkg::PathW-1:0]];
    ok1 = c1 != fl_e.path && !p_busy_q[c1[reroute_pkg::PathW-1:0]];
    take_v = cond_i_v && !fl_e.rr && (ok0 || ok1);
    new_path = ok0 ? c0 : c1;
    // h_mine && !take && !st_rw without take: take needs try_rr, which needs st_rw (issue 27 item 2: take,
    // the deepest of the decision, no longer feeds new_req)
    new_req_v = h_new_v || (e_key_eq && !st_rw);
    o_tail_tx_v = !e_key_eq ? 16'd0 : take_v ? now : fl_e.tail_ts;
    fl_path_v = !e_key_eq ? ecmp : take_v ? new_path : fl_e.path;
    fl_epoch_v = !e_key_eq ? 2'd0 : fl_e.epoch + {1'b0, take_v};
    fl_req_ts_v = new_req_v ? now : e_key_eq ? fl_e.req_ts : 16'd0;
    // e_valid chooses
    h_mine = e_mine;
    h_new = !e_valid || h_new_v;
    h_fallback = e_valid && h_fallback_v;
    cond_i = e_valid && cond_i_v;
    blocked = cond_i && fl_e.rr;
    try_rr = cond_i && !fl_e.rr;
    take = e_valid && take_v;
    new_req = !e_valid || new_req_v;
    o_path = h_mine ? fl_e.path : ecmp;
    o_epoch = h_mine ? fl_e.epoch : 2'd0;
    o_rr = h_mine && st_rr;
    o_tail_tx = e_valid ? o_tail_tx_v : 16'd0;
    o_op = new_req ? CwRttRequest : 3'd0;
  end

  assign d_ctrl = cx_full_q;
  assign d_data = !cx_full_q && rx_full_q && !ob_valid_q;

  // The path table after this edge, checked against the next cycle's `now` (now_us_i, which is now_q then):
  // a NOTIFY stamps its path with now_q (one shared `elapsed` of that stamp); S clears a path whose stamp
  // expired (busy and not p_busy); any other busy path keeps its stamp. The configuration is quasi-static
  // (docs/reroute.md), so cfg_path_busy_us_i of this cycle is the next cycle's.
  assign notify_we = d_ctrl && c_is_ctrl && c_op == CwNotify && c_notify_ok;
  assign notify_el = reroute_pkg::elapsed(now_us_i, now_q, cfg_path_busy_us_i);
  always_comb begin
    for (int unsigned p = 0; p < nt_pkg::ReroutePaths; p++) begin
      scan_clr[p] = reroute_pkg::PathW'(p) == (scan_q & pmask[reroute_pkg::PathW-1:0]) && busy_q[p] &&
                    !p_busy_q[p];
      p_busy_d[p] = notify_we && cm.path_id[reroute_pkg::PathW-1:0] == reroute_pkg::PathW'(p) ? !notify_el :
                    busy_q[p] && !scan_clr[p] &&
                    !reroute_pkg::elapsed(now_us_i, busy_ts_q[p], cfg_path_busy_us_i);
    end
  end

  // ---- registers: flow table, path table, counters ----
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fl_valid_q <= '0;
      busy_q <= '0;
      p_busy_q <= '0;
      now_q <= 16'd0;
      cnt_q <= '0;
      scan_q <= '0;
    end else begin
      now_q <= now_us_i;
      p_busy_q <= p_busy_d;
      // S (a NOTIFY below, later in this block, wins)
      // the scanned path's busy bit cleared when expired (busy and not p_busy), per path: a decode of the scan
      // index beside p_busy, not a select of it
      for (int unsigned p = 0; p < nt_pkg::ReroutePaths; p++) begin
        if (scan_clr[p]) busy_q[p] <= 1'b0;
      end
      scan_q <= (scan_q + 1'b1) & pmask[reroute_pkg::PathW-1:0];
      if (d_ctrl) begin
        cnt_q[CCin] <= cnt_q[CCin] + 1;
        if (!c_is_ctrl) begin
          cnt_q[CBad] <= cnt_q[CBad] + 1;
        end else if (c_op == CwNotify) begin
          if (!c_notify_ok) begin
            cnt_q[CBad] <= cnt_q[CBad] + 1;
          end else begin
            busy_q[cm.path_id[reroute_pkg::PathW-1:0]] <= 1'b1;
            busy_ts_q[cm.path_id[reroute_pkg::PathW-1:0]] <= now;
            cnt_q[CNot] <= cnt_q[CNot] + 1;
          end
        end else if (c_op == CwRttReply) begin
          if (c_reply_ok) begin
            cnt_q[CRep] <= cnt_q[CRep] + 1;
          end else begin
            cnt_q[CStRep] <= cnt_q[CStRep] + 1;
          end
        end else begin
          if (c_clear_ok) begin
            cnt_q[CClr] <= cnt_q[CClr] + 1;
          end else begin
            cnt_q[CStClr] <= cnt_q[CStClr] + 1;
          end
        end
      end else if (d_data) begin
        cnt_q[CIn] <= cnt_q[CIn] + 1;
        if (!hm.ok) begin
          cnt_q[CMal] <= cnt_q[CMal] + 1;
        end else begin
          cnt_q[COut] <= cnt_q[COut] + 1;
          if (h_new && e_valid) cnt_q[CEvi] <= cnt_q[CEvi] + 1;
          if (h_mine && el_idle && (fl_e.rr || fl_e.rw)) cnt_q[CIdl] <= cnt_q[CIdl] + 1;
          if (h_fallback) cnt_q[CEcmp] <= cnt_q[CEcmp] + 1;
          if (blocked) cnt_q[CBlk] <= cnt_q[CBlk] + 1;
          if (try_rr && !take) cnt_q[CNoP] <= cnt_q[CNoP] + 1;
          if (take) cnt_q[CRer] <= cnt_q[CRer] + 1;
          if (new_req) cnt_q[CReq] <= cnt_q[CReq] + 1;
          if (!h_fallback) fl_valid_q[idx_q] <= 1'b1;
        end
      end
    end
  end

  // ---- the flow-table RAM: its write (D) and its prefetched read ----
  always_comb begin
    fl_we = 1'b0;
    fl_waddr = idx_q;
    fl_wdata = fl_e;
    if (d_ctrl) begin
      // RTT_REPLY clears req_wait, CLEAR clears rerouted: the entry read, one field changed
      if (c_is_ctrl && c_op == CwRttReply && c_reply_ok) begin
        fl_we = 1'b1;
        fl_wdata.rw = 1'b0;
      end else if (c_is_ctrl && c_op == CwClear && c_clear_ok) begin
        fl_we = 1'b1;
        fl_wdata.rr = 1'b0;
      end
    end else begin
      fl_we = d_data && hm.ok && !h_fallback;
      // A host frame's entry, written when fl_we (a word not written is read by nothing: the RAM and the
      // bypass register take it only with fl_we), so the fields do not wait for fl_we's condition.
      // A new entry (!h_mine here): path ECMP, epoch 0, flags and stamps 0 but req_ts (new_req) and last.
      fl_wdata.key = key_q;
      fl_wdata.path = e_valid ? fl_path_v : ecmp;
      fl_wdata.epoch = e_valid ? fl_epoch_v : 2'd0;
      fl_wdata.rr = h_mine && (take_v || st_rr);
      fl_wdata.rw = !take;
      fl_wdata.tail_ts = o_tail_tx;
      fl_wdata.req_ts = e_valid ? fl_req_ts_v : now;
      fl_wdata.last = now;
    end
  end
  assign fl_e = fl_byp ? fl_byp_data_q : fl_rdata_q;

  // The prefetch: K's and A's state after this edge, as the always_ff below computes it, restricted to what
  // the next decision reads (the first two beats of the control packet or of the frame in bank wsel_q, and
  // the control length). A decision needs it only when the state then is complete: a control packet is
  // decided in the one cycle after its last beat (cx_full_q), a host frame while rx_full_q, when A writes
  // no beat and wsel_q does not change.
  logic [6:0]  s_n, r_n;
  logic [5:0]  a_room;
  logic        a_over, a_wr, pf_cx_full, pf_h_v6, pf_c_v6, a_hd, pf_hs0, pf_hs1, pf_ks0, pf_ks1;
  logic [15:0] pf_c_hash, pf_h_hash;
  logic [nt_pkg::StreamBits-1:0]   pf_c0, pf_c1, pf_h0, pf_h1;
  logic [reroute_pkg::WinBits-1:0] pf_cwin, pf_hwin;
  logic [reroute_pkg::KeyBits-1:0] pf_c_key, pf_h_key;
  logic [15:0] hb4, hb6, hb6b, cb4, cb6, cb6b;  // the hashes' parts (reroute_pkg::hash_b0, hash_b1_lin)
  // Bytes of a beat: keep is contiguous from byte 0 (asserted on every input port), so the count of a
  // thermometer code (three LUT levels), not a population count.
  assign s_n = nt_pkg::keep_count(s_keep_i);
  assign r_n = nt_pkg::keep_count(r_keep_i);
  // A's beat would make the frame longer than RerouteMaxBytes: rx_len_q + s_n > Max. rx_len_q <= Max always
  // (it grows only while the sum fits; reroute_top_sva rx_len_bound), so the room Max - rx_len_q is < 64 only
  // when rx_len_q > Max - 64, and then s_n exceeds it exactly when keep has that room's byte (contiguous
  // keep): a 64:1 bit select instead of a byte count, a 16-bit sum and a compare (issue 27 depth).
  // (Max - rx_len_q) mod 64 = (Max + 1) + ~rx_len_q[5:0] mod 64, by add8's prefix carries (no carry chain)
  assign a_room = 6'(reroute_pkg::add8(8'(6'(nt_pkg::RerouteMaxBytes + 1)), {2'b00, ~rx_len_q[5:0]}));
  assign a_over = reroute_pkg::ge16(rx_len_q, 16'(nt_pkg::RerouteMaxBytes - nt_pkg::StreamBytes + 1)) && s_keep_i[a_room];
  assign a_wr = s_valid_i && !rx_full_q && !a_over;
  // K keeps a beat while its length is below RerouteCtrlBytes (ge16: a LUT tree, not a carry chain)
  // Which of K's two beats r's beat would fill, as two flags registered beside cx_len_q (k_lo_q: cx_len_q < 64,
  // k_hi_q: 64 <= cx_len_q < 128; reroute_top_sva k_slots), so the prefetch's beat choice reads no 16-bit
  // compare (issue 27 item 2). Their next values need no sum: from cx_len_q < 128 a beat of n bytes (contiguous
  // keep) reaches the next 64-byte boundary, 64 - cx_len_q[5:0] bytes away, exactly when keep has that byte,
  // byte 63 - cx_len_q[5:0] (as A's a_over).
  logic k_lo_q, k_hi_q, k_cross;
  assign k_cross = r_keep_i[~cx_len_q[5:0]];
  // A writes beat 0 or 1 (the beats the key comes from) exactly when s takes a beat then: a_over needs
  // rx_len_q > RerouteMaxBytes - 64 (a_wr's length check, shortened out of this path)
  assign a_hd = s_valid_i && !rx_full_q;
  always_comb begin
    pf_hs0 = a_hd && rx_len_q[12:6] == 7'd0;  // s's beat is the frame's beat 0 / 1
    pf_hs1 = a_hd && rx_len_q[12:6] == 7'd1;
    pf_h0 = pf_hs0 ? s_data_i : hd_q[wsel_q][0];
    pf_h1 = pf_hs1 ? s_data_i : hd_q[wsel_q][1];
    pf_hwin = {pf_h1, pf_h0};
    // parse_host's family: s's beat 0 read live, else the bank's registered flag
    pf_h_v6 = pf_hs0 ? reorder_pkg::wb16({{nt_pkg::StreamBits{1'b0}}, s_data_i}, 12) == 16'h86dd : hv6_q[wsel_q];
    // each family's key at its constant offsets, then the family chooses (key_of at a family-dependent
    // offset was a shifter behind an offset sum; issue 27 item 2)
    pf_h_key = pf_h_v6 ? reroute_pkg::key_of(pf_hwin, 1'b1, 62, 1'b0) : reroute_pkg::key_of(pf_hwin, 1'b0, 42, 1'b0);
    // flow_hash(pf_h_key), each part hashed from every beat it may come from, then chosen (reroute_pkg
    // hash_b0: a function of a choice is the choice of the function's values); a bank's parts are registered
    // as its beats are written (hb4_q, hb6_q, hb6b_q), so only s's live beat is hashed here (issue 27 item 2)
    hb4 = pf_hs0 ? reroute_pkg::hash_b0(s_data_i, 1'b0, 1'b0) : hb4_q[wsel_q];
    hb6 = pf_hs0 ? reroute_pkg::hash_b0(s_data_i, 1'b1, 1'b0) : hb6_q[wsel_q];
    hb6b = pf_hs1 ? reroute_pkg::hash_b1_lin(s_data_i, 1'b0) : hb6b_q[wsel_q];
    pf_h_hash = pf_h_v6 ? hb6 ^ hb6b : hb4;
    // d_ctrl (= cx_full_q) empties K; otherwise K takes r's beat when valid
    pf_ks0 = r_valid_i && !cx_full_q && k_lo_q;
    pf_ks1 = r_valid_i && !cx_full_q && k_hi_q;
    pf_c0 = d_ctrl ? '0 : pf_ks0 ? r_data_i : cx_q[0];
    pf_c1 = d_ctrl ? '0 : pf_ks1 ? r_data_i : cx_q[1];
    pf_cx_full = !d_ctrl && r_valid_i && r_last_i;
    pf_cwin = {pf_c1, pf_c0};
    // The key as parse_cw places it: the D stage uses it only for a control packet (c_is_ctrl needs
    // cm.cw_off != 0), whose BTH is at cw_off - 12 = 42 (IPv4) or 62 (IPv6), parse_cw's family by the
    // EtherType alone; so neither the control length nor the rest of the parse is on this path
    // (cw_pre's et6: c_et6_q is it of cx_q; a cleared window's is 0)
    pf_c_v6 = d_ctrl ? 1'b0 :
              pf_ks0 ? reorder_pkg::wb16({{nt_pkg::StreamBits{1'b0}}, r_data_i}, 12) == 16'h86dd : c_et6_q;
    pf_c_pre = reorder_pkg::cw_pre(pf_cwin);  // D's parse of the next K window: its first-beat part
    pf_c_key = pf_c_v6 ? reroute_pkg::key_of(pf_cwin, 1'b1, 62, 1'b1) : reroute_pkg::key_of(pf_cwin, 1'b0, 42, 1'b1);
    cb4 = d_ctrl ? reroute_pkg::hash_b0('0, 1'b0, 1'b1) :
          pf_ks0 ? reroute_pkg::hash_b0(r_data_i, 1'b0, 1'b1) : cb4_q;
    cb6 = d_ctrl ? reroute_pkg::hash_b0('0, 1'b1, 1'b1) :
          pf_ks0 ? reroute_pkg::hash_b0(r_data_i, 1'b1, 1'b1) : cb6_q;
    cb6b = d_ctrl ? 16'd0 : pf_ks1 ? reroute_pkg::hash_b1_lin(r_data_i, 1'b1) : cb6b_q;
    pf_c_hash = pf_c_v6 ? cb6 ^ cb6b : cb4;
    fl_raddr = (pf_cx_full ? pf_c_hash[reroute_pkg::FlowW-1:0] : pf_h_hash[reroute_pkg::FlowW-1:0]) &
               cfg_flows_mask_i[reroute_pkg::FlowW-1:0];
  end

  // The bypass's two conditions are registered apart (the write's, from D's decision, and the address
  // compare, from the prefetch) so that neither chain ends in the other; fl_byp is their AND.
  always_ff @(posedge clk_i) begin
    if (fl_we) fl_mem_q[fl_waddr] <= fl_wdata;
    fl_rdata_q <= fl_mem_q[fl_raddr];
    byp_we_q <= fl_we;
    // fl_waddr == fl_raddr with fl_waddr = idx_q: compared with both hashes, then fl_raddr's choice (so the
    // choice is not in series before the compare; issue 27 item 2)
    byp_eq_q <= pf_cx_full ? idx_q == (pf_c_hash[reroute_pkg::FlowW-1:0] & cfg_flows_mask_i[reroute_pkg::FlowW-1:0]) :
                             idx_q == (pf_h_hash[reroute_pkg::FlowW-1:0] & cfg_flows_mask_i[reroute_pkg::FlowW-1:0]);
    fl_byp_data_q <= fl_wdata;
    key_q <= pf_cx_full ? pf_c_key : pf_h_key;
    hash_q <= pf_cx_full ? pf_c_hash : pf_h_hash;
    idx_q <= fl_raddr;
  end

  // ---- A, K, O ----
  // the fabric frame is rx_len_q + 4 bytes: its last beat (len - 1) / 64 and that beat's bytes
  // ((len - 1) mod 64) + 1, from one sum (len - 1 = rx_len_q + 3 < 2^16)
  logic [15:0] out_m1, ob_csum_d;
  logic [8:0]  cx_len_sum;
  // K's length + r's bytes, with the carry out (the saturation) by the prefix carries: no carry chain
  logic [8:0]  cx_len_c;  // the carries into bits 0..8
  assign cx_len_c = 9'(reroute_pkg::carries16({8'd0, cx_len_q}, {9'd0, r_n}, 1'b0));
  assign cx_len_sum = {cx_len_c[8], cx_len_q ^ {1'b0, r_n} ^ cx_len_c[7:0]};
  // A's length + s's bytes the same way (a carry chain after the keep count; issue 27 item 2)
  logic [16:0] rx_len_c;
  assign rx_len_c = reroute_pkg::carries16(rx_len_q, {9'd0, s_n}, 1'b0);
  logic [reroute_pkg::BeatW-1:0] ob_lastb_d;
  logic [6:0]  ob_lastn_d;
  assign out_m1 = rx_len_q + 16'd3;
  assign ob_lastb_d = reroute_pkg::BeatW'(out_m1 >> 6);
  assign ob_lastn_d = {1'b0, out_m1[5:0]} + 7'd1;
  // the seed format's IPv4 checksum for the length grown by the CW header; registered only when hm.ok, when
  // hm.ip_len is the family's length field: each family's from its constant offset, then the family chooses
  // (not the adders behind parse_host's choice; issue 27 item 2)
  // (csum_grow4: csum_len_adjust's value by prefix carries; its carry chains were the module's deepest path,
  // hd_q -> ob_csum_q, 13 levels with 6 CARRY4, session 23)
  logic [15:0] ob_len4, ob_len6;  // the family's length field (IPv4 total length, IPv6 payload length)
  assign ob_len4 = reorder_pkg::wb16(hwin, 16);
  assign ob_len6 = reorder_pkg::wb16(hwin, 18);
  assign ob_csum_d = hm.v6 ? reroute_pkg::csum_grow4(hm.csum, ob_len6[15:2]) :
                             reroute_pkg::csum_grow4(hm.csum, ob_len4[15:2]);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wsel_q <= 1'b0;
      rx_len_q <= 16'd0;
      rx_full_q <= 1'b0;
      rx_long_q <= 1'b0;
      cx_q[0] <= '0;
      cx_q[1] <= '0;
      cb4_q <= reroute_pkg::hash_b0('0, 1'b0, 1'b1);  // the parts of the all-zero window
      cb6_q <= reroute_pkg::hash_b0('0, 1'b1, 1'b1);
      cb6b_q <= 16'd0;
      cx_len_q <= 8'd0;
      cx_full_q <= 1'b0;
      k_lo_q <= 1'b1;
      k_hi_q <= 1'b0;
      // the parts of all-zero header beats (hd_q has no reset; in simulation it starts at 0: SVA hash_parts)
      hb4_q <= {2{reroute_pkg::hash_b0('0, 1'b0, 1'b0)}};
      hb6_q <= {2{reroute_pkg::hash_b0('0, 1'b1, 1'b0)}};
      hb6b_q <= '0;
      hv6_q <= '0;
      c_et6_q <= 1'b0;  // cw_pre of the all-zero window cx_q resets to
      c_hdr_ok_q <= 1'b0;
      c_port_ok_q <= 1'b0;
      ob_valid_q <= 1'b0;
      ob_bank_q <= 1'b0;
      ob_idx_q <= '0;
      ob_lastb_q <= '0;
      ob_lastn_q <= '0;
      ob_v6_q <= 1'b0;
      ob_path_q <= 8'd0;
      ob_b8_q <= 8'd0;
      ob_ip_len_q <= 16'd0;
      ob_csum_q <= 16'd0;
      ob_udp_len_q <= 16'd0;
      ob_tx_q <= 16'd0;
      ob_tail_tx_q <= 16'd0;
    end else begin
      c_et6_q <= pf_c_pre.et6;
      c_hdr_ok_q <= pf_c_pre.hdr_ok;
      c_port_ok_q <= pf_c_pre.port_ok;
      // D
      if (d_ctrl) begin
        cx_full_q <= 1'b0;
        cx_len_q <= 8'd0;
        k_lo_q <= 1'b1;
        k_hi_q <= 1'b0;
        cx_q[0] <= '0;
        cx_q[1] <= '0;
        cb4_q <= reroute_pkg::hash_b0('0, 1'b0, 1'b1);
        cb6_q <= reroute_pkg::hash_b0('0, 1'b1, 1'b1);
        cb6b_q <= 16'd0;
      end else if (d_data) begin
        if (hm.ok) begin
          ob_valid_q <= 1'b1;
          ob_bank_q <= wsel_q;
          wsel_q <= !wsel_q;
          ob_idx_q <= '0;
          ob_lastb_q <= ob_lastb_d;
          ob_lastn_q <= ob_lastn_d;
          ob_v6_q <= hm.v6;
          ob_path_q <= o_path;
          if (cfg_p4_format_i) begin
            // conweave-p4: DATA | phase = REROUTED | epoch - phase | ask_reply = RTT_REQUEST or TAIL | tail;
            // the lengths and the IPv4 checksum stay the NIC's (model: EncodeByte8)
            ob_b8_q <= {hm.b8[7], 2'd1, o_rr, o_epoch - {1'b0, o_rr}, new_req || take, take};
            ob_ip_len_q <= hm.ip_len;
            ob_csum_q <= hm.csum;
            ob_udp_len_q <= hm.udp_len;
          end else begin
            ob_b8_q <= (hm.b8 & 8'h80) | {1'b0, o_op, o_epoch, o_rr, take};
            ob_ip_len_q <= hm.ip_len + 16'd4;
            ob_csum_q <= ob_csum_d;
            ob_udp_len_q <= hm.udp_len + 16'd4;
          end
          ob_tx_q <= now;
          ob_tail_tx_q <= o_tail_tx;
        end
        rx_full_q <= 1'b0;
        rx_long_q <= 1'b0;
        rx_len_q <= 16'd0;
      end
      // O
      if (ob_valid_q && m_ready_i) begin
        if (ob_idx_q == ob_lastb_q) begin
          ob_valid_q <= 1'b0;
          ob_idx_q <= '0;
        end else begin
          ob_idx_q <= ob_idx_q + 1'b1;
        end
      end
      // the bank's hash parts and family, written with its header registers hd_q (a_wr, the same decode)
      for (int unsigned b = 0; b < 2; b++) begin
        if (a_wr && rx_len_q[12:6] == 7'd0 && wsel_q == 1'(b)) begin
          hb4_q[b] <= reroute_pkg::hash_b0(s_data_i, 1'b0, 1'b0);
          hb6_q[b] <= reroute_pkg::hash_b0(s_data_i, 1'b1, 1'b0);
          hv6_q[b] <= reorder_pkg::wb16({{nt_pkg::StreamBits{1'b0}}, s_data_i}, 12) == 16'h86dd;
        end
        if (a_wr && rx_len_q[12:6] == 7'd1 && wsel_q == 1'(b)) hb6b_q[b] <= reroute_pkg::hash_b1_lin(s_data_i, 1'b0);
      end
      // A
      if (s_valid_i && !rx_full_q) begin
        if (a_over) begin
          rx_long_q <= 1'b1;
        end else begin
          rx_len_q <= rx_len_q ^ {9'd0, s_n} ^ rx_len_c[15:0];  // rx_len_q + s_n (prefix carries, no chain)
        end
        if (s_last_i) rx_full_q <= 1'b1;
      end
      // K
      if (r_valid_i && !cx_full_q) begin
        if (k_lo_q) begin
          cx_q[0] <= r_data_i;
          cb4_q <= reroute_pkg::hash_b0(r_data_i, 1'b0, 1'b1);
          cb6_q <= reroute_pkg::hash_b0(r_data_i, 1'b1, 1'b1);
        end
        if (k_hi_q) begin
          cx_q[1] <= r_data_i;
          cb6b_q <= reroute_pkg::hash_b1_lin(r_data_i, 1'b1);
        end
        if (k_lo_q) begin
          k_lo_q <= !k_cross;
          k_hi_q <= k_cross;
        end else if (k_hi_q) begin
          k_hi_q <= !k_cross;
        end
        cx_len_q <= cx_len_sum[8] ? 8'hff : cx_len_sum[7:0];  // saturating
        if (r_last_i) cx_full_q <= 1'b1;
      end
    end
  end

  // ---- the frame banks: A's write, O's prefetched read ----
  // O's bank and beat after this edge (as the always_ff above updates ob_bank_q / ob_idx_q)
  always_comb begin
    ob_bank_d = ob_bank_q;
    ob_idx_d = ob_idx_q;
    if (d_data && hm.ok) begin
      ob_bank_d = wsel_q;
      ob_idx_d = '0;
    end else if (ob_valid_q && m_ready_i) begin
      ob_idx_d = ob_idx_q == ob_lastb_q ? '0 : ob_idx_q + 1'b1;
    end
  end
  logic [nt_pkg::StreamBits-1:0] cur, prev, beat;
  always_ff @(posedge clk_i) begin
    if (a_wr) begin
      bank_mem_q[{wsel_q, rx_len_q[12:6]}] <= s_data_i;
      // each of the four header registers by a constant-index decode (a write at variable indices of the
      // packed array was a 2048-bit shifter behind a 33-bit offset sum: 27 levels; issue 27 item 2)
      for (int unsigned b = 0; b < 2; b++) begin
        for (int unsigned w = 0; w < 2; w++) begin
          if (rx_len_q[12:7] == 6'd0 && wsel_q == 1'(b) && rx_len_q[6] == 1'(w)) hd_q[b][w] <= s_data_i;
        end
      end
    end
    // A never writes the bank O reads (D hands a bank to O only when O is idle and A moves to the other one;
    // reroute_top_sva bank_apart), so the read needs no bypass
    ob_rd_q <= bank_mem_q[{ob_bank_d, ob_idx_d[6:0]}];
    // beat ob_idx - 1 of the bank: the beat O sent last
    if (ob_valid_q && m_ready_i) ob_prev_q <= cur;
  end

  // ---- O: beat ob_idx of the fabric frame ----
  // Byte p = 64 ob_idx + j of the fabric frame. Every inserted or patched byte (the CW header at cw..cw+3,
  // cw = 54 or 74, and the fields before it) lies in beats 0 and 1, so each byte is chosen for the four
  // cases (beat 0 or 1, IPv4 or IPv6) from positions known at elaboration, and in beats 2 on it is the
  // shifted payload: a 3-way choice by the beat and the family, not a 16-bit position compare per byte.
  logic [3:0][7:0] ob_cand;
  logic [7:0]  ob_rest;
  logic        ob_lastbeat, ob_b0, ob_b1;
  always_comb begin
    int unsigned p, bth, cw;
    logic v6c;
    cur = ob_idx_q < reroute_pkg::BeatW'(reroute_pkg::InBeats) ? ob_rd_q : '0;
    prev = ob_idx_q != '0 ? ob_prev_q : '0;
    ob_b0 = ob_idx_q == '0;
    ob_b1 = ob_idx_q == reroute_pkg::BeatW'(1);
    ob_lastbeat = ob_idx_q == ob_lastb_q;
    beat = '0;
    for (int unsigned j = 0; j < nt_pkg::StreamBytes; j++) begin
      ob_rest = j >= 4 ? cur[8*(j-4)+:8] : prev[8*(j+60)+:8];
      for (int unsigned c = 0; c < 4; c++) begin
        p = (c >> 1) * nt_pkg::StreamBytes + j;
        v6c = (c & 1) != 0;
        bth = v6c ? 62 : 42;
        cw = bth + 12;
        if (p < cw) ob_cand[c] = cur[8*j+:8];
        else if (p == cw) ob_cand[c] = ob_tx_q[15:8];
        else if (p == cw + 1) ob_cand[c] = ob_tx_q[7:0];
        else if (p == cw + 2) ob_cand[c] = ob_tail_tx_q[15:8];
        else if (p == cw + 3) ob_cand[c] = ob_tail_tx_q[7:0];
        else ob_cand[c] = ob_rest;
        // Patched fields (all before the CW header)
        if (p == (v6c ? 18 : 16)) ob_cand[c] = ob_ip_len_q[15:8];
        if (p == (v6c ? 19 : 17)) ob_cand[c] = ob_ip_len_q[7:0];
        if (!v6c && p == 24) ob_cand[c] = ob_csum_q[15:8];
        if (!v6c && p == 25) ob_cand[c] = ob_csum_q[7:0];
        if (p == bth - 4) ob_cand[c] = ob_udp_len_q[15:8];
        if (p == bth - 3) ob_cand[c] = ob_udp_len_q[7:0];
        if (p == bth + 4) ob_cand[c] = ob_path_q;
        if (p == bth + 8) ob_cand[c] = ob_b8_q;
      end
      beat[8*j+:8] = ob_b0 ? ob_cand[{1'b0, ob_v6_q}] : ob_b1 ? ob_cand[{1'b1, ob_v6_q}] : ob_rest;
      if (ob_lastbeat && j >= 32'(ob_lastn_q)) beat[8*j+:8] = 8'd0;
    end
  end

  assign s_ready_o = !rx_full_q;
  assign r_ready_o = !cx_full_q;
`ifdef NT_MUTATE_REROUTE  // a planted protocol bug (docs/assertions.md)
  nt_mutant_valid_drop u_mutant (
    .clk_i, .rst_ni, .valid_i(ob_valid_q), .ready_i(m_ready_i), .valid_o(m_valid_o));
`else
  assign m_valid_o = ob_valid_q;
`endif
  assign m_data_o = ob_valid_q ? beat : '0;
  // the last beat's keep: byte j present when j < ob_lastn_q (1..64), a compare with a constant per byte
  always_comb begin
    for (int unsigned j = 0; j < nt_pkg::StreamBytes; j++) begin
      m_keep_o[j] = ob_valid_q && (!ob_lastbeat || 7'(j) < ob_lastn_q);
    end
  end
  assign m_last_o = ob_valid_q && ob_idx_q == ob_lastb_q;
  assign m_path_o = ob_valid_q ? ob_path_q : 8'd0;
  assign idle_o = !rx_full_q && rx_len_q == 16'd0 && !cx_full_q && cx_len_q == 8'd0 && !ob_valid_q;

  // The parse result's fields a control decision does not need, and the high hash / mask bits beyond the
  // table's index.
  logic unused;
  assign unused = ^{cfg_flows_mask_i[15:reroute_pkg::FlowW], hash_q[15:14], cm, rx_len_c[16], pf_c_pre,
                    ob_len4[1:0], ob_len6[1:0]};

  assign cnt_in_o = cnt_q[CIn];
  assign cnt_out_o = cnt_q[COut];
  assign cnt_drop_malformed_o = cnt_q[CMal];
  assign cnt_rtt_requests_o = cnt_q[CReq];
  assign cnt_reroutes_o = cnt_q[CRer];
  assign cnt_reroute_blocked_clear_o = cnt_q[CBlk];
  assign cnt_reroute_no_path_o = cnt_q[CNoP];
  assign cnt_fallback_ecmp_o = cnt_q[CEcmp];
  assign cnt_evictions_o = cnt_q[CEvi];
  assign cnt_idle_resets_o = cnt_q[CIdl];
  assign cnt_ctrl_in_o = cnt_q[CCin];
  assign cnt_rtt_replies_o = cnt_q[CRep];
  assign cnt_stale_replies_o = cnt_q[CStRep];
  assign cnt_notifies_o = cnt_q[CNot];
  assign cnt_clears_o = cnt_q[CClr];
  assign cnt_stale_clears_o = cnt_q[CStClr];
  assign cnt_bad_control_o = cnt_q[CBad];
endmodule
