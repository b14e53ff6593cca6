// re_decide's own assertions (docs/assertions.md), bound onto re_decide by the `bind` at the end of this file,
// so the RTL itself is not edited. Simulation only: empty under SYNTHESIS.
`ifndef SYNTHESIS  // the whole file: assertions are simulation only
`include "nt_ports.svh"
module re_decide_sva (
  `NT_CLK_RST,
  input logic [7:0]                                              cfg_contexts_i,
  input logic [63:0]                                             cfg_timeout_ns_i,
  input logic                                                    l_valid_q,
  input logic [re_pkg::KeyW-1:0]                                 key,        // l_q's key
  input logic [63:0]                                             l_time_ns,  // l_q's time
  input logic [nt_pkg::ReContexts-1:0]                           l_hit_q,
  input logic [nt_pkg::ReContexts-1:0]                           l_exp_q,
  input logic [nt_pkg::ReContexts-1:0][re_pkg::KeyW-1:0]         key_q,
  input logic [nt_pkg::ReContexts-1:0][63:0]                     first_q,
  input logic                                                    found,
  input logic [nt_pkg::ReContexts-1:0]                           valid_x,
  input logic                                                    no_ctx,
  input logic [re_pkg::CodeW-1:0]                                code,
  input logic                                                    code_ok,
  input logic                                                    act,
  input logic                                                    any_cand,
  input logic                                                    place,
  input logic [nt_pkg::ReContexts-1:0]                           cfg_mask,
  input logic [nt_pkg::ReContexts-1:0]                           cfg_mask_q,
  input logic                                                    cfg_fits,
  input logic                                                    cfg_fits_q,
  input logic [nt_pkg::ReContexts-1:0]                           hit,
  input logic [nt_pkg::ReContexts-1:0]                           cand,
  input logic [nt_pkg::ReContexts-1:0]                           old_oh,
  input logic [re_pkg::CtxW-1:0]                                 h,
  input logic [nt_pkg::ReContexts-1:0][nt_pkg::ReRanges-1:0]     rv_q,
  input logic [nt_pkg::ReContexts-1:0][nt_pkg::ReRanges-1:0][re_pkg::OffW-1:0] rb_q,
  input logic [nt_pkg::ReContexts-1:0][nt_pkg::ReRanges-1:0][re_pkg::OffW-1:0] re_q,
  input logic [nt_pkg::ReContexts-1:0]                           done_q,
  input logic [nt_pkg::ReContexts-1:0]                           endk_q,
  input logic [nt_pkg::ReContexts-1:0][re_pkg::OffW-1:0]         recv_q,
  input logic [nt_pkg::ReContexts-1:0][re_pkg::OffW-1:0]         len_q,
  input logic [nt_pkg::ReContexts-1:0][re_pkg::OffW-1:0]         maxe_q,
  input logic [nt_pkg::ReContexts-1:0][31:0]                     segs_q,
  // what the lookup stage registered for D: the frame's end and the hit context's row
  input logic [re_pkg::OffW-1:0]                                 off,      // l_q's offset
  input logic [re_pkg::OffW-1:0]                                 len,      // l_q's length
  input logic [re_pkg::OffW-1:0]                                 l_se_q,
  input logic [nt_pkg::ReRanges-1:0]                             rv_h,
  input logic [nt_pkg::ReRanges-1:0][re_pkg::OffW-1:0]           rb_h,
  input logic [nt_pkg::ReRanges-1:0][re_pkg::OffW-1:0]           re_h,
  input logic                                                    done_h,
  input logic                                                    endk_h,
  input logic [re_pkg::OffW-1:0]                                 recv_h,
  input logic [re_pkg::OffW-1:0]                                 len_h,
  input logic [re_pkg::OffW-1:0]                                 maxe_h,
  input logic [31:0]                                             segs_h,
  // completes, chosen by found from the child's two cases (session 25), and what it stands for
  input logic                                                    completes,
  input logic                                                    endk_n,
  input logic [re_pkg::OffW-1:0]                                 len_n
);
`include "nt_assert.svh"
  localparam int unsigned N = nt_pkg::ReContexts;
  localparam int unsigned R = nt_pkg::ReRanges;
  // The bypass invariant of the lookup stage: the key match and expiry vectors it registered (with D's key and
  // time for a context D opened in that cycle) are those of the contexts as they are now, for every context.
  logic [N-1:0] hit_now, exp_now;
  always_comb begin
    for (int i = 0; i < N; i++) begin
      hit_now[i] = key_q[i] == key;
      exp_now[i] = $signed(l_time_ns - first_q[i]) > $signed(cfg_timeout_ns_i);
    end
  end
  `NT_ASSERT(lookup_hit_bypass, l_valid_q |-> l_hit_q == hit_now)
  `NT_ASSERT(lookup_exp_bypass, l_valid_q |-> l_exp_q == exp_now)
  // The frame's end L registered (session 24) is its offset + len, every cycle.
  `NT_ASSERT(lookup_seg_end, l_se_q == off + len)
  // The hit context's row L registered (session 24) is the hit context's entries as they are now, whenever D
  // has a hit: the range bounds where the range is valid (the only ones read), every other entry whole.
  logic row_ok;
  always_comb begin
    row_ok = rv_h == rv_q[h] && done_h == done_q[h] && endk_h == endk_q[h] && recv_h == recv_q[h] &&
             len_h == len_q[h] && maxe_h == maxe_q[h] && segs_h == segs_q[h];
    for (int k = 0; k < R; k++) begin
      if (rv_q[h][k] && (rb_h[k] != rb_q[h][k] || re_h[k] != re_q[h][k])) row_ok = 1'b0;
    end
  end
  `NT_ASSERT(lookup_row, l_valid_q && found |-> row_ok)
  // No context for a new key is the count of contexts in use reaching cfg_contexts_i (re_decide tests the
  // contexts below cfg_contexts_i instead of counting).
  logic [$clog2(N + 1)-1:0] nvalid;
  always_comb begin
    nvalid = '0;
    for (int i = 0; i < N; i++) nvalid = nvalid + $bits(nvalid)'(valid_x[i]);
  end
  // `completes` (re_decide_chk's two cases, chosen by found in re_decide) is the event's end known and the bytes
  // received with this frame reaching it, as the sum it replaces.
  `NT_ASSERT(completes_sum, completes == (endk_n && (found ? recv_h : '0) + len == len_n))
  // The child's accept signal is its verdict being zero.
  `NT_ASSERT(code_ok_matches, code_ok == (code == '0))
  // re_decide's `place` without the flush terms is act && !any_cand.
  `NT_ASSERT(place_run, place == (act && !any_cand))
  // The registered configuration mask is the live one whenever D can decide (the configuration is static).
  `NT_ASSERT(cfg_mask_current, l_valid_q |-> cfg_mask_q == cfg_mask && cfg_fits_q == cfg_fits)
  `NT_ASSERT(no_ctx_count, l_valid_q |-> no_ctx == (8'(nvalid) >= cfg_contexts_i))
  // The merge rule's invariant that lets the checks test one range at a time instead of summing the bytes
  // covered: the valid ranges of the context a frame hits are disjoint and never touch.
  logic apart;
  always_comb begin
    apart = 1'b1;
    for (int k = 0; k < R; k++) begin
      for (int j = k + 1; j < R; j++) begin
        if (rv_q[h][k] && rv_q[h][j] && rb_q[h][k] <= re_q[h][j] && rb_q[h][j] <= re_q[h][k]) apart = 1'b0;
      end
    end
  end
  `NT_ASSERT(ranges_apart, l_valid_q && found |-> apart)
  // At most one valid context holds the frame's key (a context opens only for a key no valid context holds):
  // re_decide reads the hit context's entries by an AND-OR over `hit`, which needs it.
  `NT_ASSERT(hit_onehot0, l_valid_q |-> $onehot0(hit))
  // The precedence matrix's choice is the candidate with the smallest (first arrival, key), the chain it
  // replaced (and the model's Oldest): one candidate chosen whenever there is one.
  logic [N-1:0] ref_oh;
  logic         best_c;
  logic [63:0]  best_f;
  logic [re_pkg::KeyW-1:0] best_k;
  always_comb begin
    ref_oh = '0;
    best_c = 1'b0;
    best_f = '0;
    best_k = '0;
    for (int i = 0; i < N; i++) begin
      if (cand[i] && (!best_c || first_q[i] < best_f || (first_q[i] == best_f && key_q[i] < best_k))) begin
        ref_oh = N'(1) << i;
        best_c = 1'b1;
        best_f = first_q[i];
        best_k = key_q[i];
      end
    end
  end
  `NT_ASSERT(oldest_matches, old_oh == ref_oh)
endmodule

bind re_decide re_decide_sva u_sva (
  .clk_i, .rst_ni, .cfg_contexts_i, .cfg_timeout_ns_i, .l_valid_q, .key, .l_time_ns(l_q.time_ns), .l_hit_q, .l_exp_q, .key_q, .first_q, .found, .valid_x, .no_ctx, .code, .code_ok, .act, .any_cand, .place, .cfg_mask, .cfg_mask_q, .cfg_fits, .cfg_fits_q, .hit, .cand, .old_oh, .h, .rv_q,
  .rb_q, .re_q, .done_q, .endk_q, .recv_q, .len_q, .maxe_q, .segs_q, .off, .len, .l_se_q,
  .rv_h, .rb_h, .re_h, .done_h, .endk_h, .recv_h, .len_h, .maxe_h, .segs_h, .completes, .endk_n, .len_n);
`endif  // SYNTHESIS
