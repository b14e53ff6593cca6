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

  // A beat on its way through the pipeline, with what it needs from its successor.
  typedef struct packed {
    logic                   valid;
    logic [nt_pkg::StreamBits-1:0]  data;
    logic [nt_pkg::StreamBytes-1:0] keep;
    logic                   last;
    logic                   sop;
    logic [1:0]             idx;     // beat number in the packet, saturating at 2
    logic [8*nt_pkg::LbHeaderBytes-1:0] next12;  // first 12 bytes of the successor beat
    logic [6:0]             next_n;  // valid bytes of the successor beat
    logic                   fold;    // successor is last and fits in next12
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

endpackage
