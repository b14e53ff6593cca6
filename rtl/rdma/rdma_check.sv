// The responder's decision for one buffered request: drop, or the job to run, its response and the QP's
// new state (docs/rdma.md "Request processing"), in two cycles (docs/rdma-microarchitecture.md "rdma_check's
// structure"): with lookup_i (rdma_top's StLookup) it registers what depends on the request and the QP and
// MR tables' keys only (the QP search, the MR search with its verdict and translation, the request's own
// sums); the next cycle (StCheck) the outputs decide from those registers, the request and the current QP
// context, combinationally. rdma_top repeats the lookup when a QP or MR table write makes its registers
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
  logic      processed, ack, nak, done, found_qp, ahead, is_new, first, middle, last, only, stop;
  logic      write, read, atomic, send, write_imm, s_first, s_middle, s_last, s_only, s_imm;
  logic [3:0] qi;
  logic [23:0] d;
  logic [31:0] plen, mtu;
  logic [7:0]  syn;
  logic [63:0] pa;
  logic        takes_wqe;
  rdma_pkg::wqe_t        wqe;

  // 64-bit sum in 16-bit pieces, each piece's carry-select pair (without and with a carry in: {a, 1} +
  // {b, 1} is 2 (a + b + 1)) chosen by the carry into it: four 16-bit carry chains side by side, not one of
  // 64 bits (as naa_ctl's add64c).
  // verilator lint_off UNUSEDSIGNAL
  function automatic logic [63:0] add64(logic [63:0] a, logic [63:0] b);
    logic [16:0] s0;
    logic [17:0] s1;  // (bit 0 is always 0)
    logic        c;
    add64 = '0;
    c     = 1'b0;
    for (int k = 0; k < 4; k++) begin
      s0 = {1'b0, a[16*k+:16]} + {1'b0, b[16*k+:16]};
      s1 = {1'b0, a[16*k+:16], 1'b1} + {1'b0, b[16*k+:16], 1'b1};
      add64[16*k+:16] = c ? s1[16:1] : s0[15:0];
      c = c ? s1[17] : s0[16];
    end
  endfunction
  // verilator lint_on UNUSEDSIGNAL

  // ---- Cycle 1 (lookup_i): what depends on the request and the tables' keys only, registered ----
  // The MR check (docs/rdma.md "Request processing"), made once for the one request class that uses it: READ
  // (right r, length dmalen), WRITE first/only (right w, length dmalen) or atomic (right a, length 8); the
  // classes are exclusive by opcode, so one search serves them all. Every MR's rights and range checks are
  // computed in parallel with the rkey search, and the first (lowest) matching MR is then selected through
  // a one-hot: no priority chain of 48 muxes. Registered: its verdict and its pa - va.
  //   range_bad = va < mr.va || len > mr.len || va - mr.va > mr.len - len, where the third term (given the
  //   first two are false) is va + len > mr.va + mr.len in 65 bits; pa = mr.pa + (va - mr.va) is
  //   (mr.pa - mr.va) + va modulo 2^64, and the WRITE's next pa + plen is (mr.pa - mr.va) + (va + plen).
  logic [nt_pkg::RdmaMrs-1:0]        mr_hit, mr_first, mr_ok;
  logic [nt_pkg::RdmaMrs-1:0][63:0]  mr_delta;
  logic [63:0] mr_len;
  logic [64:0] va_end;
  logic        lower;
  rdma_pkg::mr_t mr;  // (module level: Yosys 0.55 reads no declaration inside an unnamed always_comb)
  logic              lk_found_d, lk_found_q, lk_mr_ok_d, lk_mr_ok_q;
  logic [3:0]        lk_qi_d, lk_qi_q;
  logic [63:0]       lk_delta_d, lk_delta_q, lk_va_plen_d, lk_va_plen_q;
  logic [15:0][31:0] lk_npk_d, lk_npk_q;
  logic [15:0]       lk_short_d, lk_short_q;
  always_comb begin
    mr_len  = (req_i.opcode == 8'h13 || req_i.opcode == 8'h14) ? 64'd8 : 64'(req_i.dmalen);
    va_end  = {1'b0, req_i.va} + {1'b0, mr_len};
    lower   = 1'b0;
    for (int i = 0; i < nt_pkg::RdmaMrs; i++) begin
      mr          = mrs_i[i];
      mr_hit[i]   = mr.valid && mr.rkey == req_i.rkey;
      mr_first[i] = mr_hit[i] && !lower;
      lower       = lower | mr_hit[i];
      mr_ok[i]    = (req_i.opcode == 8'h0c ? mr.r : (req_i.opcode == 8'h13 || req_i.opcode == 8'h14) ? mr.a : mr.w) &&
                    !(req_i.va < mr.va || mr_len > 64'(mr.len) || va_end > {1'b0, mr.va} + 65'(mr.len));
      mr_delta[i] = mr.pa - mr.va;
    end
    lk_mr_ok_d = 1'b0;
    lk_delta_d = '0;
    for (int i = 0; i < nt_pkg::RdmaMrs; i++) begin
      lk_mr_ok_d = lk_mr_ok_d | (mr_first[i] & mr_ok[i]);
      lk_delta_d = lk_delta_d | (mr_delta[i] & {64{mr_first[i]}});
    end
    lk_va_plen_d = add64(req_i.va, 64'(req_i.plen));
  end

  // The packet count of a READ, ceil(dmalen / 2^lg) for every lg a QP's mtu_log2 may hold, from the request
  // alone ((dmalen + 2^lg - 1) >> lg without the 64-bit add and the barrel shift after it); the QP's
  // mtu_log2 selects one in cycle 2. dmalen < 2^lg likewise.
  always_comb begin
    for (int lg = 0; lg < 16; lg++) begin
      lk_npk_d[lg]   = (req_i.dmalen >> lg) + 32'((req_i.dmalen & ((32'd1 << lg) - 32'd1)) != 32'd0);
      lk_short_d[lg] = (req_i.dmalen >> lg) == 32'd0;
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

  // The first (lowest) QP whose qpn matches: a one-hot of the matches, encoded by OR (log depth), not a
  // chain of 16 muxes.
  rdma_pkg::qp_cfg_t qc;
  logic              qp_hit, qp_lower;
  always_comb begin
    qp_lower = 1'b0;
    lk_qi_d  = '0;
    for (int i = 0; i < nt_pkg::RdmaQps; i++) begin
      qc       = qp_cfg(i);
      qp_hit   = qc.valid && qc.qpn == req_i.dqpn;
      lk_qi_d  = lk_qi_d | (4'(i) & {4{qp_hit && !qp_lower}});
      qp_lower = qp_lower | qp_hit;
    end
    lk_found_d = qp_lower;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      lk_found_q   <= 1'b0;
      lk_qi_q      <= '0;
      lk_mr_ok_q   <= 1'b0;
      lk_delta_q   <= '0;
      lk_va_plen_q <= '0;
      lk_npk_q     <= '0;
      lk_short_q   <= '0;
    end else if (lookup_i) begin
      lk_found_q   <= lk_found_d;
      lk_qi_q      <= lk_qi_d;
      lk_mr_ok_q   <= lk_mr_ok_d;
      lk_delta_q   <= lk_delta_d;
      lk_va_plen_q <= lk_va_plen_d;
      lk_npk_q     <= lk_npk_d;
      lk_short_q   <= lk_short_d;
    end
  end

  // ---- Cycle 2: the decision, from the lookup's registers and the current QP context ----
  // The MR's translation (pa 0, and the WRITE's next pa plen, when the check failed: the zero-length case).
  logic [63:0] mr_pa, mr_pa_plen;
  always_comb begin
    mr_pa      = lk_mr_ok_q ? add64(lk_delta_q, req_i.va) : 64'd0;
    mr_pa_plen = lk_mr_ok_q ? add64(lk_delta_q, lk_va_plen_q) : 64'(req_i.plen);
  end

  always_comb begin
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
    d         = '0;
    ahead     = 1'b0;
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
    q = qps_i[qi];
    wqe = wqe_i[qi];
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
      d      = req_i.psn - q.epsn;
      ahead  = d != 0 && d < PsnHalf;
      is_new = d == 0;
      if (ahead && q.nak_sent) begin
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
      if (ahead) begin
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
            if (plen > mtu || ((first || middle || s_first || s_middle) && plen != mtu)) syn = SynInv;
            else if (first && plen > req_i.dmalen) syn = SynInv;
            else if (only && plen != req_i.dmalen) syn = SynInv;
            else if (middle && plen > q.w_remaining) syn = SynInv;
            else if (last && plen != q.w_remaining) syn = SynInv;
            else if ((read || atomic) && plen != 0) syn = SynInv;
          end
          if (syn == 8'h00 && read && req_i.dmalen > 32'h80000000) syn = SynInv;
          // IBA C9-88: a failed MR check of a zero-length READ or WRITE is ignored (pa 0 then).
          if (syn == 8'h00 && (read || (write && !(middle || last)))) begin
            syn = lk_mr_ok_q ? 8'h00 : SynAcc;
            pa  = mr_pa;
            if (req_i.dmalen == 32'd0) syn = 8'h00;
          end
          if (syn == 8'h00 && atomic) begin
            syn = lk_mr_ok_q ? 8'h00 : SynAcc;
            pa  = mr_pa;
            if (syn == 8'h00 && req_i.va[2:0] != 3'd0) syn = SynInv;
          end
          if (syn == 8'h00 && is_new && (read || atomic) && q.cfg.max_rd_atomic == 0) syn = SynInv;
          if (syn == 8'h00 && (s_first || s_only || write_imm)) begin
            if (!q.queues.valid) syn = SynInv;
            else if (q.rq_head == q.queues.rq_posted) syn = {3'b001, q.queues.rnr_timer};
          end
          if (syn == 8'h00 && (s_middle || s_last) && plen > q.s_room) syn = SynInv;
          // SEND first/only: a payload longer than the WQE's buffer is NAKed, the WQE not consumed.
          if (syn == 8'h00 && (s_first || s_only) && wqe_ready_i[qi] && plen > wqe.len) syn = SynInv;
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
            q.epsn = q.epsn + 1;
            if (s_first) begin  // the message stays open on this WQE
              job.pa    = wqe.addr;
              q.s_open  = 1'b1;
              q.s_addr  = add64(wqe.addr, 64'(plen));
              q.s_room  = wqe.len - plen;
              q.s_total = plen;
              q.s_wr_id = wqe.wr_id;
            end else if (s_only) begin
              job.pa        = wqe.addr;
              q.msn         = q.msn + 1;
              q.rq_head     = q.rq_head + 1;
              job.cqe       = 1'b1;
              job.cqe_wr_id = wqe.wr_id;
              job.cqe_len   = plen;
            end else begin
              job.pa    = q.s_addr;
              q.s_addr  = add64(q.s_addr, 64'(plen));
              q.s_room  = q.s_room - plen;
              q.s_total = q.s_total + plen;
              if (s_last) begin
                q.s_open      = 1'b0;
                q.msn         = q.msn + 1;
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
            q.epsn = q.epsn + 1;
            if (first) q.w_dmalen = req_i.dmalen;
            if (first || middle) begin
              q.w_remaining = (first ? req_i.dmalen : q.w_remaining) - plen;
              q.w_open      = 1'b1;
              q.w_pa        = middle ? add64(q.w_pa, 64'(plen)) : mr_pa_plen;
            end else begin
              q.w_open = 1'b0;
              q.msn    = q.msn + 1;
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
            job.npkts = (req_i.dmalen == 0) ? 32'd1 : lk_npk_q[q.cfg.mtu_log2];
            if (is_new) begin
              q.epsn = q.epsn + 24'(job.npkts);
              q.msn  = q.msn + 1;
            end
            desc.msn    = q.msn;
            desc.opcode = (job.npkts == 1) ? 8'h10 : 8'h0d;
            desc.plen   = 16'(lk_short_q[q.cfg.mtu_log2] ? req_i.dmalen : mtu);
          end else begin
            job.kind    = rdma_pkg::JobAtomic;
            job.pa      = pa;
            job.opcode  = req_i.opcode;
            job.swap    = req_i.swap;
            job.compare = req_i.compare;
            q.epsn      = q.epsn + 1;
            q.msn       = q.msn + 1;
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
  // The best group is the first of the groups with the least ds among those with ds >= dp; each group's
  // ds is compared with every other's in parallel (group i wins if every candidate before it has a larger
  // ds and none after it a smaller one), which selects the same group as a scan keeping the first strict
  // minimum, without 8 comparisons in series. aq_wr / 64 and aq_wr % 64 of the 9-bit aq_wr are bit slices.
  // verilator lint_off UNUSEDSIGNAL
  // (the task takes a whole QP state and reads only the AQ fields)
  task automatic aq_select(input rdma_pkg::qp_state_t qs, input logic [23:0] psn, input logic linear,
                           output logic [2:0] grp, output logic [3:0] left);
    logic [23:0] dp;
    logic [nt_pkg::RdmaAqMaxGroups-1:0][23:0] ds;
    logic [nt_pkg::RdmaAqMaxGroups-1:0] vg, cand, win, hit;
    logic [nt_pkg::RdmaAqMaxGroups-1:0][3:0] idx;
    logic [2:0] best, w, g;
    logic       any, seen;
    logic [3:0] valid;
    dp    = qs.epsn - psn;
    valid = '0;
    for (int i = 0; i < nt_pkg::RdmaAqMaxGroups; i++) begin
      vg[i]   = 4'(i) < qs.cfg.aq_groups && qs.grp_valid[i];
      ds[i]   = qs.epsn - qs.grp_psn[i];
      cand[i] = vg[i] && ds[i] >= dp;
      valid   = valid + 4'(vg[i]);
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
    any = |cand;
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
  // verilator lint_on UNUSEDSIGNAL

  // Used by the parser or the execution stages instead.
  logic unused_in;
  assign unused_in = ^{req_i.drop, req_i.pad, req_i.frame_end, resp_i.has_ip4,
                       resp_i.has_ip6, req_i.hdr_len,
                       qc};  // the QP search reads only its valid and qpn

  assign job_o       = job;
  assign desc_o      = desc;
  assign qp_o        = q;
  assign processed_o = processed;
  assign ack_o       = ack;
  assign nak_o       = nak;
endmodule
