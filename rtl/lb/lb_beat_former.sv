// Forms one output beat: removes the 12-byte LB header (bytes at and after it come from 12 bytes further
// on, pulling in the successor's first 12 bytes), overwrites the rewritten header fields, sets keep/last.
// Word-wide: the beat is a select between the beat and the beat shifted by the header (a prefix mask at the
// LB header's offset), the rewritten fields are overlaid by a mask and keep is a prefix mask. The header
// fields exist only in a frame's first 128 bytes, so they are formed only for beats 0 and 1; every later beat
// is the shifted beat (docs/PERF.md: a simulator no longer walks 64 bytes with variable indices per cycle).
module lb_beat_former
  import nt_pkg::*;
  import lb_pkg::*;
(
  input  lb_pkg::pipe_beat_t             beat_i,
  input  lb_pkg::rewrite_t               rw_i,
  output logic                   valid_o,
  output logic [nt_pkg::StreamBits-1:0]  data_o,
  output logic [nt_pkg::StreamBytes-1:0] keep_o,
  output logic                   last_o
);
  localparam int unsigned Hdr = nt_pkg::LbHeaderBytes;

  logic [8*lb_pkg::WindowBytes-1:0]       hdr;       // rewritten header fields by frame offset
  logic [8*lb_pkg::WindowBytes-1:0]       hdr_m;     // which bits of hdr override the frame (whole bytes)
  logic [nt_pkg::StreamBits-1:0]          shifted, body, lo_m, keep_m, hdr_b, hdr_bm;  // shifted: 12 further on
  int unsigned n, out_n, lb_off, l4, lo_n;

  always_comb begin
    hdr     = '0;
    hdr_m   = '0;
    hdr_b   = '0;
    hdr_bm  = '0;
    lo_m    = '0;
    body    = '0;
    keep_m  = '0;
    l4      = int'(rw_i.l4_off);
    lb_off  = int'(rw_i.l4_off) + 8;
    lo_n    = 0;
    n       = int'($countones(beat_i.keep));
    shifted = {beat_i.next12, beat_i.data[nt_pkg::StreamBits-1:8*Hdr]};
    valid_o = beat_i.valid && rw_i.forward && !(beat_i.last && n <= Hdr);
    out_n   = beat_i.last ? n - Hdr : (beat_i.fold ? nt_pkg::StreamBytes - Hdr + int'(beat_i.next_n)
                                                   : nt_pkg::StreamBytes);
    data_o  = '0;
    keep_o  = '0;
    last_o  = 1'b0;
    if (valid_o) begin
      if (beat_i.idx == 2'd2) begin
        body = shifted;  // past byte 128: always behind the LB header
      end else begin
        hdr[0+:48]  = {<<8{rw_i.mac_da}};
        hdr[48+:48] = {<<8{rw_i.mac_sa}};
        hdr_m[0+:96] = '1;
        if (!rw_i.is_v6) begin
          hdr[8*16+:16]  = {<<8{rw_i.ip_len}};
          hdr[8*24+:16]  = {<<8{rw_i.ip_csum}};
          hdr[8*30+:32]  = {<<8{rw_i.ip_dst[31:0]}};
          hdr_m[8*16+:16] = '1;
          hdr_m[8*24+:16] = '1;
          hdr_m[8*30+:32] = '1;
        end else begin
          hdr[8*18+:16]   = {<<8{rw_i.ip_len}};
          hdr[8*38+:128]  = {<<8{rw_i.ip_dst}};
          hdr_m[8*18+:16]  = '1;
          hdr_m[8*38+:128] = '1;
        end
        hdr[8*(l4+2)+:16]  = {<<8{rw_i.udp_port}};
        hdr[8*(l4+4)+:16]  = {<<8{rw_i.udp_len}};
        hdr[8*(l4+6)+:16]  = {<<8{rw_i.udp_csum}};
        hdr_m[8*(l4+2)+:48] = '1;
        // Bytes of this beat before the LB header come from the beat itself, the rest from 12 further on.
        if (beat_i.idx == 2'd0) begin
          lo_n   = lb_off;
          hdr_b  = hdr[0+:nt_pkg::StreamBits];
          hdr_bm = hdr_m[0+:nt_pkg::StreamBits];
        end else begin
          lo_n   = lb_off > nt_pkg::StreamBytes ? lb_off - nt_pkg::StreamBytes : 0;
          hdr_b  = hdr[nt_pkg::StreamBits+:nt_pkg::StreamBits];
          hdr_bm = hdr_m[nt_pkg::StreamBits+:nt_pkg::StreamBits];
        end
        lo_m = lo_n >= nt_pkg::StreamBytes ? '1 : ~({nt_pkg::StreamBits{1'b1}} << (8 * lo_n));
        body = (beat_i.data & lo_m) | (shifted & ~lo_m);
        body = (body & ~hdr_bm) | (hdr_b & hdr_bm);
      end
      keep_o = out_n >= nt_pkg::StreamBytes ? '1 : ~({nt_pkg::StreamBytes{1'b1}} << out_n);
      keep_m = out_n >= nt_pkg::StreamBytes ? '1 : ~({nt_pkg::StreamBits{1'b1}} << (8 * out_n));
      data_o = body & keep_m;
      last_o = beat_i.last || beat_i.fold;
    end
  end
  logic unused_in;
  assign unused_in = ^{beat_i.sop, rw_i.reason};
endmodule
