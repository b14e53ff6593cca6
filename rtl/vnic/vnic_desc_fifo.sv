// Descriptors of complete frames waiting for the read side: push at an input frame's last beat, pop when
// its last output beat is taken, the head readable without a cycle of latency.
`include "nt_ports.svh"
module vnic_desc_fifo #(
  parameter int unsigned Width = 8,
  parameter int unsigned Depth = 32  // a power of two (the pointers' wrap bit)
) (
  `NT_CLK_RST,
  input  logic                     push_i,
  input  logic [Width-1:0]         data_i,
  input  logic                     pop_i,
  output logic [Width-1:0]         head_o,
  output logic                     empty_o,
  output logic                     full_o
);
  localparam int unsigned AddrBits = $clog2(Depth);
  logic [Width-1:0]    mem_q[Depth];
  // Read and write pointers with a wrap bit (Depth is a power of two): empty when equal, full when only the
  // wrap bits differ. push_i and pop_i then reach only the pointers' enables, not an adder: a count register
  // (+1 / -1 chosen by push/pop, which Yosys's opt_share folds into one carry chain behind the select) put
  // two carry levels after the push, the end of the VNIC's deepest stitched path (issue 27 item 2: the
  // frame's byte count -> the top's decision -> push -> count, 14 levels).
  logic [AddrBits:0]   wr_q, rd_q, count;

  assign head_o  = mem_q[rd_q[AddrBits-1:0]];
  assign count   = wr_q - rd_q;  // frames held (the assertions' bound)
  assign empty_o = wr_q == rd_q;
  assign full_o  = wr_q == {~rd_q[AddrBits], rd_q[AddrBits-1:0]};

  always_ff @(posedge clk_i) begin
    if (push_i) mem_q[wr_q[AddrBits-1:0]] <= data_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_q <= '0;
      rd_q <= '0;
    end else begin
      if (push_i) wr_q <= wr_q + 1'b1;
      if (pop_i) rd_q <= rd_q + 1'b1;
    end
  end
endmodule
