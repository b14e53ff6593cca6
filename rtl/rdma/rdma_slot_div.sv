// x % n for one of rdma_top's slot registers, one quotient bit a cycle (restoring division, 16 cycles), for
// the one update an add-and-compare cannot follow: a queues write that gives a QP a new entry count (or a new
// RQ) while its counter is already at or past it. A 16-bit x % n in one cycle is a divider far deeper than
// the 12 logic levels of issue 27 (docs/rdma-microarchitecture.md "Slot registers"); the model follows
// (model/rdma/rdma_cycle_model.cc, kSlotDivCycles: the QP's prefetch or CQE waits while busy_o).
// The caller keeps x_i and n_i still while busy_o, or restarts: start_i whenever either moves.
module rdma_slot_div (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        start_i,   // (re)start: the first step is in the next cycle
  input  logic        cancel_i,  // stop, the slot known otherwise (wins over start_i)
  input  logic [15:0] x_i,
  input  logic [15:0] n_i,       // != 0 while busy_o
  output logic        busy_o,    // the slot is not known yet
  output logic        done_o,    // this cycle's step is the last: rem_o is x % n
  output logic [15:0] rem_o
);
  logic [4:0]  cnt_q;  // steps left, 16..1; 0: idle
  logic [15:0] rem_q;  // the remainder of x's bits above bit cnt_q - 1 (always < n)
  logic [3:0]  bit_idx;
  logic [16:0] cur;
  logic [15:0] diff;  // cur - n where cur >= n (then < n: 16 bits)
  assign bit_idx = 4'(cnt_q - 5'd1);
  assign cur     = {rem_q, x_i[bit_idx]};  // < 2n, so one subtraction leaves the remainder
  assign diff    = 16'(cur - {1'b0, n_i});
  assign rem_o   = (cur >= {1'b0, n_i}) ? diff : cur[15:0];
  assign busy_o  = cnt_q != '0;
  assign done_o  = cnt_q == 5'd1;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cnt_q <= '0;
      rem_q <= '0;
    end else if (cancel_i) begin
      cnt_q <= '0;
    end else if (start_i) begin
      cnt_q <= 5'd16;
      rem_q <= '0;
    end else if (busy_o) begin
      cnt_q <= cnt_q - 5'd1;
      rem_q <= rem_o;
    end
  end
endmodule
