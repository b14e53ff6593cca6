// Decide stage: one frame per cycle, in two stages (issue 27 item 2): the lookup stage (L) takes the FIFO's
// head and registers, per context, whether its key matches and whether the frame's time expires it; the
// decision stage (D) decides the frame L registered the cycle before. A context D opens in the cycle L takes
// its next frame is compared with that frame through a bypass (D's key and time), so L's vectors are always
// those of the contexts D sees (re_decide_sva.sv checks it every cycle). Before a frame is placed, every context its time expires is freed:
// the completed ones all at once in the cycle that places it, the incomplete ones one per cycle before
// it, oldest (first arrival, key) first, each reported on the report port. Then
// the frame's key is looked up among the contexts, the drop checks of docs/re.md run against the
// context's range table, and the context is opened or updated. The write stage gets the frame's beats to
// write or to skip. At the end of input (flush) every open event is reported, oldest first.
`include "nt_ports.svh"
module re_decide
(
  `NT_CLK_RST,
  input  logic [7:0]          cfg_contexts_i,
  input  logic [63:0]         cfg_timeout_ns_i,
  input  logic                flush_i,
  input  logic                frame_idle_i,
  input  logic                desc_valid_i,
  input  re_pkg::desc_t               desc_i,
  output logic                desc_pop_o,
  input  logic                job_ready_i,
  output logic                job_valid_o,
  output re_pkg::job_t                job_o,
  // the output stage: which context it reads, and when it is done with it
  input  logic [re_pkg::CtxW-1:0]     ev_ctx_i,
  output re_pkg::event_t              ev_o,
  input  logic                ev_done_i,
  input  logic [re_pkg::CtxW-1:0]     ev_done_ctx_i,
  `NT_RE_REPORT_OUT(rep),
  output logic                busy_o,
  output logic [31:0]         cnt_used_o,
  output logic [31:0]         cnt_completed_o,
  output logic [31:0]         cnt_timed_out_o,
  output logic [nt_pkg::ReDropReasons*32-1:0] cnt_drops_o
);
  localparam int unsigned N = nt_pkg::ReContexts;
  localparam int unsigned R = nt_pkg::ReRanges;

  logic [N-1:0]         valid_q, done_q, outp_q, endk_q;
  logic [N-1:0][re_pkg::KeyW-1:0] key_q;
  logic [N-1:0][47:0]   mdst_q, msrc_q;
  logic [N-1:0][63:0]   first_q;
  logic [N-1:0][31:0]   segs_q;
  logic [N-1:0][re_pkg::OffW-1:0] recv_q, len_q, maxe_q;
  logic [N-1:0][R-1:0]  rv_q;
  logic [N-1:0][R-1:0][re_pkg::OffW-1:0] rb_q, re_q;
  logic                 flush_q;
  logic                 rep_valid_q, rep_end_known_q, rep_at_end_q;
  logic [re_pkg::KeyW-1:0]      rep_key_q;
  logic [31:0]          rep_recv_q, rep_segs_q, rep_len_q;
  logic [31:0]          used_cnt_q, completed_q, timed_out_q;
  logic [nt_pkg::ReDropReasons-1:0][31:0] drops_q;
  // the lookup stage: the frame D decides next, its key match and expiry per context
  logic                 l_valid_q;
  re_pkg::desc_t        l_q;
  logic [N-1:0]         l_hit_q, l_exp_q;
  logic [re_pkg::OffW-1:0] l_se_q;  // the frame's end, offset + len (issue 27 item 2: the adder before D)

  // ---- which contexts to free: every expired completed one at once (nothing to report), the oldest
  // expired incomplete one (reported; one per cycle) ----
  logic          flush_mode;
  logic [N-1:0]  expired, cand;
  logic          any_cand;
  // The order the oldest is chosen in, smallest (first arrival, key) first, kept as a precedence matrix:
  // prec_q[i][j] = context i precedes context j. Row and column c are written when context c opens, from
  // the lookup stage's registered compares of the frame against every context (l_prec_q); keys of valid
  // contexts differ, so the order is strict. The oldest candidate is the one no other candidate precedes: an
  // AND over 63 bits per context instead of a 64-step chain of 64- and 80-bit compares (issue 27 item 2;
  // re_decide_sva's oldest_matches checks the choice against that chain every cycle).
  logic [N-1:0][N-1:0] prec_q;
  logic [N-1:0]  old_oh;
  always_comb begin
    flush_mode = flush_q && !l_valid_q && !desc_valid_i && frame_idle_i;
    for (int i = 0; i < N; i++) begin
      expired[i] = valid_q[i] && l_exp_q[i];
      cand[i] = flush_mode ? (valid_q[i] && !done_q[i]) : (expired[i] && !done_q[i]);
    end
    any_cand = |cand;
    for (int i = 0; i < N; i++) begin
      old_oh[i] = cand[i] && &(~cand | prec_q[i] | (N'(1) << i));
    end
  end

  // An expired context whose event is still being sent keeps its buffer until the output stage is done
  // with it: the decide stage waits rather than place the frame with a different set of contexts than
  // docs/re.md's order of events gives (only under long output backpressure).
  logic act, blocked, expire, place, flush_rep, flush_done;
  assign blocked    = flush_mode ? (!any_cand && |(valid_q & outp_q)) : |(expired & outp_q);
  assign act        = !flush_mode && l_valid_q && job_ready_i && !blocked;
  assign expire     = act && any_cand;
  // place = act && !any_cand, in the form D has when L holds a frame (act needs l_valid_q, flush mode
  // !l_valid_q): the flush inputs (flush_q, desc_valid_i, frame_idle_i) and the flush-mode candidates are then
  // no part of it, nor of L's `l_load` / `desc_pop_o` (issue 27 item 2, session 24: the ingress's frame_idle_o
  // reached its own descriptor counters through them). re_decide_sva's place_run checks it every cycle.
  assign place      = l_valid_q && job_ready_i && !(|(expired & outp_q)) && !(|(expired & ~done_q));
  assign flush_rep  = flush_mode && any_cand;
  assign flush_done = flush_mode && !any_cand && !blocked;

  // ---- lookup and checks ----
  logic [re_pkg::KeyW-1:0] key;
  logic [re_pkg::OffW-1:0] off, seg_end, ev_end, len;
  logic [N-1:0]    hit;
  logic            found;
  logic [re_pkg::CtxW-1:0] h, slot;
  logic [N-1:0]    cfg_mask, cfg_mask_q;  // the contexts below cfg_contexts_i
  logic            cfg_fits, cfg_fits_q;  // cfg_contexts_i <= N
  logic            no_ctx;
  // The contexts as an accepted frame meets them (expired completed ones gone). Only read when D acts (the
  // frame is placed, or the check's result is unused: job_o is read by the event buffer only with
  // job_valid_o), where it is `valid_q & ~(expired & done_q)` (not in flush mode); computing it without `act` keeps the output stage's
  // backpressure (`outp_q` -> `blocked` -> `act`) out of the hit / slot / code chain (issue 27 item 2).
  logic [N-1:0]    valid_x, free_v, free_below, free_oh, slot_oh;
  always_comb begin
    key = {l_q.event_num, l_q.data_id};
    // Past the header checks offset + len and the declared end are <= buffer_bytes <= ReBufBytes, so all fit
    // in OffW bits.
    off = re_pkg::OffW'(l_q.offset);
    len = re_pkg::OffW'(l_q.len);
    seg_end = l_se_q;  // off + len, registered in L (re_decide_sva's lookup_seg_end)
    ev_end = re_pkg::OffW'(l_q.ev_end);
    valid_x = valid_q & ~(l_exp_q & done_q);
    hit = valid_x & l_hit_q;
    found = |hit;
    // at most one hit (re_decide_sva's hit_onehot0): its index by an OR of the indices
    h = '0;
    for (int i = 0; i < N; i++) h = h | (hit[i] ? re_pkg::CtxW'(i) : '0);
    // the lowest free context by a prefix OR (log depth; a walk over 64 contexts was 40 levels of muxes)
    free_v = ~valid_x;
    free_below = free_v << 1;
    for (int s = 1; s < N; s = s * 2) free_below = free_below | (free_below << s);
    free_oh = free_v & ~free_below;
    // no free context: context 0, as the walk gave (only reachable with cfg_contexts_i > N, where the frame is
    // then accepted into context 0 as before)
    slot_oh = found ? hit : (|free_v ? free_oh : N'(1));
    slot = '0;
    for (int i = 0; i < N; i++) slot = slot | (slot_oh[i] ? re_pkg::CtxW'(i) : '0);
    // No context for a new key: the number in use (valid_x) >= cfg_contexts_i, without counting (issue 27 item
    // 2, session 24: the adder tree and the compare were in series with the verdict). A context opens at the
    // lowest free one and only while fewer than cfg_contexts_i are in use, so with the configuration static (as
    // every binding drives it) every valid context is below cfg_contexts_i, and the count reaches
    // cfg_contexts_i exactly when all of 0 .. cfg_contexts_i - 1 are in use; above N it never does.
    // re_decide_sva's no_ctx_count checks it against the count every cycle. The mask of the contexts below
    // cfg_contexts_i is registered (the configuration is static; the shift from the port was 8 levels in front
    // of the verdict), re_decide_sva's cfg_mask_current checks it every cycle L holds a frame.
    no_ctx = cfg_fits_q && &(valid_x | ~cfg_mask_q);
  end

  // The hit context's entries as L registered them (the AND-OR over the key matches moved to L, issue 27 item 2,
  // session 24; re_decide_sva's lookup_row checks them against the tables every cycle D has a hit).
  logic [R-1:0]                    rv_h;
  logic [R-1:0][re_pkg::OffW-1:0]  rb_h, re_h;
  logic                            done_h, endk_h;
  logic [re_pkg::OffW-1:0]         recv_h, len_h, maxe_h;
  logic [31:0]                     segs_h;
  localparam int unsigned HitW = R + 2 * R * re_pkg::OffW + 2 + 3 * re_pkg::OffW + 32;
  logic [HitW-1:0] l_row_q;
  assign {rv_h, rb_h, re_h, done_h, endk_h, recv_h, len_h, maxe_h, segs_h} = l_row_q;

  // The checks against the hit context and the context as the accepted frame leaves it: a child module whose
  // inputs are L's registers (and found / no_ctx), so the cut at its ports holds.
  logic [re_pkg::CodeW-1:0] code;
  logic                     code_ok;  // code == 0
  logic [re_pkg::OffW-1:0]  recv_n, len_n, re_wd, maxe_n;
  logic                     endk_n, completes;
  // The verdict and `completes` for both values of `found`, chosen by it here, last (issue 27 item 2, session
  // 25: `found` is four levels behind L's registers and `no_ctx` seven; as inputs of the checks they were in
  // front of three to seven more, to `completes` -> `outp_d` and the verdict -> the drop counters).
  logic [re_pkg::CodeW-1:0] code_f, code_nf;
  logic                     ok_f, ok_nf, comp_f, comp_nf;
  logic [31:0]              segs_n;
  logic [R-1:0]             rv_n, rb_we, re_we;
  re_decide_chk u_chk (
    .code_i      (l_q.code),
    .found_i     (found),
    .last_i      (l_q.last),
    .off_i       (off),
    .len_i       (len),
    .seg_end_i   (seg_end),
    .ev_end_i    (ev_end),
    .rv_i        (rv_h),
    .rb_i        (rb_h),
    .re_i        (re_h),
    .done_i      (done_h),
    .endk_i      (endk_h),
    .recv_i      (recv_h),
    .len_h_i     (len_h),
    .maxe_i      (maxe_h),
    .segs_i      (segs_h),
    .code_f_o    (code_f),
    .ok_f_o      (ok_f),
    .comp_f_o    (comp_f),
    .comp_nf_o   (comp_nf),
    .endk_n_o    (endk_n),
    .recv_n_o    (recv_n),
    .len_n_o     (len_n),
    .maxe_n_o    (maxe_n),
    .segs_n_o    (segs_n),
    .rv_n_o      (rv_n),
    .rb_we_o     (rb_we),
    .re_we_o     (re_we),
    .re_wd_o     (re_wd)
  );

  // a miss: the header checks' code, else no_context when no context is free
  assign code_nf   = (l_q.code != '0) ? l_q.code : (no_ctx ? re_pkg::CodeW'(nt_pkg::ReDropNoContext) : '0);
  assign ok_nf     = l_q.code == '0 && !no_ctx;
  assign code      = found ? code_f : code_nf;
  assign code_ok   = found ? ok_f : ok_nf;
  assign completes = found ? comp_f : comp_nf;
  logic accept;
  assign accept = place && code_ok;
  assign job_valid_o = place && l_q.stored != '0;
  always_comb begin
    job_o = '0;
    job_o.skip      = !code_ok;
    job_o.completes = accept && completes;
    job_o.ctx       = slot;
    job_o.beats     = l_q.stored;
    job_o.offset    = off;
    job_o.len       = l_q.len;
    job_o.data_at   = l_q.data_at;
  end

  logic rep_now;
  assign rep_now = flush_rep || expire;
  // The freed context's entries for its report, by an AND-OR over the one-hot choice.
  logic [re_pkg::KeyW-1:0] key_o;
  logic [re_pkg::OffW-1:0] recv_o, len_o;
  logic [31:0]             segs_o;
  logic                    endk_o;
  localparam int unsigned OldW = re_pkg::KeyW + 2 * re_pkg::OffW + 32 + 1;
  logic [OldW-1:0] old_row;
  always_comb begin
    old_row = '0;
    for (int i = 0; i < N; i++) begin
      old_row = old_row | ({key_q[i], recv_q[i], len_q[i], segs_q[i], endk_q[i]} & {OldW{old_oh[i]}});
    end
  end
  assign {key_o, recv_o, len_o, segs_o, endk_o} = old_row;

  // The next state of the per-context tables, as one-hot write enables (issue 27: each write at a variable
  // context and range, e.g. `rb_q[slot][free_range] <= off` of a [64][16][25] packed array, made Yosys shift a
  // mask across the whole array, and opt_dff never finished). The same updates in the same order.
  logic [N-1:0] freed_oh, evd_oh;
  logic [N-1:0] valid_d, done_d, outp_d, endk_d;
  always_comb begin
    freed_oh = old_oh;  // one-hot whenever it is used (expire or flush_rep: a candidate exists)
    evd_oh   = N'(1) << ev_done_ctx_i;
    valid_d = valid_q;
    if (act) valid_d = valid_x;  // expired completed contexts are freed when D acts
    if (expire || flush_rep) valid_d = valid_d & ~freed_oh;
    if (flush_done) valid_d = '0;
    if (accept && !found) valid_d = valid_d | slot_oh;
    outp_d = ev_done_i ? (outp_q & ~evd_oh) : outp_q;
    done_d = done_q;
    endk_d = endk_q;
    if (accept) begin
      outp_d = completes ? (outp_d | slot_oh) : (outp_d & ~slot_oh);
      done_d = completes ? (done_d | slot_oh) : (done_d & ~slot_oh);
      endk_d = endk_n ? (endk_d | slot_oh) : (endk_d & ~slot_oh);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      valid_q <= '0;
      done_q  <= '0;
      outp_q  <= '0;
      endk_q  <= '0;
      key_q   <= '0;
      mdst_q  <= '0;
      msrc_q  <= '0;
      first_q <= '0;
      segs_q  <= '0;
      recv_q  <= '0;
      len_q   <= '0;
      maxe_q  <= '0;
      rv_q    <= '0;
      flush_q         <= 1'b0;
      rep_valid_q     <= 1'b0;
      rep_end_known_q <= 1'b0;
      rep_at_end_q    <= 1'b0;
      rep_key_q       <= '0;
      rep_recv_q      <= '0;
      rep_segs_q      <= '0;
      rep_len_q       <= '0;
      used_cnt_q      <= '0;
      completed_q     <= '0;
      timed_out_q     <= '0;
      drops_q         <= '0;
    end else begin
      rep_valid_q <= rep_now;
      if (rep_now) begin
        rep_key_q       <= key_o;
        rep_recv_q      <= 32'(recv_o);
        rep_segs_q      <= segs_o;
        rep_len_q       <= 32'(len_o);
        rep_end_known_q <= endk_o;
        rep_at_end_q    <= flush_mode;
        timed_out_q     <= timed_out_q + 1'b1;
      end
      valid_q <= valid_d;
      outp_q  <= outp_d;
      done_q  <= done_d;
      endk_q  <= endk_d;
      for (int r = 0; r < nt_pkg::ReDropReasons; r++) begin
        if (place && code != '0 && 32'(code) == r) drops_q[r] <= drops_q[r] + 1'b1;
      end
      if (accept) begin
        used_cnt_q <= used_cnt_q + 1'b1;
        if (completes) completed_q <= completed_q + 1'b1;
      end
      for (int c = 0; c < N; c++) begin
        if (accept && slot_oh[c]) begin
          if (!found) begin
            key_q[c]   <= key;
            mdst_q[c]  <= l_q.mac_dst;
            msrc_q[c]  <= l_q.mac_src;
            first_q[c] <= l_q.time_ns;
          end
          segs_q[c] <= segs_n;
          recv_q[c] <= recv_n;
          len_q[c]  <= len_n;
          maxe_q[c] <= maxe_n;
          rv_q[c]   <= rv_n;
        end
      end
      if (flush_i) flush_q <= 1'b1;
      else if (flush_done) flush_q <= 1'b0;
    end
  end

  // ---- the lookup stage: takes the FIFO's head when empty or when D places its frame; its key match and
  // expiry per context against the contexts as this cycle leaves them (bypass: a context D opens now has
  // D's key and time) ----
  logic          l_load;
  re_pkg::desc_t l_n;
  logic [N-1:0]  open_oh, l_hit_d, l_exp_d, l_prec_d;
  logic          byp_hit, byp_exp, byp_prec;
  logic [N-1:0]  l_prec_q;  // the frame L holds precedes context i in (first arrival, key) order
  // The head's compares with every context (key match, expiry, (first arrival, key) order) and, for the
  // bypass, with D's frame (instance N): child modules (re_lookup_hit, re_lookup_ctx; the key match alone is
  // three levels in front of the row's AND-OR below).
  logic [N:0] lk_hit, lk_exp, lk_prec;
  for (genvar i = 0; i <= N; i++) begin : g_lookup
    re_lookup_hit u_hit (
      .key_i   ({desc_i.event_num, desc_i.data_id}),
      .key_c_i (i < N ? key_q[i % N] : key),
      .hit_o   (lk_hit[i])
    );
    re_lookup_ctx u_lookup (
      .time_i  (desc_i.time_ns),
      .key_i   ({desc_i.event_num, desc_i.data_id}),
      .first_i (i < N ? first_q[i % N] : l_q.time_ns),
      .key_c_i (i < N ? key_q[i % N] : key),
      .tmo_i   (cfg_timeout_ns_i),
      .exp_o   (lk_exp[i]),
      .prec_o  (lk_prec[i])
    );
  end
  assign l_load     = desc_valid_i && (!l_valid_q || place);
  // The hit context's row for the head L takes (issue 27 item 2, session 24: D read it by an AND-OR over its
  // hit vector, in series with the checks): an AND-OR over the valid contexts the head's key matches (at most
  // one: keys of valid contexts differ), or D's new row for its context when D accepts a frame of the same key
  // in this cycle. No other change can meet it: D writes a context only when it accepts, and a context that
  // is freed or reopened for another key in this cycle is no hit of the head in D (l_hit_q, valid_x), where
  // every use of the row is gated by `found`. A frame L keeps meets the same rows (see below), so the row
  // is kept. Ranges a new context does not set keep the row's bounds (rv_n says they are not valid).
  logic [N-1:0]    key_m;
  logic [HitW-1:0] sel_row, new_row, l_row_d;
  logic [R-1:0][re_pkg::OffW-1:0] rb_n, re_n;
  logic [re_pkg::OffW-1:0] l_se_d;
  assign key_m   = lk_hit[N-1:0];
  assign byp_hit = lk_hit[N];
  always_comb begin
    sel_row = '0;
    for (int i = 0; i < N; i++) begin
      sel_row = sel_row | ({rv_q[i], rb_q[i], re_q[i], done_q[i], endk_q[i], recv_q[i], len_q[i], maxe_q[i],
                            segs_q[i]} & {HitW{valid_q[i] && key_m[i]}});
    end
    for (int k = 0; k < R; k++) begin
      rb_n[k] = rb_we[k] ? off : rb_h[k];
      re_n[k] = re_we[k] ? re_wd : re_h[k];
    end
    new_row = {rv_n, rb_n, re_n, completes, endk_n, recv_n, len_n, maxe_n, segs_n};
    l_row_d = !l_load ? l_row_q : (accept && byp_hit) ? new_row : sel_row;
    l_se_d  = !l_load ? l_se_q : re_pkg::OffW'(desc_i.offset) + re_pkg::OffW'(desc_i.len);
  end
  // Only meaningful when D has a hit, so not reset.
  always_ff @(posedge clk_i) l_row_q <= l_row_d;

  assign cfg_mask = cfg_contexts_i >= 8'(N) ? '1 : ~({N{1'b1}} << cfg_contexts_i[re_pkg::CtxW-1:0]);
  assign cfg_fits = cfg_contexts_i <= 8'(N);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cfg_mask_q <= '0;
      cfg_fits_q <= 1'b0;
    end else begin
      cfg_mask_q <= cfg_mask;
      cfg_fits_q <= cfg_fits;
    end
  end
  assign desc_pop_o = l_load;
  always_comb begin
    l_n     = l_load ? desc_i : l_q;
    open_oh = (accept && !found) ? slot_oh : '0;
    // Only the head L takes is compared: a frame L keeps meets the same contexts' keys and times next cycle
    // (they change only when D opens a context, which D does only when it places its frame, and then L
    // either takes the next head or holds nothing), so its registered vectors stay as they are. The compares
    // are then beside D's decision, not behind it (`l_load` and `open_oh` choose among them at the end).
    byp_exp = lk_exp[N];
    byp_prec = lk_prec[N];
    for (int i = 0; i < N; i++) begin
      l_hit_d[i] = !l_load ? l_hit_q[i] : open_oh[i] ? byp_hit : key_m[i];
      l_exp_d[i] = !l_load ? l_exp_q[i] : open_oh[i] ? byp_exp
                 : lk_exp[i];
      l_prec_d[i] = !l_load ? l_prec_q[i] : open_oh[i] ? byp_prec
                  : lk_prec[i];
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      l_valid_q <= 1'b0;
      l_q       <= '0;
      l_hit_q   <= '0;
      l_exp_q   <= '0;
      l_prec_q  <= '0;
      l_se_q    <= '0;
    end else begin
      l_valid_q <= l_load || (l_valid_q && !place);
      l_q       <= l_n;
      l_hit_q   <= l_hit_d;
      l_exp_q   <= l_exp_d;
      l_prec_q  <= l_prec_d;
      l_se_q    <= l_se_d;
    end
  end

  // The precedence matrix: context c opened by D's frame precedes j exactly when the frame does (l_prec_q);
  // j precedes c otherwise (keys of valid contexts differ). Entries of invalid contexts are rewritten when
  // they open, so they need no reset.
  always_ff @(posedge clk_i) begin
    for (int c = 0; c < N; c++) begin
      if (accept && !found && slot_oh[c]) begin
        for (int j = 0; j < N; j++) begin
          prec_q[c][j] <= l_prec_q[j];
          prec_q[j][c] <= !l_prec_q[j];
        end
      end
    end
  end

  // Range bounds: only meaningful where rv_q is set, so not reset.
  always_ff @(posedge clk_i) begin
    for (int c = 0; c < N; c++) begin
      if (accept && slot_oh[c]) begin
        for (int k = 0; k < R; k++) begin
          if (rb_we[k]) rb_q[c][k] <= off;
          if (re_we[k]) re_q[c][k] <= re_wd;
        end
      end
    end
  end

  always_comb begin
    ev_o.mac_dst  = mdst_q[ev_ctx_i];
    ev_o.mac_src  = msrc_q[ev_ctx_i];
    ev_o.event_num = key_q[ev_ctx_i][re_pkg::KeyW-1:16];
    ev_o.data_id  = key_q[ev_ctx_i][15:0];
    ev_o.length   = 32'(len_q[ev_ctx_i]);
    ev_o.segments = segs_q[ev_ctx_i];
  end

  assign rep_valid_o     = rep_valid_q;
  assign rep_event_num_o = rep_key_q[re_pkg::KeyW-1:16];
  assign rep_data_id_o   = rep_key_q[15:0];
  assign rep_received_o  = rep_recv_q;
  assign rep_segments_o  = rep_segs_q;
  assign rep_length_o    = rep_len_q;
  assign rep_end_known_o = rep_end_known_q;
  assign rep_at_end_o    = rep_at_end_q;
  assign busy_o          = flush_q || rep_valid_q || l_valid_q;
  assign cnt_used_o      = used_cnt_q;
  assign cnt_completed_o = completed_q;
  assign cnt_timed_out_o = timed_out_q;
  assign cnt_drops_o     = drops_q;
endmodule
