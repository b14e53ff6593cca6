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

  // d = (now - t) mod 2^16, its MSB the wrap bit (docs/reroute.md "Timestamps").
  function automatic logic elapsed(logic [15:0] now, logic [15:0] t, logic [15:0] thr);
    logic [15:0] d;
    d = now - t;
    elapsed = d[15] || d >= thr;
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

  function automatic host_meta_t parse_host(logic [WinBits-1:0] w, logic [15:0] len, logic too_long);
    host_meta_t m;
    int unsigned udp;
    logic good;
    m = '0;
    good = !too_long && len >= 16'd34 && len <= 16'(nt_pkg::RerouteMaxBytes);
    udp = 34;
    if (reorder_pkg::wb16(w, 12) == 16'h0800) begin
      good = good && reorder_pkg::wb(w, 14) == 8'h45 && reorder_pkg::wb(w, 23) == 8'd17 &&
             ((reorder_pkg::wb(w, 20) & 8'h3f) | reorder_pkg::wb(w, 21)) == 8'd0;
      m.ip_len = reorder_pkg::wb16(w, 16);
      good = good && m.ip_len == len - 16'd14;
    end else if (reorder_pkg::wb16(w, 12) == 16'h86dd) begin
      m.v6 = 1'b1;
      udp = 54;
      good = good && len >= 16'd54 && w[8*14+4+:4] == 4'd6 && reorder_pkg::wb(w, 20) == 8'd17;
      m.ip_len = reorder_pkg::wb16(w, 18);
      good = good && m.ip_len == len - 16'd54;
    end else begin
      good = 1'b0;
    end
    good = good && len >= 16'(udp + 8 + 12 + 4) && reorder_pkg::wb16(w, udp + 2) == 16'(nt_pkg::ReorderUdpPort);
    m.udp_len = reorder_pkg::wb16(w, udp + 4);
    m.csum = reorder_pkg::wb16(w, 24);
    m.b8 = reorder_pkg::wb(w, udp + 8 + 8);
    m.ok = good;
    parse_host = m;
  endfunction
endpackage
