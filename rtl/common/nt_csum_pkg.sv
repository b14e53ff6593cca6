// Ones'-complement (Internet checksum) arithmetic in carry-save form, shared by the LB (lb_pkg: lb_rewrite_calc's
// pairs) and udplb (udplb_csum_tree, udplb_hdr_calc): reduce many 16-bit words to a pair with one LUT per level
// and no carry chain, then add the pair once (docs/lb-microarchitecture.md "udplb_hdr_calc depth").
package nt_csum_pkg;

  // One carry-save level modulo 0xffff: three words in, two out ({sum, carry}) with the same end-around-carry
  // sum. The carry out of bit 15 wraps to bit 0 (2^16 = 1 modulo 0xffff). Both outputs are 0 only if all three
  // inputs are, so a reduced pair keeps "all words 0" apart from "a nonzero multiple of 0xffff".
  function automatic logic [31:0] csa3(logic [15:0] a, logic [15:0] b, logic [15:0] c);
    logic [15:0] m;
    m    = (a & b) | (a & c) | (b & c);
    csa3 = {a ^ b ^ c, m[14:0], m[15]};
  endfunction

  // End-around-carry sum of two words, with the two candidate sums (a + b, a + b + 1) formed side by side and
  // the carry out of the first selecting one: one carry chain deep instead of two in series.
  function automatic logic [15:0] eac2(logic [15:0] a, logic [15:0] b);
    logic [16:0] t0;
    logic [15:0] t1;
    t0   = {1'b0, a} + {1'b0, b};
    t1   = 16'(({1'b0, a, 1'b1} + {1'b0, b, 1'b1}) >> 1);  // a + b + 1: the 1 as a carry into bit 0
    eac2 = t0[16] ? t1 : t0[15:0];
  endfunction

  // eac2(a, b) == 16'hffff, tested on the pair itself (a + b = 0xffff or 0x1fffe), beside the addition.
  function automatic logic eac2_ones(logic [15:0] a, logic [15:0] b);
    eac2_ones = &(a ^ b) || (&a && &b);
  endfunction

endpackage
