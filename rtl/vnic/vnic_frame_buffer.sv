// The store-and-forward buffer of one direction: VnicBufBeats beats in a ring. The write side stores a
// frame's beats behind `start`; at its last beat the frame is kept (start moves on) or dropped (the write
// pointer rewinds to start). The read side reads two consecutive beats of the frame at `base` (beats k+Off
// and k+Off+1), which the realignment combines. Finishing a frame releases its beats.
//
// Block RAM (docs/vnic-microarchitecture.md "Frame buffer"): the ring is two banks by beat parity (even and
// odd beats, VnicBufBeats/2 x 512 bits each), one write port and one registered read port each - the read of
// a BRAM36/URAM288. The two adjacent beats are always one even, one odd. The read address is presented a cycle
// ahead: rd_next_i and release_i say where the read side goes at this edge, so rd_a_o/rd_b_o hold beats
// k+Off and k+Off+1 of the frame at base in the cycle the read side is at beat k, as the combinational read
// did. The address of beat k+Off is kept in a register (addr_a_q) and stepped, rather than summed from
// base, k and Off every cycle (issue 27: 13 levels from base_q to the bypass compare). A beat written in the cycle it is read (a one-beat frame sent right after its last beat) comes from
// the write bypass register.
`include "nt_ports.svh"
module vnic_frame_buffer
#(
  parameter int RdOff = 0
) (
  `NT_CLK_RST,
  input  logic                              wr_valid_i,   // store this beat
  input  logic [nt_pkg::StreamBits-1:0]             wr_data_i,
  input  logic                              frame_end_i,  // the input frame's last beat is accepted ...
  input  logic                              frame_drop_i, // ... and the frame is dropped
  input  logic                              rd_next_i,    // the read side moves to beat k + 1 at this edge
  output logic [nt_pkg::StreamBits-1:0]             rd_a_o,       // beat k + RdOff
  output logic [nt_pkg::StreamBits-1:0]             rd_b_o,       // beat k + RdOff + 1
  input  logic                              release_i,    // the frame at base is done ...
  input  logic [$clog2(nt_pkg::VnicMaxBeats):0]     release_beats_i, // ... and occupied this many beats
  output logic                              full_o
);
  localparam int unsigned AddrBits = $clog2(nt_pkg::VnicBufBeats);
  localparam int unsigned PtrBits = AddrBits + 1;
  localparam int unsigned BankWords = nt_pkg::VnicBufBeats / 2;

  logic [nt_pkg::StreamBits-1:0] even_q[BankWords];
  logic [nt_pkg::StreamBits-1:0] odd_q[BankWords];
  logic [nt_pkg::StreamBits-1:0] even_rd_q, odd_rd_q, wr_data_q, even_out, odd_out;
  logic [PtrBits-1:0]    wr_q, start_q, base_q, base_d, wr_next, used;
  logic [AddrBits-1:0]   addr_a_d, addr_b_d, addr_a_q, base_off_q, wr_m1;
  logic                  fwd;
  logic [AddrBits-2:0]   even_addr, odd_addr, wr_addr;
  logic                  even_fwd_q, odd_fwd_q, swap_q, wr_even, wr_odd;

  assign used     = wr_q - base_q;
  assign full_o   = used[AddrBits];  // used == VnicBufBeats
  assign wr_next  = wr_q + PtrBits'(wr_valid_i);
  assign base_d   = release_i ? base_q + PtrBits'(release_beats_i) : base_q;
  // base + k + Off after this edge: the next frame's beat Off after a release, else this beat or the next
  assign addr_a_d = release_i ? base_off_q + AddrBits'(release_beats_i) : addr_a_q + AddrBits'(rd_next_i);
  assign addr_b_d = addr_a_d + 1'b1;
  // one of the two beats is even, the other odd
  assign even_addr = addr_a_d[0] ? addr_b_d[AddrBits-1:1] : addr_a_d[AddrBits-1:1];
  assign odd_addr  = addr_a_d[0] ? addr_a_d[AddrBits-1:1] : addr_b_d[AddrBits-1:1];
  assign wr_addr   = wr_q[AddrBits-1:1];
  assign wr_even   = wr_valid_i & ~wr_q[0];
  assign wr_odd    = wr_valid_i & wr_q[0];

  always_ff @(posedge clk_i) begin
    if (wr_even) even_q[wr_addr] <= wr_data_i;
    even_rd_q <= even_q[even_addr];
  end

  always_ff @(posedge clk_i) begin
    if (wr_odd) odd_q[wr_addr] <= wr_data_i;
    odd_rd_q <= odd_q[odd_addr];
  end

  // write bypass: the beat written at this edge, for a read of the same address at this edge
  always_ff @(posedge clk_i) begin
    if (wr_valid_i) wr_data_q <= wr_data_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      even_fwd_q <= 1'b0;
      odd_fwd_q  <= 1'b0;
      swap_q     <= 1'b0;
    end else begin
      even_fwd_q <= wr_even & fwd;
      odd_fwd_q  <= wr_odd & fwd;
      swap_q     <= addr_a_d[0];
    end
  end

  assign even_out = even_fwd_q ? wr_data_q : even_rd_q;
  assign odd_out  = odd_fwd_q ? wr_data_q : odd_rd_q;
  assign rd_a_o   = swap_q ? odd_out : even_out;
  assign rd_b_o   = swap_q ? even_out : odd_out;

  // The beat written at this edge is one of the two read (bank = its parity) iff its address is addr_a_d or
  // addr_a_d + 1; the second compared as wr - 1 == addr_a_d, so no adder follows addr_a_d's.
  assign wr_m1 = wr_q[AddrBits-1:0] - 1'b1;
  assign fwd   = wr_q[AddrBits-1:0] == addr_a_d || wr_m1 == addr_a_d;

  logic unused;
  assign unused = addr_b_d[0];  // always ~addr_a_d[0]

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_q       <= '0;
      start_q    <= '0;
      base_q     <= '0;
      addr_a_q   <= AddrBits'(RdOff);
      base_off_q <= AddrBits'(RdOff);
    end else begin
      if (frame_end_i && frame_drop_i) begin
        wr_q <= start_q;
      end else begin
        wr_q <= wr_next;
      end
      if (frame_end_i && !frame_drop_i) start_q <= wr_next;
      base_q <= base_d;
      addr_a_q <= addr_a_d;
      if (release_i) base_off_q <= addr_a_d;
    end
  end
endmodule
