// ConWeave destination-ToR reorder queue (docs/reorder.md, docs/reorder-microarchitecture.md).
// Fabric frames in (ConWeave fields in the BTH + 4-byte CW header); the NIC's frames out to the host, in
// order per flow; control packets (RTT_REPLY, CLEAR, NOTIFY) out on a second stream.
// Stages: I ingress (reorder_ingress: lookahead, parse, CW removal, cell writes), D decision (flow table,
// epochs, queues), T resume timer (one queue per cycle), R reader (output FIFO of packets and released
// queues), C control (reorder_ctrl_gen). D, T and R share the queue and buffer state, so they live here.
// model/reorder/reorder_cycle_model.cc is the cycle-accurate model of this module.
`include "nt_ports.svh"
module reorder_top
(
  `NT_CLK_RST,
  // fabric side
  `NT_STREAM_IN(s),
  // host side
  `NT_STREAM_OUT(m),
  output logic                   m_held_o,
  output logic [15:0]            m_hold_us_o,
  // control packets toward the source ToR
  `NT_STREAM_OUT(c),
  // microsecond clock and quasi-static configuration
  input  logic [15:0]            now_us_i,
  input  logic [15:0]            cfg_flows_mask_i,
  input  logic [7:0]             cfg_queues_i,
  input  logic [15:0]            cfg_buffer_cells_i,
  input  logic [15:0]            cfg_margin_us_i,
  input  logic [15:0]            cfg_default_hold_us_i,
  input  logic [15:0]            cfg_flow_idle_us_i,
  input  logic                   cfg_any_queue_i,     // first free queue instead of the 4-way lookup
  input  logic                   cfg_p4_format_i,     // conweave-p4's wire format instead of the seed's
  output logic                   idle_o,
  // counters
  output logic [31:0]            cnt_in_o,
  output logic [31:0]            cnt_delivered_o,
  output logic [31:0]            cnt_ctrl_out_o,
  output logic [31:0]            cnt_drop_malformed_o,
  output logic [31:0]            cnt_drop_buffer_full_o,
  output logic [31:0]            cnt_held_o,
  output logic [31:0]            cnt_released_by_tail_o,
  output logic [31:0]            cnt_tail_releases_o,
  output logic [31:0]            cnt_released_by_timeout_o,
  output logic [31:0]            cnt_fallback_unordered_o,
  output logic [31:0]            cnt_fallback_collision_o,
  output logic [31:0]            cnt_epoch_jump_o,
  output logic [31:0]            cnt_held_now_o,
  output logic [31:0]            cnt_queues_now_o,
  output logic [31:0]            cnt_peak_queues_o,
  output logic [31:0]            cnt_held_cells_o,
  output logic [31:0]            cnt_peak_held_cells_o,
  output logic [31:0]            cnt_cells_used_o,
  output logic [31:0]            cnt_peak_cells_used_o
);
  localparam int unsigned NCnt = 19;
  localparam int unsigned CIn = 0, CDelivered = 1, CCtrlOut = 2, CDropMalformed = 3, CDropBufferFull = 4,
                          CHeld = 5, CRelTail = 6, CRelTimeout = 7, CFbUnordered = 8, CFbCollision = 9,
                          CEpochJump = 10, CHeldNow = 11, CQueuesNow = 12, CPeakQueues = 13, CHeldCells = 14,
                          CPeakHeldCells = 15, CCellsUsed = 16, CPeakCellsUsed = 17, CTailReleases = 18;
  typedef enum logic [1:0] {OpNone = 2'd0, OpAlloc = 2'd1, OpAppend = 2'd2, OpTailRelease = 2'd3} qop_e;

  // ---------------- state ----------------
  // buffer
  logic [nt_pkg::StreamBits-1:0]  cell_data_q [nt_pkg::ReorderCells];
  logic [nt_pkg::StreamBytes-1:0] cell_keep_q [nt_pkg::ReorderCells];
  logic                   cell_last_q [nt_pkg::ReorderCells];
  // A cell's next pointer, in two RAMs by writer: the ingress links the cells of a packet (a cell that is not
  // its packet's last: next_in_q), the decision links packets in a queue (a packet's last cell: next_pkt_q).
  // The reader takes the one its cell's last flag names (reorder_top_sva next_link_*), so each RAM has one
  // write port.
  logic [reorder_pkg::CellW-1:0]       next_in_q [nt_pkg::ReorderCells];
  logic [reorder_pkg::CellW-1:0]       next_pkt_q [nt_pkg::ReorderCells];
  logic                   info_held_q [nt_pkg::ReorderCells];
  logic [15:0]            info_t_q [nt_pkg::ReorderCells];
  logic [reorder_pkg::CellW-1:0]       free_mem_q [nt_pkg::ReorderCells];
  logic [reorder_pkg::CellW-1:0]       free_rd_q;
  // the free list's write index, kept equal to (free_rd_q + free_cnt_q) mod ReorderCells (a wrapping counter
  // advanced by every push, instead of that sum's remainder: a divider, 441 logic levels; reorder_top_sva
  // free_wr_index checks the equality every cycle)
  logic [reorder_pkg::CellW-1:0]       free_wr_q;
  logic [reorder_pkg::CellW:0]         free_cnt_q, fresh_q, free_cnt_p1, free_cnt_m1;
  // Registered reads of the memories over 4 KiB (block RAM; docs/reorder-microarchitecture.md "Registered
  // reads"): each is read one cycle ahead at the address the stage will use (the reader's next cell n_cell,
  // the free list's next read index free_rd_d), so no cycle is added. info and the free list can be written
  // at the address being prefetched; a bypass register then supplies the written value.
  logic [nt_pkg::StreamBits-1:0]  cell_rdata_q;
  logic [nt_pkg::StreamBytes-1:0] cell_rkeep_q;
  // the last flag read with the cell (branch rtop19): cell_last_q[rd_cell_q] whenever the reader is busy
  // (reorder_top_sva cell_last_fresh), read one cycle ahead at n_cell as the cell store is. R read
  // cell_last_q[rd_cell_q] itself: a 72:1 multiplexer of LUTRAM outputs, 11 levels in front of its choice.
  logic                   cell_rlast_q;
  logic                   info_rheld_q, info_byp_q, info_byp_held_q;
  logic [15:0]            info_rt_q, info_byp_t_q;
  logic [reorder_pkg::CellW-1:0]       free_rcell_q, free_byp_cell_q, free_rd_d, free_wr;
  logic                   free_byp_q;
  logic [reorder_pkg::CellW-1:0]       next_in_rd_q, next_pkt_rd_q, next_in_byp_q, next_pkt_byp_q;
  logic [reorder_pkg::CellW-1:0]       next_in, next_pkt, nd_addr, nd_data;
  logic                                next_in_hit_q, next_pkt_hit_q, nd_we;
  // the flow table's registered read, prefetched at the index of the packet D decides on next
  reorder_pkg::flow_t                  flow_rd_q, flow_byp_data_q;
  logic                                flow_byp_q;
  // flow_valid_q's bit for the same entry, read with it (registered; a valid bit is only ever set, so a
  // write to the entry in that edge, flow_byp_q, makes it 1): D's e_valid from a register instead of a
  // 1024:1 multiplexer at the decision's index (reorder_top_sva flow_valid_prefetch)
  logic                                fv_rd_q;
  logic [reorder_pkg::FlowW-1:0]       flow_raddr;
  // flow_valid_q's read split at the register (branch rtop19): the 32-bit word at flow_raddr's upper bits and the
  // lower bits are registered (fv_word_q, fv_lo_q) and the bit is chosen after the register, so fv_rd_q is the
  // same bit (a write in that edge to the entry read is the bypass flow_byp_q as before; a write to another bit
  // of the word is not read). ABC mapped the 1024:1 multiplexer 16 levels deep.
  localparam int unsigned FvLo = 5;
  localparam int unsigned FvWords = nt_pkg::ReorderFlows >> FvLo;
  logic [FvWords-1:0][(1 << FvLo)-1:0] fv_row;
  logic [(1 << FvLo)-1:0]              fv_word_q;
  logic [FvLo-1:0]                     fv_lo_q;
  logic [15:0]                         pend_hash_next;
  // D / T
  logic [nt_pkg::ReorderFlows-1:0] flow_valid_q;
  logic [reorder_pkg::FlowEntryBits-1:0] flow_q [nt_pkg::ReorderFlows];  // reorder_pkg::flow_t words
  reorder_pkg::qstate_e [nt_pkg::ReorderQueues-1:0] q_state_q;
  // The queues, one array per reorder_pkg::queue_t field: each field is written on its own (an append moves
  // the tail, a timeout clears the cells), which Yosys 0.55 cannot do on a member of an array element.
  logic [reorder_pkg::FlowW-1:0]       q_owner_q [nt_pkg::ReorderQueues];
  logic [reorder_pkg::CellW-1:0]       q_head_q [nt_pkg::ReorderQueues];
  logic [reorder_pkg::CellW-1:0]       q_tail_q [nt_pkg::ReorderQueues];
  logic [15:0]                         q_count_q [nt_pkg::ReorderQueues];
  // q_ge2_q[c] = q_count_q[c] >= 2 (branch rtop19): written with every write of q_count_q[c], so R's "the
  // queue goes on after this packet" is a 1-bit 32:1 read instead of a 16-bit one and a compare (19 levels
  // from rd_q_q to next_in_hit_q in branch rtop18's run); reorder_top_sva q_ge2_current
  logic [nt_pkg::ReorderQueues-1:0]    q_ge2_q;
  logic [15:0]                         q_cells_q [nt_pkg::ReorderQueues];
  logic [15:0]                         q_deadline_q [nt_pkg::ReorderQueues];
  logic                                q_v6_q [nt_pkg::ReorderQueues];
  logic [1:0]                          q_clear_epoch_q [nt_pkg::ReorderQueues];
  logic [reorder_pkg::HdrBits-1:0]     q_hdr_q [nt_pkg::ReorderQueues];
  // The output FIFO's entries (reorder_pkg::out_entry_t) in two banks by address parity (branch cw21): entry a
  // is of_mem0_q[a / 2] if a is even, else of_mem1_q[a / 2]. D writes at of_wr0 and T at of_wr0 or of_wr0 + 1,
  // so in one edge the two writes go to different banks: each bank has one write port and is LUTRAM. As one
  // array with two write ports it was flip-flops, and the second entry's read (of_rd1_q) a 256:1 multiplexer
  // of them (15 levels to of_front_q in branch rtop19's run 5); now it is two RAM reads and a 2:1 choice.
  logic [reorder_pkg::OutEntryBits-1:0] of_mem0_q [nt_pkg::ReorderOutFifo / 2];
  logic [reorder_pkg::OutEntryBits-1:0] of_mem1_q [nt_pkg::ReorderOutFifo / 2];
  logic [reorder_pkg::OfW-1:0]         of_rd_q, of_rd1_q;  // of_rd1_q = of_rd_q + 1 (a second register)
  // The output FIFO's front entry, registered (branch rtop18): the entry at of_rd_q whenever the FIFO is not
  // empty (reorder_top_sva of_front_current). It was a 256:1 multiplexer at of_rd_q in front of R's next cell
  // (14 levels of R's 21); the read is at of_rd1_q, into this register (since branch cw21 two bank reads).
  reorder_pkg::out_entry_t             of_front_q;
  logic [reorder_pkg::OfW:0]           of_cnt_q;
  logic                                of_ne_q;  // of_cnt_q != 0 (branch rtop19; reorder_top_sva of_ne_current)
  logic                                of_one_q; // of_cnt_q == 1 (branch rtop19; reorder_top_sva of_ne_current)
  logic [reorder_pkg::QW-1:0]          scan_q;
  // R
  logic                   rd_busy_q, rd_queue_q, rd_discard_q, rd_first_q, rd_held_q;
  // q_ge2_q[rd_q_q] registered (branch rtop19): whenever the reader is in a queue (reorder_top_sva rd_ge2_current)
  logic                   rd_ge2_q, rd_ge2_d;
  logic [reorder_pkg::CellW-1:0]       rd_cell_q;
  logic [reorder_pkg::QW-1:0]          rd_q_q;
  logic [15:0]            rd_hold_q;
  logic                   m_valid_q, m_last_q, m_held_q;
  logic [nt_pkg::StreamBits-1:0]  m_data_q;
  logic [nt_pkg::StreamBytes-1:0] m_keep_q;
  logic [15:0]            m_hold_q;
  // counters
  logic [NCnt-1:0][31:0]  cnt_q, cnt_d;
  // T's and R's queue events, declared here because D1 reads them (their sections say what they are)
  logic             timeout, to_pre;
  logic             adv, r_emit, r_free, r_pop, r_qpop, r_qend, r_qdone, r_held, r_app;
  // D2's queue events (declared here because D1 registers them): an append and a TAIL release (d_qop == OpAppend
  // / OpTailRelease, formed on their own so that R's r_app, T's timeout and the next-pointer write do not wait
  // for the queue search, which only an allocation needs), the allocation's queue
  logic             d_app, d_app_r, d_trel;
  logic [reorder_pkg::QW-1:0]    found_q;

  // ---------------- C: control generator ----------------
  logic       ca_push, cb_push, cb_full, cg_busy, c_sent;
  logic [3:0] ca_free;
  reorder_pkg::ctrl_req_t  ca_req, cb_req;

  reorder_ctrl_gen u_ctrl (
    `NT_CLK_RST_CONN,
    .push_a_i  (ca_push),
    .req_a_i   (ca_req),
    .push_b_i  (cb_push),
    .req_b_i   (cb_req),
    .free_a_o  (ca_free),
    .full_b_o  (cb_full),
    .busy_o    (cg_busy),
    .c_valid_o (c_valid_o),
    .c_data_o  (c_data_o),
    .c_keep_o  (c_keep_o),
    .c_last_o  (c_last_o),
    .c_ready_i (c_ready_i),
    .p4_format_i (cfg_p4_format_i),
    .sent_o    (c_sent)
  );

  // the packet waiting for the decision (from the ingress)
  logic             pend_valid, pend_bad;
  reorder_pkg::meta_t            pend_meta;
  logic [reorder_pkg::CellW-1:0] pend_head, pend_tail;
  logic [15:0]      pend_cells;

  // the output FIFO has room for 2 entries (of_cnt_q <= ReorderOutFifo - 2), registered with the count
  // (of_room2_q below; reorder_top_sva of_room2_current): the compare on of_cnt_q was the first two levels of
  // the block's deepest stitched path (of_cnt_q -> d_fire -> d1_take -> the ingress's next hash -> the flow
  // prefetch's bypass, 14; session 24)
  logic         of_room2, of_room2_q;
  logic         cell_avail;
  assign of_room2 = of_room2_q;
  assign cell_avail = free_cnt_q != '0 || fresh_q < (reorder_pkg::CellW + 1)'(nt_pkg::ReorderCells);

  // ---------------- D1: classify (the pending packet against its prefetched flow entry) ----------------
  // D is two cycles (branch reorder16, docs/reorder-microarchitecture.md "Decision in two cycles"). D1 takes
  // the pending packet with its flow entry (the prefetched read) into the D2 register, together with every
  // compare that needs only the packet, the entry, the clock and the configuration: the key compare, the idle
  // time, the epoch difference, the one-way delay and its compares, the three deadline candidates, the
  // buffer limit's bound and the 4-way allocation's candidate queues. D2 reads the queue state and the counters (registered, as D did) and decides.
  // Hazard: D2 writes the entry of the flow it decides; a packet of the same flow index waits in D1 for one
  // cycle (d1_hazard), so the entry D1 takes is always the table's entry when D2 uses it
  // (reorder_top_sva d2_entry_current).
  logic                          d1_take, d1_hazard, d_fire;
  logic [reorder_pkg::FlowW-1:0] d1_idx;
  reorder_pkg::flow_t            d1_e;
  logic [15:0]                   d1_owd, d1_dl_cur, d1_dl_old;
  logic [7:0]                    d1_qw;
  // the 4-way allocation's candidate queue per way, and the queues the first-free allocation may use
  logic [nt_pkg::ReorderWays-1:0][reorder_pkg::QW-1:0] d1_cand, d2_cand_q;
  // d2_cand_q one-hot (branch cw21; reorder_top_sva cand_oh_current): the allocation's found_oh per queue is
  // then an AND-OR of way_first and these bits, no compare of d2_cand_q with each queue index after way_free
  logic [nt_pkg::ReorderWays-1:0][nt_pkg::ReorderQueues-1:0] d2_cand_oh_q;
  logic [nt_pkg::ReorderQueues-1:0]                    d1_qok, d2_qok_q;
  // cand_eq[w][v]: D1's candidate w is D2's candidate v (the 4-way allocation at this edge takes D2's first free
  // candidate, way_first)
  logic [nt_pkg::ReorderWays-1:0][nt_pkg::ReorderWays-1:0] cand_eq;
  // The 4-way candidates' free bits, registered (branch rtop19): d2_wf_q[w] is the candidate queue's state ==
  // QFree at the cycle before, and the queue events of the edge since (an allocation by D2, the reader's queue
  // end r_qdone: the only changes into or out of QFree) come in registered: d2_ev_al_q / d2_ev_qd_q, and
  // whether they were at the candidate (d2_wf_al_q / d2_wf_qd_q, compared before the edge; the allocation's as
  // D2's first free way against D1's candidates, cand_eq). way_free is what the 4-way search reads: it follows the
  // 4-way allocations (any_queue's search reads the state vector and its allocations are not tracked here), so
  // it is exact whenever cfg_any_queue_i is 0, which is constant during a run as all the configuration. way_free[w] is
  // then a LUT of registers instead of q_state_q[d2_cand_q[w]] (a 32:1 read, 5 levels in front of D2's
  // decision); reorder_top_sva way_free_current checks it against the tables every cycle a packet is in D2.
  logic [nt_pkg::ReorderWays-1:0]                      d2_wf_q, d2_wf_al_q, d2_wf_qd_q, way_free;
  logic                                                d2_ev_al_q, d2_ev_qd_q;
  // The first-free allocation's "some usable queue is free" (any_queue), likewise from D1 (branch rtop19): the
  // number n of free usable queues at the cycle before as two flags (n >= 1: d2_sf1_q, n >= 2: d2_sf2_q) and
  // whether the reader's queue is usable (d2_qd_ok_q); the edge's allocation takes one of them (a free usable
  // queue: the first, or a 4-way candidate, each below `queues`), R's queue end adds its queue if usable (it was
  // released, so not among them). found_any = n - alloc + end >= 1; reorder_top_sva found_any_current.
  // (both versions, with D1's qok and with D2's, are registered every cycle and d2_took_q, D1's take at the last
  // edge, chooses in D2: d1_take is not in front of the counts)
  logic [1:0]                                          d2_sf1_q, d2_sf2_q;
  logic                                                d2_took_q, d2_qd_ok_q, found_any;
  logic [nt_pkg::ReorderQueues-1:0]                    q_free;
  // D2's register: the packet, its entry and D1's results
  logic                          d2_valid_q, d2_bad_q, d2_ev_q, d2_key_ne_q, d2_idle_t_q, d2_cur_gt_q, d2_old_gt_q;
  logic                          d2_over_all_q;
  reorder_pkg::meta_t            d2_meta_q;
  reorder_pkg::flow_t            d2_e_q;
  logic [reorder_pkg::CellW-1:0] d2_head_q, d2_tail_q;
  logic [15:0]                   d2_cells_q, d2_now_q, d2_owd_q, d2_dl_cur_q, d2_dl_old_q, d2_dl_def_q, d2_lim_q;
  logic [reorder_pkg::FlowW-1:0] d2_idx_q;
  logic [1:0]                    d2_dd_q;
  // The entry's queue (its hq field, d1_hq / d2_hq) as D2 needs it, read in D1 and kept current while the
  // packet is in D2 (branch rtop18, docs/reorder-microarchitecture.md "The entry's queue registered in D1"):
  // d2_mine_q = the queue is this flow's (owner = the flow index) and not free; when it is, d2_hold_q = it is
  // holding (else released) and its count, cells, head and tail. Only T (timeout: released, cells 0) and R
  // (a pop: count - 1; the queue's end: free) can change a queue that is this flow's in those cycles: D
  // changes only its own flow's queue or a free one, and the flow in D2 is never D1's (d1_hazard). So the
  // registers follow T's and R's events without D's terms (to_pre, r_qend: timeout and r_qdone before D's
  // exclusions, which never apply to this queue); reorder_top_sva d2_queue_current checks them every cycle.
  logic [reorder_pkg::QW-1:0]    d1_hq, d2_hq;
  logic                          d2_mine_q, d2_hold_q;
  logic [15:0]                   d2_hq_count_q, d2_hq_cells_q;
  logic [15:0]                   d1_hq_count, d1_hq_count_m1, d2_hq_count_m1, d2_hq_count_p1, d2_hq_count_next;
  logic [15:0]                   rd_count_m1;  // q_count_q[rd_q_q] - 1
  logic                          d2_hq_ge2_next;
  logic [reorder_pkg::CellW-1:0] d2_hq_head_q, d2_hq_tail_q;

  // two or more of 4 bits set
  function automatic logic ge2_of4(logic [3:0] x);
    ge2_of4 = (x[0] && (x[1] || x[2] || x[3])) || (x[1] && (x[2] || x[3])) || (x[2] && x[3]);
  endfunction

  assign d_fire = d2_valid_q && of_room2 && ca_free >= 4'd1;
  assign d1_idx = reorder_pkg::FlowW'(pend_meta.hash & cfg_flows_mask_i);
  assign d1_hazard = d2_valid_q && !d2_bad_q && !pend_bad && d2_idx_q == d1_idx;
  assign d1_take = pend_valid && (!d2_valid_q || d_fire) && !d1_hazard;
  assign d1_owd = now_us_i - pend_meta.tx_ts;
  always_comb begin
    d1_e = flow_byp_q ? flow_byp_data_q : flow_rd_q;
    d1_hq = d1_e.hq;
    d1_dl_cur = pend_meta.tail_tx_ts + d1_e.owd_cur + cfg_margin_us_i;
    d1_dl_old = pend_meta.tail_tx_ts + d1_e.owd_old + cfg_margin_us_i;
    d1_qw = cfg_queues_i >> 2;
    for (int unsigned w = 0; w < nt_pkg::ReorderWays; w++) begin
      d1_cand[w] = reorder_pkg::QW'(w * d1_qw + ((32'(pend_meta.hash) >> (4 + 3 * w)) & (32'(d1_qw) - 1)));
    end
    for (int unsigned c = 0; c < nt_pkg::ReorderQueues; c++) d1_qok[c] = c < 32'(cfg_queues_i);
    for (int unsigned w = 0; w < nt_pkg::ReorderWays; w++) begin
      for (int unsigned v = 0; v < nt_pkg::ReorderWays; v++) cand_eq[w][v] = d1_cand[w] == d2_cand_q[v];
    end
  end

  // the free usable queues counted as >= 1 and >= 2, with the qok of the packet D1 takes (sf_t) and of the one
  // D2 holds (sf_w): groups of 4, then of 16, then all (a tree, no chain through 32 queues); d1_take chooses at
  // the register, after both
  logic [1:0][nt_pkg::ReorderQueues-1:0] sf_in;
  logic [1:0][7:0] sf_any4, sf_two4;
  logic [1:0][1:0] sf_any16, sf_two16;
  logic [1:0]      sf_ge1, sf_ge2;
  always_comb begin
    for (int unsigned c = 0; c < nt_pkg::ReorderQueues; c++) q_free[c] = q_state_q[c] == reorder_pkg::QFree;
    sf_in[0] = q_free & d1_qok;
    sf_in[1] = q_free & d2_qok_q;
    for (int unsigned i = 0; i < 2; i++) begin
      for (int unsigned g = 0; g < 8; g++) begin
        sf_any4[i][g] = sf_in[i][4 * g +: 4] != 4'd0;
        sf_two4[i][g] = ge2_of4(sf_in[i][4 * g +: 4]);
      end
      for (int unsigned h = 0; h < 2; h++) begin
        sf_any16[i][h] = sf_any4[i][4 * h +: 4] != 4'd0;
        sf_two16[i][h] = sf_two4[i][4 * h +: 4] != 4'd0 || ge2_of4(sf_any4[i][4 * h +: 4]);
      end
      sf_ge1[i] = sf_any16[i] != 2'd0;
      sf_ge2[i] = sf_two16[i] != 2'd0 || sf_any16[i] == 2'b11;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      d2_valid_q <= 1'b0;
    end else if (d1_take) begin
      d2_valid_q <= 1'b1;
    end else if (d_fire) begin
      d2_valid_q <= 1'b0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (d1_take) begin
      d2_bad_q      <= pend_bad;
      d2_meta_q     <= pend_meta;
      d2_head_q     <= pend_head;
      d2_tail_q     <= pend_tail;
      d2_cells_q    <= pend_cells;
      d2_idx_q      <= d1_idx;
      d2_now_q      <= now_us_i;
      d2_e_q        <= d1_e;
      d2_ev_q       <= flow_byp_q || fv_rd_q;
      // the key compare on both words d1_e chooses from, then the choice (branch cw21: the bypass mux was in
      // front of the 288-bit compare, 13 levels)
      d2_key_ne_q   <= flow_byp_q ? flow_byp_data_q.key != pend_meta.key : flow_rd_q.key != pend_meta.key;
      d2_idle_t_q   <= (now_us_i - d1_e.last_us) >= cfg_flow_idle_us_i;
      d2_dd_q       <= pend_meta.epoch - d1_e.epoch;
      d2_owd_q      <= d1_owd;
      d2_cur_gt_q   <= d1_e.owd_cur > d1_owd;
      d2_old_gt_q   <= d1_e.owd_old > d1_owd;
      // the deadline of an allocation, for each place the entry's old-path delay can come from (after an
      // epoch step: the current delay; same epoch: the old one), and the default
      d2_dl_cur_q   <= (now_us_i - d1_dl_cur) < 16'h8000 ? now_us_i : d1_dl_cur;
      d2_dl_old_q   <= (now_us_i - d1_dl_old) < 16'h8000 ? now_us_i : d1_dl_old;
      d2_dl_def_q   <= now_us_i + cfg_default_hold_us_i;
      // the buffer limit: held + cells > buffer_cells is cells > buffer_cells, or held > buffer_cells - cells
      d2_over_all_q <= pend_cells > cfg_buffer_cells_i;
      d2_lim_q      <= cfg_buffer_cells_i - pend_cells;
      d2_cand_q     <= d1_cand;
      for (int unsigned w = 0; w < nt_pkg::ReorderWays; w++) begin
        d2_cand_oh_q[w] <= nt_pkg::ReorderQueues'(1) << d1_cand[w];
      end
      d2_qok_q      <= d1_qok;
      d2_qd_ok_q    <= d1_qok[rd_q_q];
      for (int unsigned w = 0; w < nt_pkg::ReorderWays; w++) begin
        d2_wf_q[w]    <= q_state_q[d1_cand[w]] == reorder_pkg::QFree;
        d2_wf_al_q[w] <= (way_first & cand_eq[w]) != '0;
        d2_wf_qd_q[w] <= rd_q_q == d1_cand[w];
      end
      // the entry's queue after this edge (T's and R's events at it; D's never touch it, see above)
      d2_mine_q     <= q_owner_q[d1_hq] == d1_idx && q_state_q[d1_hq] != reorder_pkg::QFree &&
                       !(r_qend && rd_q_q == d1_hq);
      d2_hold_q     <= q_state_q[d1_hq] == reorder_pkg::QHolding && !(to_pre && scan_q == d1_hq);
      d2_hq_count_q <= ({16{r_qpop && rd_q_q == d1_hq}} & d1_hq_count_m1) |
                       ({16{!(r_qpop && rd_q_q == d1_hq)}} & d1_hq_count);
      d2_hq_cells_q <= to_pre && scan_q == d1_hq ? 16'd0 : q_cells_q[d1_hq];
      d2_hq_head_q  <= q_head_q[d1_hq];
      d2_hq_tail_q  <= q_tail_q[d1_hq];
    end else begin
      // the packet waits in D2 (d_fire is 0, so T's and R's events are exactly to_pre's and r_qend's)
      d2_mine_q     <= d2_mine_q && !(r_qend && rd_q_q == d2_hq);
      d2_hold_q     <= d2_hold_q && !(to_pre && scan_q == d2_hq);
      d2_hq_count_q <= ({16{r_qpop && rd_q_q == d2_hq}} & d2_hq_count_m1) |
                       ({16{!(r_qpop && rd_q_q == d2_hq)}} & d2_hq_count_q);
      if (to_pre && scan_q == d2_hq) d2_hq_cells_q <= 16'd0;
      d2_qd_ok_q    <= d2_qok_q[rd_q_q];
      // the candidates' free bits after this edge: D2 does not fire, so only R can free a queue
      for (int unsigned w = 0; w < nt_pkg::ReorderWays; w++) begin
        d2_wf_q[w]    <= way_free[w];
        d2_wf_al_q[w] <= 1'b0;  // (no allocation at an edge D2 does not fire)
        d2_wf_qd_q[w] <= rd_q_q == d2_cand_q[w];
      end
    end
    // the queue events of this edge that change a queue into or out of QFree (for way_free next cycle)
    d2_ev_al_q <= d_fire && d_qop == OpAlloc;
    d2_ev_qd_q <= r_qdone;
    d2_sf1_q   <= sf_ge1;
    d2_sf2_q   <= sf_ge2;
    d2_took_q  <= d1_take;
  end
  assign d2_hq = d2_e_q.hq;
  // the counts - 1 and + 1 formed from registers, R's pop choosing after them (AND-OR, see add32_16)
  assign d1_hq_count = q_count_q[d1_hq];
  // the count - 1 is used only when R pops the entry's queue (rd_q_q == d1_hq), so it is the reader's queue's
  // count - 1, read at the register rd_q_q (branch cw21: q_count_q[d1_hq] - 1 was a 32:1 read behind D1's
  // bypass mux and then a subtraction, 13 levels to d2_hq_count_q); R's pop writes the same value
  assign rd_count_m1 = q_count_q[rd_q_q] - 16'd1;
  assign d1_hq_count_m1 = rd_count_m1;
  assign d2_hq_count_m1 = d2_hq_count_q - 16'd1;
  assign d2_hq_count_p1 = d2_hq_count_q + 16'd1;
  // an append's new count: + 1, unless R takes a packet off the same queue in that cycle
  assign d2_hq_count_next = ({16{r_qpop && rd_q_q == d2_hq}} & d2_hq_count_q) |
                            ({16{!(r_qpop && rd_q_q == d2_hq)}} & d2_hq_count_p1);
  // d2_hq_count_next >= 2, the compares made before R's pop chooses
  assign d2_hq_ge2_next = (r_qpop && rd_q_q == d2_hq && d2_hq_count_q >= 16'd2) ||
                          (!(r_qpop && rd_q_q == d2_hq) && d2_hq_count_p1 >= 16'd2);

  // ---------------- D2: decision ----------------
  logic             d_flow_write, d_held, d_push, d_collision, d_fallback, d_epoch_jump, d_discard;
  qop_e             d_qop;
  logic [reorder_pkg::QW-1:0]    d_q;
  logic [reorder_pkg::FlowW-1:0] d_idx;
  reorder_pkg::flow_t            d_flow, e;
  logic             e_valid, qh, qr, want_hold, release_tail, tail_first, is_idle, found, fresh, over;
  logic [15:0]      owd, d_deadline;
  logic [1:0]       dd;
  logic [2:0]       d_mask;
  logic [nt_pkg::ReorderQueues-1:0] found_oh, free_ok;  // the found queue one-hot; the free usable queues
  logic [nt_pkg::ReorderWays-1:0]   way_first;

  // The allocation's queue search, from registers only (D2 uses it when it allocates): the first free queue
  // below `queues` (any_queue), or the first free of the 4 candidates. Parallel forms (a prefix OR per queue,
  // not a chain of 32 ifs), with the result also one-hot so the writes need no decoder.
  always_comb begin
    for (int unsigned c = 0; c < nt_pkg::ReorderQueues; c++) begin
      free_ok[c] = d2_qok_q[c] && q_state_q[c] == reorder_pkg::QFree;
    end
    // (the registered free bit and this cycle's events at the candidate: a queue end frees it, an allocation
    // takes it; the reader's queue is a released one, so the two never name the same queue)
    for (int unsigned w = 0; w < nt_pkg::ReorderWays; w++) begin
      way_free[w] = (d2_ev_qd_q && d2_wf_qd_q[w]) || (d2_wf_q[w] && !(d2_ev_al_q && d2_wf_al_q[w]));
    end
    way_first[0] = way_free[0];
    way_first[1] = way_free[1] && !way_free[0];
    way_first[2] = way_free[2] && way_free[1:0] == 2'b00;
    way_first[3] = way_free[3] && way_free[2:0] == 3'b000;
    found_oh = '0;
    found_q = '0;
    found_any = (d2_took_q ? d2_sf2_q[0] || (d2_sf1_q[0] && !d2_ev_al_q) : d2_sf2_q[1] || (d2_sf1_q[1] && !d2_ev_al_q)) ||
                (d2_ev_qd_q && d2_qd_ok_q);  // = free_ok != 0
    if (cfg_any_queue_i) begin
      found = found_any;
      for (int unsigned c = 0; c < nt_pkg::ReorderQueues; c++) begin
        found_oh[c] = free_ok[c] && (c == 0 || (free_ok & ((32'd1 << c) - 32'd1)) == '0);
        if (found_oh[c]) found_q = found_q | reorder_pkg::QW'(c);
      end
    end else begin
      found = way_free != '0;
      for (int unsigned w = 0; w < nt_pkg::ReorderWays; w++) begin
        if (way_first[w]) found_q = found_q | d2_cand_q[w];
      end
      for (int unsigned c = 0; c < nt_pkg::ReorderQueues; c++) begin
        for (int unsigned w = 0; w < nt_pkg::ReorderWays; w++) begin
          if (way_first[w] && d2_cand_oh_q[w][c]) found_oh[c] = 1'b1;
        end
      end
    end
  end

  always_comb begin
    d_flow_write = 1'b0;
    d_held = 1'b0;
    d_push = 1'b0;
    d_collision = 1'b0;
    d_fallback = 1'b0;
    d_epoch_jump = 1'b0;
    d_discard = 1'b0;
    d_qop = OpNone;
    d_app = 1'b0;
    d_app_r = 1'b0;
    d_trel = 1'b0;
    d_q = '0;
    d_deadline = '0;
    d_mask = {1'b0, d2_meta_q.ce, d2_meta_q.op == reorder_pkg::CwRttRequest};
    d_idx = d2_idx_q;
    e = d2_e_q;
    e_valid = d2_ev_q;
    fresh = 1'b0;
    qh = 1'b0;
    qr = 1'b0;
    want_hold = 1'b0;
    release_tail = 1'b0;
    tail_first = 1'b0;
    is_idle = 1'b0;
    owd = d2_owd_q;
    dd = d2_dd_q;
    // held_cells is at most ReorderCells (the narrow counters below), so its low 16 bits are the count
    over = d2_over_all_q || cnt_q[CHeldCells][15:0] > d2_lim_q;
    if (d_fire && d2_bad_q) begin
      d_push = d2_cells_q != '0;
      d_discard = 1'b1;
      d_mask = '0;
    end else if (d_fire) begin
      if (e_valid && d2_key_ne_q) begin
        is_idle = !(e.hq_valid && d2_mine_q) && d2_idle_t_q;
        if (!is_idle) begin
          d_collision = 1'b1;
          d_push = 1'b1;
          // untracked, so nothing was held: CLEAR at once, for the epoch the reroute went to
          d_mask[reorder_pkg::MaskClear] = d2_meta_q.tail;
        end
        e_valid = 1'b0;
      end
      if (!d_collision) begin
        if (!e_valid) begin
          fresh = 1'b1;
          e = '0;
          e.key = d2_meta_q.key;
          e.epoch = d2_meta_q.epoch;
          // created by a rerouted packet: old-path packets may still be in flight, so hold
          e.tail_seen = !d2_meta_q.rerouted;
        end
        e.last_us = d2_now_q;
        dd = fresh ? 2'd0 : d2_dd_q;
        qh = e.hq_valid && d2_mine_q && d2_hold_q;
        qr = e.hq_valid && d2_mine_q && !d2_hold_q;
        e.tail_seen = e.tail_seen || (e.hq_valid && !qh);
        if (dd == 2'd1 || dd == 2'd2) begin
          d_epoch_jump = dd == 2'd2;
          e.owd_old = e.owd_cur;
          e.owd_old_valid = dd == 2'd1 && e.owd_cur_valid;  // after a jump: the skipped path's, unknown
          e.owd_cur = owd;
          e.owd_cur_valid = 1'b1;
          e.epoch = d2_meta_q.epoch;
          if (d2_meta_q.rerouted) begin
            // a new reroute: its old path is done only if that path's TAIL came first (after a jump the
            // TAIL awaited is the skipped epoch's); a queue no longer holding belongs to the previous one
            e.tail_seen = dd == 2'd1 && e.tail_next;
            if (!qh) e.hq_valid = 1'b0;
          end
          e.tail_next = 1'b0;
          want_hold = (d2_meta_q.rerouted && !e.tail_seen) || qh;
        end else if (dd == 2'd0) begin
          e.owd_cur = (e.owd_cur_valid && d2_cur_gt_q) ? e.owd_cur : owd;
          e.owd_cur_valid = 1'b1;
          want_hold = (d2_meta_q.rerouted && !e.tail_seen) || qh;
        end else begin
          e.owd_old = (e.owd_old_valid && d2_old_gt_q) ? e.owd_old : owd;
          e.owd_old_valid = 1'b1;
          if (d2_meta_q.tail && !e.tail_seen) begin
            e.tail_seen = 1'b1;
            release_tail = 1'b1;
          end
        end
        // the TAIL of the current epoch before any packet of the next: remember it and CLEAR now
        tail_first = d2_meta_q.tail && dd != 2'd3 && !e.tail_next;
        if (tail_first) begin
          e.tail_next = 1'b1;
          d_mask[reorder_pkg::MaskClear] = 1'b1;
        end
        d_flow_write = 1'b1;
        if (want_hold) begin
          if (over) begin
            d_discard = 1'b1;
            d_push = 1'b1;
          end else if (qh) begin
            d_qop = OpAppend;
            d_app = 1'b1;
            d_q = e.hq;
            d_held = 1'b1;
          end else begin
            // the queue search (found, found_q, found_oh) is formed below from registers alone
            if (!found) begin
              d_fallback = 1'b1;
              e.hq_valid = 1'b0;
              d_push = 1'b1;
            end else begin
              d_qop = OpAlloc;
              d_q = found_q;
              d_held = 1'b1;
              e.hq = found_q;
              e.hq_valid = 1'b1;
              // the entry's old-path delay: after an epoch step the delay that was current, else its own;
              // a new entry has none (D1 computed each candidate)
              if (e.owd_old_valid) d_deadline = dd == 2'd0 ? d2_dl_old_q : d2_dl_cur_q;
              else d_deadline = d2_dl_def_q;
            end
          end
        end else if (release_tail && qh) begin
          d_qop = OpTailRelease;
          d_trel = 1'b1;
          d_q = e.hq;
          d_push = 1'b1;  // the queue, now led by the TAIL, joins the output FIFO
        end else begin
          if (release_tail) d_mask[reorder_pkg::MaskClear] = 1'b1;
          if (qr && dd != 2'd3) begin
            d_qop = OpAppend;
            d_app = 1'b1;
            d_app_r = 1'b1;
            d_q = e.hq;
          end else begin
            d_push = 1'b1;
          end
        end
      end
    end
    d_flow = e;
  end

  assign ca_push = d_fire && d_mask != 3'd0;
  assign ca_req.hdr         = d2_meta_q.hdr;
  assign ca_req.v6          = d2_meta_q.v6;
  assign ca_req.mask        = d_mask;
  assign ca_req.clear_epoch = (d_collision && d2_meta_q.tail) || tail_first ? d2_meta_q.epoch + 2'd1 : e.epoch;

  // ---------------- T: resume timer ----------------
  // to_pre: the scanned queue is holding and due; D's operation on it wins (an append or a TAIL release: D
  // appends to or releases only its entry's queue, d2_hq; an allocation takes a free queue, never a holding one)
  assign to_pre = q_state_q[scan_q] == reorder_pkg::QHolding && (now_us_i - q_deadline_q[scan_q]) < 16'h8000 &&
                  of_room2;
  assign timeout = to_pre && !(d_fire && (d_app || d_trel) && d2_hq == scan_q);

  // ---------------- R: reader ----------------
  logic [15:0]      r_hold;
  logic             n_busy, n_queue, n_discard, n_first;
  logic [reorder_pkg::CellW-1:0] n_cell;
  logic [reorder_pkg::QW-1:0]    n_q;
  reorder_pkg::out_entry_t       of_front;
  logic             r_step, r_last, r_ge2, r_load, r_appq;

  // r_app: D appends to the queue the reader is in (an append is always to D's entry's queue, d2_hq). The
  // reader's next step is formed first without it (r_qend: the reader reaches its queue's end) and r_app then
  // chooses (the append's packet is the queue's next), so D's decision comes in at the end.
  // R's next cell is one of six candidates, chosen one-hot (r_sel; branch rtop19): the same cell, the packet's
  // next cell, the queue's next packet, the output FIFO front's queue head or packet, the appended packet. The
  // bypass compares of the registered reads (next_in_hit_q, next_pkt_hit_q, info_byp_q) are made against each
  // candidate, from registers, and the same one-hot chooses their results, so the choice is last on those paths.
  localparam int unsigned NCand = 6;
  localparam int unsigned NcKeep = 0, NcIn = 1, NcPkt = 2, NcFrontQ = 3, NcFrontP = 4, NcApp = 5;
  logic [NCand-1:0]                          r_sel, r_eq_link, r_eq_head, r_eq_atail, r_eq_ptail;
  logic [NCand-1:0][reorder_pkg::CellW-1:0]  r_cand;

  always_comb begin
    adv = !m_valid_q || m_ready_i;
    r_step = rd_busy_q && !cb_full && (rd_discard_q || adv);
    r_last = cell_rlast_q;
    r_ge2 = rd_queue_q && rd_ge2_q;  // the queue goes on after this packet (count >= 2)
    r_emit = 1'b0;
    r_free = 1'b0;
    r_pop = 1'b0;
    r_qpop = 1'b0;
    r_qend = 1'b0;
    r_held = rd_held_q;
    r_hold = rd_hold_q;
    // (an append to a released queue, d_app_r: the reader's queue is released, reorder_top_sva
    // reader_queue_released, so an append to a holding queue, the one that depends on the buffer limit, is never
    // to it; every use of r_app is under rd_queue_q)
    r_app = d_fire && d_app_r && d2_hq == rd_q_q;
    n_busy = rd_busy_q;
    n_queue = rd_queue_q;
    n_discard = rd_discard_q;
    n_first = rd_first_q;
    n_q = rd_q_q;
    of_front = of_front_q;
    if (rd_busy_q) begin
      if (r_step) begin
        if (!rd_discard_q) begin
          r_emit = 1'b1;
          if (rd_first_q) begin
            r_held = info_byp_q ? info_byp_held_q : info_rheld_q;
            r_hold = r_held ? now_us_i - (info_byp_q ? info_byp_t_q : info_rt_q) : 16'd0;
          end
        end
        r_free = 1'b1;
        if (!r_last) begin
          n_first = 1'b0;
        end else begin
          n_first = 1'b1;
          if (rd_queue_q) r_qpop = 1'b1;
          if (!r_ge2) begin
            r_qend = rd_queue_q;
            if (of_ne_q) begin
              r_pop = 1'b1;
              n_busy = 1'b1;
              n_queue = of_front.is_queue;
              n_discard = of_front.discard;
              n_q = of_front.is_queue ? reorder_pkg::QW'(of_front.ref_idx) : rd_q_q;
            end else begin
              n_busy = 1'b0;
            end
          end
        end
      end
    end else if (of_ne_q) begin
      r_pop = 1'b1;
      n_busy = 1'b1;
      n_queue = of_front.is_queue;
      n_discard = of_front.discard;
      n_q = of_front.is_queue ? reorder_pkg::QW'(of_front.ref_idx) : rd_q_q;
      n_first = 1'b1;
    end
    r_load = r_pop;  // (before r_app cancels the pop)
    r_appq = r_qend && r_app;
    r_qdone = r_qend && !r_app;
    if (r_appq) begin
      // the queue goes on with the appended packet: no pop, the reader stays in the queue
      r_pop = 1'b0;
      n_busy = 1'b1;
      n_queue = rd_queue_q;
      n_discard = rd_discard_q;
      n_q = rd_q_q;
    end
    // the next cell: the candidates and the one-hot choice (exactly one r_sel bit is set)
    r_cand[NcKeep]   = rd_cell_q;
    r_cand[NcIn]     = next_in;
    r_cand[NcPkt]    = next_pkt;
    r_cand[NcFrontQ] = q_head_q[reorder_pkg::QW'(of_front_q.ref_idx)];
    r_cand[NcFrontP] = of_front_q.ref_idx;
    r_cand[NcApp]    = d2_head_q;
    r_sel[NcIn]     = r_step && !r_last;
    r_sel[NcPkt]    = r_step && r_last && r_ge2;
    r_sel[NcFrontQ] = r_load && of_front_q.is_queue && !r_appq;
    r_sel[NcFrontP] = r_load && !of_front_q.is_queue && !r_appq;
    r_sel[NcApp]    = r_appq;
    r_sel[NcKeep]   = r_sel[NCand-1:1] == '0;
    n_cell = '0;
    for (int unsigned k = 0; k < NCand; k++) begin
      n_cell = n_cell | ({reorder_pkg::CellW{r_sel[k]}} & r_cand[k]);
      r_eq_link[k]  = i_link_prev == r_cand[k];
      r_eq_head[k]  = d2_head_q == r_cand[k];
      r_eq_atail[k] = d2_hq_tail_q == r_cand[k];
      r_eq_ptail[k] = d2_tail_q == r_cand[k];
    end
  end

  always_comb begin
    // the reader's queue's "count >= 2" after this edge: a queue it loads from the front (released: only D's append
    // to it can write its count in this edge), or its own (D's append, R's pop), as q_ge2_q's writes below (its
    // own always_comb: d2_hq_ge2_next reads R's pop)
    if (r_pop && of_front_q.is_queue) begin
      rd_ge2_d = d_fire && d_app_r && d2_hq == reorder_pkg::QW'(of_front_q.ref_idx) ? d2_hq_ge2_next :
                 q_ge2_q[reorder_pkg::QW'(of_front_q.ref_idx)];
    end else if (r_app) begin
      rd_ge2_d = d2_hq_ge2_next;
    end else if (r_qpop) begin
      rd_ge2_d = rd_count_m1 >= 16'd2;
    end else begin
      rd_ge2_d = rd_ge2_q;
    end
  end

  assign cb_push = r_qdone;
  assign cb_req.hdr         = q_hdr_q[rd_q_q];
  assign cb_req.v6          = q_v6_q[rd_q_q];
  assign cb_req.mask        = 3'b100;
  assign cb_req.clear_epoch = q_clear_epoch_q[rd_q_q];

  // ---------------- I: ingress ----------------
  logic                   i_write, i_from_fifo, i_link, i_last, ing_busy;
  logic [reorder_pkg::CellW-1:0]       i_cell, i_link_prev;
  logic [nt_pkg::StreamBits-1:0]  i_data;
  logic [nt_pkg::StreamBytes-1:0] i_keep;

  // The next write takes a cell from the free FIFO, or else one never used since reset.
  assign i_from_fifo = free_cnt_q != '0;
  assign free_cnt_p1 = free_cnt_q + 1'b1;
  assign free_cnt_m1 = free_cnt_q - 1'b1;
  assign i_cell = !i_from_fifo ? reorder_pkg::CellW'(fresh_q) : free_byp_q ? free_byp_cell_q : free_rcell_q;
  assign nd_we = d_fire && (d_app || d_trel);
  // an append (at the entry's queue's tail) or a TAIL release (in front of its head): d_q is d2_hq for both
  assign nd_addr = d_app ? d2_hq_tail_q : d2_tail_q;
  assign nd_data = d_app ? d2_head_q : d2_hq_head_q;
  assign next_in = next_in_hit_q ? next_in_byp_q : next_in_rd_q;
  assign next_pkt = next_pkt_hit_q ? next_pkt_byp_q : next_pkt_rd_q;
  assign flow_raddr = reorder_pkg::FlowW'(pend_hash_next & cfg_flows_mask_i);
  assign fv_row = flow_valid_q;
  assign fv_rd_q = fv_word_q[fv_lo_q];
  // the free list's read index after this edge (as free_rd_q's update below) and its write index
  assign free_rd_d = !(i_write && i_from_fifo) ? free_rd_q :
                     free_rd_q == reorder_pkg::CellW'(nt_pkg::ReorderCells - 1) ? '0 : free_rd_q + 1'b1;
  assign free_wr = free_wr_q;

  reorder_ingress u_ingress (
    `NT_CLK_RST_CONN,
    .s_valid_i    (s_valid_i),
    .s_data_i     (s_data_i),
    .s_keep_i     (s_keep_i),
    .s_last_i     (s_last_i),
    .s_ready_o    (s_ready_o),
    .p4_format_i  (cfg_p4_format_i),
    .cell_avail_i (cell_avail),
    .free_cell_i  (i_cell),
    .wr_o         (i_write),
    .wr_data_o    (i_data),
    .wr_keep_o    (i_keep),
    .wr_last_o    (i_last),
    .link_o       (i_link),
    .link_prev_o  (i_link_prev),
    .pend_take_i  (d1_take),
    .pend_valid_o (pend_valid),
    .pend_bad_o   (pend_bad),
    .pend_meta_o  (pend_meta),
    .pend_hash_next_o (pend_hash_next),
    .pend_head_o  (pend_head),
    .pend_tail_o  (pend_tail),
    .pend_cells_o (pend_cells),
    .busy_o       (ing_busy)
  );

  // ---------------- counters (the model's values, every cycle) ----------------
  // No chain of adds (branch rtop18, docs/reorder-microarchitecture.md "Counters without an add chain"): each
  // event count is its register plus one, enabled by the event; a 32-bit count's add is 16 bits long (add32_16).
  // The counts of what is held or in use (held_now, held_cells, cells_used, queues_now and their peaks) are
  // 16 bits wide: each is at most ReorderCells (a held packet or cell, and a cell in use, is a distinct buffer
  // cell; queues_now at most ReorderQueues), so its upper 16 bits are always 0 (reorder_top_sva
  // narrow_counts). Their terms of a cycle (D's, T's, R's) are added in parallel for every combination of the
  // events and the events choose, so D's decision comes in at the end (add3: three terms in one carry chain).
  // a + b for a 32-bit count and a 16-bit term: the low half's carry chooses the high half or the high half
  // plus one, both from the register (a 16-bit carry chain, not 32). The choices here and below are AND-OR
  // forms, not `?:`: Yosys's opt_share turns a multiplexer of sums into one adder with multiplexed operands,
  // which puts the late select in front of the carry chain again.
  function automatic logic [31:0] add32_16(logic [31:0] a, logic [15:0] b);
    logic [16:0] lo;
    lo = {1'b0, a[15:0]} + {1'b0, b};
    add32_16 = {({16{lo[16]}} & (a[31:16] + 16'd1)) | ({16{!lo[16]}} & a[31:16]), lo[15:0]};
  endfunction
  // x + y + z + c (mod 2^16, c <= 2): one carry-save step, then one add whose spare low bits take c
  // (t's bit 0 only carries the second unit; the carries' bit 15 falls out of 16 bits)
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [15:0] add3(logic [15:0] x, logic [15:0] y, logic [15:0] z, logic [1:0] c);
    logic [15:0] sv, kv;
    logic [16:0] t;
    sv = x ^ y ^ z;
    kv = (x & y) | (x & z) | (y & z);
    t = {sv, 1'b1} + {kv[14:0], c != 2'd0, c == 2'd2};
    add3 = t[16:1];
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  logic        ev_held, ev_trel, ev_alloc;  // D holds the packet; releases its queue at a TAIL; allocates
  logic [15:0] sc_count, sc_cells, hn, hc, qn, cu, qn_p1, qn_m1, cu_p1, cu_m1;
  logic [15:0] hn_n, hn_h, hn_t, hn_nt, hn_ht, hn_tt, hc_n, hc_h, hc_t, hc_nt, hc_ht, hc_tt;
  assign ev_held = d_fire && d_held;
  assign ev_trel = d_fire && d_trel;
  assign ev_alloc = d_fire && d_qop == OpAlloc;
  assign qn_p1 = qn + 16'd1;
  assign qn_m1 = qn - 16'd1;
  assign cu_p1 = cu + 16'd1;
  assign cu_m1 = cu - 16'd1;
  // T's terms, the timed-out queue's count and cells (q_count_q / q_cells_q at scan_q), read one cycle ahead at
  // the next scan index (branch cw21: the 32:1 reads at scan_q were in series with the counters' adders, 13
  // levels to cnt_q), with this edge's writes at that index registered as a bypass: D's append / TAIL release
  // and R's pop (sc_cw / sc_lw and their values, in the queue fields' always_ff order), and an allocation
  // apart: whether the found queue is the next scan index (sc_al_hit_q, from found_oh alone) and D2's
  // allocation event (d2_ev_al_q) are registered separately and ANDed when read, so the decision and the
  // search are not in series in front of one register. An allocation takes a free queue, D's append / TAIL
  // release and R's pop a holding or released one, so the allocation's bypass and the others never meet.
  // Used only with timeout (reorder_top_sva sc_terms_current).
  logic [reorder_pkg::QW-1:0] scan_d;
  logic [15:0] sc_count_q, sc_cells_q, sc_cv, sc_lv, sc_cbyp_v_q, sc_lbyp_v_q, sc_al_cells_q;
  logic        sc_cw, sc_lw, sc_cbyp_q, sc_lbyp_q, sc_al_hit_q, sc_al;
  assign scan_d = 32'(scan_q) + 1 >= 32'(cfg_queues_i) ? '0 : scan_q + 1'b1;
  // scan_d one-hot without scan_d's sum and compare: queue c > 0 is next when scan_q is c - 1 and c is below
  // `queues` (d1_qok[c]); queue 0 when no other is (run 3: scan_q -> scan_d's compare -> found_oh[scan_d] 14)
  logic [nt_pkg::ReorderQueues-1:0] scan_d_oh;
  always_comb begin
    for (int unsigned c = 1; c < nt_pkg::ReorderQueues; c++) begin
      scan_d_oh[c] = scan_q == reorder_pkg::QW'(c - 1) && d1_qok[c];
    end
    scan_d_oh[0] = scan_d_oh[nt_pkg::ReorderQueues-1:1] == '0;
  end
  always_comb begin
    sc_cw = 1'b0;
    sc_cv = '0;
    sc_lw = 1'b0;
    sc_lv = '0;
    // (d_app / d_trel are d_qop == OpAppend / OpTailRelease; an append holds the packet, d_held, exactly when
    // it is not the released-queue append d_app_r)
    if (d_fire && d_app && d2_hq == scan_d) begin
      sc_cw = 1'b1;
      sc_cv = d2_hq_count_next;
      if (!d_app_r) begin
        sc_lw = 1'b1;
        sc_lv = d2_hq_cells_q + d2_cells_q;
      end
    end
    if (d_fire && d_trel && d2_hq == scan_d) begin
      sc_cw = 1'b1;
      sc_cv = d2_hq_count_p1;
      sc_lw = 1'b1;
      sc_lv = '0;
    end
    if (timeout && scan_q == scan_d) begin
      sc_lw = 1'b1;
      sc_lv = '0;
    end
    if (r_qpop && !r_app && rd_q_q == scan_d) begin
      sc_cw = 1'b1;
      sc_cv = rd_count_m1;
    end
  end
  always_ff @(posedge clk_i) begin
    sc_count_q <= q_count_q[scan_d];
    sc_cells_q <= q_cells_q[scan_d];
    sc_cbyp_q <= sc_cw;
    sc_cbyp_v_q <= sc_cv;
    sc_lbyp_q <= sc_lw;
    sc_lbyp_v_q <= sc_lv;
    sc_al_hit_q <= (found_oh & scan_d_oh) != '0;
    sc_al_cells_q <= d2_cells_q;
  end
  assign sc_al = d2_ev_al_q && sc_al_hit_q;  // the last edge allocated the queue T reads now
  assign sc_count = sc_al ? 16'd1 : sc_cbyp_q ? sc_cbyp_v_q : sc_count_q;
  assign sc_cells = sc_al ? sc_al_cells_q : sc_lbyp_q ? sc_lbyp_v_q : sc_cells_q;
  assign hn = cnt_q[CHeldNow][15:0];
  assign hc = cnt_q[CHeldCells][15:0];
  assign qn = cnt_q[CQueuesNow][15:0];
  assign cu = cnt_q[CCellsUsed][15:0];
  // held_now: + 1 (held), - the queue's count (TAIL release), - the timed-out queue's count; D's two are
  // exclusive. _n / _h / _t: D's none / held / TAIL release; a second t: with the timeout
  assign hn_n  = hn;
  assign hn_h  = hn + 16'd1;
  assign hn_t  = hn - d2_hq_count_q;
  assign hn_nt = hn - sc_count;
  assign hn_ht = add3(hn, ~sc_count, 16'd0, 2'd2);
  assign hn_tt = add3(hn, ~d2_hq_count_q, ~sc_count, 2'd2);
  // held_cells: + the packet's cells (held), - the queue's cells (TAIL release), - the timed-out queue's
  assign hc_n  = hc;
  assign hc_h  = hc + d2_cells_q;
  assign hc_t  = hc - d2_hq_cells_q;
  assign hc_nt = hc - sc_cells;
  assign hc_ht = add3(hc, d2_cells_q, ~sc_cells, 2'd1);
  assign hc_tt = add3(hc, ~d2_hq_cells_q, ~sc_cells, 2'd2);

  always_comb begin
    cnt_d = cnt_q;
    for (int unsigned i = 0; i < NCnt; i++) begin
      if (i == CHeldNow || i == CHeldCells || i == CQueuesNow || i == CCellsUsed || i == CPeakQueues ||
          i == CPeakHeldCells || i == CPeakCellsUsed) cnt_d[i][31:16] = 16'd0;
    end
    if (d_fire) cnt_d[CIn] = add32_16(cnt_q[CIn], 16'd1);
    if (d_fire && d2_bad_q) cnt_d[CDropMalformed] = add32_16(cnt_q[CDropMalformed], 16'd1);
    if (d_collision) cnt_d[CFbCollision] = add32_16(cnt_q[CFbCollision], 16'd1);
    if (d_fallback) cnt_d[CFbUnordered] = add32_16(cnt_q[CFbUnordered], 16'd1);
    if (d_fire && d_discard && !d2_bad_q) cnt_d[CDropBufferFull] = add32_16(cnt_q[CDropBufferFull], 16'd1);
    if (d_epoch_jump) cnt_d[CEpochJump] = add32_16(cnt_q[CEpochJump], 16'd1);
    if (ev_held) cnt_d[CHeld] = add32_16(cnt_q[CHeld], 16'd1);
    if (ev_trel) begin
      cnt_d[CRelTail] = add32_16(cnt_q[CRelTail], d2_hq_count_q);
      cnt_d[CTailReleases] = add32_16(cnt_q[CTailReleases], 16'd1);
    end
    if (timeout) cnt_d[CRelTimeout] = add32_16(cnt_q[CRelTimeout], sc_count);
    if (m_valid_q && m_ready_i && m_last_q) cnt_d[CDelivered] = add32_16(cnt_q[CDelivered], 16'd1);
    if (c_sent) cnt_d[CCtrlOut] = add32_16(cnt_q[CCtrlOut], 16'd1);
    // the narrow counts (AND-OR choices, see add32_16)
    cnt_d[CHeldNow][15:0] = ({16{timeout && ev_held}} & hn_ht) | ({16{timeout && ev_trel}} & hn_tt) |
                            ({16{timeout && !ev_held && !ev_trel}} & hn_nt) | ({16{!timeout && ev_held}} & hn_h) |
                            ({16{!timeout && ev_trel}} & hn_t) | ({16{!timeout && !ev_held && !ev_trel}} & hn_n);
    cnt_d[CHeldCells][15:0] = ({16{timeout && ev_held}} & hc_ht) | ({16{timeout && ev_trel}} & hc_tt) |
                              ({16{timeout && !ev_held && !ev_trel}} & hc_nt) | ({16{!timeout && ev_held}} & hc_h) |
                              ({16{!timeout && ev_trel}} & hc_t) | ({16{!timeout && !ev_held && !ev_trel}} & hc_n);
    cnt_d[CQueuesNow][15:0] = ({16{ev_alloc && !r_qdone}} & qn_p1) | ({16{r_qdone && !ev_alloc}} & qn_m1) |
                              ({16{ev_alloc == r_qdone}} & qn);
    cnt_d[CCellsUsed][15:0] = ({16{i_write && !r_free}} & cu_p1) | ({16{r_free && !i_write}} & cu_m1) |
                              ({16{i_write == r_free}} & cu);
    // the peaks one cycle late: compared with the registered counts (the model does the same)
    if (qn > cnt_q[CPeakQueues][15:0]) cnt_d[CPeakQueues] = {16'd0, qn};
    if (hc > cnt_q[CPeakHeldCells][15:0]) cnt_d[CPeakHeldCells] = {16'd0, hc};
    if (cu > cnt_q[CPeakCellsUsed][15:0]) cnt_d[CPeakCellsUsed] = {16'd0, cu};
  end

  // the output FIFO's count: decision push, timer push, reader pop, each sum formed before they choose
  logic [reorder_pkg::OfW:0] of_cnt_d, of_cnt_m1, of_cnt_p1, of_cnt_p2;
  assign of_cnt_m1 = of_cnt_q - 1'b1;
  assign of_cnt_p1 = of_cnt_q + 1'b1;
  assign of_cnt_p2 = of_cnt_q + (reorder_pkg::OfW + 1)'(2);
  logic of_push_d, of_sel_m1, of_sel_0, of_sel_p1, of_sel_p2;
  assign of_push_d = d_fire && d_push;
  assign of_sel_m1 = !of_push_d && !timeout && r_pop;
  assign of_sel_p2 = of_push_d && timeout && !r_pop;
  assign of_sel_p1 = (of_push_d != timeout && !r_pop) || (of_push_d && timeout && r_pop);
  assign of_sel_0  = !of_sel_m1 && !of_sel_p1 && !of_sel_p2;
  // (AND-OR, see add32_16)
  assign of_cnt_d = ({(reorder_pkg::OfW + 1){of_sel_m1}} & of_cnt_m1) | ({(reorder_pkg::OfW + 1){of_sel_0}} & of_cnt_q) |
                    ({(reorder_pkg::OfW + 1){of_sel_p1}} & of_cnt_p1) | ({(reorder_pkg::OfW + 1){of_sel_p2}} & of_cnt_p2);
  // of_room2's next value: each candidate's compare formed before the events choose, as the count's
  logic of_room2_d;
  localparam logic [reorder_pkg::OfW:0] OfRoom2Max = (reorder_pkg::OfW + 1)'(nt_pkg::ReorderOutFifo - 2);
  assign of_room2_d = (of_sel_m1 && of_cnt_m1 <= OfRoom2Max) || (of_sel_0 && of_room2_q) ||
                      (of_sel_p1 && of_cnt_p1 <= OfRoom2Max) || (of_sel_p2 && of_cnt_p2 <= OfRoom2Max);

  // ---------------- registers with reset ----------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      free_rd_q <= '0;
      free_wr_q <= '0;
      free_cnt_q <= '0;
      fresh_q <= '0;
      of_rd_q <= '0;
      of_rd1_q <= reorder_pkg::OfW'(1);
      of_cnt_q <= '0;
      of_ne_q <= 1'b0;
      of_one_q <= 1'b0;
      of_room2_q <= 1'b1;  // of_cnt_q = 0
      scan_q <= '0;
      rd_busy_q <= 1'b0;
      rd_queue_q <= 1'b0;
      rd_discard_q <= 1'b0;
      rd_first_q <= 1'b0;
      rd_held_q <= 1'b0;
      rd_hold_q <= '0;
      rd_cell_q <= '0;
      rd_q_q <= '0;
      rd_ge2_q <= 1'b0;
      m_valid_q <= 1'b0;
      m_data_q <= '0;
      m_keep_q <= '0;
      m_last_q <= 1'b0;
      m_held_q <= 1'b0;
      m_hold_q <= '0;
      cnt_q <= '0;
      flow_valid_q <= '0;
      fv_word_q <= '0;
      fv_lo_q <= '0;
      q_state_q <= {nt_pkg::ReorderQueues{reorder_pkg::QFree}};
    end else begin
      cnt_q <= cnt_d;
      // D
      if (d_fire && d_flow_write) flow_valid_q[d_idx] <= 1'b1;
      fv_word_q <= fv_row[flow_raddr[reorder_pkg::FlowW-1:FvLo]];
      fv_lo_q <= flow_raddr[FvLo-1:0];
      // the queue states, each queue on its own (a constant index: no shifter): an allocation takes the
      // found queue, a TAIL release the entry's queue (d_q is one or the other), then T, then R
      for (int unsigned c = 0; c < nt_pkg::ReorderQueues; c++) begin
        if (d_fire && d_qop == OpAlloc && found_oh[c]) q_state_q[c] <= reorder_pkg::QHolding;
        if (d_fire && d_trel && d2_hq == reorder_pkg::QW'(c)) q_state_q[c] <= reorder_pkg::QReleased;
        if (timeout && scan_q == reorder_pkg::QW'(c)) q_state_q[c] <= reorder_pkg::QReleased;
        if (r_qdone && rd_q_q == reorder_pkg::QW'(c)) q_state_q[c] <= reorder_pkg::QFree;
      end
      scan_q <= scan_d;
      // output FIFO: decision push, then timer push, then reader pop
      of_cnt_q <= of_cnt_d;
      of_room2_q <= of_room2_d;
      // of_cnt_d != 0: - 1 leaves 0 only from 1; + 1, + 2 never wrap (of_cnt_q <= ReorderOutFifo)
      of_ne_q <= (of_sel_m1 && of_cnt_q != (reorder_pkg::OfW + 1)'(1)) || (of_sel_0 && of_ne_q) || of_sel_p1 || of_sel_p2;
      of_one_q <= (of_sel_m1 && of_cnt_q == (reorder_pkg::OfW + 1)'(2)) || (of_sel_0 && of_one_q) ||
                  (of_sel_p1 && !of_ne_q);
      if (r_pop) begin
        of_rd_q <= of_rd_q + 1'b1;
        of_rd1_q <= of_rd1_q + 1'b1;
      end
      // free list: reader push, ingress pop
      // (the +1 / -1 candidates from the register, the events choosing last: i_write comes through the ingress
      // from d1_take, and the adder after it was the block's deepest stitched path, 15 levels; session 23)
      free_cnt_q <= r_free == (i_write && i_from_fifo) ? free_cnt_q : r_free ? free_cnt_p1 : free_cnt_m1;
      free_rd_q <= free_rd_d;
      if (r_free) begin
        free_wr_q <= free_wr_q == reorder_pkg::CellW'(nt_pkg::ReorderCells - 1) ? '0 : free_wr_q + 1'b1;
      end
      if (i_write && !i_from_fifo) fresh_q <= fresh_q + 1'b1;
      if (adv) begin
        m_valid_q <= r_emit;
        m_data_q <= r_emit ? cell_rdata_q : '0;
        m_keep_q <= r_emit ? cell_rkeep_q : '0;
        m_last_q <= r_emit ? cell_rlast_q : 1'b0;
        m_held_q <= r_emit && r_held;
        m_hold_q <= r_emit ? r_hold : '0;
      end
      if (r_emit) begin
        rd_held_q <= r_held;
        rd_hold_q <= r_hold;
      end
      rd_busy_q <= n_busy;
      rd_queue_q <= n_queue;
      rd_discard_q <= n_discard;
      rd_first_q <= n_first;
      rd_cell_q <= n_cell;
      rd_q_q <= n_q;
      rd_ge2_q <= rd_ge2_d;
    end
  end

  // ---------------- memories (no reset: never read before written) ----------------
  logic [reorder_pkg::OfW-1:0] of_wr0, of_wr1;
  assign of_wr0 = of_rd_q + reorder_pkg::OfW'(of_cnt_q);
  assign of_wr1 = of_wr0 + 1'b1;
  // the output FIFO's two possible new entries: the decided packet or released queue, and a timed-out queue
  reorder_pkg::out_entry_t     of_new_d, of_new_t;
  assign of_new_d.is_queue = d_trel;
  assign of_new_d.discard  = d_discard;
  assign of_new_d.ref_idx  = d_trel ? reorder_pkg::CellW'(d2_hq) : d2_head_q;  // (a TAIL release's d_q is d2_hq)
  assign of_new_t.is_queue = 1'b1;
  assign of_new_t.discard  = 1'b0;
  assign of_new_t.ref_idx  = reorder_pkg::CellW'(scan_q);
  // the front after this edge: the entry written now if the FIFO is empty (at of_rd_q) or is left with only
  // the entry written now (a pop of its last, the write at of_rd_q + 1: D's, else T's), the second entry after
  // a pop, else the same (writes go to of_rd_q + count and + 1, never to the front: of_room2)
  reorder_pkg::out_entry_t     of_front_new, of_second;
  assign of_front_new = d_fire && d_push ? of_new_d : of_new_t;
  assign of_second = of_rd1_q[0] ? of_mem1_q[of_rd1_q[reorder_pkg::OfW-1:1]] : of_mem0_q[of_rd1_q[reorder_pkg::OfW-1:1]];
  // each bank's one write: D's entry at of_wr0 if it is in this bank, else T's (at of_wr0 without D's push, at
  // of_wr1 with it) if it is; both in one edge are at of_wr0 and of_wr1, one in each bank
  logic [reorder_pkg::OfW-1:0] of_wr_t;
  logic [1:0]                  of_bwe, of_bd;  // per bank: write enable, D's entry (else T's)
  assign of_wr_t = d_fire && d_push ? of_wr1 : of_wr0;
  assign of_bd[0] = d_fire && d_push && !of_wr0[0];
  assign of_bd[1] = d_fire && d_push && of_wr0[0];
  assign of_bwe[0] = of_bd[0] || (timeout && !of_wr_t[0]);
  assign of_bwe[1] = of_bd[1] || (timeout && of_wr_t[0]);
  logic [reorder_pkg::OfW-2:0] of_ba0, of_ba1;  // each bank's write address
  assign of_ba0 = of_bd[0] ? of_wr0[reorder_pkg::OfW-1:1] : of_wr_t[reorder_pkg::OfW-1:1];
  assign of_ba1 = of_bd[1] ? of_wr0[reorder_pkg::OfW-1:1] : of_wr_t[reorder_pkg::OfW-1:1];

  always_ff @(posedge clk_i) begin
    if (i_write) begin
      cell_data_q[i_cell] <= i_data;
      cell_keep_q[i_cell] <= i_keep;
      cell_last_q[i_cell] <= i_last;
      if (i_link) next_in_q[i_link_prev] <= i_cell;
    end
    // registered reads, one cycle ahead (read-first: a write in the same edge is not seen, hence the bypasses;
    // the cell store is never written at the reader's next cell, reorder_top_sva cell_read_fresh)
    cell_rdata_q <= cell_data_q[n_cell];
    cell_rkeep_q <= cell_keep_q[n_cell];
    cell_rlast_q <= cell_last_q[n_cell];
    info_rheld_q <= info_held_q[n_cell];
    info_rt_q <= info_t_q[n_cell];
    free_rcell_q <= free_mem_q[free_rd_d];
    // (the compares against each candidate of n_cell, r_sel choosing after them; with r_app n_cell is
    // d2_head_q itself, whose compare is 1; r_app implies d_fire)
    info_byp_q <= d_fire && d2_cells_q != '0 && (r_sel & r_eq_head) != '0;
    info_byp_held_q <= d_held;
    info_byp_t_q <= d2_now_q;
    free_byp_q <= r_free && free_wr == free_rd_d;
    free_byp_cell_q <= rd_cell_q;
    if (r_free) free_mem_q[free_wr] <= rd_cell_q;
    if (d_fire && d_flow_write) flow_q[d_idx] <= d_flow;
    flow_rd_q <= flow_q[flow_raddr];
    // the decision's link: an append at the queue's tail, a TAIL in front of the queue's head
    if (nd_we) next_pkt_q[nd_addr] <= nd_data;
    next_in_rd_q <= next_in_q[n_cell];
    next_pkt_rd_q <= next_pkt_q[n_cell];
    next_in_hit_q <= i_write && i_link && (r_sel & r_eq_link) != '0;
    next_in_byp_q <= i_cell;
    // nd_addr == n_cell (with r_app: the append's d2_hq_tail_q against d2_head_q), compared per candidate; an
    // append to a holding queue is left out: the reader never goes to a holding queue's tail
    // (reorder_top_sva next_not_holding_tail), so its compare is 0 whenever the reader uses the result
    next_pkt_hit_q <= d_fire && ((d_app_r && (r_sel & r_eq_atail) != '0) || (d_trel && (r_sel & r_eq_ptail) != '0));
    next_pkt_byp_q <= nd_data;
    flow_byp_q <= d_fire && d_flow_write && d_idx == flow_raddr;
    flow_byp_data_q <= d_flow;
    if (d_fire && d2_cells_q != '0) begin
      info_held_q[d2_head_q] <= d_held;
      info_t_q[d2_head_q] <= d2_now_q;
    end
    if (of_bwe[0]) of_mem0_q[of_ba0] <= of_bd[0] ? of_new_d : of_new_t;
    if (of_bwe[1]) of_mem1_q[of_ba1] <= of_bd[1] ? of_new_d : of_new_t;
    if (!of_ne_q || (r_pop && of_one_q)) of_front_q <= of_front_new;
    else if (r_pop) of_front_q <= of_second;
    // queue fields: decision, then timer, then reader (the model's order)
    if (d_fire) begin
      unique case (d_qop)
        OpAlloc: begin
          q_owner_q[d_q]       <= d_idx;
          q_head_q[d_q]        <= d2_head_q;
          q_tail_q[d_q]        <= d2_tail_q;
          q_deadline_q[d_q]    <= d_deadline;
          q_v6_q[d_q]          <= d2_meta_q.v6;
          q_clear_epoch_q[d_q] <= d_flow.epoch;
          q_hdr_q[d_q]         <= d2_meta_q.hdr;
        end
        OpAppend: begin
          q_tail_q[d_q] <= d2_tail_q;
          q_count_q[d2_hq] <= d2_hq_count_next;
          if (d_held) q_cells_q[d2_hq] <= d2_hq_cells_q + d2_cells_q;
        end
        OpTailRelease: begin
          q_head_q[d_q] <= d2_head_q;
          q_count_q[d2_hq] <= d2_hq_count_p1;
          q_cells_q[d2_hq] <= '0;
          q_hdr_q[d_q] <= d2_meta_q.hdr;
          q_v6_q[d_q] <= d2_meta_q.v6;
          q_clear_epoch_q[d_q] <= d_flow.epoch;
        end
        default: ;
      endcase
    end
    // the allocation's count and cells at the found queue, one-hot (no encoder and decoder on the search)
    for (int unsigned c = 0; c < nt_pkg::ReorderQueues; c++) begin
      if (d_fire && d_qop == OpAlloc && found_oh[c]) begin
        q_count_q[c] <= 16'd1;
        q_cells_q[c] <= d2_cells_q;
      end
    end
    if (timeout) q_cells_q[scan_q] <= '0;
    if (r_qpop && !r_app) q_count_q[rd_q_q] <= rd_count_m1;
    // q_ge2_q: each write of q_count_q above again, in the same order, as "the new count >= 2" (per queue,
    // constant indices; an append's new count is the count, or + 1 unless R pops that queue in this cycle)
    for (int unsigned c = 0; c < nt_pkg::ReorderQueues; c++) begin
      if (d_fire && d_app && d2_hq == reorder_pkg::QW'(c)) q_ge2_q[c] <= d2_hq_ge2_next;
      if (d_fire && d_trel && d2_hq == reorder_pkg::QW'(c)) q_ge2_q[c] <= d2_hq_count_p1 >= 16'd2;
      if (d_fire && d_qop == OpAlloc && found_oh[c]) q_ge2_q[c] <= 1'b0;
      if (r_qpop && !r_app && rd_q_q == reorder_pkg::QW'(c)) q_ge2_q[c] <= q_count_q[c] - 16'd1 >= 16'd2;
    end
  end

  // Fields of the decided packet's meta that only the ingress stage and D1 need.
  logic unused_meta;
  assign unused_meta = ^{d2_meta_q.tx_ts, d2_meta_q.tail_tx_ts, d2_meta_q.hash, d2_meta_q.ok, d2_meta_q.cw_off, d2_meta_q.ip_len, d2_meta_q.path_id,
                         d2_meta_q.nic_ip_len, d2_meta_q.nic_csum, d2_meta_q.nic_udp_len,
                         d2_meta_q.nic_b8};

  // ---------------- outputs ----------------
`ifdef NT_MUTATE_REORDER  // a planted protocol bug (docs/assertions.md)
  nt_mutant_valid_drop u_mutant (
    .clk_i, .rst_ni, .valid_i(m_valid_q), .ready_i(m_ready_i), .valid_o(m_valid_o));
`else
  assign m_valid_o = m_valid_q;
`endif
  assign m_data_o = m_data_q;
  assign m_keep_o = m_keep_q;
  assign m_last_o = m_last_q;
  assign m_held_o = m_held_q;
  assign m_hold_us_o = m_hold_q;
  assign idle_o = !ing_busy && !pend_valid && !d2_valid_q && of_cnt_q == '0 && !rd_busy_q && !m_valid_q && !cg_busy;
  assign cnt_in_o = cnt_q[CIn];
  assign cnt_delivered_o = cnt_q[CDelivered];
  assign cnt_ctrl_out_o = cnt_q[CCtrlOut];
  assign cnt_drop_malformed_o = cnt_q[CDropMalformed];
  assign cnt_drop_buffer_full_o = cnt_q[CDropBufferFull];
  assign cnt_held_o = cnt_q[CHeld];
  assign cnt_released_by_tail_o = cnt_q[CRelTail];
  assign cnt_tail_releases_o = cnt_q[CTailReleases];
  assign cnt_released_by_timeout_o = cnt_q[CRelTimeout];
  assign cnt_fallback_unordered_o = cnt_q[CFbUnordered];
  assign cnt_fallback_collision_o = cnt_q[CFbCollision];
  assign cnt_epoch_jump_o = cnt_q[CEpochJump];
  assign cnt_held_now_o = cnt_q[CHeldNow];
  assign cnt_queues_now_o = cnt_q[CQueuesNow];
  assign cnt_peak_queues_o = cnt_q[CPeakQueues];
  assign cnt_held_cells_o = cnt_q[CHeldCells];
  assign cnt_peak_held_cells_o = cnt_q[CPeakHeldCells];
  assign cnt_cells_used_o = cnt_q[CCellsUsed];
  assign cnt_peak_cells_used_o = cnt_q[CPeakCellsUsed];

endmodule
