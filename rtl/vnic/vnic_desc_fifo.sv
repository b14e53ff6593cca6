// Descriptors of complete frames waiting for the read side: push at an input frame's last beat, pop when
// its last output beat is taken, the head readable without a cycle of latency.
`include "nt_ports.svh"
module vnic_desc_fifo #(
  parameter int unsigned Width = 8,
  parameter int unsigned Depth = 32
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
  logic [AddrBits-1:0] wr_q, rd_q;
  logic [AddrBits:0]   count_q;

  assign head_o  = mem_q[rd_q];
  assign empty_o = count_q == '0;
  assign full_o  = count_q == (AddrBits + 1)'(Depth);

  always_ff @(posedge clk_i) begin
    if (push_i) mem_q[wr_q] <= data_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_q    <= '0;
      rd_q    <= '0;
      count_q <= '0;
    end else begin
      if (push_i) wr_q <= wr_q + 1'b1;
      if (pop_i) rd_q <= rd_q + 1'b1;
      // +1 / -1 from the register, selected by push/pop (not push - pop through the adders)
      unique case ({push_i, pop_i})
        2'b10:   count_q <= count_q + 1'b1;
        2'b01:   count_q <= count_q - 1'b1;
        default: ;
      endcase
    end
  end
endmodule
