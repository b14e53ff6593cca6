// Forms one output beat: removes the 12-byte LB header (bytes at and after it come from 12 bytes further
// on, pulling in the successor's first 12 bytes), overwrites the rewritten header fields, sets keep/last.
// Word-wide: the beat is a select between the beat and the beat shifted by the header (a prefix mask at the
// LB header's offset), the rewritten fields are written over it and keep is the beat's keep shifted by the
// header. The header fields exist only in a frame's first 128 bytes, so they are written only into beats 0
// and 1, straight into the output word (no wide temporaries that a simulator would clear every cycle); every
// later beat is the shifted beat (docs/PERF.md: a simulator no longer walks 64 bytes with variable indices
// per cycle).
// No arithmetic on the way (issue 27: <= 12 logic levels; an adder or a compare of two signals is a carry
// chain): the output keep is the input keeps shifted by 12 bytes, and the two masks that depend on the UDP
// header's offset l4_off (the bytes from the LB header on, the new UDP fields) are constants shifted by
// l4_off bytes over the frame's first 128 bytes, their byte offsets (+8, +2) folded into the constants.
module lb_beat_former
(
  input  lb_pkg::pipe_beat_t             beat_i,
  input  lb_pkg::rewrite_t               rw_i,
  output logic                           valid_o,
  output logic [nt_pkg::StreamBits-1:0]  data_o,
  output logic [nt_pkg::StreamBytes-1:0] keep_o,
  output logic                           last_o
);
  localparam int unsigned Hdr = nt_pkg::LbHeaderBytes;
  localparam int unsigned Bits = nt_pkg::StreamBits;
  localparam int unsigned Bytes = nt_pkg::StreamBytes;

  logic [Bits-1:0]   shifted;  // the beat's bytes from 12 further on
  logic [2*Bits-1:0] hi2;      // frame bytes 0..127: all ones from byte l4_off + 8 (the LB header) on
  logic [2*Bits-1:0] udp2;     // the new UDP port, length and checksum at frame bytes l4_off + 2 .. + 7
  logic [2*Bits-1:0] udp2_m;   // ... and their mask
  logic [Bits-1:0]   hi, udp, udp_m;

  assign shifted = {beat_i.next12, beat_i.data[Bits-1:8*Hdr]};

  always_comb begin
    // keep is contiguous from byte 0 (stream rules, asserted on the input port): a last beat of at most 12
    // bytes has an empty byte 12; its bytes already left with the previous beat.
    valid_o = beat_i.valid && rw_i.forward && !(beat_i.last && !beat_i.keep[Hdr]);
    hi2     = '0;
    udp2    = '0;
    udp2_m  = '0;
    hi      = '0;
    udp     = '0;
    udp_m   = '0;
    data_o  = '0;
    keep_o  = '0;
    last_o  = 1'b0;
    if (valid_o) begin
      if (beat_i.idx == 2'd2) begin
        data_o = shifted;  // past byte 128 a beat is always behind the LB header
      end else begin
        // Bytes before the LB header (lb_off = l4_off + 8) from the beat, the rest from 12 further on;
        // then the rewritten fields written over them where they fall in this beat.
        hi2    = {{(2*Bits-64){1'b1}}, 64'd0} << {rw_i.l4_off, 3'd0};
        udp2   = {{(2*Bits-64){1'b0}}, nt_pkg::byte_rev48({rw_i.udp_port, rw_i.udp_len, rw_i.udp_csum}), 16'd0}
                 << {rw_i.l4_off, 3'd0};
        udp2_m = {{(2*Bits-64){1'b0}}, 48'hffff_ffff_ffff, 16'd0} << {rw_i.l4_off, 3'd0};
        if (beat_i.idx == 2'd1) begin
          hi    = hi2[2*Bits-1:Bits];
          udp   = udp2[2*Bits-1:Bits];
          udp_m = udp2_m[2*Bits-1:Bits];
        end else begin
          hi    = hi2[Bits-1:0];
          udp   = udp2[Bits-1:0];
          udp_m = udp2_m[Bits-1:0];
        end
        data_o = (beat_i.data & ~hi) | (shifted & hi);
        if (beat_i.idx == 2'd0) begin  // every field but the UDP ones lies in bytes 0..53
          data_o[0+:48]  = nt_pkg::byte_rev48(rw_i.mac_da);
          data_o[48+:48] = nt_pkg::byte_rev48(rw_i.mac_sa);
          if (!rw_i.is_v6) begin
            data_o[8*16+:16] = nt_pkg::byte_rev16(rw_i.ip_len);
            data_o[8*24+:16] = nt_pkg::byte_rev16(rw_i.ip_csum);
            data_o[8*30+:32] = nt_pkg::byte_rev32(rw_i.ip_dst[31:0]);
          end else begin
            data_o[8*18+:16]  = nt_pkg::byte_rev16(rw_i.ip_len);
            data_o[8*38+:128] = nt_pkg::byte_rev128(rw_i.ip_dst);
          end
        end
        // The UDP fields, bytes l4_off + 2 .. + 7 of the frame (in beat 0, beat 1 or across both).
        data_o = (data_o & ~udp_m) | udp;
      end
      // Output keep: the beat's bytes from 12 further on, the successor's first 12 included (its keep; 0
      // after a last beat). A beat before the last is full, so this is 64 bytes, 52 + the successor's bytes
      // when it folds in (fold), or the last beat's bytes - 12.
      keep_o = {beat_i.next_keep, beat_i.keep[Bytes-1:Hdr]};
      last_o = beat_i.last || beat_i.fold;
      if (last_o) begin  // only a frame's end has bytes outside keep; they are zero
        for (int b = 0; b < int'(Bytes); b++) begin
          if (!keep_o[b]) data_o[8*b+:8] = '0;
        end
      end
    end
  end
  logic unused_in;
  assign unused_in = ^{beat_i.sop, rw_i.reason};
endmodule
