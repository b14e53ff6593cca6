// re_decide's checks of the frame D decides against the context it hits (issue 27 item 2, session 24): the
// range relations, the drop verdict and the context as the accepted frame leaves it. Every input but `found_i`
// is a register of re_decide's lookup stage (the frame, its end, the hit context's row), so the
// checks start at D's cycle edge; the row is read in L and the compares are LUT trees (re_pkg::cmp_off), not
// carry chains. A child module, so its depth is measured on its own and the cut at its ports holds (docs/synthesis.md,
// session 22). The rules are docs/re.md's, as re_decide had them before (lockstep holds them equal).
module re_decide_chk
(
  input  logic [re_pkg::CodeW-1:0]                         code_i,    // the header checks' verdict (0: passed)
  input  logic                                             found_i,   // a valid context holds the frame's key
  input  logic                                             last_i,
  input  logic [re_pkg::OffW-1:0]                          off_i,
  input  logic [re_pkg::OffW-1:0]                          len_i,
  input  logic [re_pkg::OffW-1:0]                          seg_end_i,  // off_i + len_i
  input  logic [re_pkg::OffW-1:0]                          ev_end_i,
  // the hit context's entries (read whatever found_i says; every use is gated by found_i)
  input  logic [nt_pkg::ReRanges-1:0]                      rv_i,
  input  logic [nt_pkg::ReRanges-1:0][re_pkg::OffW-1:0]    rb_i,
  input  logic [nt_pkg::ReRanges-1:0][re_pkg::OffW-1:0]    re_i,
  input  logic                                             done_i,
  input  logic                                             endk_i,
  input  logic [re_pkg::OffW-1:0]                          recv_i,
  input  logic [re_pkg::OffW-1:0]                          len_h_i,
  input  logic [re_pkg::OffW-1:0]                          maxe_i,
  input  logic [31:0]                                      segs_i,
  // The verdict as if found_i (a hit): re_decide chooses it by found last and forms the miss's (the header
  // checks' code, else no_context) itself (issue 27 item 2, session 25: found is four levels behind L's
  // registers and no_ctx seven; as inputs of the checks they were in front of three to seven more).
  output logic [re_pkg::CodeW-1:0]                         code_f_o,
  output logic                                             ok_f_o,    // code_f_o == 0, without the code
  // the context as the accepted frame leaves it; completes for each value of found_i (chosen as ok_f_o is)
  output logic                                             comp_f_o,
  output logic                                             comp_nf_o,
  output logic                                             endk_n_o,
  output logic [re_pkg::OffW-1:0]                          recv_n_o,
  output logic [re_pkg::OffW-1:0]                          len_n_o,
  output logic [re_pkg::OffW-1:0]                          maxe_n_o,
  output logic [31:0]                                      segs_n_o,
  output logic [nt_pkg::ReRanges-1:0]                      rv_n_o,
  output logic [nt_pkg::ReRanges-1:0]                      rb_we_o,
  output logic [nt_pkg::ReRanges-1:0]                      re_we_o,
  output logic [re_pkg::OffW-1:0]                          re_wd_o
);
  localparam int unsigned R = nt_pkg::ReRanges;

  // The merge rule keeps a context's valid ranges disjoint and never touching (a segment that touches a range
  // extends it, one that touches two merges them), so the bytes of [off, seg_end) the ranges cover equal its
  // length exactly when one range contains it, and are nonzero exactly when one overlaps it: per-range tests
  // instead of a sum over 16 ranges (the model's `covered`; lockstep holds them equal). `left`, `right` and the
  // free range are the lowest range that qualifies, as one-hots (the walk from range 15 down to 0 kept the last).
  logic [R-1:0] in_k, ov_k, lt_k, rt_k, fr_k, lt_below, rt_below, fr_below, left_oh, right_oh, free_oh;
  logic         contained, overlap, has_left, has_right, has_free_range;
  always_comb begin
    for (int k = 0; k < R; k++) begin
      // rb <= off && re >= seg_end; rb < seg_end && re > off; re == off; rb == seg_end
      in_k[k] = rv_i[k] && !re_pkg::lt_off(off_i, rb_i[k]) && !re_pkg::lt_off(re_i[k], seg_end_i);
      ov_k[k] = rv_i[k] && re_pkg::lt_off(rb_i[k], seg_end_i) && re_pkg::lt_off(off_i, re_i[k]);
      lt_k[k] = rv_i[k] && re_i[k] == off_i;
      rt_k[k] = rv_i[k] && rb_i[k] == seg_end_i;
      fr_k[k] = !rv_i[k];
    end
    contained      = |in_k;
    overlap        = |ov_k;
    has_left       = |lt_k;
    has_right      = |rt_k;
    has_free_range = |fr_k;
    lt_below = lt_k << 1;
    rt_below = rt_k << 1;
    fr_below = fr_k << 1;
    for (int s = 1; s < R; s = s * 2) begin
      lt_below = lt_below | (lt_below << s);
      rt_below = rt_below | (rt_below << s);
      fr_below = fr_below | (fr_below << s);
    end
    left_oh  = lt_k & ~lt_below;
    right_oh = rt_k & ~rt_below;
    // no free range: range 0, as the walk gave (only with a verdict, no_range, so never written)
    free_oh  = has_free_range ? (fr_k & ~fr_below) : R'(1);
  end

  // The verdict with a hit: the header checks' code, else the first of docs/re.md's context checks that fails,
  // as a one-hot of the failing checks in their order and an AND-OR (a cascade of if/else before). The last
  // check, no_context, applies to a miss only (re_decide).
  localparam int unsigned NChk = 5;
  logic [re_pkg::OffW-1:0] zero_off;
  logic                    len_nz;
  logic [NChk-1:0]         chk_f, chk_below, chk_oh;
  logic [NChk-1:0][re_pkg::CodeW-1:0] chk_code;
  always_comb begin
    zero_off  = '0;
    len_nz    = len_i != zero_off;
    chk_f = '0;
    chk_f[0] = done_i;
    chk_f[1] = (last_i && ((endk_i && ev_end_i != len_h_i) || (!endk_i && re_pkg::lt_off(ev_end_i, maxe_i)))) ||
               (endk_i && re_pkg::lt_off(len_h_i, seg_end_i));
    chk_f[2] = (len_nz && contained) || (!len_nz && endk_i);
    chk_f[3] = len_nz && overlap;
    chk_f[4] = len_nz && !has_left && !has_right && !has_free_range;
    chk_code[0] = re_pkg::CodeW'(nt_pkg::ReDropDuplicate);
    chk_code[1] = re_pkg::CodeW'(nt_pkg::ReDropInconsistent);
    chk_code[2] = re_pkg::CodeW'(nt_pkg::ReDropDuplicate);
    chk_code[3] = re_pkg::CodeW'(nt_pkg::ReDropOverlap);
    chk_code[4] = re_pkg::CodeW'(nt_pkg::ReDropNoRange);
    chk_below = '0;
    for (int i = 1; i < NChk; i++) chk_below[i] = chk_below[i - 1] | chk_f[i - 1];
    chk_oh = chk_f & ~chk_below;
    // the frame is accepted (if placed) when no check fails: an AND beside the code, not behind it
    ok_f_o = code_i == '0 && !(|chk_f);
    code_f_o = code_i;
    if (code_i == '0) begin
      for (int i = 0; i < NChk; i++) code_f_o = code_f_o | (chk_oh[i] ? chk_code[i] : '0);
    end
  end

  // The context as the accepted frame leaves it (slot = the hit context when found).
  always_comb begin
    // the adds from registers, found_i chosen after them (it is a few levels later than the row)
    recv_n_o    = found_i ? recv_i + len_i : len_i;
    endk_n_o    = (found_i && endk_i) || last_i;
    len_n_o     = last_i ? ev_end_i : (found_i ? len_h_i : '0);
    // the event is complete when its end is known and the bytes received reach it: with a hit, recv + len ==
    // (last ? ev_end : the context's length); a new context, last and len == ev_end
    comp_f_o    = (endk_i || last_i) && re_pkg::sum_eq_off(recv_i, len_i, last_i ? ev_end_i : len_h_i);
    comp_nf_o   = last_i && re_pkg::sum_eq_off('0, len_i, ev_end_i);
    segs_n_o    = found_i ? segs_i + 1'b1 : 32'd1;
    maxe_n_o    = found_i ? maxe_i : '0;
    rv_n_o      = found_i ? rv_i : '0;
    rb_we_o     = '0;
    re_we_o     = '0;
    re_wd_o     = seg_end_i;
    if (len_nz) begin
      if (!found_i || re_pkg::lt_off(maxe_i, seg_end_i)) maxe_n_o = seg_end_i;
      if (!found_i) begin
        rv_n_o[0]  = 1'b1;
        rb_we_o[0] = 1'b1;
        re_we_o[0] = 1'b1;
      end else if (has_left && has_right) begin
        rv_n_o  = rv_n_o & ~right_oh;
        re_we_o = left_oh;
        re_wd_o = '0;
        for (int k = 0; k < R; k++) re_wd_o = re_wd_o | (right_oh[k] ? re_i[k] : '0);
      end else if (has_left) begin
        re_we_o = left_oh;
      end else if (has_right) begin
        rb_we_o = right_oh;
      end else begin
        rv_n_o  = rv_n_o | free_oh;
        rb_we_o = free_oh;
        re_we_o = free_oh;
      end
    end
  end
endmodule
