// The responder's decision for one buffered request: drop, or the job to run, its response and the QP's
// new state (docs/rdma.md "Request processing"). Combinational; mirrors RdmaCycleModel::Check().
module rdma_check
(
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

  // 0 if the access is allowed (and *pa set), else the NAK syndrome.
  // (Each MR is read whole into mr_i, then its fields: Yosys 0.55 reads arr[i].field wrongly, docs/synthesis.md.)
  function automatic logic [7:0] mr_check(logic [nt_pkg::RdmaMrs-1:0][rdma_pkg::MrBits-1:0] mrs, logic [31:0] rkey,
                                          logic [1:0] right, logic [63:0] va, logic [63:0] len,
                                          output logic [63:0] pa_o);
    int m;
    logic ok;
    // verilator lint_off UNUSEDSIGNAL
    rdma_pkg::mr_t mr;  // (its valid and rkey are read from mr_i)
    // verilator lint_on UNUSEDSIGNAL
    rdma_pkg::mr_t mr_i;
    m    = -1;
    pa_o = '0;
    mr   = '0;
    for (int i = nt_pkg::RdmaMrs - 1; i >= 0; i--) begin
      mr_i = mrs[i];
      if (mr_i.valid && mr_i.rkey == rkey) begin
        m  = i;
        mr = mr_i;
      end
    end
    mr_check = SynAcc;
    if (m >= 0) begin
      ok = (right == 2'd0 && mr.r) || (right == 2'd1 && mr.w) || (right == 2'd2 && mr.a);
      if (ok && !(va < mr.va || len > 64'(mr.len) || va - mr.va > 64'(mr.len) - len)) begin
        pa_o = mr.pa + (va - mr.va);
        mr_check = 8'h00;
      end
    end
  endfunction

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

  rdma_pkg::qp_cfg_t qc;
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
    for (int i = nt_pkg::RdmaQps - 1; i >= 0; i--) begin
      qc = qp_cfg(i);
      if (qc.valid && qc.qpn == req_i.dqpn) begin
        qi       = 4'(i);
        found_qp = 1'b1;
      end
    end
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
            syn = mr_check(mrs_i, req_i.rkey, read ? 2'd0 : 2'd1, req_i.va, 64'(req_i.dmalen), pa);
            if (req_i.dmalen == 32'd0) syn = 8'h00;
          end
          if (syn == 8'h00 && atomic) begin
            syn = mr_check(mrs_i, req_i.rkey, 2'd2, req_i.va, 64'd8, pa);
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
              q.s_addr  = wqe.addr + 64'(plen);
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
              q.s_addr  = q.s_addr + 64'(plen);
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
              q.w_pa        = pa + 64'(plen);
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
            job.npkts = (req_i.dmalen == 0) ? 32'd1 : 32'((64'(req_i.dmalen) + 64'(mtu) - 1) >> q.cfg.mtu_log2);
            if (is_new) begin
              q.epsn = q.epsn + 24'(job.npkts);
              q.msn  = q.msn + 1;
            end
            desc.msn    = q.msn;
            desc.opcode = (job.npkts == 1) ? 8'h10 : 8'h0d;
            desc.plen   = 16'((req_i.dmalen < mtu) ? req_i.dmalen : mtu);
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

  // AQ group to read for a duplicate atomic (grouped: the newest group starting at or before psn;
  // linear: the oldest valid group, with the number of valid groups to try).
  // verilator lint_off UNUSEDSIGNAL
  // (the task takes a whole QP state and reads only the AQ fields)
  task automatic aq_select(input rdma_pkg::qp_state_t qs, input logic [23:0] psn, input logic linear,
                           output logic [2:0] grp, output logic [3:0] left);
    logic [23:0] dp, ds, best_ds;
    int best, valid, n, g;
    dp      = qs.epsn - psn;
    best    = -1;
    best_ds = '0;
    valid   = 0;
    n       = int'(qs.cfg.aq_groups);
    grp     = '0;
    left    = '0;
    for (int i = 0; i < nt_pkg::RdmaAqMaxGroups; i++) begin
      if (i < n && qs.grp_valid[i]) begin
        valid++;
        ds = qs.epsn - qs.grp_psn[i];
        if (ds >= dp && (best < 0 || ds < best_ds)) begin
          best    = i;
          best_ds = ds;
        end
      end
    end
    // Older than every group start: after the AQ wrapped, the oldest results still kept are the tail of
    // the group being overwritten now. Before it wrapped (since the QP entry was written) that tail holds
    // nothing of this QP's (an earlier QP's results at the same AQ address): no group.
    if (best < 0 && qs.aq_lapped && qs.grp_valid[int'(qs.aq_wr) / nt_pkg::RdmaAqGroup]) best = int'(qs.aq_wr) / nt_pkg::RdmaAqGroup;
    if (linear && valid > 0) begin
      g = (int'(qs.aq_wr) % nt_pkg::RdmaAqGroup == 0) ? int'(qs.aq_wr) / nt_pkg::RdmaAqGroup
                                              : (int'(qs.aq_wr) / nt_pkg::RdmaAqGroup + 1) % n;
      for (int s = nt_pkg::RdmaAqMaxGroups - 1; s >= 0; s--) begin
        if (s < n && qs.grp_valid[(g + s) % n]) grp = 3'((g + s) % n);
      end
      left = 4'(valid);
    end else begin
      grp  = 3'(best < 0 ? 0 : best);
      left = best < 0 ? 4'd0 : 4'd1;
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
