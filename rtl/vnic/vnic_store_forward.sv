// The store-and-forward skeleton both VNIC directions share: input frame bookkeeping (first beat, beats
// stored, over-long), the frame buffer, the descriptor FIFO, the read side's beat counter and the counters.
// The direction's top decides each frame at its last beat (drop_i / reason_i / desc_i, combinational from
// the outputs here) and forms each output beat from the two buffer beats it gets (rd_a_o, rd_b_o). The read
// side here is the iterator over the head frame's beats: `out_fire_i` moves it on (the beat is taken by the
// output, or by an output register stage), `sent_i` counts a frame as out (its last beat left the block).
`include "nt_ports.svh"
module vnic_store_forward
#(
  parameter int unsigned DescBits = 8,
  parameter int          RdOff    = 0   // the read side gets buffer beats k+RdOff and k+RdOff+1
) (
  `NT_CLK_RST,
  // input stream
  `NT_STREAM_IN(s),
  input  logic [6:0]                         s_nbytes_i,   // bytes of s_keep_i (nt_pkg::keep_count; the caller's, maybe registered)
  // the current input beat
  output logic                               sop_o,        // it is its frame's first
  output logic                               over_o,       // its frame is longer than VnicMaxBeats
  output logic [15:0]                        bytes_o,      // frame bytes up to and including it
  // the decision when that beat is accepted and is its frame's last
  input  logic                               drop_i,
  input  logic [3:0]                         reason_i,
  input  logic [DescBits-1:0]                desc_i,
  // read side
  output logic                               head_valid_o,
  output logic [DescBits-1:0]                head_o,
  output logic [$clog2(nt_pkg::VnicMaxBeats):0]      k_o,          // beat of the head frame being sent
  output logic [nt_pkg::StreamBits-1:0]              rd_a_o,
  output logic [nt_pkg::StreamBits-1:0]              rd_b_o,
  input  logic                               out_fire_i,   // an output beat is taken ...
  input  logic                               out_last_i,   // ... and it is the head frame's last
  input  logic                               sent_i,       // a frame's last beat left the block
  output logic [31:0]                        cnt_in_o,
  output logic [31:0]                        cnt_out_o,
  output logic [vnic_pkg::NumReasons*32-1:0]           cnt_drops_o
);
  localparam int unsigned BeatBits = $clog2(nt_pkg::VnicMaxBeats) + 1;

  logic                    sop_q, over_q, s_fire, store, frame_end, buf_full, fifo_full, fifo_empty, done;
  logic [BeatBits-1:0]     beats_q, k_q, k_d, beats64;
  logic [DescBits+BeatBits-1:0] head;

  assign s_fire      = s_valid_i & s_ready_o;
  assign store       = s_fire & (beats_q < BeatBits'(nt_pkg::VnicMaxBeats));
  assign s_ready_o   = ~buf_full & ~fifo_full;
  assign sop_o       = sop_q;
  assign over_o      = over_q | (beats_q == BeatBits'(nt_pkg::VnicMaxBeats));
  // 64 * beats + nbytes (nbytes <= 64): the low six bits are nbytes', the rest beats or beats + 1 (64 bytes)
  assign beats64     = {1'b0, beats_q[BeatBits-2:0]};
  assign bytes_o     = 16'({s_nbytes_i[6] ? beats64 + 1'b1 : beats64, s_nbytes_i[5:0]});
  assign frame_end   = s_fire & s_last_i;
  assign head_valid_o = ~fifo_empty;
  assign head_o      = head[DescBits+BeatBits-1:BeatBits];
  assign k_o         = k_q;
  assign done        = out_fire_i & out_last_i;
  assign k_d         = done ? '0 : k_q + BeatBits'(out_fire_i);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      sop_q   <= 1'b1;
      over_q  <= 1'b0;
      beats_q <= '0;
      k_q     <= '0;
    end else begin
      if (s_fire) begin
        sop_q   <= s_last_i;
        over_q  <= s_last_i ? 1'b0 : over_o;
        beats_q <= s_last_i ? '0 : beats_q + BeatBits'(store);
      end
      k_q <= k_d;
    end
  end

  vnic_frame_buffer #(
    .RdOff(RdOff)
  ) u_buf (
    `NT_CLK_RST_CONN,
    .wr_valid_i     (store),
    .wr_data_i      (s_data_i & vnic_pkg::byte_mask(s_keep_i)),
    .frame_end_i    (frame_end),
    .frame_drop_i   (drop_i),
    .rd_next_i      (out_fire_i),
    .rd_a_o,
    .rd_b_o,
    .release_i      (done),
    .release_beats_i(head[BeatBits-1:0]),
    .full_o         (buf_full)
  );

  vnic_desc_fifo #(
    .Width(DescBits + BeatBits),
    .Depth(nt_pkg::VnicDescFifo)
  ) u_desc (
    `NT_CLK_RST_CONN,
    .push_i (frame_end & ~drop_i),
    .data_i ({desc_i, beats_q + 1'b1}),  // the frame's buffer beats, released when it is sent
    .pop_i  (done),
    .head_o (head),
    .empty_o(fifo_empty),
    .full_o (fifo_full)
  );

  vnic_counters u_cnt (
    `NT_CLK_RST_CONN,
    .in_i    (frame_end),
    .drop_i  (frame_end & drop_i),
    .reason_i,
    .out_i   (sent_i),
    .cnt_in_o,
    .cnt_out_o,
    .cnt_drops_o
  );
endmodule
