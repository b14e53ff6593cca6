// Types and helpers of the udplb program's pipeline (docs/lb-udplb.md, docs/lb-microarchitecture.md
// "udplb_top micro-architecture").
package udplb_pkg;

  localparam int unsigned UWindowBytes = 2 * nt_pkg::StreamBytes;        // the parser sees two beats
  localparam int unsigned UNextBytes = 48;                        // successor bytes a beat carries
  localparam int unsigned UEpochGroups = nt_pkg::UdplbEpochEntries / nt_pkg::UdplbEpochGroup;
  localparam int unsigned URowBits = $clog2(nt_pkg::UdplbEpochRows);
  localparam int unsigned USlotBits = $clog2(nt_pkg::UdplbCalendarSlots);
  localparam int unsigned UIdxBits = $clog2(nt_pkg::UdplbIpDstEntries);

  typedef logic [4:0] ureason_t;

  // What happens to a clean frame (reason == none).
  typedef logic [1:0] ukind_t;
  localparam ukind_t KindForward = 2'd0;  // an LB frame to a member (or still on its way there)
  localparam ukind_t KindReply = 2'd1;    // ARP reply, ICMP(v6) echo reply, ND advertisement
  localparam ukind_t KindHost = 2'd2;     // IEEE 802 group frame to the host

  // A beat on its way through the pipeline, with what the beat former needs from its successor.
  typedef struct packed {
    logic                          valid;
    logic [nt_pkg::StreamBits-1:0]         data;
    logic [nt_pkg::StreamBytes-1:0]        keep;
    logic                          last;
    logic                          sop;
    logic [1:0]                    idx;        // beat number in the frame, saturating at 2
    logic [8*UNextBytes-1:0]       next48;     // first 48 bytes of the successor beat
    logic [UNextBytes:0]           next_keep;  // keep bits 0..48 of the successor beat (a contiguous prefix)
    logic                          next_last;  // the successor is the frame's last beat
    logic [3:0]                    port;       // ingress port (sampled with the first beat)
  } ubeat_t;

  // The parse of a frame's first two beats (udplb.p4 ParserImpl). Offsets are in the frame with the VLAN
  // tag removed (hw): layer 3 at 14, layer 4 at l4o; that is also the layout of every emitted frame. The
  // header bytes themselves do not travel with the parse: S8 reads them from the first beat and next48.
  typedef struct packed {
    logic                          perr;
    logic [6:0]                    li;       // bytes extracted, tag included
    logic [6:0]                    lo_host;  // bytes emitted as parsed (IEEE 802 group frames)
    logic                          vlan;
    logic                          arp;
    logic                          ipv4;
    logic                          ipv6;
    logic                          icmp4;
    logic                          icmp4_echo;
    logic                          icmp4_emb;
    logic                          icmp6;
    logic                          icmp6_echo;
    logic                          icmp6_emb;
    logic                          ns;
    logic                          ns_ll;    // the solicitation's link-layer address option is valid
    logic                          udp;
    logic                          lb;
    logic                          lb_v3;
    logic [11:0]                   vid;
    logic [47:0]                   mac_da;
    logic [15:0]                   ethertype;  // of the Ethernet header (0x8100 when tagged)
    logic [6:0]                    l4o;
    logic [127:0]                  ip_da;      // IPv4 destination / ARP TPA in [31:0]
    logic [127:0]                  ip_sa;      // IPv4 source in [31:0]
    logic [127:0]                  nd_target;
    logic [63:0]                   tick;
    logic [15:0]                   slot_sel;
    logic [15:0]                   port_sel;
    logic [7:0]                    ttl;        // IPv4 TTL / IPv6 hop limit
  } uparse_t;

  // The best entry of one group of the epoch TCAM (longest prefix).
  typedef struct packed {
    logic        hit;
    logic [6:0]  plen;
    logic [31:0] epoch;
    logic [4:0]  bits;
    logic [15:0] sxor;
  } uepoch_hit_t;
  // Its width: arrays of group winners are 2-D packed vectors of this width, each element read or written
  // whole as a uepoch_hit_t (Yosys 0.55 reads a packed array of a packed struct as one element, YosysHQ/yosys
  // #2677; docs/synthesis.md "One RTL source"). udplb_tables asserts it equals $bits(uepoch_hit_t).
  localparam int unsigned UEpochHitBits = 1 + 7 + 32 + 5 + 16;

  typedef struct packed {
    logic         valid;
    logic [1:0]   action;  // 0 rewrite, 1 soft evicted, 2 deregistered
    logic [9:0]   tag;     // member[15:6]
    logic [47:0]  mac;
    logic [127:0] ip;
    logic [15:0]  udp_base;
    logic [4:0]   port_bits;
    logic         keep;
  } umember_t;

  // What the lookups have decided about a frame so far (first beats only).
  typedef struct packed {
    ureason_t                reason;
    ukind_t                  kind;
    logic                    ejfat;     // reached the EJFAT stage (counts inst rx)
    logic                    rx_v2;
    logic                    rx_v3;
    logic [3:0]              iface;
    logic [47:0]             uc_mac;
    logic [2:0]              lb_id;
    logic [UIdxBits-1:0]     ip_idx;
    logic [127:0]            uc_ip;
    logic                    src_hit;
    logic [31:0]             epoch;
    logic [15:0]             slot;
    logic                    row_hit;
    logic [URowBits-1:0]     row;
    logic [15:0]             member;
    umember_t                mem;
  } uctx_t;

  // What S8 hands to the beat former for a whole frame.
  typedef struct packed {
    logic                      send;     // the frame leaves (not dropped)
    logic [3:0]                port;     // egress port
    logic [6:0]                lo;       // output header bytes
    logic signed [7:0]         d;        // Li - Lo, -8..48
    logic [8*UWindowBytes-1:0] hdr;      // output header bytes 0..Lo-1
  } uout_t;

  // Counter events of a frame leaving S8.
  typedef struct packed {
    ureason_t   reason;
    logic       to_host;
    logic       reply;
    logic       ejfat;
    logic       rx_v2;
    logic       rx_v3;
    logic       tx;
    logic [2:0] lb_id;
  } ucount_t;

  // A frame's first bytes with the VLAN tag taken out (bytes 0..13 stay, byte 14 on is byte 18 on).
  function automatic logic [8*UWindowBytes-1:0] untag(logic [8*UWindowBytes-1:0] w, logic vlan);
    untag = vlan ? {32'd0, w[8*UWindowBytes-1:8*18], w[8*14-1:0]} : w;
  endfunction

  // P4 InternetChecksum, summed over many words at once: the end-around-carry sum of any sequence of words
  // is 0 only if every word is 0 and otherwise their sum modulo 0xFFFF in 1..0xFFFF, whatever the order, so
  // a wide sum folded once equals the 16-bit state the P4 extern keeps word by word.
  function automatic logic [15:0] csum_fold(logic [31:0] acc);
    logic [16:0] s;
    s = {1'b0, acc[15:0]} + {1'b0, acc[31:16]};
    csum_fold = s[15:0] + {15'd0, s[16]};
  endfunction

  // Adds the 16-bit words of a 128-bit value (address) to a wide checksum sum, each complemented if `sub`.
  function automatic logic [31:0] csum_w128(logic [31:0] acc, logic [127:0] v, logic sub);
    logic [31:0] a;
    a = acc;
    for (int i = 0; i < 8; i++) a = a + {16'd0, sub ? ~v[16*i+:16] : v[16*i+:16]};
    csum_w128 = a;
  endfunction

  function automatic logic [31:0] csum_w(logic [31:0] acc, logic [15:0] w, logic sub);
    csum_w = acc + {16'd0, sub ? ~w : w};
  endfunction

endpackage
