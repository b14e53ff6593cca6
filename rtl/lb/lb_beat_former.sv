// Forms one output beat: removes the 12-byte LB header (bytes at and after it come from 12 bytes further
// on, pulling in the successor's first 12 bytes), overwrites the rewritten header fields, sets keep/last.
module lb_beat_former
(
  input  lb_pkg::pipe_beat_t             beat_i,
  input  lb_pkg::rewrite_t               rw_i,
  output logic                   valid_o,
  output logic [nt_pkg::StreamBits-1:0]  data_o,
  output logic [nt_pkg::StreamBytes-1:0] keep_o,
  output logic                   last_o
);
  localparam int unsigned Hdr = nt_pkg::LbHeaderBytes;

  logic [8*lb_pkg::WindowBytes-1:0] hdr;      // rewritten header fields by frame offset
  logic [lb_pkg::WindowBytes-1:0]   hdr_set;  // which offsets hdr overrides
  logic [8*(nt_pkg::StreamBytes+Hdr)-1:0] src;
  int unsigned n, out_n, base, lb_off, l4;
  logic [31:0] pos;

  always_comb begin
    hdr     = '0;
    hdr_set = '0;
    l4      = int'(rw_i.l4_off);
    hdr[0+:48]    = {<<8{rw_i.mac_da}};
    hdr[48+:48]   = {<<8{rw_i.mac_sa}};
    hdr_set[11:0] = '1;
    if (!rw_i.is_v6) begin
      hdr[8*16+:16]  = {<<8{rw_i.ip_len}};
      hdr[8*24+:16]  = {<<8{rw_i.ip_csum}};
      hdr[8*30+:32]  = {<<8{rw_i.ip_dst[31:0]}};
      hdr_set[17:16] = '1;
      hdr_set[25:24] = '1;
      hdr_set[33:30] = '1;
    end else begin
      hdr[8*18+:16]  = {<<8{rw_i.ip_len}};
      hdr[8*38+:128] = {<<8{rw_i.ip_dst}};
      hdr_set[19:18] = '1;
      hdr_set[53:38] = '1;
    end
    hdr[8*(l4+2)+:16]    = {<<8{rw_i.udp_port}};
    hdr[8*(l4+4)+:16]    = {<<8{rw_i.udp_len}};
    hdr[8*(l4+6)+:16]    = {<<8{rw_i.udp_csum}};
    hdr_set[l4+2+:6]     = '1;
  end

  always_comb begin
    n       = int'($countones(beat_i.keep));
    lb_off  = int'(rw_i.l4_off) + 8;
    base    = nt_pkg::StreamBytes * int'(beat_i.idx);
    src     = {beat_i.next12, beat_i.data};
    valid_o = beat_i.valid && rw_i.forward && !(beat_i.last && n <= Hdr);
    out_n   = beat_i.last ? n - Hdr : (beat_i.fold ? nt_pkg::StreamBytes - Hdr + int'(beat_i.next_n)
                                                   : nt_pkg::StreamBytes);
    data_o  = '0;
    pos     = '0;
    keep_o  = '0;
    last_o  = 1'b0;
    if (valid_o) begin
      for (int i = 0; i < nt_pkg::StreamBytes; i++) begin
        if (i < out_n) begin
          keep_o[i] = 1'b1;
          pos = base + i;
          if (pos < lb_pkg::WindowBytes && hdr_set[pos[6:0]]) begin
            data_o[8*i+:8] = hdr[8*pos[6:0]+:8];
          end else if (base + i < lb_off) begin
            data_o[8*i+:8] = beat_i.data[8*i+:8];
          end else begin
            data_o[8*i+:8] = src[8*(i+Hdr)+:8];
          end
        end
      end
      last_o = beat_i.last || beat_i.fold;
    end
  end
  logic unused_in;
  assign unused_in = ^{beat_i.sop, rw_i.reason};
endmodule
