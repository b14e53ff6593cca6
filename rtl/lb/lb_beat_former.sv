// Forms one output beat: removes the 12-byte LB header (bytes at and after it come from 12 bytes further
// on, pulling in the successor's first 12 bytes), overwrites the rewritten header fields, sets keep/last.
// Word-wide: the beat is a select between the beat and the beat shifted by the header (a prefix mask at the
// LB header's offset), the rewritten fields are written over it and keep is a prefix mask. The header
// fields exist only in a frame's first 128 bytes, so they are written only into beats 0 and 1, straight into
// the output word (no wide temporaries that a simulator would clear every cycle); every later beat is the
// shifted beat (docs/PERF.md: a simulator no longer walks 64 bytes with variable indices per cycle).
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

  logic [Bits-1:0] shifted;  // the beat's bytes from 12 further on
  int unsigned     n, out_n, lo_n;
  int              pos;
  logic [47:0]     udp6;      // new UDP port, length and checksum, first byte in bits 47:40

  assign shifted = {beat_i.next12, beat_i.data[Bits-1:8*Hdr]};

  always_comb begin
    n       = int'($countones(beat_i.keep));
    valid_o = beat_i.valid && rw_i.forward && !(beat_i.last && n <= Hdr);
    out_n   = beat_i.last ? n - Hdr : (beat_i.fold ? Bytes - Hdr + int'(beat_i.next_n) : Bytes);
    lo_n    = 0;
    pos     = 0;
    udp6    = {rw_i.udp_port, rw_i.udp_len, rw_i.udp_csum};
    data_o  = '0;
    keep_o  = '0;
    last_o  = 1'b0;
    if (valid_o) begin
      if (beat_i.idx == 2'd2) begin
        data_o = shifted;  // past byte 128 a beat is always behind the LB header
      end else begin
        // Bytes before the LB header (lb_off = l4_off + 8) from the beat, the rest from 12 further on;
        // then the rewritten fields written over them where they fall in this beat.
        lo_n = int'(rw_i.l4_off) + 8;
        if (beat_i.idx == 2'd1) lo_n = lo_n > Bytes ? lo_n - Bytes : 0;
        if (lo_n >= Bytes) begin
          data_o = beat_i.data;
        end else begin
          data_o = (beat_i.data & ~({Bits{1'b1}} << (8 * lo_n))) | (shifted & ({Bits{1'b1}} << (8 * lo_n)));
        end
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
        for (int k = 0; k < 6; k++) begin
          pos = int'(rw_i.l4_off) + 2 + k - (beat_i.idx == 2'd1 ? int'(Bytes) : 0);
          if (pos >= 0 && pos < int'(Bytes)) data_o[8*pos+:8] = udp6[47-8*k-:8];
        end
      end
      if (out_n < Bytes) begin
        keep_o = ~({Bytes{1'b1}} << out_n);
        data_o = data_o & ~({Bits{1'b1}} << (8 * out_n));
      end else begin
        keep_o = '1;
      end
      last_o = beat_i.last || beat_i.fold;
    end
  end
  logic unused_in;
  assign unused_in = ^{beat_i.sop, rw_i.reason};
endmodule
