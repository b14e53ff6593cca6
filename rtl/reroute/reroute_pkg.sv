// Types and combinational functions of the ConWeave source-ToR rerouting block (docs/reroute.md).
// model/reroute/reroute_core.cc computes the same functions in C++. The flow hash, the window byte access
// and the control-packet parse are the reorder block's (reorder_pkg, read only), as the C++ model shares
// reorder::FlowHash and reorder::ParseCw, so both ToRs agree on flows and formats.
package reroute_pkg;

  localparam int unsigned FlowW = $clog2(nt_pkg::RerouteFlows);
  localparam int unsigned PathW = $clog2(nt_pkg::ReroutePaths);
  localparam int unsigned InBeats = (nt_pkg::RerouteMaxBytes + nt_pkg::StreamBytes - 1) / nt_pkg::StreamBytes;  // 72
  localparam int unsigned BeatW = $clog2(InBeats + 1);
  localparam int unsigned KeyBits = 8 * nt_pkg::ReorderKeyBytes;
  localparam int unsigned WinBits = 2 * nt_pkg::StreamBits;

  // The carries of a + b + cin (bit i: the carry into bit i, i = 0..16) as a parallel prefix (Kogge-Stone: four
  // rounds of generate / propagate), written in bitwise operators so that synthesis builds LUT trees (about three
  // levels for 16 bits) instead of a carry chain (a LUT and four CARRY4 cells per operator, in series; issue 27
  // depth).
  function automatic logic [16:0] carries16(logic [15:0] a, logic [15:0] b, logic cin);
    logic [15:0] g, p, gn, pn;
    g = a & b;
    p = a | b;
    g[0] = g[0] | (p[0] & cin);
    for (int unsigned k = 0; k < 4; k++) begin
      gn = g;
      pn = p;
      for (int unsigned i = 0; i < 16; i++) begin
        if (i >= (32'd1 << k)) begin
          gn[i] = g[i] | (p[i] & g[i - (32'd1 << k)]);
          pn[i] = p[i] & p[i - (32'd1 << k)];
        end
      end
      g = gn;
      p = pn;
    end
    carries16 = {g, cin};
  endfunction

  // a >= b: the carry out of a + ~b + 1 (a LUT tree; with b constant, a few LUTs)
  function automatic logic ge16(logic [15:0] a, logic [15:0] b);
    ge16 = 1'(carries16(a, ~b, 1'b1) >> 16);
  endfunction

  // (a + b) mod 2^16 == c without the sum: a + b = c exactly when a ^ b ^ c are the carries a + b would make,
  // i.e. when for every bit a ^ b ^ c equals the carry out of the bit below it computed from a, b and c
  // ((a & b) | ((a | b) & ~c)); one LUT per bit and an AND tree, no carry chain (issue 27 depth)
  function automatic logic sum_eq16(logic [15:0] a, logic [15:0] b, logic [15:0] c);
    logic [14:0] k;  // bit 15's carry out leaves the 16 bits
    k = 15'((a & b) | ((a | b) & ~c));
    sum_eq16 = (a ^ b ^ c) == {k, 1'b0};
  endfunction

  // (a + b) mod 256 by the prefix carries (the path choice's candidate, no carry chain)
  function automatic logic [7:0] add8(logic [7:0] a, logic [7:0] b);
    add8 = a ^ b ^ 8'(carries16({8'd0, a}, {8'd0, b}, 1'b0));
  endfunction

  // reorder_pkg::csum_len_adjust(hc, m, 1) (the IPv4 checksum after the length m grows by 4: ~(~hc +' k), k = 3
  // if m >= 0xFFFC else 4; m_hi = m[15:2]), +' the one's-complement sum) with both sums of the end-around carry by the prefix
  // carries and the compare as an AND of m's top 14 bits: LUT trees, no carry chain (issue 27 item 2; equal for
  // every hc and both k, checked exhaustively: docs/reroute-microarchitecture.md "Logic depth")
  function automatic logic [15:0] csum_grow4(logic [15:0] hc, logic [13:0] m_hi);
    logic [15:0] a, k;
    logic [16:0] c0;
    logic [15:0] c1;
    a = ~hc;
    k = &m_hi ? 16'd3 : 16'd4;
    c0 = carries16(a, k, 1'b0);
    c1 = 16'(carries16(a, k, 1'b1));
    csum_grow4 = ~(a ^ k ^ (c0[16] ? c1 : c0[15:0]));
  endfunction

  // d = (now - t) mod 2^16, its MSB the wrap bit (docs/reroute.md "Timestamps"): elapsed = d[15] || d >= thr.
  // The same value without d: for thr[15] = 1 it is d[15] (d >= thr implies it); for thr[15] = 0 it is !(d < thr),
  // and with T = now + ~t + ~thr + 2 = now - t - thr + 2^17 (18 bits, three operands reduced to two by one
  // carry-save level): d < thr exactly when T < 2^17 if now >= t, T < 2^16 if now < t (d = now - t + 2^16 then).
  // So two prefix carries in parallel (now >= t, and T's top bits) instead of a subtraction and a compare in
  // series (two carry chains); checked against the definition on every corner and 300,000 random triples
  // (docs/reroute-microarchitecture.md "Logic depth").
  function automatic logic elapsed(logic [15:0] now, logic [15:0] t, logic [15:0] thr);
    logic [1:0] ca;  // the carries into bits 16 and 15 of now + ~t + 1
    logic [15:0] nt, nthr, s, cv;
    logic cb, d15, t16, t17;
    nt = ~t;
    nthr = ~thr;
    ca = 2'(carries16(now, nt, 1'b1) >> 15);  // now - t: ca[1] = now >= t
    d15 = now[15] ^ nt[15] ^ ca[0];
    s = now ^ nt ^ nthr;  // carry-save: T = s + 2 cv + 2
    cv = (now & nt) | (now & nthr) | (nt & nthr);
    cb = 1'(carries16(s, {cv[14:0], 1'b1}, 1'b1) >> 16);
    t16 = cv[15] ^ cb;
    t17 = cv[15] & cb;
    elapsed = thr[15] ? d15 : (t17 || (!ca[1] && t16));
  endfunction

  // The flow key of a frame with its BTH at `bth`; swap: a control packet (addresses reversed).
  function automatic logic [KeyBits-1:0] key_of(logic [WinBits-1:0] w, logic v6, int unsigned bth, logic swap);
    logic [KeyBits-1:0] k;
    int unsigned ipn, src, a, b;
    k = '0;
    k[7:0] = v6 ? 8'd1 : 8'd0;
    ipn = v6 ? 16 : 4;
    src = v6 ? 22 : 26;
    a = swap ? src + ipn : src;
    b = swap ? src : src + ipn;
    for (int unsigned i = 0; i < 16; i++) begin
      if (i < ipn) begin
        k[8*(1+i)+:8] = reorder_pkg::wb(w, a + i);
        k[8*(17+i)+:8] = reorder_pkg::wb(w, b + i);
      end
    end
    for (int unsigned i = 0; i < 3; i++) k[8*(33+i)+:8] = reorder_pkg::wb(w, bth + 5 + i);
    key_of = k;
  endfunction

  // The flow hash (reorder_pkg::flow_hash, a CRC: affine in the key) of a key split by beat: the IPv4 key and
  // the IPv6 key but its BTH bytes lie in beat 0 of the window, the IPv6 key's BTH bytes 5..7 (67..69) in beat
  // 1, so flow_hash(key_of(w)) = v6 ? hash_b0(b0, 1) ^ hash_b1_lin(b1) : hash_b0(b0, 0). A caller whose beat is
  // a choice of several hashes each choice and then chooses, so the XOR trees start at registers and inputs
  // and the choice (and the family) comes last (issue 27 depth).
  function automatic logic [15:0] hash_b0(logic [nt_pkg::StreamBits-1:0] b0, logic v6, logic swap);
    hash_b0 = reorder_pkg::flow_hash(key_of({{nt_pkg::StreamBits{1'b0}}, b0}, v6, v6 ? 62 : 42, swap));
  endfunction
  function automatic logic [15:0] hash_b1_lin(logic [nt_pkg::StreamBits-1:0] b1, logic swap);
    logic [KeyBits-1:0] k;
    k = key_of({b1, {nt_pkg::StreamBits{1'b0}}}, 1'b1, 62, swap);
    k[7:0] = 8'd0;  // the family byte is hash_b0's
    hash_b1_lin = reorder_pkg::flow_hash(k) ^ reorder_pkg::HashOfZero;
  endfunction

  // One flow-table entry (docs/reroute-microarchitecture.md "Storage"): one word of the flow-table RAM; the
  // valid bits are registers apart (reset to 0).
  typedef struct packed {
    logic [KeyBits-1:0] key;
    logic [7:0]         path;
    logic [1:0]         epoch;
    logic               rr;       // rerouted
    logic               rw;       // req_wait
    logic [15:0]        tail_ts;
    logic [15:0]        req_ts;
    logic [15:0]        last;
  } flow_t;
  // flow_t's width: the RAM is declared as an array of this many bits, because Yosys 0.55 infers no memory
  // from an array of a struct type (it made registers of it); Verilator's -Wall WIDTH checks the sum
  localparam int unsigned FlowEntryBits = KeyBits + 8 + 2 + 1 + 1 + 3 * 16;

  // Header parse of a host frame (RerouteCore::Data): well-formed, family, and the fields the output needs.
  typedef struct packed {
    logic        ok;
    logic        v6;
    logic [15:0] ip_len;
    logic [15:0] udp_len;
    logic [15:0] csum;
    logic [7:0]  b8;
  } host_meta_t;

  // Each family's fields and checks at its own constant offsets (IPv4: UDP at 34, IPv6: UDP at 54), then the
  // EtherType chooses: the same values as one parse at a family-dependent offset `udp`, which Yosys built as
  // shifters behind an offset sum in series with the family compare (issue 27 item 2, session 19). The length
  // compares LUT trees (ge16, sum_eq16) rather than carry chains (issue 27 depth).
  function automatic host_meta_t parse_host(logic [WinBits-1:0] w, logic [15:0] len, logic too_long);
    host_meta_t m;
    logic good, et4, et6, g4, g6;
    m = '0;
    good = !too_long && ge16(len, 16'd34) && !ge16(len, 16'(nt_pkg::RerouteMaxBytes + 1));
    et4 = reorder_pkg::wb16(w, 12) == 16'h0800;
    et6 = reorder_pkg::wb16(w, 12) == 16'h86dd;  // exclusive with et4
    g4 = reorder_pkg::wb(w, 14) == 8'h45 && reorder_pkg::wb(w, 23) == 8'd17 &&
         ((reorder_pkg::wb(w, 20) & 8'h3f) | reorder_pkg::wb(w, 21)) == 8'd0 &&
         sum_eq16(reorder_pkg::wb16(w, 16), 16'd14, len) &&  // ip_len == len - 14
         ge16(len, 16'(34 + 8 + 12 + 4)) && reorder_pkg::wb16(w, 34 + 2) == 16'(nt_pkg::ReorderUdpPort);
    g6 = ge16(len, 16'd54) && w[8*14+4+:4] == 4'd6 && reorder_pkg::wb(w, 20) == 8'd17 &&
         sum_eq16(reorder_pkg::wb16(w, 18), 16'd54, len) &&  // ip_len == len - 54
         ge16(len, 16'(54 + 8 + 12 + 4)) && reorder_pkg::wb16(w, 54 + 2) == 16'(nt_pkg::ReorderUdpPort);
    m.v6 = et6;
    m.ip_len = et4 ? reorder_pkg::wb16(w, 16) : et6 ? reorder_pkg::wb16(w, 18) : 16'd0;
    m.udp_len = et6 ? reorder_pkg::wb16(w, 54 + 4) : reorder_pkg::wb16(w, 34 + 4);
    m.csum = reorder_pkg::wb16(w, 24);
    m.b8 = et6 ? reorder_pkg::wb(w, 54 + 8 + 8) : reorder_pkg::wb(w, 34 + 8 + 8);
    m.ok = good && ((et4 && g4) || (et6 && g6));
    parse_host = m;
  endfunction
endpackage
