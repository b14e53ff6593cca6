// The endpoint's DMA arbiter: NaaDmaMasters masters (0 rdma_top, 1 naa_req, 2 the controller) share the one
// host-memory port. One request per cycle is granted round robin, starting after the master granted last;
// a master holds its request until it is taken, and a request offered and not taken keeps the grant until it
// is taken (the host port is a valid/ready stream: AXI4 A3.2.1, rdma_dma_req_sva.sv `req_stable`). Host
// memory answers reads in order, so the id of every read taken is pushed into a FIFO and the response beats
// go to the master at its head (popped on the last beat). A read waits while the FIFO is full. State for
// state as model/naa/naa_dma_arb.cc.
`include "nt_ports.svh"
module naa_dma_arb
(
  `NT_CLK_RST,
  // Masters.
  input  logic [nt_pkg::NaaDmaMasters-1:0]             s_req_valid_i,
  output logic [nt_pkg::NaaDmaMasters-1:0]             s_req_ready_o,
  input  logic [nt_pkg::NaaDmaMasters-1:0]             s_req_write_i,
  input  logic [nt_pkg::NaaDmaMasters-1:0][63:0]       s_req_addr_i,
  input  logic [nt_pkg::NaaDmaMasters-1:0][15:0]       s_req_len_i,
  input  logic [nt_pkg::NaaDmaMasters-1:0][5:0]        s_req_off_i,
  input  logic [nt_pkg::NaaDmaMasters-1:0][nt_pkg::StreamBits-1:0] s_req_data_i,
  output logic [nt_pkg::NaaDmaMasters-1:0]             s_rsp_valid_o,
  output logic                                 s_rsp_last_o,
  output logic [nt_pkg::StreamBits-1:0]                s_rsp_data_o,
  // Host memory.
  `NT_DMA_REQ_OUT(m),
  `NT_DMA_RSP_IN(m)
);
  localparam int unsigned IdBits = $clog2(nt_pkg::NaaDmaMasters);
  localparam int unsigned PtrBits = $clog2(nt_pkg::NaaDmaIdDepth);

  logic [IdBits-1:0]  last_q, grant, rr_grant, grant_q;
  logic               any, rr_any, lock_q;
  logic [IdBits-1:0]  ids_q [nt_pkg::NaaDmaIdDepth];
  logic [PtrBits:0]   wr_q, rd_q;
  logic               full;

  // Whether master k is the round robin's pick when last_q is l, if it requests: none of the masters tried
  // before it after l does (l + 1 .. k - 1, cyclically). Its own valid is ANDed in last, in s_req_ready_o.
  function automatic logic rr_none_before(int unsigned l, int unsigned k);
    logic pick, past;
    pick = 1'b1;
    past = 1'b0;
    for (int unsigned d = 1; d < nt_pkg::NaaDmaMasters; d++) begin
      if ((l + d) % nt_pkg::NaaDmaMasters == k) past = 1'b1;
      if (!past && s_req_valid_i[(l + d) % nt_pkg::NaaDmaMasters]) pick = 1'b0;
    end
    rr_none_before = pick;
  endfunction
  always_comb begin
    rr_any   = 1'b0;
    rr_grant = '0;
    // The first requesting master after last_q, cyclically: for each value l of last_q the masters to try are
    // the constants (l + k) mod NaaDmaMasters, k = 1..NaaDmaMasters (the same value for every last_q as the
    // running `(last_q + k) % NaaDmaMasters` of the model), so the grant is a small function of last_q and the
    // valids (a LUT or two) instead of an adder and compares in front of every output (14 levels; issue 27).
    for (int unsigned l = 0; l < (1 << IdBits); l++) begin
      if (last_q == IdBits'(l)) begin
        for (int unsigned k = 1; k <= nt_pkg::NaaDmaMasters; k++) begin
          if (!rr_any && s_req_valid_i[(l + k) % nt_pkg::NaaDmaMasters]) begin
            rr_any   = 1'b1;
            rr_grant = IdBits'((l + k) % nt_pkg::NaaDmaMasters);
          end
        end
      end
    end
  end
  // The request offered last cycle and not taken keeps the grant (its master holds it).
  assign grant = lock_q ? grant_q : rr_grant;
  assign any   = lock_q ? s_req_valid_i[grant_q] : rr_any;

  assign full          = (wr_q - rd_q) == (PtrBits + 1)'(nt_pkg::NaaDmaIdDepth);
  assign m_req_valid_o = any && (s_req_write_i[grant] || !full);
  assign m_req_write_o = s_req_write_i[grant];
  assign m_req_addr_o  = s_req_addr_i[grant];
  assign m_req_len_o   = s_req_len_i[grant];
  assign m_req_off_o   = s_req_off_i[grant];
  assign m_req_data_o  = s_req_data_i[grant];
  // Master k's ready, formed from the valids directly rather than through grant and m_req_valid_o: the
  // masters' requests come from their state registers and their next state reads ready, so the grant's
  // mux and the offered request's own terms in front of it were levels on every master's state path
  // (naa_kernel's state -> its buf_fwd_q was 17 across naa_top; issue 27). k is the first requesting master
  // after last_q (rr_first: no master before it requests), or holds the grant (lock_q); its own valid and write
  // enter last, so that a master's request reaches its ready through one LUT; the same value as before (SVA
  // ready_eq).
  logic [nt_pkg::NaaDmaMasters-1:0] rr_first;
  always_comb begin
    rr_first = '0;
    for (int unsigned l = 0; l < (1 << IdBits); l++) begin
      for (int unsigned k = 0; k < nt_pkg::NaaDmaMasters; k++) begin
        if (last_q == IdBits'(l) && rr_none_before(l, k)) rr_first[k] = 1'b1;
      end
    end
    for (int unsigned k = 0; k < nt_pkg::NaaDmaMasters; k++) begin
      s_req_ready_o[k] = m_req_ready_i && s_req_valid_i[k] && (s_req_write_i[k] || !full) &&
                         (lock_q ? grant_q == IdBits'(k) : rr_first[k]);
    end
  end
`ifndef SYNTHESIS
  logic [nt_pkg::NaaDmaMasters-1:0] ready_ref;  // the ready it replaces: the grant's, when offered and taken
  always_comb begin
    ready_ref = '0;
    ready_ref[grant] = m_req_valid_o && m_req_ready_i;
  end
`include "nt_assert.svh"
  `NT_ASSERT(ready_eq, s_req_ready_o == ready_ref)
`endif

  logic [IdBits-1:0] head;
  assign head = ids_q[rd_q[PtrBits-1:0]];
  always_comb begin
    s_rsp_valid_o = '0;
    s_rsp_valid_o[head] = m_rsp_valid_i && wr_q != rd_q;
  end
  assign s_rsp_last_o = m_rsp_last_i;
  assign s_rsp_data_o = m_rsp_data_i;

  always_ff @(posedge clk_i) begin
    if (m_req_valid_o && m_req_ready_i && !m_req_write_o) ids_q[wr_q[PtrBits-1:0]] <= grant;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      last_q  <= '0;
      lock_q  <= 1'b0;
      grant_q <= '0;
      wr_q    <= '0;
      rd_q   <= '0;
    end else begin
      lock_q  <= m_req_valid_o && !m_req_ready_i;
      grant_q <= grant;
      if (m_req_valid_o && m_req_ready_i) begin
        last_q <= grant;
        if (!m_req_write_o) wr_q <= wr_q + 1;
      end
      if (m_rsp_valid_i && m_rsp_last_i && wr_q != rd_q) rd_q <= rd_q + 1;
    end
  end
endmodule
