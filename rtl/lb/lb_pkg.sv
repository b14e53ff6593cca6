// Types and helpers of the EJFAT load balancer pipeline (docs/lb.md, docs/lb-microarchitecture.md).
package lb_pkg;

  localparam int unsigned WindowBytes = 2 * nt_pkg::StreamBytes;  // the parser sees at most two beats
  localparam int unsigned EpochGroups = nt_pkg::LbEpochEntries / nt_pkg::LbEpochGroup;

  localparam int unsigned ReasonBits = 5;
  typedef logic [ReasonBits-1:0] reason_t;

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
    logic [15:0]  ip_pay;  // IP payload length (IPv4: total length - header; IPv6: payload length)
    reason_t      tail;    // the checks after the headers' presence but "UDP length > IP payload"
  } parse_t;

  // The epoch TCAM's group winners (hit, drop, priority, epoch) travel as one packed vector per field, not as
  // a packed array of structs: Yosys 0.55 reads a packed array of a packed struct as one element
  // (YosysHQ/yosys#2677; docs/synthesis.md "One RTL source"), and a simulator then reads each field as a
  // native word.

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
  // read. The rewrite's checksum terms that do not depend on the member are reduced here once, to a pair of
  // words each (csa_reduce), so the old destination address, the LB header and the tick need not travel
  // (docs/PERF.md, docs/lb-microarchitecture.md "Checksums in carry-save form").
  typedef struct packed {
    reason_t      reason;
    logic         is_v6;
    logic [$clog2(nt_pkg::LbCalendarSlots)-1:0] slot;  // tick bits addressing the calendar row
    logic [7:0]   l4_off;
    logic [47:0]  mac;
    logic [15:0]  ip_len;
    logic [15:0]  udp_len;
    logic         udp_zero;  // the received UDP checksum is 0
    logic [15:0]  u_a, u_b;  // UDP: ~csum, ~old dst words, ~old/new lengths, ~port, ~each LB header word
    logic [15:0]  i_a, i_b;  // IPv4 header: ~csum, ~old dst words, ~old/new total length
  } carry_t;

  // What lb_rewrite_calc (S5) leaves to S6: each new checksum's terms as a pair of words whose end-around-carry
  // sum S6 folds and complements (csum_finish).
  typedef struct packed {
    logic        udp_none;  // IPv4 without a UDP checksum: the field stays 0
    logic [15:0] ip_a, ip_b;
    logic [15:0] udp_a, udp_b;
  } csum_pair_t;

  // A beat on its way through the pipeline, with what it needs from its successor. The wide fields come
  // last (the low bits) so that they start on 32-bit boundaries: a simulator then moves them word by word
  // instead of shifting every word (docs/PERF.md).
  typedef struct packed {
    logic                   valid;
    logic                   last;
    logic                   sop;
    logic [1:0]             idx;     // beat number in the packet, saturating at 2
    logic [nt_pkg::LbHeaderBytes-1:0] next_keep;  // keep of the successor's first 12 bytes
    logic                   fold;    // successor is last and fits in next12
    logic [8*nt_pkg::LbHeaderBytes-1:0] next12;  // first 12 bytes of the successor beat
    logic [nt_pkg::StreamBytes-1:0]     keep;
    logic [nt_pkg::StreamBits-1:0]      data;
  } pipe_beat_t;

  // Reduces 18 words (word k in bits 16k+15:16k; unused words 0) to a pair {a, b} with the same end-around-
  // carry sum: six carry-save levels (18 -> 12 -> 8 -> 6 -> 4 -> 3 -> 2), one LUT each, no carry chain.
  function automatic logic [31:0] csa_reduce(logic [18*16-1:0] w);
    logic [12*16-1:0] l1;
    logic [8*16-1:0]  l2;
    logic [6*16-1:0]  l3;
    logic [4*16-1:0]  l4;
    logic [3*16-1:0]  l5;
    for (int i = 0; i < 6; i++) l1[32*i+:32] = nt_csum_pkg::csa3(w[48*i+:16], w[48*i+16+:16], w[48*i+32+:16]);
    for (int i = 0; i < 4; i++) l2[32*i+:32] = nt_csum_pkg::csa3(l1[48*i+:16], l1[48*i+16+:16], l1[48*i+32+:16]);
    for (int i = 0; i < 2; i++) l3[32*i+:32] = nt_csum_pkg::csa3(l2[48*i+:16], l2[48*i+16+:16], l2[48*i+32+:16]);
    l3[64+:32] = l2[96+:32];
    for (int i = 0; i < 2; i++) l4[32*i+:32] = nt_csum_pkg::csa3(l3[48*i+:16], l3[48*i+16+:16], l3[48*i+32+:16]);
    l5[0+:32]  = nt_csum_pkg::csa3(l4[0+:16], l4[16+:16], l4[32+:16]);
    l5[32+:16] = l4[48+:16];
    csa_reduce = nt_csum_pkg::csa3(l5[0+:16], l5[16+:16], l5[32+:16]);
  endfunction

  // A parse's drop reason: lb_parser's reason (the checks up to the headers' presence), else the first of
  // "UDP length > IP payload" (a compare of two header fields, left to S1 for depth; issue 27) and the
  // parser's later checks (tail: length bounds, magic, version, IPv6 zero checksum), in docs/lb.md order.
  // ip_pay wraps when an IPv4 total length is below its header; tail then says bad length already.
  function automatic reason_t parse_reason(reason_t reason, logic [15:0] udp_len, logic [15:0] ip_pay,
                                           reason_t tail);
    parse_reason = reason;
    if (reason == reason_t'(nt_pkg::LbDropNone)) begin
      parse_reason = udp_len > ip_pay ? reason_t'(nt_pkg::LbDropBadLength) : tail;
    end
  endfunction

  // The carried part of a parse (see carry_t). Every checksum here is a chain of end-around-carry additions
  // from 0: its value is 0 if every word is 0 and otherwise the words' sum modulo 0xFFFF in 1..0xFFFF,
  // whatever the order or grouping, so reducing the words to a pair and adding the member's words later gives
  // the same checksum as adding word by word (the model, ComputeRewrite, adds word by word).
  // A length x and its new value x - 12 enter as the pair ~x, x - 12, whose end-around-carry sum is 0xfff3,
  // or 0xfff4 when x < 12 (the subtraction wraps): one constant word each, no subtraction before the sum.
  function automatic carry_t carry_of(parse_t p);
    carry_t            c;
    logic [18*16-1:0]  w, v;
    logic [31:0]       pr;
    logic [15:0]       ip_fix, udp_fix;
    logic              unused_ethertype;  // the filter CAM's key only
    c          = '0;
    w          = '0;
    v          = '0;
    c.reason   = parse_reason(p.reason, p.udp_len, p.ip_pay, p.tail);
    c.is_v6    = p.is_v6;
    c.slot     = p.tick[$clog2(nt_pkg::LbCalendarSlots)-1:0];
    c.l4_off   = p.l4_off;
    c.mac      = p.mac;
    c.ip_len   = p.ip_len;
    c.udp_len  = p.udp_len;
    c.udp_zero = p.udp_csum == '0;
    unused_ethertype = ^p.ethertype;
    ip_fix  = p.ip_len < 16'(nt_pkg::LbHeaderBytes) ? 16'hfff4 : 16'hfff3;   // ~ip_len + (ip_len - 12)
    udp_fix = p.udp_len < 16'(nt_pkg::LbHeaderBytes) ? 16'hfff4 : 16'hfff3;  // ~udp_len + (udp_len - 12)
    // UDP: the old checksum, the old destination address words (IPv4: the low two), the length in the
    // pseudo-header and in the UDP header, the old port (the new one comes with the member), the LB header.
    w[0+:16] = ~p.udp_csum;
    for (int i = 0; i < 8; i++) if (p.is_v6 || i >= 6) w[16*(1+i)+:16] = ~p.ip[127-16*i-:16];
    w[16*9+:16]  = udp_fix;
    w[16*10+:16] = udp_fix;
    w[16*11+:16] = ~p.port;
    for (int i = 0; i < 6; i++) w[16*(12+i)+:16] = ~p.lb_hdr[95-16*i-:16];
    pr    = csa_reduce(w);
    c.u_a = pr[31:16];
    c.u_b = pr[15:0];
    // IPv4 header: the old checksum, the old destination address, the total length.
    v[0+:16]  = ~p.ip_csum;
    v[16+:16] = ~p.ip[31:16];
    v[32+:16] = ~p.ip[15:0];
    v[48+:16] = ip_fix;
    pr    = csa_reduce(v);
    c.i_a = pr[31:16];
    c.i_b = pr[15:0];
    carry_of = c;  // no `return`: yosys 0.55 rejects it (issue 27)
  endfunction

  // S6: the new checksums from lb_rewrite_calc's pairs (RFC 1624 eqn. 3: HC' = ~(~HC + delta), every term
  // already in the pair). ~sum is 0 only when the pair adds to 0xffff or 0x1fffe, which is tested on the pair
  // itself, beside the addition rather than after it.
  function automatic rewrite_t csum_finish(rewrite_t rw, csum_pair_t s);
    rewrite_t r;
    logic     zero;
    r    = rw;
    zero = nt_csum_pkg::eac2_ones(s.udp_a, s.udp_b);
    if (rw.forward) begin
      if (!rw.is_v6) r.ip_csum = ~nt_csum_pkg::eac2(s.ip_a, s.ip_b);
      if (s.udp_none) begin
        r.udp_csum = '0;  // the IPv4 sender sent no checksum
      end else begin
        r.udp_csum = ~nt_csum_pkg::eac2(s.udp_a, s.udp_b);
        if (zero) r.udp_csum = 16'hffff;  // RFC 768
      end
    end
    csum_finish = r;
  endfunction

endpackage
