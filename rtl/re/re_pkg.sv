// Types shared by the reassembly engine's stages (docs/re-microarchitecture.md).
package re_pkg;

  // The largest event with `buffer host` (cfg_host_i): the event's bytes go to a slot in host memory by DMA, so
  // only the tracking state (offsets of OffW bits) grows with it (docs/re-microarchitecture.md).
  localparam int unsigned ReHostBufBytes = 16777216;

  localparam int unsigned CtxW = $clog2(nt_pkg::ReContexts);
  localparam int unsigned OffW = $clog2(ReHostBufBytes + 1);  // an end offset within an event (either buffer)
  localparam int unsigned RowsPerCtx = nt_pkg::ReBufBytes / nt_pkg::StreamBytes;
  localparam int unsigned RowW = $clog2(nt_pkg::ReContexts * RowsPerCtx);
  localparam int unsigned FifoW = $clog2(nt_pkg::ReFifoBeats);
  localparam int unsigned BeatsW = $clog2(nt_pkg::ReSegBeats + 1);
  localparam int unsigned CodeW = $clog2(nt_pkg::ReDropReasons);

  localparam int unsigned KeyW = 80;  // event key {event_num (evio6: tick[15:0] zero-extended), data_id}

  // A frame whose last beat arrived: its header fields and the header-level verdict.
  typedef struct packed {
    logic [CodeW-1:0]  code;     // 0: passed the header checks; else the drop reason
    logic [63:0]       event_num;  // evio6: the UDP source port; e2sar: the header's event number
    logic [15:0]       data_id;
    logic              last;     // declares the event's end (evio6: Last flag; e2sar: always)
    logic [31:0]       offset;
    logic [31:0]       ev_end;   // the end it declares (evio6: offset + len; e2sar: the header's length)
    logic [15:0]       len;      // the segment's data bytes
    logic [6:0]        data_at;  // frame byte of the first data byte
    logic [63:0]       time_ns;
    logic [47:0]       mac_dst;
    logic [47:0]       mac_src;
    logic [BeatsW-1:0] stored;   // beats in the input FIFO (0 when rewound)
  } desc_t;

  // What the write stage does with a decided frame's beats.
  typedef struct packed {
    logic              skip;       // dropped: release the beats without writing
    logic              completes;  // the event is complete once these beats are written
    logic [CtxW-1:0]   ctx;
    logic [BeatsW-1:0] beats;
    logic [OffW-1:0]   offset;
    logic [15:0]       len;
    logic [6:0]        data_at;
  } job_t;


  // a < b of two 27-bit values as a tree of 3-bit steps, 9, 3, 1: plain logic ABC maps to LUT6s three deep, where
  // `<` became a CARRY4 chain (issue 27 item 2, session 24: 7 CARRY4 for an offset, 16 and 20 for the lookup
  // stage's 64-bit time and 80-bit key compares).
  function automatic logic lt27(logic [26:0] x, logic [26:0] y);
    logic [26:0] e;
    logic [8:0]  l1, e1;
    logic [2:0]  l2;
    logic [2:1]  e2;  // the lowest group's equality is not needed for x < y
    e = ~(x ^ y);
    for (int g = 0; g < 9; g++) begin
      e1[g] = e[3 * g + 2] & e[3 * g + 1] & e[3 * g];
      l1[g] = (~x[3 * g + 2] & y[3 * g + 2]) | (e[3 * g + 2] & ~x[3 * g + 1] & y[3 * g + 1]) |
              (e[3 * g + 2] & e[3 * g + 1] & ~x[3 * g] & y[3 * g]);
    end
    for (int g = 1; g < 3; g++) e2[g] = e1[3 * g + 2] & e1[3 * g + 1] & e1[3 * g];
    for (int g = 0; g < 3; g++) begin
      l2[g] = l1[3 * g + 2] | (e1[3 * g + 2] & l1[3 * g + 1]) | (e1[3 * g + 2] & e1[3 * g + 1] & l1[3 * g]);
    end
    lt27 = l2[2] | (e2[2] & l2[1]) | (e2[2] & e2[1] & l2[0]);
  endfunction

  // a < b of two offsets (re_decide_chk's range compares).
  function automatic logic lt_off(logic [OffW-1:0] a, logic [OffW-1:0] b);
    lt_off = lt27(27'(a), 27'(b));
  endfunction

  // a < b of two values up to 81 bits wide (zero-extended): three 27-bit trees and the step above them.
  function automatic logic lt81(logic [80:0] x, logic [80:0] y);
    lt81 = lt27(x[80:54], y[80:54]) ||
           (x[80:54] == y[80:54] && (lt27(x[53:27], y[53:27]) || (x[53:27] == y[53:27] && lt27(x[26:0], y[26:0]))));
  endfunction

  // $signed(t - f) > $signed(tmo) (64-bit, t - f wrapping) without the subtract in series with the compare
  // (two CARRY4 chains of 16, issue 27 item 2, session 24). With d = t - f mod 2^64: d > tmo signed exactly when
  // the 65-bit sum d + ~tmo (both sign-extended) is >= 0, i.e. when d[63] ^ ~tmo[63] ^ c64 is 0, where c64 is the
  // carry out of d + ~tmo. The 3-operand sum t + ~f + ~tmo + 1 = s + 2k + 1 (carry-save: s the XOR, k the
  // majority) carries k[63] + cb out of 64 bits, cb = (s + {k[62:0], 0} + 1 >= 2^64) = (s >= ~{k[62:0], 0});
  // it is also d + ~tmo + 2^64 ca, ca = (t >= f) the carry out of t - f, so c64 = k[63] + cb - ca (0 or 1)
  // = k[63] ^ cb ^ ca; and d[63] = t[63] ^ ~f[63] ^ (t[62:0] >= f[62:0]). Three compares side by side
  // (one shared), each a tree (lt81). Checked against the subtract on random and edge values (docs/synthesis.md).
  function automatic logic expired64(logic [63:0] t, logic [63:0] f, logic [63:0] tmo);
    logic [63:0] nf, nt, s, k, kk;
    logic        ge63, ca, cb;
    nf = ~f;
    nt = ~tmo;
    s = t ^ nf ^ nt;
    k = (t & nf) | (t & nt) | (nf & nt);
    kk = {k[62:0], 1'b0};
    ge63 = !lt81(81'(t[62:0]), 81'(f[62:0]));
    ca = (t[63] && !f[63]) || (t[63] == f[63] && ge63);
    cb = !lt81(81'(s), {17'd0, ~kk});
    expired64 = !(t[63] ^ f[63] ^ tmo[63] ^ ge63 ^ k[63] ^ cb ^ ca);
  endfunction

  // a + b == c (mod 2^OffW) without the sum: bit i of the sum is c[i] exactly when the carry into bit i,
  // computed from a, b and c of bit i-1 as if the sum were c, is a[i] ^ b[i] ^ c[i]. One LUT6 per bit and an AND
  // tree instead of an adder (a CARRY4 chain) and then a compare.
  function automatic logic sum_eq_off(logic [OffW-1:0] a, logic [OffW-1:0] b, logic [OffW-1:0] c);
    logic [OffW-1:0] ok;
    ok[0] = !(a[0] ^ b[0] ^ c[0]);
    for (int i = 1; i < OffW; i++) begin
      ok[i] = (a[i] ^ b[i] ^ c[i]) == ((a[i - 1] & b[i - 1]) | ((a[i - 1] ^ b[i - 1]) & ~c[i - 1]));
    end
    sum_eq_off = &ok;
  endfunction

  // What the output stage needs of a completed context.
  typedef struct packed {
    logic [47:0] mac_dst;
    logic [47:0] mac_src;
    logic [63:0] event_num;
    logic [15:0] data_id;
    logic [31:0] length;
    logic [31:0] segments;
  } event_t;
endpackage
