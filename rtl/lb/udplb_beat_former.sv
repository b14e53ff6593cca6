// Stage O of udplb_top: forms one output beat. Output byte p of a frame is hdr[p] for p < Lo, else input
// byte p + d (d = Li - Lo, -8..48): from the previous input beat (its last 8 bytes), this beat, or the
// first 48 bytes of its successor. A last input beat of n <= d bytes forms nothing (its bytes left with
// the previous beat, which was marked last: the fold); one of n - d > 64 bytes asks for an extra beat,
// formed the next cycle from `prev` alone (extra_i).
module udplb_beat_former
(
  input  udplb_pkg::ubeat_t                 beat_i,
  input  logic [nt_pkg::StreamBits-1:0]  prev_i,   // the frame's previous input beat (extra_i: its last beat)
  input  logic                   extra_i,  // form the extra beat after a frame's last input beat
  input  udplb_pkg::uout_t                  ctx_i,
  output logic                   valid_o,
  output logic [nt_pkg::StreamBits-1:0]  data_o,
  output logic [nt_pkg::StreamBytes-1:0] keep_o,
  output logic                   last_o,
  output logic [3:0]             port_o,
  output logic                   extra_o   // this last beat needs an extra beat
);
  logic [8*(udplb_pkg::UNextBytes+nt_pkg::StreamBytes+8)-1:0] src;
  int                                      n, d, out_n, base, p, j;

  always_comb begin
    n       = int'($countones(beat_i.keep));
    d       = int'(ctx_i.d);
    base    = nt_pkg::StreamBytes * int'(beat_i.idx);
    src     = extra_i ? {{8*(udplb_pkg::UNextBytes+nt_pkg::StreamBytes){1'b0}}, prev_i[nt_pkg::StreamBits-1-:64]}
                      : {beat_i.next48, beat_i.data, prev_i[nt_pkg::StreamBits-1-:64]};
    valid_o = beat_i.valid && ctx_i.send && (extra_i || !(beat_i.last && n <= d));
    extra_o = 1'b0;
    last_o  = 1'b0;
    if (extra_i) begin
      out_n  = n - d - int'(nt_pkg::StreamBytes);
      last_o = 1'b1;
    end else if (beat_i.last) begin
      out_n  = n - d;
      last_o = 1'b1;
      if (out_n > int'(nt_pkg::StreamBytes)) begin
        out_n   = nt_pkg::StreamBytes;
        last_o  = 1'b0;
        extra_o = valid_o;
      end
    end else if (beat_i.next_last && int'(beat_i.next_n) <= d) begin
      out_n  = nt_pkg::StreamBytes + int'(beat_i.next_n) - d;
      last_o = 1'b1;
    end else begin
      out_n = nt_pkg::StreamBytes;
    end
    data_o = '0;
    keep_o = '0;
    p      = 0;
    j      = 0;
    if (valid_o) begin
      for (int i = 0; i < nt_pkg::StreamBytes; i++) begin
        if (i < out_n) begin
          keep_o[i] = 1'b1;
          p = base + i;
          j = i + d + 8;
          if (p < int'(ctx_i.lo)) data_o[8*i+:8] = ctx_i.hdr[8*p[6:0]+:8];
          else data_o[8*i+:8] = src[8*j+:8];
        end
      end
    end else begin
      last_o = 1'b0;
    end
    port_o = valid_o ? ctx_i.port : 4'd0;
  end

  logic unused_in;
  assign unused_in = ^{beat_i.sop, beat_i.port, prev_i[nt_pkg::StreamBits-65:0]};
endmodule
