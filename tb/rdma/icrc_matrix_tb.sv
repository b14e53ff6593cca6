// rdma_pkg::icrc_beat / icrc_frame (GF(2) matrices, docs/rdma-microarchitecture.md "ICRC as GF(2) matrices")
// against the wire ICRC of real RoCEv2 frames (frames.hex / lens.hex, written by scripts/tests/test_icrc_matrix.sh
// from vectors/peers/roce/) and against the byte-serial form (main's icrc_beat before branch crc15, kept here as
// the reference) on random beats, states, beat offsets and frame ends. Prints the mismatch counts.
module icrc_matrix_tb;
  localparam int MaxF = 256, MAXB = 24;
  logic [64*MAXB*8-1:0] fr [MaxF];
  logic [15:0] ln [MaxF];
  // the byte-serial form (main's rdma_pkg::icrc_beat before branch crc15), the reference here
  function automatic logic [31:0] serial(logic [31:0] crc_in, logic [511:0] data, int unsigned base, int unsigned lo,
                                         int unsigned hi, logic v6);
    logic [31:0] crc;
    crc = crc_in;
    for (int unsigned i = 0; i < 64; i++)
      if (base + i >= lo && base + i < hi) crc = rdma_pkg::crc32_byte(crc, rdma_pkg::icrc_masked(base + i, data[8*i+:8], v6));
    serial = crc;
  endfunction
  initial begin
    int bad, n, nr, nf;
    logic [31:0] c, cs, want, cf;
    logic [511:0] d;
    logic [4095:0] f8;
    int unsigned hi, base;
    if (!$value$plusargs("nf=%d", nf)) nf = 0;
    $readmemh("frames.hex", fr, 0, nf - 1);
    $readmemh("lens.hex", ln, 0, nf - 1);
    bad = 0; n = 0;
    for (int f = 0; f < nf; f++) begin
      hi = int'(ln[f]) - 4;
      c = rdma_pkg::icrc_seed();
      cs = c;
      for (int k = 0; 64 * k < int'(ln[f]); k++) begin
        d = fr[f][512*k+:512];
        c = rdma_pkg::icrc_beat(k == 0 ? rdma_pkg::icrc_seed() : c, d, 64 * k, hi, 1'b0);
        cs = serial(k == 0 ? rdma_pkg::icrc_seed() : cs, d, 64 * k, 14, hi, 1'b0);
      end
      want = fr[f][8*hi+:32];
      if (~c != want || c != cs) begin bad++; $display("frame %0d len %0d: matrix %h serial %h wire %h", f, ln[f], ~c, ~cs, want); end
      if (ln[f] <= 512) begin
        f8 = fr[f][4095:0];
        cf = rdma_pkg::icrc_frame(rdma_pkg::icrc_seed(), f8, hi, 1'b0);
        if (~cf != want) begin bad++; $display("frame %0d: icrc_frame %h wire %h", f, ~cf, want); end
      end
      n++;
    end
    $display("real capture: %0d RoCEv2 frames, %0d mismatches", n, bad);
    // random beats, states, bases (multiples of 64), ends (any, incl. below base and 'negative'), both families
    nr = 0;
    for (int r = 0; r < 200000; r++) begin
      for (int w = 0; w < 16; w++) d[32*w+:32] = $urandom;
      base = 64 * ($urandom % 6);
      case ($urandom % 4)
        0: hi = $urandom;
        1: hi = base + ($urandom % 80) - 10;
        2: hi = $urandom % 400;
        default: hi = base + ($urandom % 65);
      endcase
      c = $urandom;
      if (rdma_pkg::icrc_beat(c, d, base, hi, r[0]) != serial(c, d, base, 14, hi, r[0])) begin
        bad++;
        if (bad < 10) $display("random %0d: base %0d hi %0d v6 %0d differ", r, base, hi, r[0]);
      end
      nr++;
    end
    $display("random: %0d cases, %0d mismatches in all", nr, bad);
    $finish;
  end
endmodule
