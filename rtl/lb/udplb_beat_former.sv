// Stage O of udplb_top: forms one output beat. Output byte p of a frame is hdr[p] for p < Lo, else input
// byte p + d (d = Li - Lo, -8..48): from the previous input beat (its last 8 bytes), this beat, or the
// first 48 bytes of its successor. A last input beat of n <= d bytes forms nothing (its bytes left with
// the previous beat, which was marked last: the fold); one of n - d > 64 bytes asks for an extra beat,
// formed the next cycle from `prev` alone (extra_i).
// Word-wide, no arithmetic on the way but d + 8 (issue 27: <= 12 logic levels; the byte-by-byte form with
// integer offsets and a byte count timed out in Yosys's LUT mapping): the source bytes {next48, beat, the
// previous beat's last 8} and their keep bits are shifted down by d + 8 bytes at once, so output byte i is
// source byte i + d + 8 and is kept iff that source byte exists (keep is contiguous from byte 0 and every
// beat but the last is full, the stream rules asserted on the input port: this is the old "i < out_n" for
// every case; the successor's keep bits 0..48 travel with the beat, in place of its byte count); the header bytes are a prefix mask of Lo over the frame's first 128 bytes, and the fold and
// the extra beat are one keep bit each (n <= d is byte d absent, n - d > 64 is byte 64 + d present).
module udplb_beat_former
(
  input  udplb_pkg::ubeat_t              beat_i,
  input  logic [nt_pkg::StreamBits-1:0]  prev_i,   // the frame's previous input beat (extra_i: its last beat)
  input  logic                           extra_i,  // form the extra beat after a frame's last input beat
  input  udplb_pkg::uout_t               ctx_i,
  output logic                           valid_o,
  output logic [nt_pkg::StreamBits-1:0]  data_o,
  output logic [nt_pkg::StreamBytes-1:0] keep_o,
  output logic                           last_o,
  output logic [3:0]                     port_o,
  output logic                           extra_o   // this last beat needs an extra beat
);
  localparam int unsigned Bytes = nt_pkg::StreamBytes;
  localparam int unsigned Bits = nt_pkg::StreamBits;
  localparam int unsigned NextB = udplb_pkg::UNextBytes;
  localparam int unsigned SrcB = NextB + Bytes + 8;  // source bytes: prev's last 8, the beat, next48

  logic [7:0]          sh8;        // d + 8: the source byte of output byte 0 (0..56)
  logic [5:0]          sh;
  logic                d_neg;      // d < 0
  logic [8*SrcB-1:0]   src;
  logic [SrcB-1:0]     src_keep;
  logic [Bits-1:0]     data_sh;
  logic [Bytes-1:0]    keep_sh;
  logic [2*Bytes-1:0]  hdr2;       // frame bytes 0..127 below Lo (the output header)
  logic [Bytes-1:0]    hdr_m;      // ... those of this beat's positions
  logic [Bits-1:0]     hdr_b;      // the header bytes at this beat's positions
  logic                fold, over, next_fold;

  assign sh8       = 8'(ctx_i.d) + 8'd8;
  assign sh        = sh8[5:0];
  assign d_neg     = ctx_i.d[7];
  assign src       = extra_i ? {{8*(NextB+Bytes){1'b0}}, prev_i[Bits-1-:64]}
                             : {beat_i.next48, beat_i.data, prev_i[Bits-1-:64]};
  assign src_keep  = extra_i ? {{(NextB+Bytes){1'b0}}, beat_i.keep[Bytes-1-:8]}
                             : {beat_i.next_keep[NextB-1:0], beat_i.keep, 8'hff};
  assign data_sh   = Bits'(src >> {sh, 3'd0});
  assign keep_sh   = Bytes'(src_keep >> sh);

  // Header bytes: p = 64 * idx + i below Lo (Lo < 128, so none in beat 2).
  assign hdr2 = ~({(2*Bytes){1'b1}} << ctx_i.lo);
  always_comb begin
    hdr_m = '0;
    hdr_b = '0;
    if (beat_i.idx == 2'd0) begin
      hdr_m = hdr2[Bytes-1:0];
      hdr_b = ctx_i.hdr[Bits-1:0];
    end else if (beat_i.idx == 2'd1) begin
      hdr_m = hdr2[2*Bytes-1:Bytes];
      hdr_b = ctx_i.hdr[2*Bits-1:Bits];
    end
  end

  // d in -8..48 (udplb_hdr_calc): keep byte d exists for d >= 0, byte 64 + d = {111, d[2:0]} for d < 0.
  assign fold      = !d_neg && !beat_i.keep[ctx_i.d[5:0]];                   // a last beat: n <= d
  assign over      = d_neg && beat_i.keep[{3'b111, ctx_i.d[2:0]}];          // a last beat: n - d > 64
  assign next_fold = !d_neg && !beat_i.next_keep[ctx_i.d[5:0]];             // the successor: next_n <= d

  always_comb begin
    valid_o = beat_i.valid && ctx_i.send && (extra_i || !(beat_i.last && fold));
    extra_o = 1'b0;
    last_o  = 1'b0;
    data_o  = '0;
    keep_o  = '0;
    if (valid_o) begin
      if (extra_i) begin
        last_o = 1'b1;
      end else if (beat_i.last) begin
        last_o  = !over;
        extra_o = over;
      end else begin
        last_o = beat_i.next_last && next_fold;
      end
      keep_o = keep_sh;
      for (int i = 0; i < Bytes; i++) begin
        if (keep_sh[i]) data_o[8*i+:8] = hdr_m[i] ? hdr_b[8*i+:8] : data_sh[8*i+:8];
      end
    end
    port_o = valid_o ? ctx_i.port : 4'd0;
  end

  logic unused_in;
  assign unused_in = ^{beat_i.sop, beat_i.port, prev_i[Bits-65:0], sh8[7:6]};
endmodule
