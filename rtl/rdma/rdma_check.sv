// The responder's decision for one buffered request: drop, or the job to run, its response and the QP's
// new state (docs/rdma.md "Request processing"), in two cycles (docs/rdma-microarchitecture.md "rdma_check in
// two cycles"): with lookup_i (rdma_top's StLookup) it registers what depends only on the request, the MR
// table and the QP fields nothing but Check and a QP table write changes (the QP search with the found QP's
// PSN class and length checks, every MR's verdict with the first match and its translation, the request's
// own sums); the next cycle (StCheck) the outputs decide from those registers, the request and the current
// QP context, combinationally. rdma_top repeats the lookup when a QP or MR table write makes its registers
// stale. Mirrors RdmaCycleModel::Check().
module rdma_check
(
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 lookup_i,
  input  rdma_pkg::request_t   req_i,
  input  logic [31:0] crc_i,
  input  logic [31:0] icrc_rx_i,
  input  rdma_pkg::responder_t resp_i,
  // Entry words (qp_state_t, mr_t, wqe_t), each read whole into its struct: Yosys 0.55 rejects unpacked
  // array ports and reads a packed array of a packed struct as one element (docs/synthesis.md).
  input  logic [nt_pkg::RdmaQps-1:0][rdma_pkg::QpStateBits-1:0] qps_i,
  input  logic [nt_pkg::RdmaMrs-1:0][rdma_pkg::MrBits-1:0]      mrs_i,
  // Per QP: whether the receive WQE at its RQ head is in its prefetch ring, and that WQE.
  input  logic [nt_pkg::RdmaQps-1:0] wqe_ready_i,
  input  logic [nt_pkg::RdmaQps-1:0][rdma_pkg::WqeBits-1:0]     wqe_i,
  output rdma_pkg::job_t       job_o,
  output rdma_pkg::desc_t      desc_o,
  output rdma_pkg::qp_state_t  qp_o,
  output logic       processed_o,
  output logic       ack_o,
  output logic       nak_o
);
  localparam logic [7:0] SynAck = 8'h1f, SynSeq = 8'h60, SynInv = 8'h61, SynAcc = 8'h62;
  localparam logic [23:0] PsnHalf = 24'h800000;

  rdma_pkg::job_t      job;
  rdma_pkg::desc_t     desc;
  rdma_pkg::qp_state_t q;
  logic      processed, ack, nak, done, found_qp, is_ahead, is_new, first, middle, last, only, stop;
  logic      write, read, atomic, send, write_imm, s_first, s_middle, s_last, s_only, s_imm;
  logic [3:0] qi;
  logic [31:0] plen, mtu;
  logic [7:0]  syn;
  logic [63:0] pa;
  logic        takes_wqe;
  rdma_pkg::wqe_t        wqe;

  // (the 64-bit sum and compare in 16-bit pieces: rdma_pkg::add64c / lt64, shared with naa_ctl and naa_req)
  // verilator lint_off UNUSEDSIGNAL
  function automatic logic [63:0] add64(logic [63:0] a, logic [63:0] b);
    add64 = 64'(rdma_pkg::add64c(a, b, 1'b0));
  endfunction
  // a - b (modulo 2^64)
  function automatic logic [63:0] sub64(logic [63:0] a, logic [63:0] b);
    sub64 = 64'(rdma_pkg::add64c(a, ~b, 1'b1));
  endfunction
  // verilator lint_on UNUSEDSIGNAL
  function automatic logic lt32(logic [31:0] a, logic [31:0] b);
    lt32 = a[31:16] < b[31:16] || (a[31:16] == b[31:16] && a[15:0] < b[15:0]);
  endfunction
  // a + 1 (c = 1) or a (c = 0) in two 16-bit pieces.
  function automatic logic [31:0] inc32(logic [31:0] a, logic c);
    logic [16:0] lo;
    lo    = {1'b0, a[15:0]} + 17'(c);
    inc32 = {lo[16] ? a[31:16] + 16'd1 : a[31:16], lo[15:0]};
  endfunction
  // va + len > mva + mlen (va, mva 64 bits, len < 2^33, mlen < 2^40) without a sum before a compare: the
  // sign of the 67-bit va + len + ~mva + ~mlen + 1 (= va + len - mva - mlen - 1, in (-2^65, 2^65)) is 0
  // exactly then. Two carry-save levels make the four operands two (the + 1 in the second's carry word),
  // whose sum's sign needs only the carry into bit 66: five pieces' carries (16-bit chains, each with and
  // without a carry in), then the carry through them.
  function automatic logic range_gt(logic [63:0] va, logic [32:0] len, logic [63:0] mva, logic [39:0] mlen);
    logic [66:0] a, b, c, e, s1, c1, s2, c2;
    // verilator lint_off UNUSEDSIGNAL
    logic [16:0] g0, g1;  // (their carries are read)
    // verilator lint_on UNUSEDSIGNAL
    logic        cy;
    a  = {3'b000, va};
    b  = {34'd0, len};
    c  = ~{3'b000, mva};
    e  = ~{27'd0, mlen};
    s1 = a ^ b ^ c;
    c1 = {((a[65:0] & b[65:0]) | (a[65:0] & c[65:0]) | (b[65:0] & c[65:0])), 1'b1};  // (+ 1)
    s2 = s1 ^ c1 ^ e;
    c2 = {((s1[65:0] & c1[65:0]) | (s1[65:0] & e[65:0]) | (c1[65:0] & e[65:0])), 1'b0};
    // carry into bit 66 of s2 + c2: pieces of 16 bits (bits 0..63), then bits 64..65
    cy = 1'b0;
    for (int k = 0; k < 4; k++) begin
      g0 = {1'b0, s2[16*k+:16]} + {1'b0, c2[16*k+:16]};
      g1 = {1'b0, s2[16*k+:16]} + {1'b0, c2[16*k+:16]} + 17'd1;
      cy = cy ? g1[16] : g0[16];
    end
    // bits 64, 65
    cy = (s2[64] & c2[64]) | ((s2[64] ^ c2[64]) & cy);
    cy = (s2[65] & c2[65]) | ((s2[65] ^ c2[65]) & cy);
    range_gt = !(s2[66] ^ c2[66] ^ cy);
  endfunction

  // ---- Cycle 1 (lookup_i): what depends on the request and the tables' keys only, registered ----
  // The MR check (docs/rdma.md "Request processing"), made once for the one request class that uses it: READ
  // (right r, length dmalen), WRITE first/only (right w, length dmalen) or atomic (right a, length 8); the
  // classes are exclusive by opcode, so one search serves them all. Every MR's rights and range checks are
  // computed in parallel with the rkey search, and the first (lowest) matching MR is then selected through
  // a one-hot: no priority chain of 48 muxes. Registered: every MR's verdict and whether it is the first
  // match (their AND-OR is cycle 2's), and the first match's pa - va.
  //   range_bad = va < mr.va || len > mr.len || va - mr.va > mr.len - len, where the third term (given the
  //   first two are false) is va + len > mr.va + mr.len in 65 bits (range_gt: no sum before the compare);
  //   pa = mr.pa + (va - mr.va) is (mr.pa - mr.va) + va modulo 2^64, and the WRITE's next pa + plen is
  //   (mr.pa - mr.va) + (va + plen).
  logic [nt_pkg::RdmaMrs-1:0]        mr_hit, lk_first_d, lk_first_q, lk_ok_d, lk_ok_q;
  logic [nt_pkg::RdmaMrs-1:0][63:0]  mr_delta;
  logic [32:0] mr_len;
  logic        lower;
  rdma_pkg::mr_t mr;  // (module level: Yosys 0.55 reads no declaration inside an unnamed always_comb)
  logic              lk_found_d, lk_found_q;
  logic [3:0]        lk_qi_d, lk_qi_q;
  logic [63:0]       lk_delta_d, lk_delta_q, lk_va_plen_d, lk_va_plen_q;
  always_comb begin
    mr_len  = (req_i.opcode == 8'h13 || req_i.opcode == 8'h14) ? 33'd8 : 33'(req_i.dmalen);
    for (int i = 0; i < nt_pkg::RdmaMrs; i++) begin
      mr        = mrs_i[i];
      mr_hit[i] = mr.valid && mr.rkey == req_i.rkey;
    end
    // The first match: no lower MR matches (an OR of the hits below, a tree per MR, not a serial chain).
    for (int i = 0; i < nt_pkg::RdmaMrs; i++) begin
      lower         = (mr_hit & ((nt_pkg::RdmaMrs'(1) << i) - nt_pkg::RdmaMrs'(1))) != '0;
      lk_first_d[i] = mr_hit[i] && !lower;
    end
    for (int i = 0; i < nt_pkg::RdmaMrs; i++) begin
      mr            = mrs_i[i];
      lk_ok_d[i]    = (req_i.opcode == 8'h0c ? mr.r : (req_i.opcode == 8'h13 || req_i.opcode == 8'h14) ? mr.a : mr.w) &&
                      !(rdma_pkg::lt64(req_i.va, mr.va) || rdma_pkg::lt64(64'(mr.len), 64'(mr_len)) ||
                        range_gt(req_i.va, mr_len, mr.va, mr.len));
      mr_delta[i]   = sub64(mr.pa, mr.va);
    end
    lk_delta_d = '0;
    for (int i = 0; i < nt_pkg::RdmaMrs; i++) lk_delta_d = lk_delta_d | (mr_delta[i] & {64{lk_first_d[i]}});
    lk_va_plen_d = add64(req_i.va, 64'(req_i.plen));
  end

  // The packet count of a READ, ceil(dmalen / 2^lg) for every lg a QP's mtu_log2 may hold, from the request
  // alone ((dmalen + 2^lg - 1) >> lg without the 64-bit add and the barrel shift after it); the QP's
  // mtu_log2 selects one in cycle 2. dmalen < 2^lg likewise.
  // The payload length against 2^lg likewise (constants: shallow compares).
  logic [15:0][31:0] npk_lg;
  logic [15:0]       short_lg, mtu_gt_lg, mtu_ne_lg;
  always_comb begin
    for (int lg = 0; lg < 16; lg++) begin
      npk_lg[lg]    = inc32(req_i.dmalen >> lg, (req_i.dmalen & ((32'd1 << lg) - 32'd1)) != 32'd0);
      short_lg[lg]  = (req_i.dmalen >> lg) == 32'd0;
      mtu_gt_lg[lg] = req_i.plen > (32'd1 << lg);
      mtu_ne_lg[lg] = req_i.plen != (32'd1 << lg);
    end
  end

  // QP i's configuration: its context read whole (Yosys 0.55 reads qps_i[i].field wrongly: docs/synthesis.md)
  // into the function's own local, which Verilator keeps out of the traced state (a module-level copy of
  // each 924-bit context cost every cycle: docs/rdma-microarchitecture.md "Simulation speed").
  function automatic rdma_pkg::qp_cfg_t qp_cfg(int i);
    // verilator lint_off UNUSEDSIGNAL
    rdma_pkg::qp_state_t e;  // (its cfg is read)
    // verilator lint_on UNUSEDSIGNAL
    e      = qps_i[i];
    qp_cfg = e.cfg;
  endfunction

  // QP i's context fields that only Check and a QP table write change (so the lookup may read them: the
  // previous request's Check is done, and a QP table write repeats the lookup): ePSN, w_remaining, s_room.
  function automatic logic [87:0] qp_fix(int i);
    // verilator lint_off UNUSEDSIGNAL
    rdma_pkg::qp_state_t e;  // (three fields are read)
    // verilator lint_on UNUSEDSIGNAL
    e      = qps_i[i];
    qp_fix = {e.epsn, e.w_remaining, e.s_room};
  endfunction

  // The first (lowest) QP whose qpn matches: a one-hot of the matches, encoded by OR (log depth), not a
  // chain of 16 muxes; every QP's PSN class, length checks against its context and READ packet count are
  // computed in parallel with the search, the first match's selected through the one-hot.
  rdma_pkg::qp_cfg_t qc;
  logic [nt_pkg::RdmaQps-1:0] qp_hits, lk_sel_d, lk_sel_q;  // the matches; the found QP's one-hot (QP 0 if none)
  logic [15:0]       lg_hot;  // the QP's mtu_log2 as a one-hot: the per-lg terms' AND-OR (no 16-way shifter)
  logic              qp_hit, qp_lower, qp_sel, ahead;
  logic [23:0]       d, qf_epsn;
  logic [31:0]       qf_wrem, qf_sroom;
  logic              lk_ahead_d, lk_ahead_q, lk_new_d, lk_new_q, lk_wgt_d, lk_wgt_q, lk_wne_d, lk_wne_q;
  logic              lk_sgt_d, lk_sgt_q, lk_mgt_d, lk_mgt_q, lk_mne_d, lk_mne_q, lk_short_d, lk_short_q;
  logic [31:0]       lk_npk_d, lk_npk_q;
  always_comb begin
    qp_lower   = 1'b0;
    lk_qi_d    = '0;
    lk_ahead_d = 1'b0;
    lk_new_d   = 1'b0;
    lk_wgt_d   = 1'b0;
    lk_wne_d   = 1'b0;
    lk_sgt_d   = 1'b0;
    lk_mgt_d   = 1'b0;
    lk_mne_d   = 1'b0;
    lk_short_d = 1'b0;
    lk_npk_d   = '0;
    for (int i = 0; i < nt_pkg::RdmaQps; i++) begin
      qc         = qp_cfg(i);
      qp_hits[i] = qc.valid && qc.qpn == req_i.dqpn;
    end
    for (int i = 0; i < nt_pkg::RdmaQps; i++) begin
      qc       = qp_cfg(i);
      {qf_epsn, qf_wrem, qf_sroom} = qp_fix(i);
      qp_hit   = qp_hits[i];
      qp_lower = (qp_hits & ((nt_pkg::RdmaQps'(1) << i) - nt_pkg::RdmaQps'(1))) != '0;  // a lower QP matches
      qp_sel   = qp_hit && !qp_lower;
      lk_sel_d[i] = qp_sel;
      lk_qi_d  = lk_qi_d | (4'(i) & {4{qp_sel}});
      lg_hot   = 16'd1 << qc.mtu_log2;
      d      = req_i.psn - qf_epsn;
      ahead  = d != 0 && d < PsnHalf;
      lk_ahead_d = lk_ahead_d | (qp_sel & ahead);
      lk_new_d   = lk_new_d | (qp_sel & (req_i.psn == qf_epsn));
      lk_wgt_d   = lk_wgt_d | (qp_sel & lt32(qf_wrem, req_i.plen));
      lk_wne_d   = lk_wne_d | (qp_sel & (req_i.plen != qf_wrem));
      lk_sgt_d   = lk_sgt_d | (qp_sel & lt32(qf_sroom, req_i.plen));
      lk_mgt_d   = lk_mgt_d | (qp_sel & |(mtu_gt_lg & lg_hot));
      lk_mne_d   = lk_mne_d | (qp_sel & |(mtu_ne_lg & lg_hot));
      lk_short_d = lk_short_d | (qp_sel & |(short_lg & lg_hot));
      for (int lg = 0; lg < 16; lg++) lk_npk_d = lk_npk_d | (npk_lg[lg] & {32{qp_sel && lg_hot[lg]}});
    end
    lk_found_d  = qp_hits != '0;
    lk_sel_d[0] = lk_sel_d[0] | !lk_found_d;  // qi = 0 when no QP matches, as the encoded lk_qi_d
  end

  // The request against itself.
  logic lk_fgt_d, lk_fgt_q, lk_fne_d, lk_fne_q;
  assign lk_fgt_d = lt32(req_i.dmalen, req_i.plen);
  assign lk_fne_d = req_i.plen != req_i.dmalen;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      lk_found_q   <= 1'b0;
      lk_qi_q      <= '0;
      lk_sel_q     <= nt_pkg::RdmaQps'(1);
      lk_first_q   <= '0;
      lk_ok_q      <= '0;
      lk_delta_q   <= '0;
      lk_va_plen_q <= '0;
      lk_ahead_q   <= 1'b0;
      lk_new_q     <= 1'b0;
      lk_wgt_q     <= 1'b0;
      lk_wne_q     <= 1'b0;
      lk_sgt_q     <= 1'b0;
      lk_mgt_q     <= 1'b0;
      lk_mne_q     <= 1'b0;
      lk_short_q   <= 1'b0;
      lk_npk_q     <= '0;
      lk_fgt_q     <= 1'b0;
      lk_fne_q     <= 1'b0;
    end else if (lookup_i) begin
      lk_found_q   <= lk_found_d;
      lk_qi_q      <= lk_qi_d;
      lk_sel_q     <= lk_sel_d;
      lk_first_q   <= lk_first_d;
      lk_ok_q      <= lk_ok_d;
      lk_delta_q   <= lk_delta_d;
      lk_va_plen_q <= lk_va_plen_d;
      lk_ahead_q   <= lk_ahead_d;
      lk_new_q     <= lk_new_d;
      lk_wgt_q     <= lk_wgt_d;
      lk_wne_q     <= lk_wne_d;
      lk_sgt_q     <= lk_sgt_d;
      lk_mgt_q     <= lk_mgt_d;
      lk_mne_q     <= lk_mne_d;
      lk_short_q   <= lk_short_d;
      lk_npk_q     <= lk_npk_d;
      lk_fgt_q     <= lk_fgt_d;
      lk_fne_q     <= lk_fne_d;
    end
  end

  // ---- Cycle 2: the decision, from the lookup's registers and the current QP context ----
  // The MR's translation (pa 0, and the WRITE's next pa plen, when the check failed: the zero-length case).
  logic [63:0] mr_pa, mr_pa_plen;
  logic        mr_ok_sel;
  always_comb begin
    mr_ok_sel  = |(lk_first_q & lk_ok_q);
    mr_pa      = mr_ok_sel ? add64(lk_delta_q, req_i.va) : 64'd0;
    mr_pa_plen = mr_ok_sel ? add64(lk_delta_q, lk_va_plen_q) : 64'(req_i.plen);
  end

`ifndef SYNTHESIS
  logic       aq_ref_ok;  // aq_best equals aq_best_ref on the QP aq_select reads, where its answer is used
`endif
  always_comb begin
`ifndef SYNTHESIS
    aq_ref_ok = 1'b1;
`endif
    job       = '0;
    job.kind  = rdma_pkg::JobDrop;
    desc      = '0;
    q         = '0;
    processed = 1'b0;
    ack       = 1'b0;
    nak       = 1'b0;
    done      = 1'b0;
    found_qp  = 1'b0;
    qi        = '0;
    is_ahead  = 1'b0;
    is_new    = 1'b0;
    plen      = req_i.plen;
    mtu       = '0;
    syn       = '0;
    pa        = '0;
    first     = req_i.opcode == 8'h06;
    middle    = req_i.opcode == 8'h07;
    only      = req_i.opcode == 8'h0a || req_i.opcode == 8'h0b;
    last      = req_i.opcode == 8'h08 || req_i.opcode == 8'h09;
    write     = req_i.opcode >= 8'h06 && req_i.opcode <= 8'h0b;
    read      = req_i.opcode == 8'h0c;
    atomic    = req_i.opcode == 8'h13 || req_i.opcode == 8'h14;
    send      = req_i.opcode <= 8'h05;
    write_imm = req_i.opcode == 8'h09 || req_i.opcode == 8'h0b;
    s_first   = req_i.opcode == 8'h00;
    s_middle  = req_i.opcode == 8'h01;
    s_last    = req_i.opcode == 8'h02 || req_i.opcode == 8'h03;
    s_only    = req_i.opcode == 8'h04 || req_i.opcode == 8'h05;
    s_imm     = req_i.opcode == 8'h03 || req_i.opcode == 8'h05;
    stop      = 1'b0;
    takes_wqe = s_first || s_only || write_imm;
    found_qp = lk_found_q;
    qi       = lk_qi_q;
    // The found QP's context and WQE through the registered one-hot (an AND-OR: a plain index by qi became
    // a barrel shifter over the 16 contexts in Yosys).
    q   = '0;
    wqe = '0;
    for (int i = 0; i < nt_pkg::RdmaQps; i++) begin
      q   = q | ({rdma_pkg::QpStateBits{lk_sel_q[i]}} & qps_i[i]);
      wqe = wqe | ({rdma_pkg::WqeBits{lk_sel_q[i]}} & wqe_i[i]);
    end
    if (~crc_i != icrc_rx_i) begin
      job.drop = 4'(rdma_pkg::DropBadIcrc);
      done     = 1'b1;
    end else if (req_i.opcode == 8'h81) begin  // CNP: counted, nothing to answer
      job.drop = 4'(rdma_pkg::DropCnp);
      done     = 1'b1;
    end else if (!found_qp) begin
      job.drop = 4'(rdma_pkg::DropUnknownQp);
      done     = 1'b1;
    end else if (req_i.opcode >= 8'h0d && req_i.opcode <= 8'h12) begin
      job.drop = 4'(rdma_pkg::DropNotRequest);
      done     = 1'b1;
    end else begin
      is_ahead = lk_ahead_q;
      is_new   = lk_new_q;
      if (is_ahead && q.nak_sent) begin
        job.drop = 4'(rdma_pkg::DropPsnAhead);
        done     = 1'b1;
      end
    end
    if (!done) begin
      processed    = 1'b1;
      job.qp       = qi;
      job.psn      = req_i.psn;
      mtu          = 32'd1 << q.cfg.mtu_log2;
      job.mtu      = mtu;
      desc.v6      = req_i.v6;
      desc.dst_mac = req_i.src_mac;
      desc.src_mac = resp_i.mac;
      desc.dst_ip4 = req_i.src_ip4;
      desc.src_ip4 = resp_i.ip4;
      desc.dst_ip6 = req_i.src_ip6;
      desc.src_ip6 = resp_i.ip6;
      desc.sport   = req_i.sport;
      desc.dqpn    = q.cfg.dest_qp;
      desc.psn     = req_i.psn;
      desc.opcode  = 8'h11;
      desc.syndrome = SynAck;
      desc.msn     = q.msn;
      if (is_ahead) begin
        // Go-Back-N: one PSN sequence error NAK carrying the ePSN, then silence until it arrives.
        job.kind      = rdma_pkg::JobRespond;
        desc.syndrome = SynSeq;
        desc.psn      = q.epsn;
        q.nak_sent    = 1'b1;
        nak           = 1'b1;
      end else begin
        if (is_new) q.nak_sent = 1'b0;
        stop = 1'b0;
        if (!is_new) begin  // duplicates: never re-executed
          if (write || send) begin
            job.kind = rdma_pkg::JobRespond;
            ack      = 1'b1;
            stop     = 1'b1;
          end else if (atomic) begin
            desc.opcode = 8'h12;
            job.kind    = rdma_pkg::JobAtomicDup;
            aq_select(q, req_i.psn, resp_i.aq_linear, job.grp, job.grps_left);
`ifndef SYNTHESIS
            aq_ref_ok = aq_best(q, req_i.psn) == aq_best_ref(q, req_i.psn);
`endif
            if (job.grps_left == 0) begin
              job.kind      = rdma_pkg::JobRespond;
              desc.opcode   = 8'h11;
              desc.syndrome = SynInv;
              nak           = 1'b1;
            end
            stop = 1'b1;
          end
        end
        if (!stop) begin
          // Validation: 1 opcode sequence, 2 lengths, 3 memory region, 4 alignment, 5 resources,
          // then the receive queue for requests that consume a WQE.
          syn = 8'h00;
          if (is_new) begin
            if ((middle || last) ? !q.w_open : (s_middle || s_last) ? !q.s_open : (q.w_open || q.s_open)) begin
              syn = SynInv;
            end
          end
          if (syn == 8'h00 && is_new) begin
            if (lk_mgt_q || ((first || middle || s_first || s_middle) && lk_mne_q)) syn = SynInv;
            else if (first && lk_fgt_q) syn = SynInv;
            else if (only && lk_fne_q) syn = SynInv;
            else if (middle && lk_wgt_q) syn = SynInv;
            else if (last && lk_wne_q) syn = SynInv;
            else if ((read || atomic) && plen != 0) syn = SynInv;
          end
          if (syn == 8'h00 && read && req_i.dmalen > 32'h80000000) syn = SynInv;
          // IBA C9-88: a failed MR check of a zero-length READ or WRITE is ignored (pa 0 then).
          if (syn == 8'h00 && (read || (write && !(middle || last)))) begin
            syn = mr_ok_sel ? 8'h00 : SynAcc;
            pa  = mr_pa;
            if (req_i.dmalen == 32'd0) syn = 8'h00;
          end
          if (syn == 8'h00 && atomic) begin
            syn = mr_ok_sel ? 8'h00 : SynAcc;
            pa  = mr_pa;
            if (syn == 8'h00 && req_i.va[2:0] != 3'd0) syn = SynInv;
          end
          if (syn == 8'h00 && is_new && (read || atomic) && q.cfg.max_rd_atomic == 0) syn = SynInv;
          if (syn == 8'h00 && (s_first || s_only || write_imm)) begin
            if (!q.queues.valid) syn = SynInv;
            else if (q.rq_head == q.queues.rq_posted) syn = {3'b001, q.queues.rnr_timer};
          end
          if (syn == 8'h00 && (s_middle || s_last) && lk_sgt_q) syn = SynInv;
          // SEND first/only: a payload longer than the WQE's buffer is NAKed, the WQE not consumed.
          if (syn == 8'h00 && (s_first || s_only) && wqe_ready_i[qi] && lt32(wqe.len, plen)) syn = SynInv;
          job.imm = req_i.imm;
          if (syn == 8'h00 && takes_wqe && !wqe_ready_i[qi]) begin
            // Posted but not prefetched yet: wait for it (no side effect is applied).
            job.kind = rdma_pkg::JobWait;
          end else if (syn != 8'h00) begin
            job.kind      = rdma_pkg::JobRespond;
            desc.syndrome = syn;
            nak           = 1'b1;
            if (is_new) q.nak_sent = 1'b1;
          end else if (send) begin
            job.cqe_opcode = 8'd0;
            job.cqe_imm    = s_imm;
            job.ack        = req_i.ackreq || !(s_first || s_middle);
            q.epsn = 24'(add64(64'(q.epsn), 64'd1));
            if (s_first) begin  // the message stays open on this WQE
              job.pa    = wqe.addr;
              q.s_open  = 1'b1;
              q.s_addr  = add64(wqe.addr, 64'(plen));
              q.s_room  = 32'(sub64(64'(wqe.len), 64'(plen)));
              q.s_total = plen;
              q.s_wr_id = wqe.wr_id;
            end else if (s_only) begin
              job.pa        = wqe.addr;
              q.msn         = 24'(add64(64'(q.msn), 64'd1));
              q.rq_head     = q.rq_head + 1;
              job.cqe       = 1'b1;
              job.cqe_wr_id = wqe.wr_id;
              job.cqe_len   = plen;
            end else begin
              job.pa    = q.s_addr;
              q.s_addr  = add64(q.s_addr, 64'(plen));
              q.s_room  = 32'(sub64(64'(q.s_room), 64'(plen)));
              q.s_total = 32'(add64(64'(q.s_total), 64'(plen)));
              if (s_last) begin
                q.s_open      = 1'b0;
                q.msn         = 24'(add64(64'(q.msn), 64'd1));
                q.rq_head     = q.rq_head + 1;
                job.cqe       = 1'b1;
                job.cqe_wr_id = q.s_wr_id;
                job.cqe_len   = q.s_total;
              end
            end
            desc.msn = q.msn;
            ack      = job.ack;
            job.kind = rdma_pkg::JobWrite;
          end else if (write) begin
            if (middle || last) pa = q.w_pa;
            job.pa = pa;
            q.epsn = 24'(add64(64'(q.epsn), 64'd1));
            if (first) q.w_dmalen = req_i.dmalen;
            if (first || middle) begin
              q.w_remaining = 32'(sub64(first ? 64'(req_i.dmalen) : 64'(q.w_remaining), 64'(plen)));
              q.w_open      = 1'b1;
              q.w_pa        = middle ? add64(q.w_pa, 64'(plen)) : mr_pa_plen;
            end else begin
              q.w_open = 1'b0;
              q.msn    = 24'(add64(64'(q.msn), 64'd1));
            end
            if (write_imm) begin
              q.rq_head       = q.rq_head + 1;
              job.cqe_wr_id   = wqe.wr_id;
              job.cqe         = 1'b1;
              job.cqe_opcode  = 8'd1;
              job.cqe_imm     = 1'b1;
              job.cqe_len     = only ? req_i.dmalen : q.w_dmalen;
            end
            job.ack  = req_i.ackreq || !(first || middle);
            desc.msn = q.msn;
            ack      = job.ack;
            job.kind = rdma_pkg::JobWrite;
          end else if (read) begin
            job.kind  = rdma_pkg::JobRead;
            job.pa    = pa;
            job.len   = req_i.dmalen;
            job.npkts = (req_i.dmalen == 0) ? 32'd1 : lk_npk_q;
            if (is_new) begin
              q.epsn = 24'(add64(64'(q.epsn), 64'(job.npkts)));
              q.msn  = 24'(add64(64'(q.msn), 64'd1));
            end
            desc.msn    = q.msn;
            desc.opcode = (job.npkts == 1) ? 8'h10 : 8'h0d;
            desc.plen   = 16'(lk_short_q ? req_i.dmalen : mtu);
          end else begin
            job.kind    = rdma_pkg::JobAtomic;
            job.pa      = pa;
            job.opcode  = req_i.opcode;
            job.swap    = req_i.swap;
            job.compare = req_i.compare;
            q.epsn      = 24'(add64(64'(q.epsn), 64'd1));
            q.msn       = 24'(add64(64'(q.msn), 64'd1));
            desc.opcode = 8'h12;
            desc.msn    = q.msn;
          end
        end
      end
    end
  end

  // a % n for a, n < 16 (n = 0 gives 0; no caller reaches it), as a table of its 8 input bits: a QP's
  // aq_groups is a config field, and an `int` `%` by it was an array divider (hundreds of levels).
  function automatic logic [3:0] mod16(logic [3:0] a, logic [3:0] n);
    mod16 = '0;
    // (an OR of disjoint terms, which ABC balances, not a chain of 225 muxes)
    for (int av = 0; av < 16; av++) begin
      for (int nv = 1; nv < 16; nv++) begin
        mod16 = mod16 | (4'(av % nv) & {4{a == 4'(av) && n == 4'(nv)}});
      end
    end
  endfunction

  // AQ group to read for a duplicate atomic (grouped: the newest group starting at or before psn;
  // linear: the oldest valid group, with the number of valid groups to try).
  // The best group is the first of the groups with the least ds = epsn - grp_psn among those with ds >= dp =
  // epsn - psn; each group's ds is compared with every other's in parallel (group i wins if every candidate
  // before it has a larger ds and none after it a smaller one), which selects the same group as a scan keeping
  // the first strict minimum, without 8 comparisons in series. No ds is formed: with w_i = epsn < grp_psn[i]
  // (ds_i wrapped), ds_i >= ds_j iff (w_i and not w_j) or (w_i == w_j and grp_psn[j] >= grp_psn[i]), and the
  // same with psn for dp; so every compare reads the QP's fields directly, in parallel, instead of comparing
  // the results of 24-bit subtracts (two carry chains in series behind the found QP's AND-OR; issue 27).
  // {any, best}; checked against the subtracting form (aq_best_ref, SVA aq_select_eq;
  // docs/rdma-microarchitecture.md "aq_select without subtracts").
  // verilator lint_off UNUSEDSIGNAL
  // (the functions take a whole QP state and read only the AQ fields)
  function automatic logic [3:0] aq_best(rdma_pkg::qp_state_t qs, logic [23:0] psn);
    logic [nt_pkg::RdmaAqMaxGroups-1:0] vg, cand, win, wr;
    logic [nt_pkg::RdmaAqMaxGroups-1:0][nt_pkg::RdmaAqMaxGroups-1:0] ge;  // ge[j][i]: grp_psn[j] >= grp_psn[i]
    logic [2:0] best;
    logic       wp;
    wp = qs.epsn < psn;
    for (int i = 0; i < nt_pkg::RdmaAqMaxGroups; i++) begin
      vg[i]   = 4'(i) < qs.cfg.aq_groups && qs.grp_valid[i];
      wr[i]   = qs.epsn < qs.grp_psn[i];
      cand[i] = vg[i] && ((wr[i] && !wp) || (wr[i] == wp && psn >= qs.grp_psn[i]));
      for (int j = 0; j < nt_pkg::RdmaAqMaxGroups; j++) ge[j][i] = qs.grp_psn[j] >= qs.grp_psn[i];
    end
    best = '0;
    for (int i = 0; i < nt_pkg::RdmaAqMaxGroups; i++) begin
      win[i] = cand[i];
      for (int j = 0; j < nt_pkg::RdmaAqMaxGroups; j++) begin
        // j before i: ds_j <= ds_i; j after i: ds_j < ds_i (not ds_j >= ds_i)
        if (j < i && cand[j] && ((wr[i] && !wr[j]) || (wr[i] == wr[j] && ge[j][i]))) win[i] = 1'b0;
        if (j > i && cand[j] && ((wr[i] && !wr[j]) || (wr[i] == wr[j] && !ge[i][j]))) win[i] = 1'b0;
      end
      best = best | (3'(i) & {3{win[i]}});
    end
    aq_best = {|cand, best};
  endfunction
  // The rest of the choice: the lapped AQ's fallback, and linear mode. aq_wr / 64 and aq_wr % 64 of the 9-bit
  // aq_wr are bit slices.
  task automatic aq_select(input rdma_pkg::qp_state_t qs, input logic [23:0] psn, input logic linear,
                           output logic [2:0] grp, output logic [3:0] left);
    logic [nt_pkg::RdmaAqMaxGroups-1:0] hit;
    logic [nt_pkg::RdmaAqMaxGroups-1:0][3:0] idx;
    logic [2:0] best, w, g;
    logic       any, seen;
    logic [3:0] valid;
    {any, best} = aq_best(qs, psn);
    valid = '0;
    for (int i = 0; i < nt_pkg::RdmaAqMaxGroups; i++) begin
      valid = valid + 4'(4'(i) < qs.cfg.aq_groups && qs.grp_valid[i]);
    end
    // Older than every group start: after the AQ wrapped, the oldest results still kept are the tail of
    // the group being overwritten now. Before it wrapped (since the QP entry was written) that tail holds
    // nothing of this QP's (an earlier QP's results at the same AQ address): no group.
    w = qs.aq_wr[8:6];
    if (!any && qs.aq_lapped && qs.grp_valid[w]) begin
      best = w;
      any  = 1'b1;
    end
    // Linear: the first valid group at or after g in the order g, g+1, ... (mod n); every step's group
    // (g + s) % n from the table, the first hit by a one-hot (valid > 0 implies n >= 1). A group number of
    // 8 or more (only for n > 8, which the configuration never writes) reads grp_valid as 0.
    g    = (qs.aq_wr[5:0] == 6'd0) ? w : 3'(mod16({1'b0, w} + 4'd1, qs.cfg.aq_groups));
    seen = 1'b0;
    grp  = '0;
    for (int s = 0; s < nt_pkg::RdmaAqMaxGroups; s++) begin
      idx[s] = mod16({1'b0, g} + 4'(s), qs.cfg.aq_groups);
      hit[s] = 4'(s) < qs.cfg.aq_groups && !idx[s][3] && qs.grp_valid[idx[s][2:0]];
      if (linear && valid != 4'd0) grp = grp | (idx[s][2:0] & {3{hit[s] && !seen}});
      seen = seen | hit[s];
    end
    if (linear && valid != 4'd0) begin
      left = valid;
    end else begin
      grp  = any ? best : 3'd0;
      left = any ? 4'd1 : 4'd0;
    end
  endtask
`ifndef SYNTHESIS
  // The form aq_best replaces (simulation only: SVA aq_select_eq).
  function automatic logic [3:0] aq_best_ref(rdma_pkg::qp_state_t qs, logic [23:0] psn);
    logic [23:0] dp;
    logic [nt_pkg::RdmaAqMaxGroups-1:0][23:0] ds;
    logic [nt_pkg::RdmaAqMaxGroups-1:0] vg, cand, win;
    logic [2:0] best;
    dp = qs.epsn - psn;
    for (int i = 0; i < nt_pkg::RdmaAqMaxGroups; i++) begin
      vg[i]   = 4'(i) < qs.cfg.aq_groups && qs.grp_valid[i];
      ds[i]   = qs.epsn - qs.grp_psn[i];
      cand[i] = vg[i] && ds[i] >= dp;
    end
    best = '0;
    for (int i = 0; i < nt_pkg::RdmaAqMaxGroups; i++) begin
      win[i] = cand[i];
      for (int j = 0; j < nt_pkg::RdmaAqMaxGroups; j++) begin
        if (j < i && cand[j] && ds[j] <= ds[i]) win[i] = 1'b0;
        if (j > i && cand[j] && ds[j] < ds[i]) win[i] = 1'b0;
      end
      best = best | (3'(i) & {3{win[i]}});
    end
    aq_best_ref = {|cand, best};
  endfunction
`endif
  // verilator lint_on UNUSEDSIGNAL

  // Used by the parser or the execution stages instead.
  logic unused_in;
  assign unused_in = ^{req_i.drop, req_i.pad, req_i.frame_end, resp_i.has_ip4,
                       resp_i.has_ip6, req_i.hdr_len,
                       qc};  // the QP search reads only its valid and qpn

`include "nt_assert.svh"
  `NT_ASSERT(aq_select_eq, aq_ref_ok)
  assign job_o       = job;
  assign desc_o      = desc;
  assign qp_o        = q;
  assign processed_o = processed;
  assign ack_o       = ack;
  assign nak_o       = nak;
endmodule
