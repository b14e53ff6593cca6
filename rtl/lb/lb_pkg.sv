// Types and helpers of the EJFAT load balancer pipeline (docs/lb.md, docs/lb-microarchitecture.md).
package lb_pkg;

  localparam int unsigned WindowBytes = 2 * nt_pkg::StreamBytes;  // the parser sees at most two beats
  localparam int unsigned EpochGroups = nt_pkg::LbEpochEntries / nt_pkg::LbEpochGroup;

  typedef logic [4:0] reason_t;

  typedef struct packed {
    reason_t      reason;
    logic         is_v6;
    logic [47:0]  mac;
    logic [15:0]  ethertype;
    logic [127:0] ip;
    logic [15:0]  port;
    logic [63:0]  tick;
    logic [7:0]   l4_off;
    logic [15:0]  ip_len;
    logic [15:0]  ip_csum;
    logic [15:0]  udp_len;
    logic [15:0]  udp_csum;
    logic [95:0]  lb_hdr;  // the 12 header bytes, first byte in bits 95:88
  } parse_t;

  typedef struct packed {
    logic        hit;
    logic        drop;
    logic [15:0] prio;
    logic [31:0] epoch;
  } epoch_hit_t;

  typedef struct packed {
    logic        valid;
    logic        drop;
    logic [15:0] member;
  } cal_entry_t;

  typedef struct packed {
    logic         valid;
    logic         drop;
    logic [6:0]   tag;
    logic [47:0]  mac;
    logic [127:0] ip;
    logic [15:0]  port;
  } member_entry_t;

  typedef struct packed {
    logic         forward;
    reason_t      reason;
    logic         is_v6;
    logic [7:0]   l4_off;
    logic [47:0]  mac_da;
    logic [47:0]  mac_sa;
    logic [127:0] ip_dst;
    logic [15:0]  ip_len;
    logic [15:0]  ip_csum;
    logic [15:0]  udp_port;
    logic [15:0]  udp_len;
    logic [15:0]  udp_csum;
  } rewrite_t;

  // What stages S2..S5 carry about a frame (first beats only): the parse narrowed to what the later stages
  // read. The rewrite's checksum terms that do not depend on the member are summed here once (end-around
  // carry), so the old destination address, the LB header and the tick need not travel (docs/PERF.md).
  typedef struct packed {
    reason_t      reason;
    logic         is_v6;
    logic [$clog2(nt_pkg::LbCalendarSlots)-1:0] slot;  // tick bits addressing the calendar row
    logic [7:0]   l4_off;
    logic [47:0]  mac;
    logic [15:0]  ip_len;
    logic [15:0]  ip_csum;
    logic [15:0]  udp_len;
    logic [15:0]  udp_csum;
    logic [15:0]  dst_old;  // sum of the complemented old destination address words (IPv4: the low two)
    logic [15:0]  ip_fix;   // ~ip_len + new ip_len
    logic [15:0]  udp_fix;  // ~udp_len + new udp_len (pseudo-header and field), ~port, ~each LB header word
  } carry_t;

  // A beat on its way through the pipeline, with what it needs from its successor. The wide fields come
  // last (the low bits) so that they start on 32-bit boundaries: a simulator then moves them word by word
  // instead of shifting every word (docs/PERF.md).
  typedef struct packed {
    logic                   valid;
    logic                   last;
    logic                   sop;
    logic [1:0]             idx;     // beat number in the packet, saturating at 2
    logic [6:0]             next_n;  // valid bytes of the successor beat
    logic                   fold;    // successor is last and fits in next12
    logic [8*nt_pkg::LbHeaderBytes-1:0] next12;  // first 12 bytes of the successor beat
    logic [nt_pkg::StreamBytes-1:0]     keep;
    logic [nt_pkg::StreamBits-1:0]      data;
  } pipe_beat_t;

  // End-around-carry addition (RFC 1071).
  function automatic logic [15:0] ones_add(logic [15:0] a, logic [15:0] b);
    logic [16:0] s;
    s = {1'b0, a} + {1'b0, b};
    ones_add = s[15:0] + {15'd0, s[16]};
  endfunction

  // Accumulates ~old + new into a running RFC 1624 delta.
  function automatic logic [15:0] csum_replace(logic [15:0] acc, logic [15:0] old_w, logic [15:0] new_w);
    csum_replace = ones_add(ones_add(acc, ~old_w), new_w);
  endfunction

  // HC' = ~(~HC + delta), RFC 1624 eqn. 3.
  function automatic logic [15:0] csum_apply(logic [15:0] csum, logic [15:0] delta);
    csum_apply = ~ones_add(~csum, delta);
  endfunction

  // The carried part of a parse (see carry_t). Every sum is a chain of end-around-carry additions from 0:
  // its value is 0 if every word is 0 and otherwise the words' sum modulo 0xFFFF in 1..0xFFFF, whatever the
  // order or grouping, so adding these partial sums later gives the same checksum as adding word by word.
  function automatic carry_t carry_of(parse_t p);
    carry_t      c;
    logic [15:0] ip_len_new, udp_len_new;
    logic        unused_ethertype;  // the filter CAM's key only
    c          = '0;
    c.reason   = p.reason;
    c.is_v6    = p.is_v6;
    c.slot     = p.tick[$clog2(nt_pkg::LbCalendarSlots)-1:0];
    c.l4_off   = p.l4_off;
    c.mac      = p.mac;
    c.ip_len   = p.ip_len;
    c.ip_csum  = p.ip_csum;
    c.udp_len  = p.udp_len;
    c.udp_csum = p.udp_csum;
    unused_ethertype = ^p.ethertype;
    ip_len_new  = p.ip_len - 16'(nt_pkg::LbHeaderBytes);
    udp_len_new = p.udp_len - 16'(nt_pkg::LbHeaderBytes);
    for (int i = 0; i < 8; i++) begin
      if (p.is_v6 || i >= 6) c.dst_old = ones_add(c.dst_old, ~p.ip[127-16*i-:16]);
    end
    c.ip_fix  = csum_replace(16'd0, p.ip_len, ip_len_new);
    c.udp_fix = csum_replace(16'd0, p.udp_len, udp_len_new);        // pseudo-header length
    c.udp_fix = csum_replace(c.udp_fix, p.udp_len, udp_len_new);    // UDP length field
    c.udp_fix = ones_add(c.udp_fix, ~p.port);                       // the new port comes with the member
    for (int i = 0; i < 6; i++) c.udp_fix = ones_add(c.udp_fix, ~p.lb_hdr[95-16*i-:16]);
    carry_of = c;  // no `return`: yosys 0.55 rejects it (issue 27)
  endfunction

endpackage
