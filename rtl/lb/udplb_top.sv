// The udplb program of the EJFAT load balancer (docs/lb-udplb.md; esnet/udplb 255e11b p4/udplb.p4):
// parse -> L2 iface -> MAC DA / IP DA filters -> source filters, epoch TCAM -> epoch reduce, epoch map ->
// calendar -> member -> output header bytes -> beat former. Stage by stage as model/lb/udplb_cycle_model.h;
// see docs/lb-microarchitecture.md "udplb_top micro-architecture".
`include "nt_ports.svh"
`include "nt_assert.svh"
module udplb_top
(
  `NT_CLK_RST,
  // Ingress stream; s_port_i is the frame's ingress port, sampled with its first beat.
  `NT_STREAM_IN(s),
  input  logic [3:0]                                 s_port_i,
  // Egress stream; m_port_o is the frame's egress port.
  `NT_STREAM_OUT(m),
  output logic [3:0]                                 m_port_o,
  // Table programming.
  `NT_CFG_IN_W(cfg, nt_pkg::UdplbCfgTableBits, nt_pkg::UdplbCfgIndexBits),
  // Counters (reason r in bits 32r+31:32r, r = 0 unused; instance i in bits 32i+31:32i).
  output logic [nt_pkg::LbCounterBits-1:0]                   pkts_in_o,
  output logic [nt_pkg::LbCounterBits-1:0]                   pkts_out_o,
  output logic [nt_pkg::LbCounterBits-1:0]                   to_host_o,
  output logic [nt_pkg::LbCounterBits-1:0]                   replies_o,
  output logic [nt_pkg::UdplbDropReasons*nt_pkg::LbCounterBits-1:0]  drops_o,
  output logic [nt_pkg::UdplbInstances*nt_pkg::LbCounterBits-1:0]    inst_rx_o,
  output logic [nt_pkg::UdplbInstances*nt_pkg::LbCounterBits-1:0]    inst_rx_v2_o,
  output logic [nt_pkg::UdplbInstances*nt_pkg::LbCounterBits-1:0]    inst_rx_v3_o,
  output logic [nt_pkg::UdplbInstances*nt_pkg::LbCounterBits-1:0]    inst_tx_o,
  output logic [nt_pkg::UdplbInstances*nt_pkg::LbCounterBits-1:0]    inst_drops_o
);
  // Per-stage state: the beat plus what the pipeline has learned about its frame (first beats only).
  typedef struct packed {
    udplb_pkg::ubeat_t  b;
    udplb_pkg::uparse_t p;
    udplb_pkg::uctx_t   c;
  } ustage_t;

  typedef struct packed {
    udplb_pkg::ubeat_t  b;
    udplb_pkg::uout_t   o;
    udplb_pkg::ucount_t n;
  } ufinal_t;

  logic adv;       // all stages advance together while the skid register is empty and no extra beat waits
  logic in_ready;  // the output skid register is empty
  logic extra_q;   // an extra output beat is being formed this cycle

  assign adv       = in_ready && !extra_q;
  assign s_ready_o = adv;

  // ---- H: lookahead register; S1: parse ----
  logic                      h_emit, h_last, s_first;
  logic [nt_pkg::StreamBits-1:0]     h_data;
  logic [nt_pkg::StreamBytes-1:0]    h_keep;
  logic [1:0]                h_idx;
  logic [3:0]                h_port;
  logic [8*udplb_pkg::UWindowBytes-1:0] window;
  logic [7:0]                window_len;
  ustage_t                   s1_d, s1_q;
  udplb_pkg::uparse_t                   parsed;

  lb_lookahead u_h (
    `NT_CLK_RST_CONN,
    .adv_i        (adv),
    .s_valid_i,
    .s_data_i,
    .s_keep_i,
    .s_last_i,
    .s_port_i,
    .s_first_o    (s_first),
    .emit_o       (h_emit),
    .h_data_o     (h_data),
    .h_keep_o     (h_keep),
    .h_last_o     (h_last),
    .h_idx_o      (h_idx),
    .h_port_o     (h_port),
    .window_o     (window),
    .window_len_o (window_len)
  );

  // The window's keep (contiguous from byte 0): the parser checks lengths as keep bits (udplb_parser).
  logic [udplb_pkg::UWindowBytes-1:0] window_keep;
  assign window_keep = h_last ? {{nt_pkg::StreamBytes{1'b0}}, h_keep} : {s_keep_i, h_keep};

  // What a frame's first beat decides of its parse (the EtherTypes and the tag, the IP headers, the protocol
  // and the IHL, the ICMPv6 type), computed as the beat enters H and loaded as H's beat is, so the parser reads
  // flops, not the compares, in front of its layer-4 terms (issue 27 <= 12 levels; as lb_top's h_et_q). No
  // cycle added: a first beat is in H at least a cycle before it is parsed; only a first beat's is read
  // (the parser's en_i), and only a first beat's is formed (its en_i).
  udplb_pkg::upre_t h_pre, h_pre_q;
  udplb_parse_pre u_parse_pre (
    .beat_i (s_data_i),
    .keep_i (s_keep_i),
    .en_i   (s_valid_i && s_first),
    .pre_o  (h_pre)
  );
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      h_pre_q <= '0;
    end else if (adv && s_valid_i) begin
      h_pre_q <= h_pre;
    end
  end

  udplb_parser u_parser (
    .window_i (window),
    .keep_i   (window_keep),
    .en_i     (h_emit && h_idx == 2'd0),
    .pre_i    (h_pre_q),
    .info_o   (parsed)
  );

  always_comb begin
    s1_d = '0;
    if (h_emit) begin
      s1_d.b.valid = 1'b1;
      s1_d.b.data  = h_data;
      s1_d.b.keep  = h_keep;
      s1_d.b.last  = h_last;
      s1_d.b.idx   = h_idx;
      s1_d.b.sop   = h_idx == 2'd0;
      s1_d.b.port  = h_port;
      if (!h_last) begin
        s1_d.b.next48    = s_data_i[8*udplb_pkg::UNextBytes-1:0];
        s1_d.b.next_keep = s_keep_i[udplb_pkg::UNextBytes:0];
        s1_d.b.next_last = s_last_i;
      end
      if (s1_d.b.sop) begin
        s1_d.p = parsed;
        s1_d.c.reason = parsed.perr ? udplb_pkg::ureason_t'(nt_pkg::UdplbDropParseError) : udplb_pkg::ureason_t'(nt_pkg::UdplbDropNone);
      end
    end
  end

  // ---- Tables ----
  logic                            ttl_dec;
  logic [3:0]                      l2_iface;
  logic [47:0]                     l2_mac, md_mac;
  logic                            md_hit, md_set, id_hit, src4_hit, src6_hit, map_hit, cal_valid;
  logic [udplb_pkg::UIdxBits-1:0]             id_idx;
  logic [2:0]                      id_lb;
  logic [127:0]                    sa_ip;
  // One uepoch_hit_t per group, each read whole (a packed array of structs is one element to Yosys 0.55).
  logic [udplb_pkg::UEpochGroups-1:0][udplb_pkg::UEpochHitBits-1:0] ep_group, s4_group_q;
  udplb_pkg::uepoch_hit_t                     ep_best;
  logic [udplb_pkg::URowBits-1:0]             map_row;
  logic [15:0]                     cal_member, slot;
  udplb_pkg::umember_t                        mem_entry;
  logic [udplb_pkg::URowBits+udplb_pkg::USlotBits-1:0]   cal_addr;
  logic [9:0]                      mem_addr;

  ustage_t s2_d, s2_q, s3_d, s3_q, s4_d, s4_q, s5_d, s5_q, s6_d, s6_q, s7_d, s7_q;

  udplb_tables u_tables (
    `NT_CLK_RST_CONN,
    `NT_CFG_CONN(cfg),
    .ttl_dec_o    (ttl_dec),
    .l2_vid_i     (s1_q.p.vid),
    .l2_iface_o   (l2_iface),
    .l2_mac_o     (l2_mac),
    // The keys' next values: s2_q's p fields are s1_q's and s3_q's are s2_q's (S2 and S3 change only c).
    .look_en_i    (adv),
    .md_mac_nx_i  (s1_q.p.mac_da),
    .id_type_nx_i (s1_q.p.ethertype),
    .id_ip_nx_i   (s1_q.p.ip_da),
    .src_ip_nx_i  (s2_q.p.ip_sa),
    .ep_tick_nx_i (s2_q.p.tick),
    .md_iface_i   (s2_q.c.iface),
    .md_mac_i     (s2_q.p.mac_da),
    .md_hit_o     (md_hit),
    .md_set_o     (md_set),
    .md_mac_o     (md_mac),
    .id_iface_i   (s2_q.c.iface),
    .id_type_i    (s2_q.p.ethertype),
    .id_ip_i      (s2_q.p.ip_da),
    .id_hit_o     (id_hit),
    .id_idx_o     (id_idx),
    .id_lb_o      (id_lb),
    .sa_idx_i     (s3_q.c.ip_idx),
    .sa_ip_o      (sa_ip),
    .src_lb_i     (s3_q.c.lb_id),
    .src_ip_i     (s3_q.p.ip_sa),
    .src4_hit_o   (src4_hit),
    .src6_hit_o   (src6_hit),
    .ep_lb_i      (s3_q.c.lb_id),
    .ep_tick_i    (s3_q.p.tick),
    .ep_group_o   (ep_group),
    .map_lb_i     (s4_q.c.lb_id),
    .map_epoch_i  (ep_best.epoch),
    .map_hit_o    (map_hit),
    .map_row_o    (map_row),
    .rd_en_i      (adv),
    .cal_addr_i   (cal_addr),
    .cal_valid_o  (cal_valid),
    .cal_member_o (cal_member),
    .mem_addr_i   (mem_addr),
    .mem_entry_o  (mem_entry)
  );

  // Epoch TCAM, second stage: the longest prefix of the group winners, ties to the lower group. Was a walk
  // over the groups keeping a running best (a chain of 8 compares and multiplexers, then the slot mask as a
  // shift and a subtract: 40 levels from s4_group_q; issue 27 item 2). Which group beats which is known in S3
  // from the first stage's answers: bit h of s4_gbeat_d[g] is set when group h hits and beats group g (a
  // longer prefix, or the same one and h < g), and group g wins if it hits and no group beats it (at most one
  // wins). Since branch udp25 the winner one-hot itself is registered beside s4_group_q (s4_gwin_q, loaded on
  // the same advance; before, the matrix was, and S4 formed the one-hot in front of the epoch map: 13 levels
  // `s4_gbeat_q` -> `s5_q`, issue 27 item 2). In S4 ep_best is the OR of the winner's fields ('0 when none
  // hits, as the walk gave). Each group's slot is formed beside (the slot mask as a compare of each bit
  // position with the group's bits: all ones from 16 on, as before) and the winner's chosen the same way. The
  // same answers, no cycle added; asserted below (s4_gwin_exact).
  // Each group is read whole into a uepoch_hit_t first: Yosys 0.55 reads s4_group_q[g].hit as an undeclared
  // wire.
  localparam int unsigned Grps = udplb_pkg::UEpochGroups;
  udplb_pkg::uepoch_hit_t   s3_ga, s4_group;
  logic [Grps-1:0]           s3_ghit;
  logic [Grps-1:0][6:0]      s3_gplen;
  logic [Grps-1:0][Grps-1:0] s4_gbeat_d;
  logic [Grps-1:0]           s4_gwin_d, s4_gwin_q;
  logic [15:0]               g_slot;
  logic                      unused_s3_ga;
  always_comb begin
    s3_ga      = '0;
    s3_ghit    = '0;
    s3_gplen   = '0;
    s4_gbeat_d = '0;
    s4_gwin_d  = '0;
    ep_best    = '0;
    s4_group   = '0;
    slot       = '0;
    g_slot     = '0;
    for (int g = 0; g < Grps; g++) begin
      // S3: the first stage's answers.
      s3_ga       = ep_group[g];
      s3_ghit[g]  = s3_ga.hit;
      s3_gplen[g] = s3_ga.plen;
      // S4: the registered ones.
      s4_group   = s4_group_q[g];
      ep_best    = ep_best | ({udplb_pkg::UEpochHitBits{s4_gwin_q[g]}} & s4_group);
      for (int b = 0; b < 16; b++) g_slot[b] = (s4_q.p.slot_sel[b] ^ s4_group.sxor[b]) && 32'(s4_group.bits) > b;
      slot = slot | ({16{s4_gwin_q[g]}} & g_slot);
    end
    for (int g = 0; g < Grps; g++) begin
      for (int h = 0; h < Grps; h++) begin
        if (h != g) begin
          // "A longer prefix, or the same one and h < g" as one compare per pair (h < g is a constant here):
          // the equality beside the > compare was a level more in front of s4_gwin_d (13 stitched).
          if (h < g) s4_gbeat_d[g][h] = s3_ghit[h] && s3_gplen[h] >= s3_gplen[g];
          else       s4_gbeat_d[g][h] = s3_ghit[h] && s3_gplen[h] > s3_gplen[g];
        end
      end
      s4_gwin_d[g] = s3_ghit[g] && s4_gbeat_d[g] == '0;
    end
  end
  assign unused_s3_ga = ^{s3_ga.epoch, s3_ga.bits, s3_ga.sxor};

  // S5's compares registered a cycle early (issue 27 item 2, branch udt21: `s4_q` -> `s5_d` 13 levels, the
  // 128-bit ND target compare and the ARP / ICMP address compare in front of S5's verdict). The unicast
  // address S4 loads into s4_q.c.uc_ip is sa_ip, the destination and target are s3_q's, so S4 compares them
  // and registers the answers on the same advance as s4_q. S5 reads them only for a clean non-host frame,
  // the frames for which S4 loaded uc_ip = sa_ip (S4 changes neither the reason nor the kind). The epoch
  // hit is the OR of the groups' hits (some group hits iff one wins), registered from S3's. Asserted below.
  logic s4_ipmis_q, s4_ndmis_q, s4_ephit_q;

  // The calendar and member RAMs are read registered (udplb_tables): each address is presented the cycle
  // before the stage that uses the entry, from what that stage's register is loaded with. The calendar's is
  // S5's row and slot (what s5_q takes when the frame reaches S6 clean: S5's epoch branch is the only way a
  // clean forwarded frame leaves S5), the member's the calendar entry with S6's lb_id and IP version (what
  // s6_q takes when the frame reaches S7 clean). Frames that are not clean never use the entry read.
  assign cal_addr  = {map_row, slot[udplb_pkg::USlotBits-1:0]};
  assign mem_addr  = {s5_q.c.lb_id, s5_q.p.ethertype == 16'h86dd, cal_member[5:0]};

  // Takes the three fields, not the whole stage: a simulator copies a struct argument per call.
  function automatic logic first_ok(logic valid, logic sop, udplb_pkg::ureason_t reason);
    first_ok = valid && sop && reason == udplb_pkg::ureason_t'(nt_pkg::UdplbDropNone);
  endfunction

  // Each stage decides what its lookups decide while the frame is clean, in the order of docs/lb-udplb.md.
  always_comb begin
    // S2: IEEE 802 group; L2 interface.
    s2_d = s1_q;
    if (first_ok(s1_q.b.valid, s1_q.b.sop, s1_q.c.reason)) begin
      if (!s1_q.p.vlan && (s1_q.p.mac_da & 48'hffff_ffff_fff0) == 48'h0180_c200_0000) begin
        s2_d.c.kind = udplb_pkg::KindHost;
      end else begin
        s2_d.c.iface  = l2_iface;
        s2_d.c.uc_mac = l2_mac;
      end
    end
    // S3: MAC DA filter, IP, IP DA filter.
    s3_d = s2_q;
    if (first_ok(s2_q.b.valid, s2_q.b.sop, s2_q.c.reason) && s2_q.c.kind != udplb_pkg::KindHost) begin
      if (!md_hit) begin
        s3_d.c.reason = udplb_pkg::ureason_t'(nt_pkg::UdplbDropL2DstMiss);
      end else begin
        if (md_set) s3_d.c.uc_mac = md_mac;
        if (!s2_q.p.arp && !s2_q.p.ipv4 && !s2_q.p.ipv6) begin
          s3_d.c.reason = udplb_pkg::ureason_t'(nt_pkg::UdplbDropNotIp);
        end else if (!id_hit) begin
          s3_d.c.reason = udplb_pkg::ureason_t'(nt_pkg::UdplbDropL3DstMiss);
        end else begin
          s3_d.c.lb_id  = id_lb;
          s3_d.c.ip_idx = id_idx;
        end
      end
    end
    // S4: the instance's unicast address and source filter (the epoch groups register beside).
    s4_d = s3_q;
    if (first_ok(s3_q.b.valid, s3_q.b.sop, s3_q.c.reason) && s3_q.c.kind != udplb_pkg::KindHost) begin
      s4_d.c.uc_ip   = sa_ip;
      s4_d.c.src_hit = s3_q.p.ipv4 ? src4_hit : src6_hit;
    end
    // S5: the L3 replies and drops, then EJFAT up to the epoch and its calendar row.
    s5_d = s4_q;
    if (first_ok(s4_q.b.valid, s4_q.b.sop, s4_q.c.reason) && s4_q.c.kind != udplb_pkg::KindHost) begin
      if (s4_q.p.arp) begin
        if (s4_ipmis_q) s5_d.c.reason = udplb_pkg::ureason_t'(nt_pkg::UdplbDropArpMismatch);
        else s5_d.c.kind = udplb_pkg::KindReply;
      end else if (s4_q.p.icmp4) begin
        if (s4_q.p.icmp4_echo) begin
          if (s4_ipmis_q) s5_d.c.reason = udplb_pkg::ureason_t'(nt_pkg::UdplbDropIcmpMismatch);
          else s5_d.c.kind = udplb_pkg::KindReply;
        end else if (s4_q.p.icmp4_emb) begin
          s5_d.c.reason = udplb_pkg::ureason_t'(nt_pkg::UdplbDropIcmpDestUnreach);
        end else begin
          s5_d.c.reason = udplb_pkg::ureason_t'(nt_pkg::UdplbDropIcmpUnhandled);
        end
      end else if (s4_q.p.icmp6) begin
        if (s4_q.p.icmp6_echo) begin
          s5_d.c.kind = udplb_pkg::KindReply;
        end else if (s4_q.p.ns) begin
          if (s4_ndmis_q) s5_d.c.reason = udplb_pkg::ureason_t'(nt_pkg::UdplbDropNdMismatch);
          else s5_d.c.kind = udplb_pkg::KindReply;
        end else if (s4_q.p.icmp6_emb) begin
          s5_d.c.reason = udplb_pkg::ureason_t'(nt_pkg::UdplbDropIcmpDestUnreach);
        end else begin
          s5_d.c.reason = udplb_pkg::ureason_t'(nt_pkg::UdplbDropIcmpUnhandled);
        end
      end else begin  // UDP: the EJFAT stage
        s5_d.c.ejfat = 1'b1;
        if (!s4_q.c.src_hit) begin
          s5_d.c.reason = udplb_pkg::ureason_t'(nt_pkg::UdplbDropSrcBlocked);
        end else if (!s4_q.p.lb) begin
          s5_d.c.reason = udplb_pkg::ureason_t'(nt_pkg::UdplbDropNoLbHeader);
        end else begin
          s5_d.c.rx_v2 = !s4_q.p.lb_v3;
          s5_d.c.rx_v3 = s4_q.p.lb_v3;
          if (ttl_dec && s4_q.p.ttl <= 8'd1) begin
            s5_d.c.reason = udplb_pkg::ureason_t'(nt_pkg::UdplbDropTtlExpired);
          end else if (!s4_ephit_q) begin
            s5_d.c.reason = udplb_pkg::ureason_t'(nt_pkg::UdplbDropEpochMiss);
          end else begin
            s5_d.c.epoch   = ep_best.epoch;
            s5_d.c.slot    = slot;
            s5_d.c.row_hit = map_hit;
            s5_d.c.row     = map_row;
          end
        end
      end
    end
    // S6: calendar.
    s6_d = s5_q;
    if (first_ok(s5_q.b.valid, s5_q.b.sop, s5_q.c.reason) && s5_q.c.kind == udplb_pkg::KindForward) begin
      if (!s5_q.c.row_hit || s5_q.c.slot[15:udplb_pkg::USlotBits] != '0 || !cal_valid) begin
        s6_d.c.reason = udplb_pkg::ureason_t'(nt_pkg::UdplbDropCalendarMiss);
      end else begin
        s6_d.c.member = cal_member;
      end
    end
    // S7: member.
    s7_d = s6_q;
    if (first_ok(s6_q.b.valid, s6_q.b.sop, s6_q.c.reason) && s6_q.c.kind == udplb_pkg::KindForward) begin
      if ((s6_q.p.ethertype != 16'h0800 && s6_q.p.ethertype != 16'h86dd) || !mem_entry.valid ||
          mem_entry.tag != s6_q.c.member[15:6] || mem_entry.action == 2'd3) begin
        s7_d.c.reason = udplb_pkg::ureason_t'(nt_pkg::UdplbDropMemberMiss);
      end else if (mem_entry.action == 2'd1) begin
        s7_d.c.reason = udplb_pkg::ureason_t'(nt_pkg::UdplbDropMemberSoftEvicted);
      end else if (mem_entry.action == 2'd2) begin
        s7_d.c.reason = udplb_pkg::ureason_t'(nt_pkg::UdplbDropMemberDeregistered);
      end else begin
        s7_d.c.mem = mem_entry;
      end
    end
  end

  // ---- Beside S6 and S7: S8's checksum pairs and new L4 fields (udplb_hdr_sum), registered with s7_q ----
  // The header bytes of a frame: its first beat and the 48 bytes of its second (every byte S8 reads or
  // emits as parsed lies before byte 112).
  function automatic logic [8*udplb_pkg::UWindowBytes-1:0] stage_hw(logic [nt_pkg::StreamBits-1:0] data,
                                                                   logic [8*udplb_pkg::UNextBytes-1:0] next48,
                                                                   logic vlan);
    stage_hw = udplb_pkg::untag({{8*(udplb_pkg::UWindowBytes-nt_pkg::StreamBytes-udplb_pkg::UNextBytes){1'b0}},
                                 next48, data}, vlan);
  endfunction

  // Beside S6: the bytes after layer 4, by the one-hot of its offset (udplb_pkg::l4_window).
  logic [8*udplb_pkg::UWindowBytes-1:0] s6_hw, s7_hw;
  udplb_pkg::ul4_t                      s6_l4, s6_l4_q;
  udplb_pkg::uhpre_t                    s6_pre, s6_pre_q;
  udplb_pkg::usum_t                     s7_sum, s7_sum_q;
  assign s6_hw = stage_hw(s5_q.b.data, s5_q.b.next48, s5_q.p.vlan);
  assign s6_l4 = udplb_pkg::l4_window(s6_hw, s5_q.p.l4o);
  assign s7_hw = stage_hw(s6_q.b.data, s6_q.b.next48, s6_q.p.vlan);

  // Beside S6: each checksum's words that depend neither on the member entry nor on the bytes after layer 4,
  // as a pair per case (udplb_hdr_pre; branch udp25: S7's trees were 14 levels from s6_q). S6 changes only
  // the reason and the member, neither of which the checksums read, so s5_q's fields are s6_q's. Asserted
  // below (s6_pre_exact).
  udplb_hdr_pre u_pre (
    .p_i   (s5_q.p),
    .hw_i  (s6_hw),
    .c_i   (s5_q.c),
    .pre_o (s6_pre)
  );

  // The member entry as read (S7 takes it into s7_q.c.mem only for a clean forwarded frame, the only frame
  // whose S8 uses what depends on it).
  udplb_hdr_sum u_sum (
    .p_i   (s6_q.p),
    .hw_i  (s7_hw),
    .l4_i  (s6_l4_q),
    .c_i   (s6_q.c),
    .mem_i (mem_entry),
    .pre_i (s6_pre_q),
    .s_o   (s7_sum)
  );

  // ---- S8: output header bytes, checksums, verdict ----
  ufinal_t s8_d, s8_q;
  udplb_pkg::uout_t   hdr_out;

  logic [8*udplb_pkg::UWindowBytes-1:0] s8_hw;
  assign s8_hw = stage_hw(s7_q.b.data, s7_q.b.next48, s7_q.p.vlan);

  udplb_hdr_calc u_hdr (
    .p_i       (s7_q.p),
    .hw_i      (s8_hw),
    .c_i       (s7_q.c),
    .s_i       (s7_sum_q),
    .ttl_dec_i (ttl_dec),
    .port_i    (s7_q.b.port),
    .o_o       (hdr_out)
  );

  always_comb begin
    s8_d     = '0;
    s8_d.b   = s7_q.b;
    if (s7_q.b.valid && s7_q.b.sop) begin
      s8_d.o         = hdr_out;
      s8_d.n.reason  = s7_q.c.reason;
      s8_d.n.to_host = hdr_out.send && s7_q.c.kind == udplb_pkg::KindHost;
      s8_d.n.reply   = hdr_out.send && s7_q.c.kind == udplb_pkg::KindReply;
      s8_d.n.tx      = hdr_out.send && s7_q.c.kind == udplb_pkg::KindForward;
      s8_d.n.ejfat   = s7_q.c.ejfat;
      s8_d.n.rx_v2   = s7_q.c.rx_v2;
      s8_d.n.rx_v3   = s7_q.c.rx_v3;
      s8_d.n.lb_id   = s7_q.c.lb_id;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      s1_q       <= '0;
      s2_q       <= '0;
      s3_q       <= '0;
      s4_q       <= '0;
      s5_q       <= '0;
      s6_q       <= '0;
      s6_l4_q    <= '0;
      s6_pre_q   <= '0;
      s7_q       <= '0;
      s7_sum_q   <= '0;
      s8_q       <= '0;
      s4_group_q <= '0;
      s4_gwin_q  <= '0;
      s4_ipmis_q <= 1'b0;
      s4_ndmis_q <= 1'b0;
      s4_ephit_q <= 1'b0;
    end else if (adv) begin
      s1_q       <= s1_d;
      s2_q       <= s2_d;
      s3_q       <= s3_d;
      s4_q       <= s4_d;
      s4_group_q <= ep_group;
      s4_gwin_q  <= s4_gwin_d;
      s4_ipmis_q <= s3_q.p.ip_da[31:0] != sa_ip[31:0];
      s4_ndmis_q <= s3_q.p.nd_target != sa_ip;
      s4_ephit_q <= |s3_ghit;
      s5_q       <= s5_d;
      s6_q       <= s6_d;
      s6_l4_q    <= s6_l4;
      s6_pre_q   <= s6_pre;
      s7_q       <= s7_d;
      s7_sum_q   <= s7_sum;
      s8_q       <= s8_d;
`ifdef NT_MUTATE_UDPLB
    // a planted protocol bug (docs/assertions.md): the S8 beat changes while the pipeline is stalled
    end else if (s8_q.b.valid) begin
      s8_q.b.data <= ~s8_q.b.data;
`endif
    end
  end

  // ---- O: beat former, output register + skid ----
  udplb_pkg::uout_t                  ctx_q, ctx_use;
  logic [nt_pkg::StreamBits-1:0]  prev_q;
  logic [nt_pkg::StreamBytes-1:0] prev_keep_q;
  logic [1:0]             extra_idx_q;
  udplb_pkg::ubeat_t                 form_beat;
  logic                   form_valid, form_last, form_extra;
  logic [nt_pkg::StreamBits-1:0]  form_data;
  logic [nt_pkg::StreamBytes-1:0] form_keep;
  logic [3:0]             form_port;

  assign ctx_use = (s8_q.b.sop && !extra_q) ? s8_q.o : ctx_q;

  always_comb begin
    form_beat = s8_q.b;
    if (extra_q) begin
      form_beat       = '0;
      form_beat.valid = 1'b1;
      form_beat.keep  = prev_keep_q;
      form_beat.last  = 1'b1;
      form_beat.idx   = extra_idx_q;
    end
  end

  udplb_beat_former u_former (
    .beat_i  (form_beat),
    .prev_i  (prev_q),
    .extra_i (extra_q),
    .ctx_i   (ctx_use),
    .valid_o (form_valid),
    .data_o  (form_data),
    .keep_o  (form_keep),
    .last_o  (form_last),
    .port_o  (form_port),
    .extra_o (form_extra)
  );

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ctx_q       <= '0;
      prev_q      <= '0;
      prev_keep_q <= '0;
      extra_q     <= 1'b0;
      extra_idx_q <= '0;
    end else if (extra_q) begin
      if (in_ready) extra_q <= 1'b0;
    end else if (adv && s8_q.b.valid) begin
      if (s8_q.b.sop) ctx_q <= s8_q.o;
      prev_q      <= s8_q.b.data;
      prev_keep_q <= s8_q.b.keep;
      extra_q     <= form_extra;
      extra_idx_q <= s8_q.b.idx == 2'd2 ? 2'd2 : s8_q.b.idx + 2'd1;
    end
  end

  nt_skid_buffer #(
    .Width (nt_pkg::StreamBits + nt_pkg::StreamBytes + 1 + 4)
  ) u_out (
    `NT_CLK_RST_CONN,
    .in_valid_i  (form_valid),
    .in_data_i   ({form_port, form_last, form_keep, form_data}),
    .in_ready_o  (in_ready),
    .out_valid_o (m_valid_o),
    .out_data_o  ({m_port_o, m_last_o, m_keep_o, m_data_o}),
    .out_ready_i (m_ready_i)
  );

  // ---- Counters ----
  logic [nt_pkg::LbCounterBits-1:0] pkts_in_q, pkts_out_q, to_host_q, replies_q;
  logic [nt_pkg::UdplbDropReasons-1:0][nt_pkg::LbCounterBits-1:0] drops_q;
  logic [nt_pkg::UdplbInstances-1:0][nt_pkg::LbCounterBits-1:0]   rx_q, rx2_q, rx3_q, tx_q, idrop_q;
  logic count;

  assign count = adv && s8_q.b.valid && s8_q.b.sop;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pkts_in_q  <= '0;
      pkts_out_q <= '0;
      to_host_q  <= '0;
      replies_q  <= '0;
      drops_q    <= '0;
      rx_q       <= '0;
      rx2_q      <= '0;
      rx3_q      <= '0;
      tx_q       <= '0;
      idrop_q    <= '0;
    end else begin
      if (adv && s_valid_i && s_first) pkts_in_q <= pkts_in_q + 1'b1;
      if (m_valid_o && m_ready_i && m_last_o) pkts_out_q <= pkts_out_q + 1'b1;
      // Per-counter enables from the reason's and the instance's compares, each counter incremented at a
      // constant index (an indexed read-increment-write was a select and a shifter around the adder: 24
      // levels; issue 27 item 2). Reasons beyond the array are not counted, as the indexed write ignored them.
      if (count) begin
        for (int r = 0; r < nt_pkg::UdplbDropReasons; r++) begin
          if (r != nt_pkg::UdplbDropNone && 32'(s8_q.n.reason) == r) drops_q[r] <= drops_q[r] + 1'b1;
        end
        for (int i = 0; i < nt_pkg::UdplbInstances; i++) begin
          if (32'(s8_q.n.lb_id) == i) begin
            if (s8_q.n.reason >= udplb_pkg::ureason_t'(nt_pkg::UdplbDropArpMismatch)) idrop_q[i] <= idrop_q[i] + 1'b1;
            if (s8_q.n.ejfat) rx_q[i] <= rx_q[i] + 1'b1;
            if (s8_q.n.rx_v2) rx2_q[i] <= rx2_q[i] + 1'b1;
            if (s8_q.n.rx_v3) rx3_q[i] <= rx3_q[i] + 1'b1;
            if (s8_q.n.tx) tx_q[i] <= tx_q[i] + 1'b1;
          end
        end
        if (s8_q.n.to_host) to_host_q <= to_host_q + 1'b1;
        if (s8_q.n.reply) replies_q <= replies_q + 1'b1;
      end
    end
  end

  assign pkts_in_o    = pkts_in_q;
  assign pkts_out_o   = pkts_out_q;
  assign to_host_o    = to_host_q;
  assign replies_o    = replies_q;
  assign drops_o      = drops_q;
  assign inst_rx_o    = rx_q;
  assign inst_rx_v2_o = rx2_q;
  assign inst_rx_v3_o = rx3_q;
  assign inst_tx_o    = tx_q;
  assign inst_drops_o = idrop_q;

  logic unused_len;
  assign unused_len = ^window_len;  // the parser reads the window's keep, not its length

  // S5's registered compares equal the compares of s4_q's fields wherever S5 reads them (above).
  `NT_ASSERT(s5_ipmis, !(first_ok(s4_q.b.valid, s4_q.b.sop, s4_q.c.reason) && s4_q.c.kind != udplb_pkg::KindHost) ||
                       s4_ipmis_q == (s4_q.p.ip_da[31:0] != s4_q.c.uc_ip[31:0]))
  `NT_ASSERT(s5_ndmis, !(first_ok(s4_q.b.valid, s4_q.b.sop, s4_q.c.reason) && s4_q.c.kind != udplb_pkg::KindHost) ||
                       s4_ndmis_q == (s4_q.p.nd_target != s4_q.c.uc_ip))
  `NT_ASSERT(s5_ephit, s4_ephit_q == ep_best.hit)

`ifndef SYNTHESIS
  // The registered winner one-hot equals the winner of s4_group_q's answers (a group wins if it hits and no
  // hitting group has a longer prefix, or the same one and a lower index), every cycle.
  logic [Grps-1:0]        s4_gwin_now;
  udplb_pkg::uepoch_hit_t chk_g, chk_h;
  always_comb begin
    s4_gwin_now = '0;
    chk_g       = '0;
    chk_h       = '0;
    for (int g = 0; g < Grps; g++) begin
      chk_g          = s4_group_q[g];
      s4_gwin_now[g] = chk_g.hit;
      for (int h = 0; h < Grps; h++) begin
        chk_h = s4_group_q[h];
        if (h != g && chk_h.hit && (chk_h.plen > chk_g.plen || (chk_h.plen == chk_g.plen && h < g))) begin
          s4_gwin_now[g] = 1'b0;
        end
      end
    end
  end
  // The pairs registered beside s6_q equal those of s6_q's own fields for the first beat S7 holds (the only
  // beat whose sums S8 uses).
  logic unused_chk;
  assign unused_chk = ^{chk_g, chk_h};  // only hit and plen are read
  udplb_pkg::uhpre_t s7_pre_now;
  udplb_hdr_pre u_pre_chk (
    .p_i   (s6_q.p),
    .hw_i  (s7_hw),
    .c_i   (s6_q.c),
    .pre_o (s7_pre_now)
  );
`endif
  `NT_ASSERT(s4_gwin_exact, s4_gwin_q == s4_gwin_now)
  `NT_ASSERT(s6_pre_exact, !(s6_q.b.valid && s6_q.b.sop) || s6_pre_q == s7_pre_now)
endmodule
