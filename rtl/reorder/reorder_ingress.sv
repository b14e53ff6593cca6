// Ingress of the reorder block (stage I, docs/reorder-microarchitecture.md): a one-beat lookahead register,
// so each fabric beat is handled together with its successor (the 4 bytes the CW-header removal pulls in;
// for a first beat, the 128-byte window the parser reads). It writes the NIC frame one beat per cell into
// the shared buffer, linking the cells of a packet, and hands each complete packet (or a header-malformed
// one, at its first beat) to the decision stage through the pending register.
`include "nt_ports.svh"
module reorder_ingress
(
  `NT_CLK_RST,
  // fabric side
  `NT_STREAM_IN(s),
  input  logic                   p4_format_i,   // conweave-p4's wire format (reorder_pkg::parse_cw)
  // the shared buffer: the cell the next write takes, if any
  input  logic                   cell_avail_i,
  input  logic [reorder_pkg::CellW-1:0]       free_cell_i,
  output logic                   wr_o,          // write free_cell_i with the beat below
  output logic [nt_pkg::StreamBits-1:0]  wr_data_o,
  output logic [nt_pkg::StreamBytes-1:0] wr_keep_o,
  output logic                   wr_last_o,
  output logic                   link_o,        // and link it: next[link_prev_o] = free_cell_i
  output logic [reorder_pkg::CellW-1:0]       link_prev_o,
  // the pending packet, taken by the decision stage
  input  logic                   pend_take_i,
  output logic                   pend_valid_o,
  output logic                   pend_bad_o,    // malformed: headers, IP length or size
  output reorder_pkg::meta_t                  pend_meta_o,
  output logic [15:0]            pend_hash_next_o,  // pend_meta_o.hash after this edge (flow-table prefetch)
  output logic [reorder_pkg::CellW-1:0]       pend_head_o,
  output logic [reorder_pkg::CellW-1:0]       pend_tail_o,
  output logic [15:0]            pend_cells_o,
  output logic                   busy_o         // a beat is in the lookahead register
);
  logic                   h_valid_q;
  logic [nt_pkg::StreamBits-1:0]  h_data_q;
  logic [nt_pkg::StreamBytes-1:0] h_keep_q;
  logic                   h_last_q;
  logic [7:0]             h_idx_q, in_idx_q;
  logic                   skip_q;   // the rest of this packet writes nothing
  reorder_pkg::meta_t                  meta_q;
  logic [reorder_pkg::CellW-1:0]       ip_head_q, ip_prev_q;
  logic [15:0]            ip_cells_q;
  logic                   pend_valid_q, pend_bad_q;
  reorder_pkg::meta_t                  pend_meta_q;
  logic [reorder_pkg::CellW-1:0]       pend_head_q, pend_tail_q;
  logic [15:0]            pend_cells_q;
  reorder_pkg::cw_pre_t               pre_q;   // cw_pre of the frame's first beat, computed as it entered
  logic [16:0]            exp_len_q;   // the frame length its IP length implies (pm.v6 ? 54 : 14) + pm.ip_len
  logic [15:0]            h_len_q;     // the frame's length if h ends it: 64 h_idx_q + its byte count
  logic [8:0]             h_idx_p1_q;  // h_idx_q + 1

  logic                   res_ok, in_fire, h_go, first, i_pend, i_last, i_oversize, i_pend_bad, n_skip;
  logic [reorder_pkg::CellW-1:0]       n_head, n_prev;
  logic [15:0]            n_cells, cells_before, i_len;
  logic [nt_pkg::WindowBits-1:0]  win;
  reorder_pkg::meta_t                  pm, n_meta;
  logic [nt_pkg::StreamBytes-1:0] out_keep;  // bytes of the NIC beat written
  logic [2:0]             nx_n;     // bytes of the successor when it has at most 4
  logic                   short4, short6;
  logic [reorder_pkg::KeyBits-1:0] key_raw;
  logic [16:0]            exp_len;
  // pm and i_pend as they are when h_go (session 24): the next hash for the flow-table prefetch chooses with
  // h_go last, so pend_take_i (from the decision stage, the end of the block's deepest stitched path: d1_take
  // -> h_go -> i_pend's conditions -> pend_hash_next_o -> the prefetch's bypass compare, 13) meets it in the
  // last two LUTs. reorder_ingress_sva go_pend_exact: i_pend == h_go && go_pend, and pm is pm_go then.
  reorder_pkg::meta_t     pm_go;
  logic                   go_last, go_over, go_pend;

  assign res_ok = cell_avail_i && (!pend_valid_q || pend_take_i);
  assign s_ready_o = !h_valid_q || res_ok;
  assign in_fire = s_valid_i && s_ready_o;
  assign h_go = h_valid_q && res_ok && (h_last_q || s_valid_i);

  always_comb begin
    first = h_idx_q == 8'd0;
    wr_o = 1'b0;
    wr_data_o = '0;
    wr_keep_o = '0;
    link_o = 1'b0;
    i_pend = 1'b0;
    i_last = 1'b0;
    i_oversize = 1'b0;
    i_pend_bad = 1'b0;
    i_len = '0;
    n_skip = skip_q;
    n_meta = meta_q;
    n_head = ip_head_q;
    n_prev = ip_prev_q;
    n_cells = ip_cells_q;
    cells_before = '0;
    pm = meta_q;
    // keep is contiguous from byte 0 (asserted on the input port): byte counts and "fewer than n bytes" are
    // keep bits, and the frame length if h ends it was counted as h entered (h_len_q)
    nx_n = s_keep_i[3] ? 3'd4 : s_keep_i[2] ? 3'd3 : s_keep_i[1] ? 3'd2 : {2'd0, s_keep_i[0]};
    win = {h_last_q ? {nt_pkg::StreamBits{1'b0}} : s_data_i, h_data_q};
    // parse_cw's length checks: the frame (h_n bytes if this beat is its last, 64 + nx_n if the next is,
    // else more than 128) shorter than 62 (IPv4) or 82 (IPv6) bytes. keep is contiguous, so "fewer than n
    // bytes" is keep bit n - 1 clear: no byte count on this path
    short4 = h_last_q && !h_keep_q[61];
    short6 = h_last_q || (s_last_i && !s_keep_i[17]);
    // the flow key where parse_cw puts it (its family by the EtherType); parse_cw returns it only for a
    // good frame (else 0), and the CRC of 0 is a constant, so the hash is chosen after the CRC
    key_raw = reorder_pkg::cw_key(win, pre_q.et6);
    // the first beat's checks and lengths were computed as it entered the lookahead register (pre_q);
    // a later beat compares with the expected length registered at the first beat's h_go
    exp_len = first ? (p4_format_i ? pre_q.exp_len_p4 : pre_q.exp_len) : exp_len_q;
    pm_go = meta_q;
    if (first) begin
      pm_go = reorder_pkg::parse_cw_pre(win, pre_q, short4, short6, p4_format_i);
      pm_go.hash = pm_go.ok ? reorder_pkg::flow_hash(key_raw) : reorder_pkg::flow_hash('0);
    end
    out_keep = '1;
    if (h_go) begin
      if (first) begin
        pm = pm_go;
        n_meta = pm;
        n_cells = '0;
      end
      if (first && !pm.ok) begin
        i_pend = 1'b1;
        i_pend_bad = 1'b1;
        n_skip = 1'b1;
      end else if (!(first ? 1'b0 : skip_q)) begin
        if (h_last_q) begin
          // its bytes but the 4 the removal takes (h_n - 4; all 64 when h_n < 4, as the 8-bit count wrapped)
          for (int unsigned j = 0; j < nt_pkg::StreamBytes; j++) begin
            out_keep[j] = !h_keep_q[3] || (j < nt_pkg::StreamBytes - 4 && h_keep_q[(j + 4) % nt_pkg::StreamBytes]);
          end
          i_len = h_len_q;
          i_last = 1'b1;
        end else if (s_last_i && !s_keep_i[4]) begin
          // the successor holds only bytes the removal pulls in (at most 4): this beat ends the NIC frame,
          // 60 + nx_n bytes
          for (int unsigned j = 0; j < nt_pkg::StreamBytes; j++) begin
            out_keep[j] = j < nt_pkg::StreamBytes - 4 || s_keep_i[(j + 4) % nt_pkg::StreamBytes];
          end
          i_len = {1'b0, h_idx_p1_q, 3'd0, nx_n};
          i_last = 1'b1;
        end
        cells_before = first ? 16'd0 : ip_cells_q;
        i_oversize = !i_last && cells_before == 16'(nt_pkg::ReorderMaxCells - 1);
        wr_o = 1'b1;
        wr_data_o = reorder_pkg::strip_beat(h_data_q, s_data_i, int'(h_idx_q), pm, out_keep);
        wr_keep_o = out_keep;
        link_o = cells_before != '0;
        n_head = first ? free_cell_i : ip_head_q;
        n_prev = free_cell_i;
        n_cells = cells_before + 16'd1;
        if (i_last || i_oversize) begin
          i_pend = 1'b1;
          i_pend_bad = i_oversize || exp_len != 17'(i_len);
          n_skip = 1'b1;
        end else begin
          n_skip = 1'b0;
        end
      end
    end
  end

  assign wr_last_o = i_last || i_oversize;
  assign link_prev_o = ip_prev_q;
  assign pend_valid_o = pend_valid_q;
  assign pend_bad_o = pend_bad_q;
  assign pend_meta_o = pend_meta_q;
  // i_pend's conditions inside `if (h_go)` above, without h_go: a bad first beat, or a beat that ends the
  // frame or makes it oversize, unless the frame is being skipped
  assign go_last = h_last_q || (s_last_i && !s_keep_i[4]);
  assign go_over = !go_last && (first ? 16'd0 : ip_cells_q) == 16'(nt_pkg::ReorderMaxCells - 1);
  assign go_pend = (first && !pm_go.ok) || ((first || !skip_q) && (go_last || go_over));
  // = i_pend ? pm.hash : pend_meta_q.hash, with h_go's factors (pend_take_i among them) chosen last
  assign pend_hash_next_o = h_valid_q && cell_avail_i && (h_last_q || s_valid_i) && (!pend_valid_q || pend_take_i) &&
                            go_pend ? pm_go.hash : pend_meta_q.hash;
  assign pend_head_o = pend_head_q;
  assign pend_tail_o = pend_tail_q;
  assign pend_cells_o = pend_cells_q;
  assign busy_o = h_valid_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      h_valid_q <= 1'b0;
      h_data_q <= '0;
      h_keep_q <= '0;
      h_last_q <= 1'b0;
      h_idx_q <= '0;
      in_idx_q <= '0;
      skip_q <= 1'b0;
      meta_q <= '0;
      ip_head_q <= '0;
      ip_prev_q <= '0;
      ip_cells_q <= '0;
      pend_valid_q <= 1'b0;
      pend_bad_q <= 1'b0;
      pend_meta_q <= '0;
      pend_head_q <= '0;
      pend_tail_q <= '0;
      pend_cells_q <= '0;
      pre_q <= '0;
      exp_len_q <= '0;
      h_len_q <= '0;
      h_idx_p1_q <= '0;
    end else begin
      if (i_pend) begin
        pend_valid_q <= 1'b1;
        pend_bad_q <= i_pend_bad;
        pend_meta_q <= pm;
        pend_head_q <= wr_o ? n_head : '0;
        pend_tail_q <= wr_o ? free_cell_i : '0;
        pend_cells_q <= wr_o ? n_cells : '0;
      end else if (pend_take_i) begin
        pend_valid_q <= 1'b0;
      end
      skip_q <= n_skip;
      meta_q <= n_meta;
      ip_head_q <= n_head;
      ip_prev_q <= n_prev;
      ip_cells_q <= n_cells;
      if (h_go && first) exp_len_q <= exp_len;
      if (in_fire && in_idx_q == 8'd0) pre_q <= reorder_pkg::cw_pre({{nt_pkg::StreamBits{1'b0}}, s_data_i});
      if (in_fire) begin
        h_valid_q <= 1'b1;
        h_data_q <= s_data_i;
        h_keep_q <= s_keep_i;
        h_last_q <= s_last_i;
        h_idx_q <= in_idx_q;
        h_len_q <= {2'd0, in_idx_q, 6'd0} + 16'(nt_pkg::keep_count(s_keep_i));
        h_idx_p1_q <= 9'(in_idx_q) + 9'd1;
        in_idx_q <= s_last_i ? 8'd0 : (in_idx_q == 8'd255 ? 8'd255 : in_idx_q + 8'd1);
      end else if (h_go) begin
        h_valid_q <= 1'b0;
      end
    end
  end

endmodule
