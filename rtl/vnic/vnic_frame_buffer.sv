// The store-and-forward buffer of one direction: VnicBufBeats beats in a ring. The write side stores a
// frame's beats behind `start`; at its last beat the frame is kept (start moves on) or dropped (the write
// pointer rewinds to start). The read side reads two consecutive beats of the frame at `base` (beats k+Off
// and k+Off+1), which the realignment combines; in silicon the ring is two banks (even and odd beats), one
// read port each. Finishing a frame releases its beats.
module vnic_frame_buffer
#(
  parameter int RdOff = 0
) (
  input  logic                              clk_i,
  input  logic                              rst_ni,
  input  logic                              wr_valid_i,   // store this beat
  input  logic [nt_pkg::StreamBits-1:0]             wr_data_i,
  input  logic                              frame_end_i,  // the input frame's last beat is accepted ...
  input  logic                              frame_drop_i, // ... and the frame is dropped
  input  logic [$clog2(nt_pkg::VnicMaxBeats):0]     rd_beat_i,    // k: beat of the frame at base being read
  output logic [nt_pkg::StreamBits-1:0]             rd_a_o,       // beat k + RdOff
  output logic [nt_pkg::StreamBits-1:0]             rd_b_o,       // beat k + RdOff + 1
  input  logic                              release_i,    // the frame at base is done ...
  input  logic [$clog2(nt_pkg::VnicMaxBeats):0]     release_beats_i, // ... and occupied this many beats
  output logic                              full_o
);
  localparam int unsigned AddrBits = $clog2(nt_pkg::VnicBufBeats);
  localparam int unsigned PtrBits = AddrBits + 1;

  logic [nt_pkg::StreamBits-1:0] mem_q[nt_pkg::VnicBufBeats];
  logic [PtrBits-1:0]    wr_q, start_q, base_q, wr_next, used;
  logic [AddrBits-1:0]   addr_a;

  assign used    = wr_q - base_q;
  assign full_o  = used[AddrBits];  // used == VnicBufBeats
  assign wr_next = wr_q + PtrBits'(wr_valid_i);
  assign addr_a  = AddrBits'(base_q + PtrBits'(rd_beat_i) + PtrBits'(RdOff));
  assign rd_a_o  = mem_q[addr_a];
  assign rd_b_o  = mem_q[addr_a + 1'b1];

  always_ff @(posedge clk_i) begin
    if (wr_valid_i) mem_q[wr_q[AddrBits-1:0]] <= wr_data_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wr_q    <= '0;
      start_q <= '0;
      base_q  <= '0;
    end else begin
      if (frame_end_i && frame_drop_i) begin
        wr_q <= start_q;
      end else begin
        wr_q <= wr_next;
      end
      if (frame_end_i && !frame_drop_i) start_q <= wr_next;
      if (release_i) base_q <= base_q + PtrBits'(release_beats_i);
    end
  end
endmodule
