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

  // What udplb_parse_pre decides from a frame's first beat alone (bytes 0..63 and their keep), for one of the
  // parser's two paths (untagged / tag taken out), each zero unless it is the frame's path. udplb_top registers
  // it as the beat enters H; udplb_parser finishes the parse from it and the window (issue 27: <= 12 levels).
  typedef struct packed {
    logic        f4, farp, f6;  // the family: here, byte 13 present, EtherType 0x0800 / 0x0806 / 0x86dd
    logic        hdr4_ok;       // f4 and the IPv4 header's checks pass (length, version, IHL >= 5)
    logic        hdr6_ok;       // f6 and the IPv6 header's checks pass (length, version)
    logic        u4, i4;        // hdr4_ok and protocol 17 / 1
    logic        u6, i6;        // hdr6_ok and next header 17 / 58
    logic [10:0] su, si;        // u4 / i4 AND the IHL one-hot, bit h - 5 for IHL h (h < 5 fails hdr4_ok)
    logic [3:0]  l4i;           // the IHL if u4 or i4, 10 if u6 (l4 = 54), else 0: udplb_l4_slice's index
    logic        emb6, echo6, ns6;  // ICMPv6 at 54: destination unreachable, echo request, neighbour solicitation
    logic        ns_len;        // the IPv6 payload length is not 24 (an ND option may follow)
    logic        perr;          // the verdict of every check on the first beat alone
    logic [6:0]  lo, li;        // lo_host / li of every case the first beat decides, else 0
    logic [6:0]  l4o;           // layer 4's offset (IPv4 / IPv6), else 0
  } upre_path_t;

  typedef struct packed {
    logic       vl;  // the frame is VLAN-tagged (byte 17 present, EtherType 0x8100)
    upre_path_t u;   // the untagged path (zero when vl)
    upre_path_t t;   // the tagged path (zero unless vl)
  } upre_t;

  // The layer-4 checks at one candidate offset l4 (udplb_parser, udplb_l4_verdict) over s, bytes l4 .. l4 + 23
  // (byte r in bits 8r+7:8r), and gC = "hl >= l4 + C". UDP: 8 bytes; the LB header if the destination port
  // says so (12 bytes, then 24 for version 2/3). ICMPv4: 4 bytes; destination unreachable: 24, 32 with an
  // embedded UDP header; echo request: 8. s is the whole slice so offsets read as l4 + r; not every byte is read.
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic udp_lb(logic [8*24-1:0] s, logic g8);
    udp_lb = g8 && ({s[8*2+:8], s[8*3+:8]} & 16'hc000) == 16'h4000;
  endfunction
  function automatic logic udp_err(logic [8*24-1:0] s, logic g8, logic g12, logic g24);
    udp_err = !g8 || (udp_lb(s, g8) && (!g12 || {s[8*8+:8], s[8*9+:8]} != 16'h4c42 ||
                                        !(s[8*10+:8] == 8'd2 || s[8*10+:8] == 8'd3) || !g24));
  endfunction
  function automatic logic icmp4_err(logic [8*24-1:0] s, logic g4, logic g8, logic g24, logic g32);
    logic emb, echo, o32;
    emb       = g4 && s[0+:8] == 8'd3;
    echo      = g4 && s[0+:8] == 8'd8 && s[8+:8] == 8'd0;
    o32       = g24 && s[8*13+:8] == 8'd17;
    icmp4_err = !g4 || (emb && (!g24 || (o32 && !g32))) || (echo && !g8);
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

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

  // S7 -> S8: the checksums of a frame's output header as end-around-carry pairs (udplb_hdr_sum, one pair per
  // case, zero unless it is the frame's case), and the new L4 fields, formed a stage ahead of S8 from what S7
  // already holds (docs/lb-microarchitecture.md "udplb_hdr_calc depth").
  localparam int unsigned UL4Offsets = 11;  // layer 4 at 34 + 4k, k = 0..10 (IHL 5..15; IPv6's 54 is k = 5)
  typedef struct packed {
    logic [UL4Offsets-1:0] l4oh;      // l4o == 34 + 4k (one-hot; 0 when layer 4 is not at one of them)
    logic [15:0]           dport;     // the member's UDP port
    logic [15:0]           l4_add;    // the word S8 adds to the L4 pair: the new UDP port (forwarded), the ND
                                      // advertisement's flags / ff02::1 word, else 0
    logic [15:0]           ulen_new;  // UDP length, less the LB header unless the member keeps it
    logic [15:0]           iplen;     // IPv4 total length / IPv6 payload length, likewise
    logic                  udp_ck;    // the received UDP checksum is not 0
    logic [31:0]           l4;        // the frame's UDP / ICMP / ICMPv6 checksum pair (without l4_add)
    logic [31:0]           ip;        // the IPv4 header checksum pair, with the TTL as parsed
    logic                  ttl_zero;  // the parsed TTL is 0 (S8's decrement wraps)
  } usum_t;

  // S6 -> S7: what udplb_hdr_pre forms beside S6 for udplb_hdr_sum (branch udp25, issue 27 item 2): each
  // checksum case's words that depend neither on the member entry (read in S7) nor on the bytes after layer 4
  // (l4_window's, registered beside s6_q), reduced to an end-around-carry pair, and "the IPv4 total length is
  // under 16". Not gated by the case: udplb_hdr_sum's trees are.
  typedef struct packed {
    logic [31:0] f4, f6;    // forwarded UDP over IPv4 / IPv6: the pseudo header's old addresses out, ours in
    logic [31:0] e4, e6;    // ICMPv4 / ICMPv6 echo reply
    logic [31:0] nd;        // neighbour advertisement (all of it but the late word, l4_add)
    logic [31:0] ip;        // IPv4 header of a forwarded frame (all of it but the length pair, the member's address)
    logic        tl4_zero;  // the IPv4 total length's upper 12 bits are 0 (the length is under 16)
  } uhpre_t;

  // S6 -> S7: the 24 bytes after layer 4 (UDP and LB headers, ICMPv4), taken out of the header bytes a stage
  // ahead of udplb_hdr_sum by the one-hot of layer 4's offset (l4_window).
  localparam int unsigned UL4Bytes = 8 + nt_pkg::UdplbHeaderBytes;
  typedef struct packed {
    logic [UL4Offsets-1:0] oh;          // l4o == 34 + 4k (one-hot; 0 when layer 4 is not at one of them)
    logic [8*UL4Bytes-1:0] w;           // bytes l4 .. l4 + 23, byte r in bits 8r+7:8r
    logic                  ulen_short;  // the UDP length (bytes l4 + 4, l4 + 5) is under 16
  } ul4_t;

  // The OR of 11 AND-gated fixed slices (a balanced OR: a running OR would be a chain the mapper keeps).
  function automatic ul4_t l4_window(logic [8*UWindowBytes-1:0] hw, logic [6:0] l4o);
    ul4_t                                  r;
    logic [UL4Offsets-1:0][8*UL4Bytes-1:0] c;
    for (int unsigned k = 0; k < UL4Offsets; k++) begin
      r.oh[k] = l4o == 7'(34 + 4 * k);
      c[k]    = {8*UL4Bytes{r.oh[k]}} & hw[8*(34+4*k)+:8*UL4Bytes];
    end
    r.w = ((c[0] | c[1]) | (c[2] | c[3])) | ((c[4] | c[5]) | (c[6] | c[7])) | ((c[8] | c[9]) | c[10]);
    r.ulen_short = r.w[8*4+:8] == '0 && r.w[8*5+4+:4] == '0;
    l4_window = r;
  endfunction

endpackage
