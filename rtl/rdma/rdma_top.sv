// RoCEv2 responder with an atomic ACK queue in host memory. Three stages:
//   receive: frames enter a ring of RdmaRxFrames frame buffers at one beat per cycle, the ICRC computed on
//            the fly, so the check is known with the last beat;
//   front end: one request at a time from the ring (nothing touches host memory before its ICRC has been
//            checked); issues its host reads and payload writes and queues its response(s):
//            Rx (parse) -> Lookup -> Check -> {WrDma | RdIssue | AtRead | AqIssue/AqWait} -> Rx, or from
//            the last DMA cycle of WrDma / RdIssue / AtRead straight to Lookup when the next frame, parsed
//            ahead, is complete and not dropped; a message's CQE goes into a one-entry buffer, written at the
//            next cycle the host port is free
//   back end: answers the in-flight queue (RdmaInflight entries) in PSN order, each entry once its read data
//            is back (an atomic once executed): Idle -> Send
//   atomic executor: the oldest queued atomic not executed yet, once its word is in (read, or forwarded on
//            chip from the atomic before it on the same word): Idle (compute) -> [AtWrite] -> AqWrite
//   WQE prefetch: per QP a ring of RdmaWqeRing receive WQEs, read ahead whenever the host port is free.
// State for state as model/rdma/rdma_cycle_model.cc; see docs/rdma-microarchitecture.md.
`include "nt_ports.svh"
module rdma_top
(
  // Requests in (s), responses out (m), host memory: requests and in-order read data, always accepted
  // (dma), configuration (cfg), counters (cnt).
  `NT_RDMA_PORTS,
  // One cycle after a CQE write was accepted: that CQE (docs/rdma.md "Completion events").
  output logic                         cqe_valid_o,
  output rdma_pkg::cqe_t                         cqe_o,
  // The back end holds a request (checked or being checked); for the testbench's accounting.
  output logic                         busy_o
);
  if ((nt_pkg::RdmaRxFrames & (nt_pkg::RdmaRxFrames - 1)) != 0 || nt_pkg::RdmaRxFrames < 2 || nt_pkg::RdmaRxFrames > 128) begin : g_bad_ring
    $error("RdmaRxFrames must be a power of two in 2..128");
  end
  if ((nt_pkg::RdmaInflight & (nt_pkg::RdmaInflight - 1)) != 0 || nt_pkg::RdmaInflight < 2 || nt_pkg::RdmaInflight > 128) begin : g_bad_ifq
    $error("RdmaInflight must be a power of two in 2..128");
  end
  if ((nt_pkg::RdmaRecent & (nt_pkg::RdmaRecent - 1)) != 0 || nt_pkg::RdmaRecent < 2 || nt_pkg::RdmaRecent > 64) begin : g_bad_recent
    $error("RdmaRecent must be a power of two in 2..64");
  end

  rdma_pkg::state_e     state_q;
  logic aqe_fire, chk_wr, cfg_qq_wr, cfg_qp_wr, cfg_mr_wr;  // (assigned with the QP contexts' writes)
  rdma_pkg::responder_t resp_q;
  // QP contexts and MRs as 2-D packed vectors of entry words (rdma_check's ports; Yosys 0.55 rejects unpacked
  // array ports and reads a packed array of a packed struct as one element), each read whole into a struct.
  logic [nt_pkg::RdmaQps-1:0][rdma_pkg::QpStateBits-1:0] qps_q;
  localparam int unsigned MrIdxBits = $clog2(nt_pkg::RdmaMrs);  // the MR slot of a programming-port write
  localparam int unsigned QpIdxBits = $clog2(nt_pkg::RdmaQps);  // the QP slot of a programming-port write
  logic [nt_pkg::RdmaMrs-1:0][rdma_pkg::MrBits-1:0]      mrs_q;
  // Receive ring. rx_wr_q / rx_rd_q count frames received / released (8-bit, wrapping); a frame's slot is
  // its count mod RdmaRxFrames. Per slot: the beats, the frame length, the ICRC register and the received
  // ICRC, both final at the last beat.
  localparam int unsigned SlotBits = $clog2(nt_pkg::RdmaRxFrames);
  // Block RAM (docs/rdma-microarchitecture.md "Block RAM"): one write port (the beat received) and one
  // registered read port (the write-DMA beat, its address a cycle ahead: wbeat_n). The parser's two header
  // beats are copied to hdr0_q / hdr1_q as they arrive.
  logic [nt_pkg::StreamBits-1:0] buf_q [nt_pkg::RdmaRxFrames][nt_pkg::RdmaBufBeats];
  logic [nt_pkg::StreamBits-1:0] hdr0_q [nt_pkg::RdmaRxFrames];
  logic [nt_pkg::StreamBits-1:0] hdr1_q [nt_pkg::RdmaRxFrames];
  // The parse's first-beat terms (rdma_parse_pre of the beat written to hdr0_q), with it; the parse of a slot
  // starts from them (docs/rdma-microarchitecture.md "Parser depth").
  logic [rdma_pkg::PreBits-1:0]  pre_q [nt_pkg::RdmaRxFrames];
  rdma_pkg::pre_t                pre_in, pre_rd;
  logic [nt_pkg::StreamBits-1:0] wdata_q;  // buf_q[rslot][wbeat_q], read a cycle ahead
  logic [6:0]  wbeat_n;
  logic [15:0] slot_len_q [nt_pkg::RdmaRxFrames];
  logic [31:0] slot_crc_q [nt_pkg::RdmaRxFrames];
  logic [31:0] slot_icrc_q [nt_pkg::RdmaRxFrames];
  logic [7:0]  rx_wr_q, rx_rd_q;
  logic [SlotBits-1:0] wslot, rslot;
  assign wslot = rx_wr_q[SlotBits-1:0];
  assign rslot = rx_rd_q[SlotBits-1:0];
  // The frame being received: beats so far, bytes, running ICRC, received ICRC bytes, and where its ICRC
  // field starts and which IP family it is (both from beat 0, used for the beats after it).
  logic [7:0]  rx_nb_q;
  logic [15:0] rx_len_q;
  logic [31:0] rx_crc_q, rx_icrc_q;
  logic [16:0] rx_end_q;
  logic        rx_v6_q;
  rdma_pkg::request_t    req_q, parsed;
  rdma_pkg::job_t        job_q;
  logic [6:0]  wbeat_q;
  logic        found_q;
  rdma_pkg::desc_t       desc_q;
  // In-flight queue: written / answered counts (8-bit, wrapping; an entry's index is its count mod
  // RdmaInflight), per entry its read-data buffer and whether that data is complete, and the order in which
  // entries' host reads were issued (read data comes back in that order).
  localparam int unsigned IfqBits = $clog2(nt_pkg::RdmaInflight);
  rdma_pkg::pend_t       he;  // the entry at the head
  // A word of the struct's width, not the struct: Yosys 0.55 reads an unpacked array of a struct type as ONE
  // element (docs/synthesis.md "One RTL source"); Verilator reads both.
  logic [$bits(he)-1:0]  pq_q [nt_pkg::RdmaInflight];
  // Each entry's kind, QP and word address again, apart: the CAMs below search every entry each cycle, and
  // reading 832-bit entries whole to get them (Yosys 0.55 reads arr[i].field wrongly) made Verilator copy
  // them (docs/rdma-microarchitecture.md "Simulation speed"). Written with pq_q, never changed after.
  rdma_pkg::pend_e       pq_kind_q [nt_pkg::RdmaInflight];
  logic [3:0]  pq_qp_q [nt_pkg::RdmaInflight];
  logic [63:0] pq_pa_q [nt_pkg::RdmaInflight];
  // Read-response payload, block RAM (docs/rdma-microarchitecture.md "Block RAM"): two banks by beat parity
  // (entry e's beat j at {e, j/2} of bank j%2), one write port (the read data arriving) and one registered
  // read port each, addressed a cycle ahead from the back end's next beat (rb_*); the two beats a response
  // beat takes its payload from are one even, one odd. An entry's first 8 bytes (an atomic's original value)
  // are kept apart in rbuf_w0_q, read by the atomic executor.
  localparam int unsigned RbufWords = nt_pkg::RdmaInflight * nt_pkg::RdmaRspBeats / 2;
  localparam int unsigned RbufAddrBits = $clog2(RbufWords);
  localparam int unsigned RbufRowBits = RbufAddrBits - $clog2(nt_pkg::RdmaInflight);  // a beat pair of an entry
  logic [nt_pkg::StreamBits-1:0] rbuf_even_q [RbufWords];
  logic [nt_pkg::StreamBits-1:0] rbuf_odd_q [RbufWords];
  logic [nt_pkg::StreamBits-1:0] rb_even_q, rb_odd_q;  // the two beats read for the next response beat
  logic        rb_swap_q, rb_lo_ok_q, rb_hi_ok_q;      // jlo odd; beats jlo, jlo+1 inside the buffer
  logic [63:0] rbuf_w0_q [nt_pkg::RdmaInflight];
  logic [nt_pkg::RdmaInflight-1:0] done_q;
  // Read tags, in issue order: an in-flight entry's read, or a WQE prefetch (QP, WQE count).
  localparam int unsigned TagFifo = 1 << $clog2(nt_pkg::RdmaInflight + nt_pkg::RdmaPfReads);
  localparam int unsigned TagBits = $clog2(TagFifo);
  typedef struct packed {
    logic       pf;
    logic [6:0] idx;
    logic [2:0] k;
  } rtag_t;
  rtag_t       rt_head;
  logic [$bits(rt_head)-1:0] rtag_q [TagFifo];  // words, not rtag_t: as pq_q
  // Receive-WQE prefetch: per QP the ring (WQE i in slot i mod RdmaWqeRing), the next WQE to read and to
  // arrive, the reads outstanding and how many of them to discard (issued before a QP or RQ rewrite).
  localparam int unsigned RingBits = $clog2(nt_pkg::RdmaWqeRing);
  // The ring in RingBanks banks by slot (slot s of QP i at {i, s / RingBanks} of bank s % RingBanks), one write
  // port each (a prefetch beat's up to RingBanks consecutive WQEs go to distinct banks) and one registered read
  // port each; Check reads the WQE at each QP's RQ head from wqe_head_q, kept equal to the ring's slot at the
  // head: written with a WQE arriving for the head's slot, and refilled from the ring (rf_*) after Check moves
  // the head (docs/rdma-microarchitecture.md "Block RAM").
  localparam int unsigned RingBanks = nt_pkg::StreamBits / (8 * nt_pkg::RdmaWqeBytes);  // WQEs per beat
  localparam int unsigned BankBits  = $clog2(RingBanks);
  localparam int unsigned RowBits   = RingBits - BankBits;
  localparam int unsigned BankWords = nt_pkg::RdmaQps * nt_pkg::RdmaWqeRing / RingBanks;
  logic [nt_pkg::RdmaQps-1:0][rdma_pkg::WqeBits-1:0] wqe_head_q;
  logic [RingBanks-1:0][rdma_pkg::WqeBits-1:0] ring_rd_q;  // each bank's registered read
  logic [RingBanks-1:0]                        ring_we;
  logic [RingBanks-1:0][QpIdxBits+RowBits-1:0] ring_waddr;
  logic [RingBanks-1:0][rdma_pkg::WqeBits-1:0] ring_wdata;
  logic [QpIdxBits+RowBits-1:0]                ring_raddr;
  logic        rf_valid_q;  // a refill: wqe_head_q[rf_qp_q] takes bank rf_bank_q's read this cycle
  logic [QpIdxBits-1:0] rf_qp_q;
  logic [BankBits-1:0]  rf_bank_q;
  logic [15:0] pf_iss_q [nt_pkg::RdmaQps];
  logic [15:0] pf_fill_q [nt_pkg::RdmaQps];
  logic [7:0]  pf_out_q [nt_pkg::RdmaQps];
  // Per QP the RQ slot of pf_iss (pf_iss % rq_entries) and the CQ slot of cq_tail (cq_tail % cq_entries), 0
  // for 0 entries, kept beside the counters so that the prefetch's and the CQE's addresses need no divider
  // (docs/rdma-microarchitecture.md "Slot registers"; SVAs pf_slot_mod / cqe_slot_mod in rdma_top_sva.sv).
  logic [15:0] pf_slot_q [nt_pkg::RdmaQps];
  logic [15:0] cq_slot_q [nt_pkg::RdmaQps];
  // A queues write that moves a slot where an add and a compare cannot follow leaves it to a 16-cycle
  // divider (rdma_slot_div): meanwhile the QP's prefetch (rq_div_busy) or a CQE to it (cq_wait) waits.
  logic [nt_pkg::RdmaQps-1:0] rq_div_busy, cq_div_busy;
  logic        cq_wait;
  logic [7:0]  pf_skip_q [nt_pkg::RdmaQps];
  logic [7:0]  pf_total_q;
  logic [7:0]  pq_wr_q, pq_rd_q, rt_wr_q, rt_rd_q, n_inflight;
  logic [6:0]  fill_beat_q;
  rdma_pkg::back_e       back_q;
  rdma_pkg::ex_e         ex_q;
  logic [IfqBits-1:0] ex_idx_q;
  logic [nt_pkg::RdmaInflight-1:0] executed_q;
  logic [63:0] last_new_q;  // the value the word of the atomic executed last holds after it
  logic [IfqBits-1:0] head, pq_widx, fill_idx;
  assign n_inflight = pq_wr_q - pq_rd_q;
  assign head       = pq_rd_q[IfqBits-1:0];
  assign pq_widx    = pq_wr_q[IfqBits-1:0];
  assign rt_head    = rtag_q[rt_rd_q[TagBits-1:0]];
  assign fill_idx   = rt_head.idx[IfqBits-1:0];
  // A QP context / in-flight entry by a variable index, as an AND-OR of per-index enables (the OR over i of
  // {W{idx == i}} & word i). A plain index (qps_q[idx], pq_q[idx]) became, through Yosys's pmux2shiftx, a
  // barrel shifter over the whole 16,284- / 16,192-bit vector (15 stages of 16 K muxes each) that the module
  // run's techmap never got through (docs/synthesis.md "rdma_top after branch rchk23"). Reads at a constant
  // index (the per-QP loops) keep the plain index.
  function automatic logic [rdma_pkg::QpStateBits-1:0] qp_word(logic [QpIdxBits-1:0] idx);
    logic [rdma_pkg::QpStateBits-1:0] w;
    w = '0;
    for (int i = 0; i < nt_pkg::RdmaQps; i++) w = w | ({rdma_pkg::QpStateBits{idx == QpIdxBits'(i)}} & qps_q[i]);
    qp_word = w;
  endfunction
  function automatic logic [$bits(he)-1:0] pq_word(logic [IfqBits-1:0] idx);
    logic [$bits(he)-1:0] w;
    w = '0;
    for (int i = 0; i < nt_pkg::RdmaInflight; i++) w = w | ({$bits(he){idx == IfqBits'(i)}} & pq_q[i]);
    pq_word = w;
  endfunction
  assign he         = pq_word(head);
  logic [6:0]  k_q;
  logic [31:0] rcrc_q;
  // The most recent atomic results per QP (issue 10 part A): PSN, original value, valid; written with the
  // AQE, in the same order; a duplicate atomic found here is answered without reading the AQ.
  localparam int unsigned RecBits = $clog2(nt_pkg::RdmaRecent);
  logic [23:0] rec_psn_q [nt_pkg::RdmaQps][nt_pkg::RdmaRecent];
  logic [63:0] rec_val_q [nt_pkg::RdmaQps][nt_pkg::RdmaRecent];
  logic [nt_pkg::RdmaRecent-1:0] rec_valid_q [nt_pkg::RdmaQps];
  logic [RecBits-1:0] rec_wr_q [nt_pkg::RdmaQps];
  logic [31:0] c_in_q, c_proc_q, c_resp_q, c_acks_q, c_naks_q, c_atom_q, c_repl_q, c_dmar_q, c_dmaw_q, c_cqes_q, c_reads_q;
  logic [rdma_pkg::NumDrops-1:0][31:0] c_drops_q;
  logic        cqe_valid_q;
  logic        cq_pend_q;  // the CQE buffer: the last completed message's CQE, still to be written
  rdma_pkg::job_t        cq_job_q;
  rdma_pkg::cqe_t        cqe_q;

  // ---- Parse (from the first two buffered beats, and the first beat's terms registered with it) ----
  rdma_parse_pre u_parse_pre (
    .beat_i (s_data_i),
    .pre_o  (pre_in)
  );

  // The parser reads the oldest slot in Rx; in every other state the slot after it, for the parse ahead
  // (a request's last DMA cycle loads the next complete frame's request and goes straight to Lookup).
  logic [SlotBits-1:0] pslot;
  assign pslot  = rslot + SlotBits'(state_q != rdma_pkg::StRx);
  assign pre_rd = pre_q[pslot];
  rdma_parser u_parser (
    .hdr_i       ({hdr1_q[pslot], hdr0_q[pslot]}),
    .frame_len_i (slot_len_q[pslot]),
    .resp_i      (resp_q),
    .pre_i       (pre_rd),
    .req_o       (parsed)
  );

  // ---- Response composition and the beat being sent ----
  logic [8*rdma_pkg::HdrWindow-1:0] rsp_hdr;
  logic [15:0]            rsp_hdr_len, rsp_len;
  rdma_compose u_compose (
    .d_i       (he.desc),
    .hdr_o     (rsp_hdr),
    .hdr_len_o (rsp_hdr_len),
    .len_o     (rsp_len)
  );

  logic [nt_pkg::StreamBits-1:0]  rsp_data;
  logic [nt_pkg::StreamBytes-1:0] rsp_keep;
  logic                   rsp_last;
  logic [31:0]            rsp_icrc;
  int                     p0, jlo;
  logic [2*nt_pkg::StreamBits-1:0] pwin;
  int unsigned            base, pos, data_end, widx, icrc_off;

  // The payload beats jlo and jlo + 1 of the head entry for response beat k: read a cycle ahead, for the
  // back end's next k (k_q + 1 after a beat taken; in BkIdle k_q = 0 with the head that BkSend will send, so
  // the first beat's pair is read there); a beat outside the buffer reads as zero, as before.
  logic [7:0]  rb_k;
  int          rb_jlo;
  logic [RbufRowBits-1:0] rb_erow, rb_orow;  // beat / 2 of the even and of the odd beat
  logic [RbufAddrBits-1:0] rb_eaddr, rb_oaddr;
  always_comb begin
    rb_k     = (back_q == rdma_pkg::BkSend && m_ready_i) ? 8'(k_q) + 8'd1 : 8'(k_q);
    rb_jlo   = (int'(nt_pkg::StreamBytes) * int'(rb_k) - int'(rsp_hdr_len)) >>> 6;
    rb_erow  = RbufRowBits'((rb_jlo[0] ? rb_jlo + 1 : rb_jlo) >>> 1);
    rb_orow  = RbufRowBits'((rb_jlo[0] ? rb_jlo : rb_jlo + 1) >>> 1);
    rb_eaddr = {head, rb_erow};
    rb_oaddr = {head, rb_orow};
  end
  always_ff @(posedge clk_i) begin
    rb_even_q  <= rbuf_even_q[rb_eaddr];
    rb_odd_q   <= rbuf_odd_q[rb_oaddr];
    rb_swap_q  <= rb_jlo[0];
    rb_lo_ok_q <= rb_jlo >= 0 && rb_jlo < nt_pkg::RdmaRspBeats;
    rb_hi_ok_q <= rb_jlo + 1 >= 0 && rb_jlo + 1 < nt_pkg::RdmaRspBeats;
  end

  always_comb begin
    base     = nt_pkg::StreamBytes * int'(k_q);
    data_end = int'(rsp_len) - 4;
    p0       = int'(base) - int'(rsp_hdr_len);
    jlo      = p0 >>> 6;
    pwin     = {rb_hi_ok_q ? (rb_swap_q ? rb_even_q : rb_odd_q) : '0,
                rb_lo_ok_q ? (rb_swap_q ? rb_odd_q : rb_even_q) : '0};
    rsp_data = '0;
    pos      = 0;
    widx     = 0;
    for (int unsigned i = 0; i < nt_pkg::StreamBytes; i++) begin
      pos = base + i;
      if (pos < int'(rsp_len)) begin
        if (pos < int'(rsp_hdr_len)) begin
          rsp_data[8*i+:8] = rsp_hdr[8*pos[6:0]+:8];
        end else if (pos < int'(rsp_hdr_len) + int'(he.desc.plen)) begin
          widx = unsigned'(p0 - 64 * jlo) + i;
          rsp_data[8*i+:8] = pwin[8*widx[6:0]+:8];
        end
      end
    end
    rsp_icrc = ~rdma_pkg::icrc_beat(rcrc_q, rsp_data, base, data_end, he.desc.v6);
    // ICRC byte j goes to beat byte i where data_end + j == base + i (mod 2^32, as the sums are): written per
    // byte at constant offsets, not as a part-select at a variable offset (which Yosys makes a 33-bit barrel
    // shifter over the whole beat, docs/synthesis.md "Session 27").
    icrc_off = data_end - base;
    for (int unsigned i = 0; i < nt_pkg::StreamBytes; i++) begin
      for (int unsigned j = 0; j < 4; j++) begin
        if (icrc_off == 32'(i) - 32'(j)) rsp_data[8*i+:8] = rsp_icrc[8*j+:8];
      end
    end
    rsp_keep = (int'(rsp_len) - int'(base) >= nt_pkg::StreamBytes) ? '1
             : nt_pkg::StreamBytes'((65'd1 << (int'(rsp_len) - int'(base))) - 65'd1);
    rsp_last = base + nt_pkg::StreamBytes >= int'(rsp_len);
  end

  // ---- Receive: ICRC of the beat being accepted (the masks need the IP family and the frame end; beat 0
  // carries both, later beats use them from registers) ----
  logic        rx_fire, rx_first, v6_now;
  logic [16:0] end_now;
  logic [31:0] crc_now, icrc_now;
  int unsigned rx_base, rx_pos;
  always_comb begin
    rx_first = rx_nb_q == '0;
    v6_now   = rx_first ? {s_data_i[8*12+:8], s_data_i[8*13+:8]} == 16'h86dd : rx_v6_q;
    end_now  = !rx_first ? rx_end_q
             : v6_now ? 17'd54 + 17'({s_data_i[8*18+:8], s_data_i[8*19+:8]})
                      : 17'd14 + 17'({s_data_i[8*16+:8], s_data_i[8*17+:8]});
    rx_base  = nt_pkg::StreamBytes * int'(rx_nb_q);
    crc_now  = rdma_pkg::icrc_beat(rx_first ? rdma_pkg::icrc_seed() : rx_crc_q, s_data_i, rx_base, int'(end_now) - 4, v6_now);
    icrc_now = rx_first ? '0 : rx_icrc_q;
    rx_pos   = 0;
    for (int unsigned j = 0; j < 4; j++) begin
      rx_pos = int'(end_now) - 4 + j;
      if (rx_pos >= rx_base && rx_pos < rx_base + nt_pkg::StreamBytes) icrc_now[8*j+:8] = s_data_i[8*(rx_pos-rx_base)+:8];
    end
  end

  assign s_ready_o = (rx_wr_q - rx_rd_q) != 8'(nt_pkg::RdmaRxFrames);
  assign rx_fire   = s_valid_i && s_ready_o;
  assign busy_o    = state_q != rdma_pkg::StRx || pq_wr_q != pq_rd_q || cq_pend_q;
`ifdef NT_MUTATE_RDMA  // a planted protocol bug (docs/assertions.md)
  nt_mutant_valid_drop u_mutant (
    .clk_i, .rst_ni, .valid_i(back_q == rdma_pkg::BkSend), .ready_i(m_ready_i), .valid_o(m_valid_o));
`else
  assign m_valid_o = back_q == rdma_pkg::BkSend;
`endif
  assign m_data_o  = m_valid_o ? rsp_data : '0;
  assign m_keep_o  = m_valid_o ? rsp_keep : '0;
  assign m_last_o  = m_valid_o && rsp_last;

  // ---- Receive-WQE prefetch: the lowest QP with a posted WQE not yet read and room in its ring, while
  // fewer than RdmaPfReads prefetch reads are outstanding; up to one beat of consecutive WQEs, within the
  // ring's room, the posted ones and the RQ's end ----
  logic        pf_any, pf_src;
  logic [3:0]  pf_qp;
  rdma_pkg::qp_queues_t  pqq;
  logic [15:0] pq_head;
  logic [15:0] pf_iss, pf_slot, pf_room, pf_left, pf_tail, pf_k;
  logic [nt_pkg::RdmaQps-1:0] wqe_ready;
  logic [nt_pkg::RdmaQps-1:0][rdma_pkg::WqeBits-1:0] wqe_head;  // wqe_t words
  logic [15:0] rq_head_i;
  rdma_pkg::qp_queues_t  pqq_i;
  logic [15:0] rq_n [nt_pkg::RdmaQps];  // each QP's rq_entries
  // A QP context's fields these loops read: the context is read whole (Yosys 0.55 reads qps_q[i].field
  // wrongly: docs/synthesis.md) into a function's own local, which Verilator keeps out of the traced design
  // state (a module-level copy of each 924-bit context cost every cycle: docs/rdma-microarchitecture.md
  // "Simulation speed").
  function automatic logic [15:0] qp_rq_head(logic [QpIdxBits-1:0] i);
    // verilator lint_off UNUSEDSIGNAL
    rdma_pkg::qp_state_t q;  // (its rq_head is read)
    // verilator lint_on UNUSEDSIGNAL
    q          = qps_q[i];
    qp_rq_head = q.rq_head;
  endfunction
  function automatic rdma_pkg::qp_queues_t qp_queues(logic [QpIdxBits-1:0] i);
    // verilator lint_off UNUSEDSIGNAL
    rdma_pkg::qp_state_t q;  // (its queues are read)
    // verilator lint_on UNUSEDSIGNAL
    q         = qps_q[i];
    qp_queues = q.queues;
  endfunction
  // verilator lint_off UNUSEDSIGNAL
  rdma_pkg::qp_state_t pf_ctx;  // the prefetch QP's context, read whole (its queues and rq_head are read)
  // verilator lint_on UNUSEDSIGNAL
  always_comb begin
    pf_any = 1'b0;
    pf_qp  = '0;
    for (int i = nt_pkg::RdmaQps - 1; i >= 0; i--) begin
      pqq_i        = qp_queues(QpIdxBits'(i));
      rq_head_i    = qp_rq_head(QpIdxBits'(i));
      wqe_ready[i] = pf_fill_q[i] != rq_head_i;  // the WQE at the RQ head, for Check
      wqe_head[i]  = wqe_head_q[i];
      rq_n[i]      = pqq_i.rq_entries;
      if (pqq_i.valid && pqq_i.rq_entries != 0 && pf_iss_q[i] < pqq_i.rq_posted && !rq_div_busy[i] &&
          16'(pf_iss_q[i] - rq_head_i) < 16'(nt_pkg::RdmaWqeRing)) begin
        pf_any = 1'b1;
        pf_qp  = 4'(i);
      end
    end
    if (pf_total_q >= 8'(nt_pkg::RdmaPfReads)) pf_any = 1'b0;
    pf_ctx  = qp_word(QpIdxBits'(pf_qp));
    pqq     = pf_ctx.queues;
    pq_head = pf_ctx.rq_head;
    pf_iss  = pf_iss_q[pf_qp];
    pf_slot = pf_slot_q[pf_qp];  // (pqq.rq_entries == 0) ? 0 : pf_iss % pqq.rq_entries
    pf_room = 16'(nt_pkg::RdmaWqeRing) - 16'(pf_iss - pq_head);
    pf_left = pqq.rq_posted - pf_iss;
    pf_tail = pqq.rq_entries - pf_slot;
    pf_k    = 16'd4;
    if (pf_room < pf_k) pf_k = pf_room;
    if (pf_left < pf_k) pf_k = pf_left;
    if (pf_tail < pf_k) pf_k = pf_tail;
  end

  // ---- DMA request of the current state ----
  // The write-DMA beat of the next cycle (wbeat_q's next value where it matters): the payload's first beat
  // from Check, the next beat once one is taken in WrDma.
  assign wbeat_n = (state_q == rdma_pkg::StCheck) ? 7'(int'(req_q.hdr_len) / nt_pkg::StreamBytes)
                 : (state_q == rdma_pkg::StWrDma && fire) ? wbeat_q + 7'd1 : wbeat_q;
  rdma_pkg::qp_state_t jq;
  assign jq = qp_word(QpIdxBits'(job_q.qp));
  int unsigned wb_base, wlo, whi;
  logic [15:0] cqe_slot;
  rdma_pkg::qp_state_t   cq_jq;
  assign cq_jq    = qp_word(QpIdxBits'(cq_job_q.qp));
  assign cqe_slot = cq_slot_q[cq_job_q.qp];  // cq_jq.cq_tail % cq_jq.queues.cq_entries (0 for 0 entries)
  logic [3:0]  cq_qp;  // the pending CQE's QP
  assign cq_qp    = cq_job_q.qp;
  assign cq_wait  = cq_pend_q && cq_div_busy[cq_qp];  // its slot is being divided: the CQE waits
  logic [63:0] woff;
  logic        back_dma;
  assign back_dma = ex_q == rdma_pkg::ExAtWrite || ex_q == rdma_pkg::ExAqWrite;
  rdma_pkg::pend_t       xe;  // the entry the atomic executor works on, and its QP
  rdma_pkg::qp_state_t   hq;
  assign xe = pq_word(ex_idx_q);
  assign hq = qp_word(QpIdxBits'(xe.qp));
  // The request the sources offer this cycle (nx_req_*); the port offers it unless one is held (below).
  logic        nx_req_valid, nx_req_write;
  logic [63:0] nx_req_addr;
  logic [15:0] nx_req_len;
  logic [5:0]  nx_req_off;
  logic [nt_pkg::StreamBits-1:0] nx_req_data;
  always_comb begin
    nx_req_valid = 1'b0;
    nx_req_write = 1'b0;
    nx_req_addr  = '0;
    nx_req_len   = '0;
    nx_req_off   = '0;
    nx_req_data  = '0;
    wb_base = nt_pkg::StreamBytes * int'(wbeat_q);
    woff    = '0;
    wlo = (int'(req_q.hdr_len) > int'(wb_base)) ? int'(req_q.hdr_len) : wb_base;
    whi = (int'(req_q.hdr_len) + int'(req_q.plen) < int'(wb_base) + nt_pkg::StreamBytes)
        ? int'(req_q.hdr_len) + int'(req_q.plen) : wb_base + nt_pkg::StreamBytes;
    unique case (state_q)
      rdma_pkg::StWrDma: begin
        nx_req_valid = 1'b1;
        nx_req_write = 1'b1;
        nx_req_off   = 6'(wlo - wb_base);
        nx_req_len   = 16'(whi - wlo);
        woff         = 64'(wlo) - 64'(req_q.hdr_len);
        nx_req_addr  = job_q.pa + woff;
        nx_req_data  = wdata_q;
      end
      rdma_pkg::StRdIssue: begin  // each segment needs an in-flight entry for its data
        nx_req_valid = n_inflight != 8'(nt_pkg::RdmaInflight);
        nx_req_addr  = job_q.pa;
        nx_req_len   = 16'((job_q.len < job_q.mtu) ? job_q.len : job_q.mtu);
      end
      rdma_pkg::StAtRead: begin
        nx_req_valid = 1'b1;
        nx_req_addr  = job_q.pa;
        nx_req_len   = 16'd8;
      end
      rdma_pkg::StAqIssue: begin
        nx_req_valid = 1'b1;
        nx_req_addr  = jq.cfg.aq + 64'(job_q.grp) * 64'(rdma_pkg::AqGroupBytes);
        nx_req_len   = 16'(rdma_pkg::AqGroupBytes);
      end
      default: ;
    endcase
    // The pending CQE goes before the front end's request (so before any later request's DMA).
    if (cq_pend_q) begin
      nx_req_valid = !cq_wait;
      nx_req_write = 1'b1;
      nx_req_addr  = cq_jq.queues.cq + 64'(nt_pkg::RdmaCqeBytes) * 64'(cqe_slot);
      nx_req_len   = 16'(nt_pkg::RdmaCqeBytes);
      nx_req_off   = '0;
      nx_req_data  = '0;
      nx_req_data[31:0]    = cq_job_q.cqe_wr_id;  // little-endian fields, as host software reads them
      nx_req_data[63:32]   = cq_job_q.cqe_len;
      nx_req_data[95:64]   = cq_job_q.cqe_imm ? nt_pkg::byte_rev32(cq_job_q.imm) : 32'd0;  // the wire bytes in order
      nx_req_data[127:96]  = {8'd0, cq_jq.cfg.qpn};
      nx_req_data[135:128] = cq_job_q.cqe_opcode;
      nx_req_data[143:136] = {7'd0, cq_job_q.cqe_imm};
      nx_req_data[191:160] = {8'd0, cq_job_q.psn};
    end
    // The atomic executor's writes go first: the new value, then the AQE.
    if (ex_q == rdma_pkg::ExAtWrite) begin
      nx_req_valid = 1'b1;
      nx_req_write = 1'b1;
      nx_req_addr  = xe.pa;
      nx_req_len   = 16'd8;
      nx_req_off   = '0;
      nx_req_data  = '0;
      nx_req_data[63:0] = xe.swap;  // host memory is little-endian
    end else if (ex_q == rdma_pkg::ExAqWrite) begin
      nx_req_valid = 1'b1;
      nx_req_write = 1'b1;
      nx_req_addr  = hq.cfg.aq + 64'(hq.aq_wr) * 64'(nt_pkg::RdmaAqeBytes);
      nx_req_len   = 16'(nt_pkg::RdmaAqeBytes);
      nx_req_off   = '0;
      nx_req_data  = '0;
      nx_req_data[31:0]   = nt_pkg::byte_rev32({8'h80, xe.psn});  // valid bit, then the 24-bit PSN
      nx_req_data[127:64] = nt_pkg::byte_rev64(xe.desc.atomic_value);
    end
    // Last, a WQE prefetch: not while the front end reads an AQ group (that data must be the next to come
    // once the tagged reads are in).
    pf_src = !nx_req_valid && !cq_pend_q && state_q != rdma_pkg::StAqIssue && state_q != rdma_pkg::StAqWait && pf_any;
    if (pf_src) begin
      nx_req_valid = 1'b1;
      nx_req_addr  = pqq.rq + 64'(nt_pkg::RdmaWqeBytes) * 64'(pf_slot);
      nx_req_len   = 16'(nt_pkg::RdmaWqeBytes) * 16'(pf_k);
    end
  end

  // The port is a valid/ready stream (AXI4 A3.2.1; rdma_dma_req_sva.sv `req_stable`): a request offered and
  // not taken is held, payload, source and a prefetch's QP and WQE count, and offered again until it is
  // taken; each source waits for its own request to be taken meanwhile (docs/rdma.md "Host memory and DMA").
  localparam logic [1:0] SrcFront = 2'd0, SrcBack = 2'd1, SrcCqe = 2'd2, SrcPf = 2'd3;
  logic [1:0]  src_now, src, hold_src_q;
  logic        hold_q, hold_d, hold_write_q;
  logic [63:0] hold_addr_q;
  logic [15:0] hold_len_q;
  logic [5:0]  hold_off_q;
  logic [nt_pkg::StreamBits-1:0] hold_data_q;
  logic [3:0]  hold_pf_qp_q, pff_qp;
  logic [15:0] hold_pf_k_q, pff_k;
  assign src_now = back_dma ? SrcBack : cq_pend_q ? SrcCqe : pf_src ? SrcPf : SrcFront;
  assign src     = hold_q ? hold_src_q : src_now;
  assign pff_qp  = hold_q ? hold_pf_qp_q : pf_qp;  // the prefetch on the port: its QP and WQE count
  assign pff_k   = hold_q ? hold_pf_k_q : pf_k;
  assign dma_req_valid_o = hold_q || nx_req_valid;
  assign dma_req_write_o = hold_q ? hold_write_q : nx_req_write;
  assign dma_req_addr_o  = hold_q ? hold_addr_q : nx_req_addr;
  assign dma_req_len_o   = hold_q ? hold_len_q : nx_req_len;
  assign dma_req_off_o   = hold_q ? hold_off_q : nx_req_off;
  assign dma_req_data_o  = hold_q ? hold_data_q : nx_req_data;
`ifdef NT_MUTATE_RDMA_DMA  // a planted protocol bug (docs/assertions.md): nothing is held
  assign hold_d = 1'b0;
`else
  assign hold_d = dma_req_valid_o && !dma_req_ready_i;
`endif
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      hold_q       <= 1'b0;
      hold_src_q   <= SrcFront;
      hold_write_q <= 1'b0;
      hold_addr_q  <= '0;
      hold_len_q   <= '0;
      hold_off_q   <= '0;
      hold_data_q  <= '0;
      hold_pf_qp_q <= '0;
      hold_pf_k_q  <= '0;
    end else begin
      hold_q <= hold_d;
      if (hold_d) begin
        hold_src_q   <= src;
        hold_write_q <= dma_req_write_o;
        hold_addr_q  <= dma_req_addr_o;
        hold_len_q   <= dma_req_len_o;
        hold_off_q   <= dma_req_off_o;
        hold_data_q  <= dma_req_data_o;
        hold_pf_qp_q <= pff_qp;
        hold_pf_k_q  <= pff_k;
      end
    end
  end

  logic dma_fire, fire, back_fire, rsp_front, pf_fire, cq_fire;
  assign dma_fire  = dma_req_valid_o && dma_req_ready_i;
  assign fire      = dma_fire && src == SrcFront;  // the front end's request was taken
  assign cq_fire   = dma_fire && src == SrcCqe;
  assign pf_fire   = dma_fire && src == SrcPf;
  assign back_fire = dma_fire && src == SrcBack;
  // Read data is the front end's only while no queued entry has a read outstanding (AQ group, WQE).
  assign rsp_front = dma_rsp_valid_i && rt_wr_q == rt_rd_q;

  // ---- Check: the decision for a buffered, ICRC-checked request ----
  rdma_check u_check (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .lookup_i    (state_q == rdma_pkg::StLookup),
    .req_i       (req_q),
    .crc_i       (slot_crc_q[rslot]),
    .icrc_rx_i   (slot_icrc_q[rslot]),
    .resp_i      (resp_q),
    .qps_i       (qps_q),
    .mrs_i       (mrs_q),
    .wqe_ready_i (wqe_ready),
    .wqe_i       (wqe_head),
    .job_o       (chk_job),
    .desc_o      (chk_desc),
    .qp_o        (chk_qp),
    .processed_o (chk_processed),
    .ack_o       (chk_ack),
    .nak_o       (chk_nak)
  );
  rdma_pkg::job_t      chk_job;
  rdma_pkg::desc_t     chk_desc;
  rdma_pkg::qp_state_t chk_qp;
  logic      chk_processed, chk_ack, chk_nak;

  // ---- AQ scan of a read-back group beat ----
  logic        aq_hit;
  logic [63:0] aq_val;
  always_comb begin
    aq_hit = 1'b0;
    aq_val = '0;
    for (int e = 0; e < nt_pkg::StreamBytes / nt_pkg::RdmaAqeBytes; e++) begin
      if (!aq_hit && dma_rsp_data_i[8*e*nt_pkg::RdmaAqeBytes+7] &&
          {dma_rsp_data_i[8*e*nt_pkg::RdmaAqeBytes+8+:8], dma_rsp_data_i[8*e*nt_pkg::RdmaAqeBytes+16+:8],
           dma_rsp_data_i[8*e*nt_pkg::RdmaAqeBytes+24+:8]} == job_q.psn) begin
        aq_hit = 1'b1;
        aq_val = nt_pkg::byte_rev64(dma_rsp_data_i[8*(e*nt_pkg::RdmaAqeBytes+8)+:64]);
      end
    end
  end

  // The atomic executor's candidate: the oldest queued atomic not executed yet; its old value (read: host
  // memory is little-endian; forwarded: the value the atomic executed just before it left in the word).
  // (The pick reads pq_kind_q; the entry picked is read whole into ex_s, then its fields: Yosys 0.55,
  // docs/synthesis.md.)
  logic        ex_found;
  logic [IfqBits-1:0] ex_sel, ex_i;
  rdma_pkg::pend_t    ex_s, ex_upd;
  logic [63:0] at_old, at_new;
  logic        at_write;
  always_comb begin
    ex_found = 1'b0;
    ex_sel   = '0;
    ex_i     = '0;
    for (int i = nt_pkg::RdmaInflight - 1; i >= 0; i--) begin
      ex_i = IfqBits'(int'(pq_rd_q) + i);
      if (8'(i) < n_inflight && pq_kind_q[ex_i] == rdma_pkg::PendAtomic && !executed_q[ex_i]) begin
        ex_found = 1'b1;
        ex_sel   = ex_i;
      end
    end
    ex_s     = pq_word(ex_sel);
    at_old   = ex_s.fwd ? last_new_q : rbuf_w0_q[ex_sel];
    at_write = ex_s.opcode == 8'h14 || at_old == ex_s.compare;
    at_new   = (ex_s.opcode == 8'h14) ? at_old + ex_s.swap : ex_s.swap;
    ex_upd   = ex_s;
    ex_upd.desc.atomic_value = at_old;
    ex_upd.swap              = at_new;
  end

  // Next group to try in linear AQ mode: the first valid group after job_q.grp, cyclically over the QP's n =
  // aq_groups groups. (grp + s) % n as grp + s, less n if that reaches n (no divider by a non-constant, which
  // YoWASP's techmap could not map): exact because job_q.grp < n whenever grp_valid has a valid group here
  // (it is aq_select's linear pick or an earlier next_grp, both < n; a QP entry written meanwhile clears
  // grp_valid, and no AQE is written while the front end is in AqIssue / AqWait: a duplicate atomic's AQ
  // is read only with the in-flight queue drained), so grp + s < 2n. A group index past the 8 groups (n of
  // 9..15, which rdma_config never writes) reads as not valid, as in rdma_check's aq_select.
  logic [2:0] next_grp;
  logic [4:0] ng_idx;
  always_comb begin
    next_grp = job_q.grp;
    ng_idx   = '0;
    for (int s = nt_pkg::RdmaAqMaxGroups; s >= 1; s--) begin
      ng_idx = 5'(job_q.grp) + 5'(s);
      if (ng_idx >= 5'(jq.cfg.aq_groups)) ng_idx = ng_idx - 5'(jq.cfg.aq_groups);
      if (s <= int'(jq.cfg.aq_groups) && ng_idx < 5'(nt_pkg::RdmaAqMaxGroups) && jq.grp_valid[ng_idx[2:0]]) begin
        next_grp = ng_idx[2:0];
      end
    end
  end

  logic [31:0] seg;
  assign seg = (job_q.len < job_q.mtu) ? job_q.len : job_q.mtu;


  rdma_pkg::state_e check_next;
  always_comb begin
    unique case (chk_job.kind)
      rdma_pkg::JobDrop, rdma_pkg::JobNone: check_next = rdma_pkg::StRx;
      rdma_pkg::JobRespond:       check_next = rdma_pkg::StRx;
      rdma_pkg::JobWrite:         check_next = (req_q.plen == 0) ? rdma_pkg::StRx : rdma_pkg::StWrDma;  // CQE buffered, ACK queued
      rdma_pkg::JobRead:          check_next = (chk_job.len == 0) ? rdma_pkg::StRx : rdma_pkg::StRdIssue;
      rdma_pkg::JobAtomic:        check_next = fwd_ok ? rdma_pkg::StRx : rdma_pkg::StAtRead;  // forwarded: queued, no host read
      rdma_pkg::JobAtomicDup:     check_next = rec_hit ? rdma_pkg::StRx : rdma_pkg::StAqIssue;  // a recent result: no AQ read
      rdma_pkg::JobWait:          check_next = rdma_pkg::StCheck;
      default:          check_next = rdma_pkg::StRx;
    endcase
  end

  // The recent-results CAM of the checked request's QP (the lowest matching entry; PSNs in it are distinct).
  logic        rec_hit, dup_hit;
  logic [63:0] rec_val;
  always_comb begin
    rec_hit = 1'b0;
    rec_val = '0;
    for (int i = nt_pkg::RdmaRecent - 1; i >= 0; i--) begin
      if (rec_valid_q[chk_job.qp][i] && rec_psn_q[chk_job.qp][i] == req_q.psn) begin
        rec_hit = 1'b1;
        rec_val = rec_val_q[chk_job.qp][i];
      end
    end
    dup_hit = chk_job.kind == rdma_pkg::JobAtomicDup && rec_hit;
  end

  // Whether the checked request may go on now, or waits in Check with no side effect: every response needs
  // an in-flight entry; the AQ lookup of a duplicate atomic, the receive-WQE reads (SEND, WRITE with
  // immediate) and CQE writes wait for the queue to drain; a request touching bytes of an atomic still in the
  // queue waits for it (a CAM on the queued atomics' words); READs and atomics in the queue count against
  // the QP's max_rd_atomic.
  logic        go, drain, hazard, rd_atomic, fwd_ok, young_any;
  logic [63:0] young_pa;
  logic [63:0] hz_len;
  logic [7:0]  resources;
  logic [IfqBits-1:0] cam_idx;
  rdma_pkg::qp_state_t chk_qs;  // the checked request's QP context (read whole)
  assign chk_qs = qp_word(QpIdxBits'(chk_job.qp));
  always_comb begin
    // An atomic not executed now (a duplicate's AQ lookup, or its NAK when the lookup already missed) is
    // decided on the AQC, which the queued atomics have not updated yet: it waits for them too.
    drain  = (req_q.opcode == 8'h13 || req_q.opcode == 8'h14) && chk_job.kind != rdma_pkg::JobAtomic;
    hz_len = (chk_job.kind == rdma_pkg::JobWrite) ? 64'(req_q.plen)
           : (chk_job.kind == rdma_pkg::JobRead) ? 64'(chk_job.len)
           : (chk_job.kind == rdma_pkg::JobAtomic) ? 64'd8 : 64'd0;
    hazard    = 1'b0;
    resources = '0;
    cam_idx   = '0;
    // Forwarding: an atomic on the word of the youngest queued atomic takes that one's new value on chip
    // (executed just before it), so it neither waits nor reads host memory.
    young_pa  = '0;
    young_any = 1'b0;
    for (int i = 0; i < nt_pkg::RdmaInflight; i++) begin
      cam_idx = IfqBits'(int'(pq_rd_q) + i);
      if (8'(i) < n_inflight && pq_kind_q[cam_idx] == rdma_pkg::PendAtomic) begin
        young_any = 1'b1;
        young_pa  = pq_pa_q[cam_idx];
      end
    end
    fwd_ok = chk_job.kind == rdma_pkg::JobAtomic && young_any && young_pa == chk_job.pa;
    for (int i = 0; i < nt_pkg::RdmaInflight; i++) begin
      cam_idx = IfqBits'(int'(pq_rd_q) + i);
      if (8'(i) < n_inflight) begin
        if (pq_kind_q[cam_idx] == rdma_pkg::PendAtomic && hz_len != 0 && chk_job.pa < pq_pa_q[cam_idx] + 64'd8 &&
            pq_pa_q[cam_idx] < chk_job.pa + hz_len && !fwd_ok) hazard = 1'b1;
        // A CQE write waits while any atomic is queued (the CQ may lie in a region atomics reach).
        if (pq_kind_q[cam_idx] == rdma_pkg::PendAtomic && chk_job.kind == rdma_pkg::JobWrite && chk_job.cqe) hazard = 1'b1;
        if (pq_kind_q[cam_idx] != rdma_pkg::PendRespond && pq_qp_q[cam_idx] == chk_job.qp) resources = resources + 1;
      end
    end
    rd_atomic = chk_job.kind == rdma_pkg::JobRead || chk_job.kind == rdma_pkg::JobAtomic;
    go = chk_job.kind == rdma_pkg::JobDrop || chk_job.kind == rdma_pkg::JobNone ||
         !(chk_job.kind == rdma_pkg::JobWait || (chk_job.kind == rdma_pkg::JobWrite && chk_job.cqe && cq_pend_q) || n_inflight == 8'(nt_pkg::RdmaInflight) || (drain && n_inflight != 0) || hazard ||
           (rd_atomic && resources != 0 && 16'(resources) >= chk_qs.cfg.max_rd_atomic));
  end

  // What the front end queues this cycle (docs: every response goes through the in-flight queue): whether,
  // and the entry's kind and fwd bit, QP and word address here; the entry itself (pend_entry) is built at the
  // clock edge, only when one is pushed (docs/rdma-microarchitecture.md "Simulation speed").
  logic  push, wr_done;
  rdma_pkg::pend_e push_kind;
  logic  push_fwd;
  logic [3:0]  push_qp;
  logic [63:0] push_pa;
  assign wr_done = nt_pkg::StreamBytes * (int'(wbeat_q) + 1) >= int'(req_q.hdr_len) + int'(req_q.plen);
  always_comb begin
    push      = 1'b0;
    push_kind = rdma_pkg::PendRespond;
    push_fwd  = 1'b0;
    push_qp   = job_q.qp;
    push_pa   = job_q.pa;
    unique case (state_q)
      rdma_pkg::StCheck: begin
        push_qp = chk_job.qp;
        push_pa = chk_job.pa;
        push = go && (chk_job.kind == rdma_pkg::JobRespond || dup_hit || (chk_job.kind == rdma_pkg::JobRead && chk_job.len == 0) ||
                      (chk_job.kind == rdma_pkg::JobWrite && req_q.plen == 0 && chk_job.ack) ||
                      (chk_job.kind == rdma_pkg::JobAtomic && fwd_ok));
        if (chk_job.kind == rdma_pkg::JobAtomic) begin
          push_kind = rdma_pkg::PendAtomic;
          push_fwd  = 1'b1;
        end
      end
      rdma_pkg::StWrDma: push = fire && wr_done && job_q.ack;
      rdma_pkg::StRdIssue: begin
        push      = fire;
        push_kind = rdma_pkg::PendRead;
      end
      rdma_pkg::StAtRead: begin
        push      = fire;
        push_kind = rdma_pkg::PendAtomic;
      end
      rdma_pkg::StAqWait: begin  // the group's last beat: the stored original found (ACK), or the last group missed (NAK)
        push = rsp_front && dma_rsp_last_i && (found_q || aq_hit || !(job_q.grps_left > 1));
      end
      default: ;
    endcase
  end

  // The entry pushed (push set, front-end state st), built field by field (Yosys 0.55 rejects assignment
  // patterns: docs/synthesis.md): Check's job and response, or the current job's (an AQ lookup's with the
  // value found or the NAK).
  function automatic rdma_pkg::pend_t pend_entry(rdma_pkg::state_e st);
    rdma_pkg::pend_t e;
    rdma_pkg::desc_t d;
    // verilator lint_off UNUSEDSIGNAL
    rdma_pkg::job_t  j;  // (the fields an entry keeps are read)
    // verilator lint_on UNUSEDSIGNAL
    d = desc_q;
    j = job_q;
    if (st == rdma_pkg::StCheck) begin
      d = chk_desc;
      j = chk_job;
      if (dup_hit) d.atomic_value = rec_val;
    end else if (st == rdma_pkg::StAqWait) begin
      if (found_q || aq_hit) begin
        if (!found_q) d.atomic_value = aq_val;
      end else begin
        d.opcode   = 8'h11;
        d.syndrome = 8'h61;
      end
    end
    e         = '0;
    e.kind    = push_kind;
    e.qp      = j.qp;
    e.pa      = j.pa;
    e.opcode  = j.opcode;
    e.swap    = j.swap;
    e.compare = j.compare;
    e.psn     = j.psn;
    e.fwd     = push_fwd;
    e.desc    = d;
    pend_entry = e;
  endfunction

  // Values written whole below, built field by field (Yosys 0.55 rejects assignment patterns:
  // docs/synthesis.md). cqe_d: the CQE written now; tag_push / tag_pf: the read tags; resp_d / qpq_d / qpc_d /
  // mr_d: the programming port's responder, QP queues, QP and MR words. Three blocks, by their inputs (a
  // block is evaluated again whenever any of its inputs changes).
  rdma_pkg::cqe_t        cqe_d;
  rtag_t                 tag_push, tag_pf;
  rdma_pkg::responder_t  resp_d;
  rdma_pkg::qp_queues_t  qpq_d;
  rdma_pkg::qp_state_t   qpc_d;
  rdma_pkg::mr_t         mr_d;
  always_comb begin
    cqe_d        = '0;
    cqe_d.wr_id  = cq_job_q.cqe_wr_id;
    cqe_d.len    = cq_job_q.cqe_len;
    cqe_d.imm    = cq_job_q.cqe_imm ? cq_job_q.imm : 32'd0;
    cqe_d.qpn    = cq_jq.cfg.qpn;
    cqe_d.opcode = cq_job_q.cqe_opcode;
    cqe_d.psn    = cq_job_q.psn;
  end
  always_comb begin
    tag_push     = '0;
    tag_push.pf  = 1'b0;
    tag_push.idx = 7'(pq_widx);
    tag_push.k   = 3'd0;
    tag_pf       = '0;
    tag_pf.pf    = 1'b1;
    tag_pf.idx   = 7'(pff_qp);
    tag_pf.k     = 3'(pff_k);
  end
  always_comb begin
    resp_d           = '0;
    resp_d.has_ip4   = cfg_data_i[0];
    resp_d.has_ip6   = cfg_data_i[1];
    resp_d.aq_linear = cfg_data_i[2];
    resp_d.mac       = cfg_data_i[50:3];
    resp_d.ip4       = cfg_data_i[82:51];
    resp_d.ip6       = cfg_data_i[210:83];
    qpq_d            = '0;
    qpq_d.valid      = cfg_data_i[0];
    qpq_d.rq         = cfg_data_i[64:1];
    qpq_d.rq_entries = cfg_data_i[80:65];
    qpq_d.rq_posted  = cfg_data_i[96:81];
    qpq_d.cq         = cfg_data_i[160:97];
    qpq_d.cq_entries = cfg_data_i[176:161];
    qpq_d.rnr_timer  = cfg_data_i[181:177];
    qpc_d                   = '0;  // every field not named here starts at 0
    qpc_d.cfg.valid         = cfg_data_i[0];
    qpc_d.cfg.qpn           = cfg_data_i[24:1];
    qpc_d.cfg.dest_qp       = cfg_data_i[48:25];
    qpc_d.cfg.epsn          = cfg_data_i[72:49];
    qpc_d.cfg.mtu_log2      = cfg_data_i[76:73];
    qpc_d.cfg.max_rd_atomic = cfg_data_i[92:77];
    qpc_d.cfg.aq            = cfg_data_i[156:93];
    qpc_d.cfg.aq_groups     = cfg_data_i[160:157];
    qpc_d.epsn              = cfg_data_i[72:49];
    mr_d       = '0;
    mr_d.valid = cfg_data_i[0];
    mr_d.rkey  = cfg_data_i[32:1];
    mr_d.va    = cfg_data_i[96:33];
    mr_d.len   = cfg_data_i[136:97];
    mr_d.pa    = cfg_data_i[200:137];
    mr_d.r     = cfg_data_i[201];
    mr_d.w     = cfg_data_i[202];
    mr_d.a     = cfg_data_i[203];
  end

  // The front end's last DMA of a request is taken now (WrDma's last beat, RdIssue's last segment, AtRead's
  // read): the slot is freed (rx_rd_q + 1); next_ok: the frame after it is complete and not dropped.
  logic fin_dma, next_ok;
  assign fin_dma = fire && ((state_q == rdma_pkg::StWrDma && wr_done) ||
                            (state_q == rdma_pkg::StRdIssue && !(job_q.pkt + 1 < job_q.npkts)) ||
                            state_q == rdma_pkg::StAtRead);
  assign next_ok = rx_wr_q != rx_rd_q + 8'd1 && parsed.drop == 4'(rdma_pkg::DropNone);

  // Acknowledgements counted this cycle: the front end's and the back end's (an atomic's AQE written).
  logic [1:0] ack_inc;
  assign ack_inc = 2'((state_q == rdma_pkg::StCheck && go && (chk_ack || dup_hit)) ||
                      (state_q == rdma_pkg::StAqWait && rsp_front && dma_rsp_last_i && (found_q || aq_hit)))
                 + 2'(ex_q == rdma_pkg::ExAqWrite && back_fire);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q     <= rdma_pkg::StRx;
      back_q      <= rdma_pkg::BkIdle;
      ex_q        <= rdma_pkg::ExIdle;
      ex_idx_q    <= '0;
      executed_q  <= '0;
      last_new_q  <= '0;
      resp_q      <= '0;
      rx_wr_q     <= '0;
      rx_rd_q     <= '0;
      rx_nb_q     <= '0;
      rx_len_q    <= '0;
      rx_crc_q    <= '0;
      rx_icrc_q   <= '0;
      rx_end_q    <= '0;
      rx_v6_q     <= 1'b0;
      req_q       <= '0;
      job_q       <= '0;
      wbeat_q     <= '0;
      found_q     <= 1'b0;
      desc_q      <= '0;
      k_q         <= '0;
      rcrc_q      <= rdma_pkg::icrc_seed();
      pq_wr_q     <= '0;
      pq_rd_q     <= '0;
      rt_wr_q     <= '0;
      rt_rd_q     <= '0;
      fill_beat_q <= '0;
      done_q      <= '0;
      for (int i = 0; i < nt_pkg::RdmaInflight; i++) begin
        pq_q[i]      <= '0;
        pq_kind_q[i] <= rdma_pkg::PendRespond;
        pq_qp_q[i]   <= '0;
        pq_pa_q[i]   <= '0;
      end
      for (int i = 0; i < TagFifo; i++) rtag_q[i] <= '0;
      {c_in_q, c_proc_q, c_resp_q, c_acks_q, c_naks_q, c_atom_q, c_repl_q, c_dmar_q, c_dmaw_q, c_cqes_q, c_reads_q} <= '0;
      c_drops_q   <= '0;
      cqe_valid_q <= 1'b0;
      cqe_q       <= '0;
      cq_pend_q   <= 1'b0;
      cq_job_q    <= '0;
    end else begin
      cqe_valid_q <= cq_fire;
      if (cq_fire) begin
        cqe_q     <= cqe_d;
        c_cqes_q  <= c_cqes_q + 1;
        cq_pend_q <= 1'b0;
      end
      // A completed message's CQE into the buffer (never in a cycle that writes the buffered one).
      if (state_q == rdma_pkg::StCheck && go && chk_job.kind == rdma_pkg::JobWrite && req_q.plen == 0 && chk_job.cqe) begin
        cq_pend_q <= 1'b1;
        cq_job_q  <= chk_job;
      end
      if (state_q == rdma_pkg::StWrDma && fire && wr_done && job_q.cqe) begin
        cq_pend_q <= 1'b1;
        cq_job_q  <= job_q;
      end
      if (dma_fire) begin
        if (dma_req_write_o) c_dmaw_q <= c_dmaw_q + 1;
        else c_dmar_q <= c_dmar_q + 1;
      end
      c_acks_q <= c_acks_q + 32'(ack_inc);
      // Receive (independent of the back end, which frees ring slots).
      if (rx_fire) begin
        if (rx_first) c_in_q <= c_in_q + 1;
        rx_nb_q   <= (rx_nb_q == 8'hff) ? rx_nb_q : rx_nb_q + 1;
        rx_len_q  <= rx_len_q + 16'($countones(s_keep_i));
        rx_crc_q  <= crc_now;
        rx_icrc_q <= icrc_now;
        rx_end_q  <= end_now;
        rx_v6_q   <= v6_now;
        if (s_last_i) begin
          rx_nb_q  <= '0;
          rx_len_q <= '0;
          if (int'(rx_nb_q) + 1 > nt_pkg::RdmaBufBeats) begin
            c_drops_q[rdma_pkg::DropOverflow] <= c_drops_q[rdma_pkg::DropOverflow] + 1;
          end else begin
            rx_wr_q <= rx_wr_q + 1;
          end
        end
      end
      // ---- Front end ----
      unique case (state_q)
        rdma_pkg::StRx: begin  // parse the oldest frame in the ring
          if (rx_wr_q != rx_rd_q) begin
            req_q <= parsed;
            if (parsed.drop != 4'(rdma_pkg::DropNone)) begin
              for (int d = 0; d < rdma_pkg::NumDrops; d++) begin
                if (parsed.drop == 4'(d)) c_drops_q[d] <= c_drops_q[d] + 1;
              end
              rx_rd_q <= rx_rd_q + 1;
            end else begin
              state_q <= rdma_pkg::StLookup;
            end
          end
        end
        // Check's first cycle: rdma_check registers the QP and MR lookups. A QP or MR table write now makes
        // them stale: the lookup is made again (as the model's Check repeats, with no side effect).
        rdma_pkg::StLookup: begin
          if (!(cfg_qp_wr || cfg_mr_wr)) state_q <= rdma_pkg::StCheck;
        end
        rdma_pkg::StCheck: begin
          if (!go && (cfg_qp_wr || cfg_mr_wr)) state_q <= rdma_pkg::StLookup;  // waits, the lookup made again
          if (go) begin
            job_q    <= chk_job;
            desc_q   <= chk_desc;
            wbeat_q  <= 7'(int'(req_q.hdr_len) / nt_pkg::StreamBytes);
            for (int d = 0; d < rdma_pkg::NumDrops; d++) begin
              if (chk_job.kind == rdma_pkg::JobDrop && chk_job.drop == 4'(d)) c_drops_q[d] <= c_drops_q[d] + 1;
            end
            if (chk_processed) c_proc_q <= c_proc_q + 1;
            if (chk_nak) c_naks_q <= c_naks_q + 1;
            if (dup_hit) c_repl_q <= c_repl_q + 1;
            if (chk_job.kind == rdma_pkg::JobRead) c_reads_q <= c_reads_q + 1;
            state_q <= check_next;
            if (check_next == rdma_pkg::StRx) rx_rd_q <= rx_rd_q + 1;
          end
        end
        rdma_pkg::StWrDma: begin
          if (fire) begin
            wbeat_q <= wbeat_q + 1;
            if (wr_done) begin  // CQE buffered, ACK queued
              state_q <= rdma_pkg::StRx;
              rx_rd_q <= rx_rd_q + 1;
            end
          end
        end
        rdma_pkg::StRdIssue: begin  // one read and one in-flight entry per response segment
          if (fire) begin
            job_q.pkt <= job_q.pkt + 1;
            if (job_q.pkt + 1 < job_q.npkts) begin
              job_q.pa      <= job_q.pa + 64'(seg);
              job_q.len     <= job_q.len - seg;
              desc_q.psn    <= desc_q.psn + 1;
              desc_q.opcode <= (job_q.pkt + 2 == job_q.npkts) ? 8'h0f : 8'h0e;
              desc_q.plen   <= 16'(((job_q.len - seg) < job_q.mtu) ? (job_q.len - seg) : job_q.mtu);
            end else begin
              rx_rd_q <= rx_rd_q + 1;
              state_q <= rdma_pkg::StRx;
            end
          end
        end
        rdma_pkg::StAtRead: begin
          if (fire) begin
            rx_rd_q <= rx_rd_q + 1;
            state_q <= rdma_pkg::StRx;
          end
        end
        rdma_pkg::StAqIssue: begin
          if (fire) begin
            found_q <= 1'b0;
            state_q <= rdma_pkg::StAqWait;
          end
        end
        rdma_pkg::StAqWait: begin
          if (rsp_front) begin
            if (!found_q && aq_hit) begin
              found_q <= 1'b1;
              desc_q.atomic_value <= aq_val;
            end
            if (dma_rsp_last_i) begin
              if (found_q || aq_hit) begin
                c_repl_q <= c_repl_q + 1;
                rx_rd_q  <= rx_rd_q + 1;
                state_q  <= rdma_pkg::StRx;
              end else if (job_q.grps_left > 1) begin
                job_q.grps_left <= job_q.grps_left - 1;
                job_q.grp       <= next_grp;
                state_q         <= rdma_pkg::StAqIssue;
              end else begin
                desc_q.opcode   <= 8'h11;
                desc_q.syndrome <= 8'h61;
                c_naks_q        <= c_naks_q + 1;
                rx_rd_q         <= rx_rd_q + 1;
                state_q         <= rdma_pkg::StRx;
              end
            end
          end
        end
        default: state_q <= rdma_pkg::StRx;
      endcase
      // Parse ahead: the cycle a request's last DMA is taken frees its slot; if the next frame is complete
      // and not dropped, its request is loaded now and the front end goes straight to Lookup (no Rx cycle;
      // a dropped one is parsed again and counted in Rx). Same tick in the model (ParseAhead).
      if (fin_dma && next_ok) begin
        req_q   <= parsed;
        state_q <= rdma_pkg::StLookup;
      end
      // ---- The in-flight queue: the front end's entry, read data arriving in issue order ----
      if (push) begin
        pq_q[pq_widx]      <= pend_entry(state_q);
        pq_kind_q[pq_widx] <= push_kind;
        pq_qp_q[pq_widx]   <= push_qp;
        pq_pa_q[pq_widx]   <= push_pa;
        done_q[pq_widx]     <= push_fwd;  // a forwarded atomic reads nothing
        executed_q[pq_widx] <= 1'b0;
        pq_wr_q <= pq_wr_q + 1;
        if (push_kind != rdma_pkg::PendRespond && !push_fwd) begin
          rtag_q[rt_wr_q[TagBits-1:0]] <= tag_push;
          rt_wr_q <= rt_wr_q + 1;
        end
      end
      if (pf_fire) begin  // a WQE prefetch read was taken (never in a cycle that pushes a read entry)
        rtag_q[rt_wr_q[TagBits-1:0]] <= tag_pf;
        rt_wr_q <= rt_wr_q + 1;
      end
      if (dma_rsp_valid_i && rt_wr_q != rt_rd_q && rt_head.pf) begin
        rt_rd_q <= rt_rd_q + 1;  // one beat: the WQEs go to the QP's ring (below)
      end else if (dma_rsp_valid_i && rt_wr_q != rt_rd_q) begin
        fill_beat_q <= fill_beat_q + 1;
        if (dma_rsp_last_i) begin
          done_q[fill_idx] <= 1'b1;
          fill_beat_q      <= '0;
          rt_rd_q          <= rt_rd_q + 1;
        end
      end
      // ---- Back end: the queue head, once it is ready (an atomic once executed, or as its AQE is written) ----
      unique case (back_q)
        rdma_pkg::BkIdle: begin
          if (n_inflight != 0 &&
              (he.kind == rdma_pkg::PendRespond || (he.kind == rdma_pkg::PendRead && done_q[head]) ||
               (he.kind == rdma_pkg::PendAtomic && (executed_q[head] || (ex_q == rdma_pkg::ExAqWrite && back_fire && ex_idx_q == head))))) begin
            back_q <= rdma_pkg::BkSend;
          end
        end
        rdma_pkg::BkSend: begin
          if (m_ready_i) begin
            rcrc_q <= rdma_pkg::icrc_beat(rcrc_q, rsp_data, base, data_end, he.desc.v6);
            k_q    <= k_q + 1;
            if (rsp_last) begin
              c_resp_q <= c_resp_q + 1;
              k_q      <= '0;
              rcrc_q   <= rdma_pkg::icrc_seed();
              pq_rd_q  <= pq_rd_q + 1;
              back_q   <= rdma_pkg::BkIdle;
            end
          end
        end
        default: back_q <= rdma_pkg::BkIdle;
      endcase
      // ---- Atomic executor ----
      unique case (ex_q)
        rdma_pkg::ExIdle: begin
          if (ex_found && done_q[ex_sel]) begin
            pq_q[ex_sel] <= ex_upd;  // ex_s with the old value and the new one (its only write this cycle)
            last_new_q <= at_write ? at_new : at_old;
            ex_idx_q   <= ex_sel;
            ex_q       <= at_write ? rdma_pkg::ExAtWrite : rdma_pkg::ExAqWrite;
          end
        end
        rdma_pkg::ExAtWrite: if (back_fire) ex_q <= rdma_pkg::ExAqWrite;
        rdma_pkg::ExAqWrite: begin
          if (back_fire) begin
            c_atom_q <= c_atom_q + 1;
            executed_q[ex_idx_q] <= 1'b1;
            ex_q <= rdma_pkg::ExIdle;
          end
        end
        default: ex_q <= rdma_pkg::ExIdle;
      endcase
      if (cfg_valid_i && cfg_table_i == nt_pkg::CfgTableBits'(nt_pkg::RdmaTblResponder) && cfg_index_i == '0) begin
        resp_q <= resp_d;
      end
    end
  end

  // Buffers (no reset: only read behind rx_wr_q / done_q / rec_valid_q).
  always_ff @(posedge clk_i) begin
    if (ex_q == rdma_pkg::ExAqWrite && back_fire) begin
      rec_psn_q[xe.qp][rec_wr_q[xe.qp]] <= xe.psn;
      rec_val_q[xe.qp][rec_wr_q[xe.qp]] <= xe.desc.atomic_value;
    end
    if (rx_fire && int'(rx_nb_q) < nt_pkg::RdmaBufBeats) buf_q[wslot][rx_nb_q[6:0]] <= s_data_i;
    if (rx_fire && rx_nb_q == 8'd0) begin
      hdr0_q[wslot] <= s_data_i;
      pre_q[wslot]  <= pre_in;
    end
    if (rx_fire && rx_nb_q == 8'd1) hdr1_q[wslot] <= s_data_i;
    // The write-DMA beat of the next cycle (the slot does not change from Check through WrDma; no beat of the
    // slot being read is written: the receive side writes only a free slot).
    wdata_q <= buf_q[rslot][wbeat_n];
    if (rx_fire && s_last_i) begin
      slot_len_q[wslot]  <= rx_len_q + 16'($countones(s_keep_i));
      slot_crc_q[wslot]  <= crc_now;
      slot_icrc_q[wslot] <= icrc_now;
    end
    if (dma_rsp_valid_i && rt_wr_q != rt_rd_q && !rt_head.pf && int'(fill_beat_q) < nt_pkg::RdmaRspBeats) begin
      if (fill_beat_q[0]) rbuf_odd_q[{fill_idx, fill_beat_q[5:1]}] <= dma_rsp_data_i;
      else rbuf_even_q[{fill_idx, fill_beat_q[5:1]}] <= dma_rsp_data_i;
      if (fill_beat_q == '0) rbuf_w0_q[fill_idx] <= dma_rsp_data_i[63:0];
    end
  end

  // QP contexts: configuration writes, Check's update, the AQC update when an AQE is written. A QP's next
  // state (qp_next) is built only for a QP written this cycle, at the clock edge, in order (a later write
  // wins), read whole and written back whole (Yosys 0.55 reads and writes arr[i].field wrongly:
  // docs/synthesis.md). Building it for every QP in an always_comb made Verilator evaluate 16 contexts of
  // 924 bits on every input change (docs/rdma-microarchitecture.md "Simulation speed").
  logic [QpIdxBits-1:0] cfg_qp;
  assign aqe_fire  = ex_q == rdma_pkg::ExAqWrite && back_fire;
  assign chk_wr    = state_q == rdma_pkg::StCheck && go && chk_processed;
  assign cfg_qq_wr = cfg_valid_i && cfg_table_i == nt_pkg::CfgTableBits'(nt_pkg::RdmaTblQpQueues) && int'(cfg_index_i) < nt_pkg::RdmaQps;
  assign cfg_qp_wr = cfg_valid_i && cfg_table_i == nt_pkg::CfgTableBits'(nt_pkg::RdmaTblQp) && int'(cfg_index_i) < nt_pkg::RdmaQps;
  assign cfg_mr_wr = cfg_valid_i && cfg_table_i == nt_pkg::CfgTableBits'(nt_pkg::RdmaTblMr) && int'(cfg_index_i) < nt_pkg::RdmaMrs;

  // The AQE written now is the AQ's last (aq_wr + 1 == aq_groups * 64, in 10 bits: both are <= 960).
  logic aq_wrap;
  assign aq_wrap = (10'(hq.aq_wr) + 10'd1) == (10'(hq.cfg.aq_groups) << $clog2(nt_pkg::RdmaAqGroup));

  // Whether QP i is written this cycle (by any of the writes below).
  function automatic logic qp_written(logic [QpIdxBits-1:0] i);
    qp_written = (chk_wr && chk_job.qp == 4'(i)) || (aqe_fire && xe.qp == 4'(i)) ||
                 (cq_fire && cq_job_q.qp == 4'(i)) || ((cfg_qq_wr || cfg_qp_wr) && cfg_qp == i);
  endfunction

  // QP i's next state.
  function automatic rdma_pkg::qp_state_t qp_next(logic [QpIdxBits-1:0] i);
    rdma_pkg::qp_state_t q;
    q = qps_q[i];
    if (chk_wr && chk_job.qp == 4'(i)) q = chk_qp;
    // The back end's AQC update (after Check's: Check never changes the AQC fields of a QP).
    if (aqe_fire && xe.qp == 4'(i)) begin
      for (int g = 0; g < nt_pkg::RdmaAqMaxGroups; g++) begin
        if (int'(hq.aq_wr) % nt_pkg::RdmaAqGroup == 0 && int'(hq.aq_wr) / nt_pkg::RdmaAqGroup == g) begin
          q.grp_psn[g]   = xe.psn;
          q.grp_valid[g] = 1'b1;
        end
      end
      // (aq_wr + 1) % (aq_groups * 64) without a divider: aq_wr < aq_groups * 64 holds for every QP with
      // aq_groups != 0 (a QP entry write sets both, aq_wr to 0), so the sum wraps exactly when it reaches
      // aq_groups * 64 (9 bits, as before: 512 with aq_groups > 8 is 0 either way); aq_groups = 0 gives 0
      // (Verilator's x % 0).
      q.aq_wr = (hq.cfg.aq_groups == '0 || aq_wrap) ? 9'd0 : hq.aq_wr + 9'd1;
      if (aq_wrap) q.aq_lapped = 1'b1;
    end
    if (cq_fire && cq_job_q.qp == 4'(i)) q.cq_tail = cq_jq.cq_tail + 1;
    if (cfg_qq_wr && cfg_qp == i) q.queues = qpq_d;
    if (cfg_qp_wr && cfg_qp == i) q = qpc_d;
    qp_next = q;
  endfunction

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int i = 0; i < nt_pkg::RdmaMrs; i++) mrs_q[i] <= '0;
      for (int i = 0; i < nt_pkg::RdmaQps; i++) begin
        qps_q[i]       <= '0;
        rec_valid_q[i] <= '0;
        rec_wr_q[i]    <= '0;
      end
    end else begin
      for (int i = 0; i < nt_pkg::RdmaQps; i++) begin
        if (qp_written(QpIdxBits'(i))) qps_q[i] <= qp_next(QpIdxBits'(i));
        // The recent-results CAM: an AQE written adds its entry; a QP entry written empties it.
        if (aqe_fire && xe.qp == 4'(i)) begin
          rec_valid_q[i] <= rec_valid_q[i] | (nt_pkg::RdmaRecent'(1) << rec_wr_q[i]);
          rec_wr_q[i]    <= rec_wr_q[i] + 1;
        end
        if (cfg_qp_wr && cfg_qp == QpIdxBits'(i)) begin
          rec_valid_q[i] <= '0;
          rec_wr_q[i]    <= '0;
        end
      end
      for (int m = 0; m < nt_pkg::RdmaMrs; m++) begin
        if (cfg_mr_wr && cfg_index_i[MrIdxBits-1:0] == MrIdxBits'(m)) mrs_q[m] <= mr_d;
      end
    end
  end

  // Receive-WQE prefetch state: reads issued (pf_fire), WQEs arriving in read order (a stale read's beat is
  // discarded), and a rewrite of the QP entry or of its RQ starting the ring again.
  logic        pf_fill_now;
  logic [3:0]  pf_fqp;
  logic [7:0]  pf_out_d [nt_pkg::RdmaQps];
  assign pf_fill_now = dma_rsp_valid_i && rt_wr_q != rt_rd_q && rt_head.pf;
  assign pf_fqp      = rt_head.idx[3:0];
  assign cfg_qp      = cfg_index_i[QpIdxBits-1:0];
  always_comb begin
    for (int i = 0; i < nt_pkg::RdmaQps; i++) begin
      pf_out_d[i] = pf_out_q[i] + 8'(pf_fire && pff_qp == 4'(i)) - 8'(pf_fill_now && pf_fqp == 4'(i));
    end
  end
  // A queues write to QP i: whether it is a doorbell (the same RQ, more WQEs posted), and QP i's RQ head
  // after this cycle's Check. Called at the clock edge for the programmed QP only (QP contexts read whole).
  function automatic logic rq_kept(logic [QpIdxBits-1:0] i);
    // verilator lint_off UNUSEDSIGNAL
    rdma_pkg::qp_state_t q;  // (its queues' valid, rq and rq_entries are read)
    // verilator lint_on UNUSEDSIGNAL
    q       = qp_word(i);
    rq_kept = cfg_data_i[0] && q.queues.valid && cfg_data_i[64:1] == q.queues.rq &&
              cfg_data_i[80:65] == q.queues.rq_entries;
  endfunction
  function automatic logic [15:0] rq_head_next(logic [QpIdxBits-1:0] i);
    // verilator lint_off UNUSEDSIGNAL
    rdma_pkg::qp_state_t q;  // (its rq_head is read)
    // verilator lint_on UNUSEDSIGNAL
    q            = (chk_wr && chk_job.qp == 4'(i)) ? chk_qp : qp_word(i);
    rq_head_next = q.rq_head;
  endfunction
  // The slot registers' updates, without a divider on the read side. s = x % n before (the invariant):
  // slot_inc: (x + 1) % n, x 16-bit and wrapping (65535 + 1 is 0); 0 for n = 0.
  function automatic logic [15:0] slot_inc(logic [15:0] s, logic [15:0] x, logic [15:0] n);
    slot_inc = (n == '0 || x == 16'hffff || s + 16'd1 == n) ? 16'd0 : s + 16'd1;
  endfunction
  // slot_add: (x + k) % n for k <= 4 (a prefetch's WQE count, pf_k), x 16-bit and wrapping; 0 for n = 0.
  // With no wrap, s + k < n + 4: one subtraction of n for n >= 4, and s + k <= 6 for n <= 3; with a wrap,
  // x + k - 65536 <= 3 (below n for n >= 4).
  function automatic logic [15:0] slot_add(logic [15:0] s, logic [15:0] x, logic [2:0] k, logic [15:0] n);
    // verilator lint_off UNUSEDSIGNAL
    logic [16:0] sum;  // (its carry and low two bits are read)
    // verilator lint_on UNUSEDSIGNAL
    logic [16:0] v;
    logic [2:0]  w, w3;  // the operand for n <= 3: s + k, or x + k - 65536 after a wrap; w % 3
    sum = 17'(x) + 17'(k);
    v   = 17'(s) + 17'(k);
    w   = sum[16] ? {1'b0, sum[1:0]} : v[2:0];
    w3  = (w >= 3'd6) ? w - 3'd6 : (w >= 3'd3) ? w - 3'd3 : w;
    if (n == 16'd0 || n == 16'd1) slot_add = '0;
    else if (n == 16'd2) slot_add = 16'(w[0]);
    else if (n == 16'd3) slot_add = 16'(w3);
    else if (sum[16]) slot_add = 16'(sum[1:0]);
    else slot_add = (v >= 17'(n)) ? 16'(v - 17'(n)) : 16'(v);
  endfunction
  // QP i's {cq_tail, cq_entries}: the context read whole (as qp_rq_head) for a constant i (the per-QP loop
  // below), through qp_word's AND-OR for the programmed QP (qps_q[cfg_qp] would be a 924-bit shifter in Yosys).
  function automatic logic [31:0] qp_cq(logic [QpIdxBits-1:0] i);
    // verilator lint_off UNUSEDSIGNAL
    rdma_pkg::qp_state_t q;  // (its cq_tail and cq_entries are read)
    // verilator lint_on UNUSEDSIGNAL
    q     = qps_q[i];
    qp_cq = {q.cq_tail, q.queues.cq_entries};
  endfunction
  function automatic logic [31:0] cfg_cq(logic [QpIdxBits-1:0] i);
    // verilator lint_off UNUSEDSIGNAL
    rdma_pkg::qp_state_t q;  // (its cq_tail and cq_entries are read)
    // verilator lint_on UNUSEDSIGNAL
    q      = qp_word(i);
    cfg_cq = {q.cq_tail, q.queues.cq_entries};
  endfunction
  // A queues write to QP i (the programmed one): its counters after this cycle (Check moves the RQ head by at
  // most one, SVA rq_head_step; a CQE write the CQ tail by one) against the new entry counts. Below the count
  // (every write after a QP entry write, whose counters are 0, or while they are small) the slot is the
  // counter itself, or 0 for 0 entries; at or past it, x % n is left to the QP's divider (rdma_slot_div).
  // The CQ slot of a write that keeps cq_entries and finds no division running stays as it is (the CQE
  // write's own update keeps it current). The programmed QP's words are read once here (qp_word's AND-OR
  // over every context), not per QP in the loop below.
  logic [31:0] cfg_cq_w;
  logic [15:0] cfg_rq_x, cfg_cq_x, cfg_rq_n, cfg_cq_n;
  logic        cfg_rq_now, cfg_cq_now, cfg_cq_same, cfg_rq_new;
  assign cfg_cq_w    = cfg_cq(cfg_qp);
  assign cfg_rq_new  = cfg_qq_wr && !rq_kept(cfg_qp);  // a new RQ (not a doorbell)
  assign cfg_rq_x    = rq_head_next(cfg_qp);
  assign cfg_cq_x    = cfg_cq_w[31:16] + 16'(cq_fire && cq_job_q.qp == 4'(cfg_qp));
  assign cfg_rq_n    = cfg_data_i[80:65];
  assign cfg_cq_n    = cfg_data_i[176:161];
  assign cfg_rq_now  = cfg_rq_n == '0 || cfg_rq_x < cfg_rq_n;
  assign cfg_cq_now  = cfg_cq_n == '0 || cfg_cq_x < cfg_cq_n;
  assign cfg_cq_same = cfg_cq_n == cfg_cq_w[15:0];
  // The dividers, one per QP and slot: x the counter and n the entry count, both registers, still while
  // busy except by a held request of that QP taken meanwhile (a prefetch's or a CQE's: then it restarts).
  logic [15:0] rq_div_rem [nt_pkg::RdmaQps];
  logic [15:0] cq_div_rem [nt_pkg::RdmaQps];
  logic [nt_pkg::RdmaQps-1:0] rq_div_done, cq_div_done;
  logic [nt_pkg::RdmaQps-1:0] rq_div_start, cq_div_start, rq_div_cancel, cq_div_cancel;
  logic [15:0] cq_tail_i [nt_pkg::RdmaQps];
  logic [15:0] cq_n_i [nt_pkg::RdmaQps];
  always_comb begin
    for (int i = 0; i < nt_pkg::RdmaQps; i++) begin
      {cq_tail_i[i], cq_n_i[i]} = qp_cq(QpIdxBits'(i));
      rq_div_cancel[i] = cfg_qp == QpIdxBits'(i) && (cfg_qp_wr || (cfg_rq_new && cfg_rq_now));
      cq_div_cancel[i] = cfg_qp == QpIdxBits'(i) && (cfg_qp_wr || (cfg_qq_wr && cfg_cq_now));
      rq_div_start[i]  = (cfg_rq_new && cfg_qp == QpIdxBits'(i)) ||
                         (pf_fire && pff_qp == 4'(i) && rq_div_busy[i]);
      cq_div_start[i]  = (cfg_qq_wr && cfg_qp == QpIdxBits'(i) && (!cfg_cq_same || cq_div_busy[i])) ||
                         (cq_fire && cq_job_q.qp == 4'(i) && cq_div_busy[i]);
    end
  end
  for (genvar g = 0; g < nt_pkg::RdmaQps; g++) begin : g_slot_div
    rdma_slot_div u_rq_div (
      .clk_i    (clk_i),
      .rst_ni   (rst_ni),
      .start_i  (rq_div_start[g]),
      .cancel_i (rq_div_cancel[g]),
      .x_i      (pf_iss_q[g]),
      .n_i      (rq_n[g]),
      .busy_o   (rq_div_busy[g]),
      .done_o   (rq_div_done[g]),
      .rem_o    (rq_div_rem[g])
    );
    rdma_slot_div u_cq_div (
      .clk_i    (clk_i),
      .rst_ni   (rst_ni),
      .start_i  (cq_div_start[g]),
      .cancel_i (cq_div_cancel[g]),
      .x_i      (cq_tail_i[g]),
      .n_i      (cq_n_i[g]),
      .busy_o   (cq_div_busy[g]),
      .done_o   (cq_div_done[g]),
      .rem_o    (cq_div_rem[g])
    );
  end
  // QP i's CQ slot after a CQE write (at the clock edge, for the QP written only).
  function automatic logic [15:0] cq_slot_next(logic [QpIdxBits-1:0] i);
    // verilator lint_off UNUSEDSIGNAL
    rdma_pkg::qp_state_t q;  // (its cq_tail and cq_entries are read)
    // verilator lint_on UNUSEDSIGNAL
    q            = qps_q[i];
    cq_slot_next = slot_inc(cq_slot_q[i], q.cq_tail, q.queues.cq_entries);
  endfunction
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      for (int i = 0; i < nt_pkg::RdmaQps; i++) begin
        pf_slot_q[i] <= '0;
        cq_slot_q[i] <= '0;
      end
    end else begin
      // In the order of pf_iss_q's and qp_next's writes (a later one wins).
      for (int i = 0; i < nt_pkg::RdmaQps; i++) begin
        if (pf_fire && pff_qp == 4'(i)) pf_slot_q[i] <= slot_add(pf_slot_q[i], pf_iss_q[i], 3'(pff_k), rq_n[i]);
        if (cq_fire && cq_job_q.qp == 4'(i)) cq_slot_q[i] <= cq_slot_next(QpIdxBits'(i));
        if (rq_div_done[i]) pf_slot_q[i] <= rq_div_rem[i];  // (a restart in the same cycle divides again)
        if (cq_div_done[i]) cq_slot_q[i] <= cq_div_rem[i];
      end
      if (cfg_qq_wr) begin
        if (cfg_cq_now) cq_slot_q[cfg_qp] <= (cfg_cq_n == '0) ? 16'd0 : cfg_cq_x;
        if (cfg_rq_new && cfg_rq_now) pf_slot_q[cfg_qp] <= (cfg_rq_n == '0) ? 16'd0 : cfg_rq_x;
      end
      if (cfg_qp_wr) begin
        pf_slot_q[cfg_qp] <= '0;
        cq_slot_q[cfg_qp] <= '0;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pf_total_q <= '0;
      for (int i = 0; i < nt_pkg::RdmaQps; i++) begin
        pf_iss_q[i]  <= '0;
        pf_fill_q[i] <= '0;
        pf_out_q[i]  <= '0;
        pf_skip_q[i] <= '0;
      end
    end else begin
      pf_total_q <= pf_total_q + 8'(pf_fire) - 8'(pf_fill_now);
      for (int i = 0; i < nt_pkg::RdmaQps; i++) pf_out_q[i] <= pf_out_d[i];
      if (pf_fire) pf_iss_q[pff_qp] <= pf_iss_q[pff_qp] + pff_k;
      if (pf_fill_now) begin
        if (pf_skip_q[pf_fqp] != 0) pf_skip_q[pf_fqp] <= pf_skip_q[pf_fqp] - 1;
        else pf_fill_q[pf_fqp] <= pf_fill_q[pf_fqp] + 16'(rt_head.k);
      end
      if (cfg_qp_wr) begin
        pf_iss_q[cfg_qp]  <= '0;
        pf_fill_q[cfg_qp] <= '0;
        pf_skip_q[cfg_qp] <= pf_out_d[cfg_qp];
      end
      // A doorbell (the same RQ, more WQEs posted) keeps the ring; a different RQ starts it again.
      if (cfg_qq_wr) begin
        if (!rq_kept(cfg_qp)) begin
          pf_iss_q[cfg_qp]  <= rq_head_next(cfg_qp);
          pf_fill_q[cfg_qp] <= rq_head_next(cfg_qp);
          pf_skip_q[cfg_qp] <= pf_out_d[cfg_qp];
        end
      end
    end
  end
  // The ring (no reset: only read between rq_head and pf_fill). A prefetch beat's WQE j goes to slot
  // pf_fill + j; bank b takes the WQE j with (pf_fill + j) % RingBanks == b, if j < k.
  logic [RingBits-1:0] ring_s0, ring_sb, rf_slot;
  logic                ring_fill;
  assign ring_fill = pf_fill_now && pf_skip_q[pf_fqp] == 0;
  assign ring_s0   = pf_fill_q[pf_fqp][RingBits-1:0];
  // The refill's read: after Check writes a QP, the ring slot of its new RQ head.
  assign rf_slot    = RingBits'(chk_qp.rq_head);
  assign ring_raddr = {chk_job.qp[QpIdxBits-1:0], rf_slot[RingBits-1:BankBits]};
  logic [BankBits-1:0] ring_j;
  always_comb begin
    ring_sb = '0;
    ring_j  = '0;
    for (int b = 0; b < RingBanks; b++) begin
      ring_j        = BankBits'(b) - ring_s0[BankBits-1:0];  // the WQE of the beat bank b takes
      ring_sb       = ring_s0 + RingBits'(ring_j);            // its slot
      ring_we[b]    = ring_fill && 3'(ring_j) < rt_head.k;
      ring_waddr[b] = {pf_fqp[QpIdxBits-1:0], RowBits'(ring_sb >> BankBits)};
      ring_wdata[b] = {dma_rsp_data_i[128*int'(ring_j)+:64],      // addr
                       dma_rsp_data_i[128*int'(ring_j)+64+:32],   // len
                       dma_rsp_data_i[128*int'(ring_j)+96+:32]};  // wr_id
    end
  end
  for (genvar b = 0; b < RingBanks; b++) begin : g_ring
    logic [rdma_pkg::WqeBits-1:0] mem_q [BankWords];
    always_ff @(posedge clk_i) begin
      if (ring_we[b]) mem_q[ring_waddr[b]] <= ring_wdata[b];
      ring_rd_q[b] <= mem_q[ring_raddr];
    end
  end
  // The head WQE registers: the refill first, then a WQE written now into the slot of its QP's RQ head
  // after this cycle (which a refill read in the same cycle would miss: that refill is dropped).
  logic [RingBits-1:0] fill_head;  // the slot of the filled QP's RQ head after this cycle
  logic        rf_hit;
  assign fill_head = RingBits'(rq_head_next(pf_fqp[QpIdxBits-1:0]));
  always_comb begin
    rf_hit = 1'b0;
    for (int b = 0; b < RingBanks; b++) begin
      if (ring_we[b] && ring_waddr[b] == ring_raddr && BankBits'(b) == rf_slot[BankBits-1:0]) rf_hit = 1'b1;
    end
  end
  always_ff @(posedge clk_i) begin
    for (int q = 0; q < nt_pkg::RdmaQps; q++) begin
      if (rf_valid_q && rf_qp_q == QpIdxBits'(q)) wqe_head_q[q] <= ring_rd_q[rf_bank_q];
      for (int b = 0; b < RingBanks; b++) begin
        if (ring_we[b] && ring_waddr[b][RowBits-1:0] == fill_head[RingBits-1:BankBits] &&
            BankBits'(b) == fill_head[BankBits-1:0] && pf_fqp[QpIdxBits-1:0] == QpIdxBits'(q)) begin
          wqe_head_q[q] <= ring_wdata[b];
        end
      end
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rf_valid_q <= 1'b0;
      rf_qp_q    <= '0;
      rf_bank_q  <= '0;
    end else begin
      rf_valid_q <= chk_wr && !rf_hit;
      rf_qp_q    <= chk_job.qp[QpIdxBits-1:0];
      rf_bank_q  <= rf_slot[BankBits-1:0];
    end
  end

  // Fields other stages consume, and the configuration word's spare bits.
  logic unused_bits;
  assign unused_bits = ^{cfg_data_i[nt_pkg::CfgDataBits-1:211], job_q.drop, widx[31:7], jq.cfg.valid, jq.cfg.qpn,
                         jq.cfg.dest_qp, jq.cfg.epsn, jq.cfg.mtu_log2, jq.cfg.max_rd_atomic, jq.nak_sent,
                         jq.w_open, jq.w_pa, jq.w_remaining, jq.grp_psn, jq.queues.valid, jq.queues.rq_posted, jq.queues.rq, jq.queues.rq_entries, jq.rq_head, jq.epsn, jq.msn,
                         pqq.valid, pqq.cq, pqq.cq_entries, pqq.rnr_timer,
                         jq.queues.rnr_timer, jq.s_open, jq.s_addr, jq.s_room, jq.s_total, jq.s_wr_id,
                         jq.w_dmalen, jq.aq_wr, jq.aq_lapped, jq.cq_tail,
                         // a few fields each used:
                         he, xe, hq, cq_job_q, cq_jq,
                         // whole-element reads of which a few fields are used (Yosys 0.55, docs/synthesis.md)
                         pqq_i, rq_head_i, chk_qs};

  assign cnt_packets_in_o = c_in_q;
  assign cnt_processed_o  = c_proc_q;
  assign cnt_responses_o  = c_resp_q;
  assign cnt_drops_o      = c_drops_q;
  assign cnt_acks_o       = c_acks_q;
  assign cnt_naks_o       = c_naks_q;
  assign cnt_atomics_o    = c_atom_q;
  assign cnt_replays_o    = c_repl_q;
  assign cnt_reads_o      = c_reads_q;
  assign cnt_dma_reads_o  = c_dmar_q;
  assign cnt_dma_writes_o = c_dmaw_q;
  assign cnt_cqes_o       = c_cqes_q;
  assign cqe_valid_o      = cqe_valid_q;
  assign cqe_o            = cqe_q;
endmodule
