// Control-packet generator of the reorder block: two request FIFOs (A: RTT_REPLY / NOTIFY / CLEAR from the
// decision stage; B: CLEARs of drained queues, served first) and a builder that turns one request into up
// to three control packets (RTT_REPLY, NOTIFY, CLEAR in that order) on the control stream.
`include "nt_ports.svh"
module reorder_ctrl_gen
(
  `NT_CLK_RST,
  input  logic                  push_a_i,
  input  reorder_pkg::ctrl_req_t             req_a_i,
  input  logic                  push_b_i,
  input  reorder_pkg::ctrl_req_t             req_b_i,
  output logic [3:0]            free_a_o,   // free entries in FIFO A
  output logic                  full_b_o,
  output logic                  busy_o,     // a request or packet is pending
  `NT_STREAM_OUT(c),
  input  logic                  p4_format_i,  // conweave-p4's wire format (reorder_pkg::build_ctrl)
  output logic                  sent_o      // the last beat of a control packet left this cycle
);
  localparam int unsigned DepthA = nt_pkg::ReorderCtrlFifo;
  localparam int unsigned DepthB = nt_pkg::ReorderQueues;
  localparam int unsigned AW = $clog2(DepthA);
  localparam int unsigned BW = $clog2(DepthB);

  reorder_pkg::ctrl_req_t    a_mem_q [DepthA];
  reorder_pkg::ctrl_req_t    b_mem_q [DepthB];
  logic [AW-1:0] a_rd_q;
  logic [AW:0]   a_cnt_q;
  logic [BW-1:0] b_rd_q;
  logic [BW:0]   b_cnt_q;

  logic          busy_q;
  reorder_pkg::ctrl_req_t     req_q;
  logic          beat_q;
  logic [nt_pkg::WindowBits-1:0] frame_q;
  logic [7:0]    len_q;
  logic          c_valid_q;
  logic [nt_pkg::StreamBits-1:0] c_data_q;
  logic [nt_pkg::StreamBytes-1:0] c_keep_q;
  logic          c_last_q;

  logic          adv, pop_a, pop_b, emit, emit_last, load, next_pkt;
  logic [nt_pkg::StreamBits-1:0] emit_data;
  logic [nt_pkg::StreamBytes-1:0] emit_keep;
  logic [2:0]    rem;
  reorder_pkg::ctrl_req_t     load_req;
  reorder_pkg::ctrl_req_t     next_req;  // req_q with the request bit just served cleared
  logic [nt_pkg::WindowBits+7:0] built;  // {len, frame} of the packet loaded next (when load or next_pkt)
  int unsigned   base, n;

  assign free_a_o = 4'(DepthA) - 4'(a_cnt_q);
  assign full_b_o = b_cnt_q == (BW + 1)'(DepthB);
  assign busy_o = busy_q || a_cnt_q != '0 || b_cnt_q != '0 || c_valid_q;
  assign c_valid_o = c_valid_q;
  assign c_data_o = c_data_q;
  assign c_keep_o = c_keep_q;
  assign c_last_o = c_last_q;
  assign sent_o = c_valid_q && c_ready_i && c_last_q;

  // The packet for the lowest request bit: op, and the epoch (the header's, or the flow's for a CLEAR).
  function automatic logic [nt_pkg::WindowBits+7:0] build(reorder_pkg::ctrl_req_t r);
    logic [2:0] op;
    logic [1:0] ep;
    int unsigned bth8;
    bth8 = (r.v6 ? 54 : 34) + 16;
    if (r.mask[reorder_pkg::MaskReply]) begin
      op = reorder_pkg::CwRttReply;
      ep = r.hdr[8*bth8+2+:2];
    end else if (r.mask[reorder_pkg::MaskNotify]) begin
      op = reorder_pkg::CwNotify;
      ep = r.hdr[8*bth8+2+:2];
    end else begin
      op = reorder_pkg::CwClear;
      ep = r.clear_epoch;
    end
    build = reorder_pkg::build_ctrl(r.hdr, r.v6, op, ep, p4_format_i);
  endfunction

  always_comb begin
    adv = !c_valid_q || c_ready_i;
    pop_a = 1'b0;
    pop_b = 1'b0;
    emit = 1'b0;
    emit_last = 1'b0;
    emit_data = '0;
    emit_keep = '0;
    load = 1'b0;
    next_pkt = 1'b0;
    rem = req_q.mask & (req_q.mask - 3'd1);
    next_req = req_q;
    next_req.mask = rem;
    load_req = b_cnt_q != '0 ? b_mem_q[b_rd_q] : a_mem_q[a_rd_q];
    base = beat_q ? nt_pkg::StreamBytes : 0;
    n = 32'(len_q) - base;
    if (n > nt_pkg::StreamBytes) n = nt_pkg::StreamBytes;
    if (adv) begin
      if (busy_q) begin
        emit = 1'b1;
        emit_data = beat_q ? frame_q[nt_pkg::WindowBits-1:nt_pkg::StreamBits] : frame_q[nt_pkg::StreamBits-1:0];
        emit_keep = reorder_pkg::keep_mask(n);
        emit_last = base + n == 32'(len_q);
        if (emit_last && rem != 3'd0) next_pkt = 1'b1;
      end else if (b_cnt_q != '0 || a_cnt_q != '0) begin
        pop_b = b_cnt_q != '0;
        pop_a = !pop_b;
        load = 1'b1;
      end
    end
    // Built here rather than in the always_ff: Yosys 0.55 rejects a function's temporaries in a process with
    // an asynchronous reset (docs/synthesis.md). One builder: load and next_pkt never hold together. Only
    // when one of them holds (the only cycles the always_ff uses it), so that a simulator does not build a
    // packet every cycle (that doubled reorder_bench's RTL time).
    built = '0;
    if (load || next_pkt) built = build(load ? load_req : next_req);
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      a_rd_q <= '0;
      a_cnt_q <= '0;
      b_rd_q <= '0;
      b_cnt_q <= '0;
      busy_q <= 1'b0;
      req_q <= '0;
      beat_q <= 1'b0;
      frame_q <= '0;
      len_q <= '0;
      c_valid_q <= 1'b0;
      c_data_q <= '0;
      c_keep_q <= '0;
      c_last_q <= 1'b0;
    end else begin
      if (push_a_i) a_mem_q[a_rd_q + AW'(a_cnt_q)] <= req_a_i;
      if (push_b_i) b_mem_q[b_rd_q + BW'(b_cnt_q)] <= req_b_i;
      a_cnt_q <= a_cnt_q + (AW + 1)'(push_a_i) - (AW + 1)'(pop_a);
      b_cnt_q <= b_cnt_q + (BW + 1)'(push_b_i) - (BW + 1)'(pop_b);
      if (pop_a) a_rd_q <= a_rd_q + 1'b1;
      if (pop_b) b_rd_q <= b_rd_q + 1'b1;
      if (adv) begin
        c_valid_q <= emit;
        c_data_q <= emit_data;
        c_keep_q <= emit_keep;
        c_last_q <= emit_last;
      end
      if (load) begin
        busy_q <= 1'b1;
        req_q <= load_req;
        beat_q <= 1'b0;
        {len_q, frame_q} <= built;
      end else if (emit) begin
        if (!emit_last) begin
          beat_q <= 1'b1;
        end else if (next_pkt) begin
          req_q.mask <= rem;
          beat_q <= 1'b0;
          {len_q, frame_q} <= built;
        end else begin
          busy_q <= 1'b0;
        end
      end
    end
  end

endmodule
