// reorder_top's own assertions (docs/assertions.md) and its control stream's; its s and m ports are checked by
// rtl/common/nt_stream_ports_sva.sv. Bound by the `bind` at the end of this file, so the RTL itself is not
// edited. Simulation only: empty under SYNTHESIS.
`ifndef SYNTHESIS  // the whole file: assertions are simulation only
`include "nt_ports.svh"
module reorder_top_sva (
  `NT_CLK_RST,
  input logic                                      m_valid_o,
  input logic                                      c_valid_o,
  input logic                                      idle_o,
  input logic [$clog2(nt_pkg::ReorderOutFifo):0]   of_cnt_q,
  input logic [$clog2(nt_pkg::ReorderCells):0]     free_cnt_q,
  input logic [$clog2(nt_pkg::ReorderCells)-1:0]   free_rd_q,
  input logic [$clog2(nt_pkg::ReorderCells)-1:0]   free_wr_q,
  input logic                                      d1_take,
  input logic                                      e_valid_pf,
  input logic                                      e_valid_now,
  input logic                                      d2_check,
  input logic                                      d2_entry_ok,
  input logic [nt_pkg::ReorderQueues-1:0][1:0]     q_state_q,
  input logic                                      r_emit,
  input logic                                      i_write,
  input logic [$clog2(nt_pkg::ReorderCells)-1:0]   i_cell,
  input logic [$clog2(nt_pkg::ReorderCells)-1:0]   n_cell,
  input logic                                      rd_busy_q,
  input logic                                      i_link,
  input logic                                      i_link_prev_last,
  input logic                                      nd_we,
  input logic                                      nd_addr_last,
  input logic                                      d2_q_check,
  input logic                                      d2_q_ok,
  input logic [6:0][31:0]                          narrow_cnt,
  input logic                                      of_front_ok,
  input logic [nt_pkg::ReorderQueues-1:0]          q_ge2_q,
  input logic [15:0]                               q_count_q [nt_pkg::ReorderQueues],
  input logic                                      d2_valid_q,
  input logic [nt_pkg::ReorderWays-1:0]            way_free,
  input logic [nt_pkg::ReorderWays-1:0][$clog2(nt_pkg::ReorderQueues)-1:0] d2_cand_q,
  input logic                                      cell_last_ok,
  input logic                                      found_any,
  input logic [nt_pkg::ReorderQueues-1:0]          free_ok,
  input logic                                      any_queue,
  input logic                                      of_ne_q,
  input logic                                      rd_queue_q,
  input logic                                      rd_q_released,
  input logic                                      hold_tail_ok,
  input logic                                      of_one_q,
  input logic                                      of_room2_q,
  input logic                                      rd_ge2_ok,
  input logic                                      timeout,
  input logic                                      sc_terms_ok,
  input logic                                      cand_oh_ok,
  input logic                                      scan_d_oh_ok
);
`include "nt_assert.svh"
  `NT_ASSERT_KNOWN(outputs_known, {c_valid_o, idle_o})
  // the output FIFO (packets and released queues) and the free-cell FIFO never hold more than their size
  `NT_ASSERT(out_fifo_bound, 32'(of_cnt_q) <= nt_pkg::ReorderOutFifo)
  `NT_ASSERT(free_cells_bound, 32'(free_cnt_q) <= nt_pkg::ReorderCells)
  // the free list's write index (a wrapping counter) is its read index plus its count, modulo its size
  `NT_ASSERT(free_wr_index, 32'(free_wr_q) == (32'(free_rd_q) + 32'(free_cnt_q)) % nt_pkg::ReorderCells)
  // the prefetched valid bit of the flow entry D1 takes is the table's bit at that cycle
  `NT_ASSERT(flow_valid_prefetch, d1_take |-> e_valid_pf == e_valid_now)
  // the hazard of the two-cycle decision: the flow entry D2 decides on (taken by D1 a cycle or more before)
  // is the table's entry now (valid bit, and the whole entry when valid): D2's write of the same flow index
  // never falls between D1's read and D2's use (D1 waits a cycle for a packet of D2's flow index)
  `NT_ASSERT(d2_entry_current, d2_check |-> d2_entry_ok)
  // every queue is free, holding or released (qstate_e has 3 values in 2 bits)
  for (genvar q = 0; q < nt_pkg::ReorderQueues; ++q) begin : g_q
    `NT_ASSERT(q_state_legal, q_state_q[q] != 2'd3)
  end
  // the cell store's registered read (prefetched at n_cell one cycle ahead, no bypass) is never stale: the
  // ingress never writes the cell the reader goes to next and then emits
  `NT_ASSERT(cell_read_fresh, (r_emit || rd_busy_q) |-> !$past(i_write && i_cell == n_cell))
  // the two next-pointer RAMs: the ingress links only a cell that is not its packet's last, the decision
  // only a packet's last cell, so a cell's last flag names the RAM that holds its next pointer
  `NT_ASSERT(next_link_in, i_link |-> !i_link_prev_last)
  `NT_ASSERT(next_link_pkt, nd_we |-> nd_addr_last)
  // the entry's queue registered in D1 (d2_mine_q, d2_hold_q and its count, cells, head, tail) is the queue
  // tables' at every cycle the packet is in D2 (branch rtop18)
  `NT_ASSERT(d2_queue_current, d2_q_check |-> d2_q_ok)
  // the counts kept 16 bits wide (held_now, held_cells, queues_now, cells_used and the peaks) never exceed
  // the buffer's cells (so a wrap of the narrow register would show here first)
  for (genvar i = 0; i < 7; ++i) begin : g_narrow
    `NT_ASSERT(narrow_counts, narrow_cnt[i] <= nt_pkg::ReorderCells)
  end
  // the output FIFO's registered front is its entry at the read index whenever it holds one (branch rtop18)
  `NT_ASSERT(of_front_current, of_cnt_q != '0 |-> of_front_ok)
  // the registered "count >= 2" of every queue in use is its count's (branch rtop19; R reads it for its queue)
  // (the counts copied into a packed vector first: Verilator 5's V3Unknown stops on an unpacked port's element
  // inside an assertion, "No VarRef or Const under ArraySel")
  logic [nt_pkg::ReorderQueues-1:0] q_ge2_ref;
  for (genvar q = 0; q < nt_pkg::ReorderQueues; ++q) begin : g_ge2
    assign q_ge2_ref[q] = q_count_q[q] >= 16'd2;
    `NT_ASSERT(q_ge2_current, q_state_q[q] != 2'd0 |-> q_ge2_q[q] == q_ge2_ref[q])
  end
  // the 4-way candidates' free bits D2 forms from D1's registers and the last edge's events are the queue
  // tables' at every cycle a packet is in D2 with the 4-way allocation, the only one that reads them (branch rtop19)
  for (genvar w = 0; w < nt_pkg::ReorderWays; ++w) begin : g_way
    `NT_ASSERT(way_free_current, d2_valid_q && !any_queue |-> way_free[w] == (q_state_q[d2_cand_q[w]] == 2'd0))
  end
  // the first-free allocation's "a usable queue is free", formed from D1's counts and the last edge's events,
  // is the tables' (branch rtop19)
  `NT_ASSERT(found_any_current, d2_valid_q |-> found_any == (free_ok != '0))
  // R's registered "the output FIFO is not empty" (branch rtop19)
  `NT_ASSERT(of_ne_current, of_ne_q == (of_cnt_q != '0) && of_one_q == (32'(of_cnt_q) == 1))
  // the output FIFO's room for two entries, registered with the count (session 24)
  `NT_ASSERT(of_room2_current, of_room2_q == (32'(of_cnt_q) <= nt_pkg::ReorderOutFifo - 2))
  // the reader's registered "its queue holds 2 or more" (branch rtop19)
  `NT_ASSERT(rd_ge2_current, rd_ge2_ok)
  // T's terms read a cycle ahead with their bypass are the timed-out queue's count and cells (branch cw21)
  `NT_ASSERT(sc_terms_current, timeout |-> sc_terms_ok)
  // the next scan index one-hot is the next scan index, for every configuration (branch cw21)
  `NT_ASSERT(scan_d_oh_current, scan_d_oh_ok)
  // the 4-way candidates one-hot are the candidates (branch cw21)
  `NT_ASSERT(cand_oh_current, d2_valid_q |-> cand_oh_ok)
  // the queue the reader walks is a released one (so D's append to it is the released-queue append, branch rtop19)
  `NT_ASSERT(reader_queue_released, rd_busy_q && rd_queue_q |-> rd_q_released)
  // the reader never goes next to the tail cell of a holding queue that D appends to (branch rtop19: the
  // next-pointer bypass leaves that append out)
  `NT_ASSERT(next_not_holding_tail, hold_tail_ok)
  // the last flag read with the cell at n_cell is the reader's cell's whenever it is busy (branch rtop19)
  `NT_ASSERT(cell_last_fresh, cell_last_ok)
  // idle means nothing is offered
  `NT_ASSERT(idle_quiet, idle_o |-> !m_valid_o)
endmodule

bind reorder_top reorder_top_sva u_sva (
  .clk_i, .rst_ni, .m_valid_o, .c_valid_o, .idle_o, .of_cnt_q, .free_cnt_q, .free_rd_q, .free_wr_q, .d1_take,
  .e_valid_pf(flow_byp_q || fv_rd_q), .e_valid_now(flow_valid_q[d1_idx]),
  .d2_check(d_fire && !d2_bad_q),
  .d2_entry_ok(d2_ev_q == flow_valid_q[d2_idx_q] &&
                    (!d2_ev_q || reorder_pkg::FlowEntryBits'(d2_e_q) == flow_q[d2_idx_q])),
  .q_state_q,
  .r_emit, .i_write, .i_cell, .n_cell, .rd_busy_q, .i_link(i_write && i_link), .i_link_prev_last(cell_last_q[i_link_prev]),
  .nd_we, .nd_addr_last(cell_last_q[nd_addr]),
  .d2_q_check(d2_valid_q && !d2_bad_q),
  .d2_q_ok(d2_mine_q == (q_owner_q[d2_hq] == d2_idx_q && q_state_q[d2_hq] != reorder_pkg::QFree) &&
           (!d2_mine_q || (d2_hold_q == (q_state_q[d2_hq] == reorder_pkg::QHolding) &&
                           d2_hq_count_q == q_count_q[d2_hq] && d2_hq_cells_q == q_cells_q[d2_hq] &&
                           d2_hq_head_q == q_head_q[d2_hq] && d2_hq_tail_q == q_tail_q[d2_hq]))),
  .narrow_cnt({cnt_held_now_o, cnt_held_cells_o, cnt_queues_now_o, cnt_cells_used_o, cnt_peak_queues_o,
               cnt_peak_held_cells_o, cnt_peak_cells_used_o}),
  .of_front_ok(reorder_pkg::OutEntryBits'(of_front_q) ==
                (of_rd_q[0] ? of_mem1_q[of_rd_q[reorder_pkg::OfW-1:1]] : of_mem0_q[of_rd_q[reorder_pkg::OfW-1:1]])),
  .q_ge2_q, .q_count_q, .d2_valid_q, .way_free, .d2_cand_q,
  .cell_last_ok(!rd_busy_q || cell_rlast_q == cell_last_q[rd_cell_q]), .found_any, .free_ok, .any_queue(cfg_any_queue_i),
  .of_ne_q, .rd_queue_q, .rd_q_released(q_state_q[rd_q_q] == reorder_pkg::QReleased),
  .hold_tail_ok(!(d_fire && d_app && !d_app_r && n_busy && n_cell == d2_hq_tail_q)), .of_one_q, .of_room2_q,
  .rd_ge2_ok(!(rd_busy_q && rd_queue_q) || rd_ge2_q == q_ge2_q[rd_q_q]), .timeout,
  .sc_terms_ok(sc_count == q_count_q[scan_q] && sc_cells == q_cells_q[scan_q]),
  .scan_d_oh_ok(scan_d_oh == nt_pkg::ReorderQueues'(1) << scan_d),
  .cand_oh_ok(d2_cand_oh_q[0] == nt_pkg::ReorderQueues'(1) << d2_cand_q[0] &&
              d2_cand_oh_q[1] == nt_pkg::ReorderQueues'(1) << d2_cand_q[1] &&
              d2_cand_oh_q[2] == nt_pkg::ReorderQueues'(1) << d2_cand_q[2] &&
              d2_cand_oh_q[3] == nt_pkg::ReorderQueues'(1) << d2_cand_q[3]));
// the control packet stream (the second output)
bind reorder_top nt_stream_checker #(.KeepBits(nt_pkg::StreamBytes)) u_sva_c (
  .clk_i, .rst_ni, .valid_i(c_valid_o), .ready_i(c_ready_i), .data_i(c_data_o), .keep_i(c_keep_o),
  .last_i(c_last_o));
`endif  // SYNTHESIS
