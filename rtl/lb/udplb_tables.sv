// The udplb program's tables, their programming port and the settings register (docs/lb-udplb.md
// "Tables", docs/lb-microarchitecture.md "Programming port of udplb_top"). The CAM, TCAM and small RAM
// lookups are combinational reads of registered state, registered by the pipeline; the calendar and member
// RAMs are read registered (the address is presented the cycle before the entry is used, as a block RAM
// reads; rd_en_i holds the read while the pipeline stalls). A write is seen by lookups from the next cycle on.
//   l2_iface   17 x field_mask CAM on vid, lowest priority wins (ties to the lower index)
//   mac_dst    64 x CAM: iface field_mask, MAC DA exact; lowest priority wins
//   ip_dst     64 x CAM: iface field_mask, EtherType, ip_da exact; lowest priority wins; ip_sa RAM beside it
//   src4/src6  64 x exact CAMs (lb_id, source address)
//   epoch      128 x (lb_id exact, tick lpm); the first stage gives the longest prefix of each group of 16
//   epoch map  32 x (lb_id, epoch) -> calendar row, lowest row wins
//   calendar   16384 x member RAM addressed by {row, slot[8:0]}, read registered
//   member     1024 x rewrite RAM addressed by {lb_id, IPv6, member[5:0]}, member[15:6] as tag, read registered
`include "nt_ports.svh"
`include "nt_assert.svh"
module udplb_tables
(
  `NT_CLK_RST,
  // Programming port: one whole entry per write.
  `NT_CFG_IN_W(cfg, nt_pkg::UdplbCfgTableBits, nt_pkg::UdplbCfgIndexBits),
  output logic                         ttl_dec_o,
  // l2_iface_table (a miss gives iface 0, MAC 0).
  input  logic [11:0]                  l2_vid_i,
  output logic [3:0]                   l2_iface_o,
  output logic [47:0]                  l2_mac_o,
  // The lookup keys' next values (issue 27 item 2): look_en_i is set when the registers that hold the keys
  // (udplb_top's s2_q, s3_q) advance; each X_nx_i is then what X_i holds from the next cycle on. The key
  // compares of mac_dst, ip_dst, the source filters and the epoch TCAM are made with them a cycle early and
  // registered (the X_km_q flops below).
  input  logic                         look_en_i,
  input  logic [47:0]                  md_mac_nx_i,
  input  logic [15:0]                  id_type_nx_i,
  input  logic [127:0]                 id_ip_nx_i,
  input  logic [127:0]                 src_ip_nx_i,
  input  logic [63:0]                  ep_tick_nx_i,
  // mac_dst_filter_table.
  input  logic [3:0]                   md_iface_i,
  input  logic [47:0]                  md_mac_i,
  output logic                         md_hit_o,
  output logic                         md_set_o,
  output logic [47:0]                  md_mac_o,
  // ip_dst_filter_table.
  input  logic [3:0]                   id_iface_i,
  input  logic [15:0]                  id_type_i,
  input  logic [127:0]                 id_ip_i,
  output logic                         id_hit_o,
  output logic [udplb_pkg::UIdxBits-1:0]          id_idx_o,
  output logic [2:0]                   id_lb_o,
  // ip_sa RAM (the set_ip_sa parameter of each ip_dst entry).
  input  logic [udplb_pkg::UIdxBits-1:0]          sa_idx_i,
  output logic [127:0]                 sa_ip_o,
  // Source filters.
  input  logic [2:0]                   src_lb_i,
  input  logic [127:0]                 src_ip_i,
  output logic                         src4_hit_o,
  output logic                         src6_hit_o,
  // Epoch TCAM, first stage: one uepoch_hit_t per group.
  input  logic [2:0]                   ep_lb_i,
  input  logic [63:0]                  ep_tick_i,
  output logic [udplb_pkg::UEpochGroups-1:0][udplb_pkg::UEpochHitBits-1:0] ep_group_o,
  // Epoch map.
  input  logic [2:0]                   map_lb_i,
  input  logic [31:0]                  map_epoch_i,
  output logic                         map_hit_o,
  output logic [udplb_pkg::URowBits-1:0]          map_row_o,
  // Calendar and member RAM reads: the address registered while rd_en_i (the pipeline advances), the
  // entry out the next cycle.
  input  logic                         rd_en_i,
  // Calendar RAM.
  input  logic [udplb_pkg::URowBits+udplb_pkg::USlotBits-1:0] cal_addr_i,
  output logic                         cal_valid_o,
  output logic [15:0]                  cal_member_o,
  // Member RAM.
  input  logic [9:0]                   mem_addr_i,
  output udplb_pkg::umember_t                     mem_entry_o
);
  localparam int unsigned L2N = nt_pkg::UdplbL2IfaceEntries;
  localparam int unsigned MdN = nt_pkg::UdplbMacDstEntries;
  localparam int unsigned IdN = nt_pkg::UdplbIpDstEntries;
  localparam int unsigned SrcN = nt_pkg::UdplbSrcEntries;
  localparam int unsigned EpN = nt_pkg::UdplbEpochEntries;
  localparam int unsigned MapN = nt_pkg::UdplbEpochRows;
  localparam int unsigned CalN = nt_pkg::UdplbCalendarEntries;
  localparam int unsigned MemN = nt_pkg::UdplbMemberEntries;

  // One array per field (a simulator reads each as a native word; see lb_tables.sv). The CAM and TCAM
  // arrays are read at every index at once: (* mem2reg *) tells Yosys they are registers, not a memory
  // with one read port per index (docs/synthesis.md "One RTL source"); Verilator ignores the attribute.
  logic [L2N-1:0]  l2_valid_q;
  (* mem2reg *) logic [11:0]     l2_val_q [L2N];
  (* mem2reg *) logic [11:0]     l2_mask_q [L2N];
  (* mem2reg *) logic [15:0]     l2_prio_q [L2N];
  (* mem2reg *) logic [3:0]      l2_iface_q [L2N];
  (* mem2reg *) logic [47:0]     l2_mac_q [L2N];
  logic [MdN-1:0]  md_valid_q;
  (* mem2reg *) logic [3:0]      md_ival_q [MdN];
  (* mem2reg *) logic [3:0]      md_imask_q [MdN];
  (* mem2reg *) logic [15:0]     md_prio_q [MdN];
  (* mem2reg *) logic [47:0]     md_da_q [MdN];
  (* mem2reg *) logic            md_set_q [MdN];
  (* mem2reg *) logic [47:0]     md_mac_q [MdN];
  logic [IdN-1:0]  id_valid_q;
  (* mem2reg *) logic [3:0]      id_ival_q [IdN];
  (* mem2reg *) logic [3:0]      id_imask_q [IdN];
  (* mem2reg *) logic [15:0]     id_prio_q [IdN];
  (* mem2reg *) logic [15:0]     id_type_q [IdN];
  (* mem2reg *) logic [127:0]    id_ip_q [IdN];
  (* mem2reg *) logic [2:0]      id_lb_q [IdN];
  logic [127:0]    sa_q [IdN];
  logic [SrcN-1:0] s4_valid_q;
  (* mem2reg *) logic [2:0]      s4_lb_q [SrcN];
  (* mem2reg *) logic [31:0]     s4_ip_q [SrcN];
  logic [SrcN-1:0] s6_valid_q;
  (* mem2reg *) logic [2:0]      s6_lb_q [SrcN];
  (* mem2reg *) logic [127:0]    s6_ip_q [SrcN];
  logic [EpN-1:0]  ep_valid_q;
  (* mem2reg *) logic [2:0]      ep_lb_q [EpN];
  (* mem2reg *) logic [63:0]     ep_val_q [EpN];
  (* mem2reg *) logic [6:0]      ep_plen_q [EpN];
  (* mem2reg *) logic [63:0]     ep_mask_q [EpN];  // the prefix as a mask, derived at the write
  (* mem2reg *) logic [31:0]     ep_epoch_q [EpN];
  (* mem2reg *) logic [4:0]      ep_bits_q [EpN];
  (* mem2reg *) logic [15:0]     ep_xor_q [EpN];
  logic [MapN-1:0] map_valid_q;
  (* mem2reg *) logic [2:0]      map_lb_q [MapN];
  (* mem2reg *) logic [31:0]     map_epoch_q [MapN];
  logic [nt_pkg::UdplbCalendarSlots-1:0] cal_valid_q [nt_pkg::UdplbEpochRows];  // row, slot
  logic [15:0]     cal_mem_q [CalN];
  logic [MemN-1:0] mem_valid_q;
  logic [210:1]    mem_mem_q [MemN];  // cfg_data_i[210:1]
  logic            ttl_dec_q;

  function automatic logic wr(logic v, logic [nt_pkg::UdplbCfgTableBits-1:0] t, logic [nt_pkg::UdplbCfgIndexBits-1:0] i,
                              logic [3:0] id, int unsigned n);
    wr = v && t == id && 32'(i) < n;
  endfunction

  logic wr_l2, wr_md, wr_id, wr_sa, wr_s4, wr_s6, wr_ep, wr_map, wr_cal, wr_mem, wr_set;
  assign wr_l2  = wr(cfg_valid_i, cfg_table_i, cfg_index_i, 4'(nt_pkg::UdplbTblL2Iface), L2N);
  assign wr_md  = wr(cfg_valid_i, cfg_table_i, cfg_index_i, 4'(nt_pkg::UdplbTblMacDst), MdN);
  assign wr_id  = wr(cfg_valid_i, cfg_table_i, cfg_index_i, 4'(nt_pkg::UdplbTblIpDst), IdN);
  assign wr_sa  = wr(cfg_valid_i, cfg_table_i, cfg_index_i, 4'(nt_pkg::UdplbTblIpSa), IdN);
  assign wr_s4  = wr(cfg_valid_i, cfg_table_i, cfg_index_i, 4'(nt_pkg::UdplbTblSrc4), SrcN);
  assign wr_s6  = wr(cfg_valid_i, cfg_table_i, cfg_index_i, 4'(nt_pkg::UdplbTblSrc6), SrcN);
  assign wr_ep  = wr(cfg_valid_i, cfg_table_i, cfg_index_i, 4'(nt_pkg::UdplbTblEpoch), EpN);
  assign wr_map = wr(cfg_valid_i, cfg_table_i, cfg_index_i, 4'(nt_pkg::UdplbTblEpochMap), MapN);
  assign wr_cal = wr(cfg_valid_i, cfg_table_i, cfg_index_i, 4'(nt_pkg::UdplbTblCalendar), CalN);
  assign wr_mem = wr(cfg_valid_i, cfg_table_i, cfg_index_i, 4'(nt_pkg::UdplbTblMember), MemN);
  assign wr_set = wr(cfg_valid_i, cfg_table_i, cfg_index_i, 4'(nt_pkg::UdplbTblSettings), 1);

  logic [4:0]  i5;
  logic [5:0]  i6;
  logic [6:0]  i7;
  logic [63:0] plen_mask;
  assign i5 = cfg_index_i[4:0];
  assign i6 = cfg_index_i[5:0];
  assign i7 = cfg_index_i[6:0];
  // Prefix length 0..64 as a mask of its leading bits (a length above 64 counts as 64).
  assign plen_mask = cfg_data_i[74:68] >= 7'd64 ? '1 : ~({64{1'b1}} >> cfg_data_i[74:68]);

  // The written calendar slot and member entry, one-hot.
  logic [nt_pkg::UdplbCalendarSlots-1:0] cal_slot_oh;
  logic [MemN-1:0]                       mem_oh;
  assign cal_slot_oh = nt_pkg::UdplbCalendarSlots'(1) << cfg_index_i[8:0];
  assign mem_oh      = MemN'(1) << cfg_index_i[9:0];

  // Valid bits and the settings register: flops with reset.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      l2_valid_q  <= '0;
      md_valid_q  <= '0;
      id_valid_q  <= '0;
      s4_valid_q  <= '0;
      s6_valid_q  <= '0;
      ep_valid_q  <= '0;
      map_valid_q <= '0;
      for (int r = 0; r < nt_pkg::UdplbEpochRows; r++) cal_valid_q[r] <= '0;
      mem_valid_q <= '0;
      ttl_dec_q   <= 1'b1;
    end else begin
      if (wr_l2) l2_valid_q[i5] <= cfg_data_i[0];
      if (wr_md) md_valid_q[i6] <= cfg_data_i[0];
      if (wr_id) id_valid_q[i6] <= cfg_data_i[0];
      if (wr_s4) s4_valid_q[i6] <= cfg_data_i[0];
      if (wr_s6) s6_valid_q[i6] <= cfg_data_i[0];
      if (wr_ep) ep_valid_q[i7] <= cfg_data_i[0];
      if (wr_map) map_valid_q[i5] <= cfg_data_i[0];
      // Per-row enables and a one-hot of the bit (no shifter behind the row select; issue 27 item 2).
      for (int r = 0; r < nt_pkg::UdplbEpochRows; r++) begin
        if (wr_cal && 32'(cfg_index_i[13:9]) == r) begin
          cal_valid_q[r] <= (cal_valid_q[r] & ~cal_slot_oh) | ({nt_pkg::UdplbCalendarSlots{cfg_data_i[0]}} & cal_slot_oh);
        end
      end
      if (wr_mem) mem_valid_q <= (mem_valid_q & ~mem_oh) | ({MemN{cfg_data_i[0]}} & mem_oh);
      if (wr_set) ttl_dec_q <= cfg_data_i[0];
    end
  end

  // Entry payloads: no reset, only ever read behind the valid flops above.
  always_ff @(posedge clk_i) begin
    if (wr_l2) begin
      l2_val_q[i5]   <= cfg_data_i[12:1];
      l2_mask_q[i5]  <= cfg_data_i[24:13];
      l2_prio_q[i5]  <= cfg_data_i[40:25];
      l2_iface_q[i5] <= cfg_data_i[44:41];
      l2_mac_q[i5]   <= cfg_data_i[92:45];
    end
    if (wr_md) begin
      md_ival_q[i6]  <= cfg_data_i[4:1];
      md_imask_q[i6] <= cfg_data_i[8:5];
      md_prio_q[i6]  <= cfg_data_i[24:9];
      md_da_q[i6]    <= cfg_data_i[72:25];
      md_set_q[i6]   <= cfg_data_i[73];
      md_mac_q[i6]   <= cfg_data_i[121:74];
    end
    if (wr_id) begin
      id_ival_q[i6]  <= cfg_data_i[4:1];
      id_imask_q[i6] <= cfg_data_i[8:5];
      id_prio_q[i6]  <= cfg_data_i[24:9];
      id_type_q[i6]  <= cfg_data_i[40:25];
      id_ip_q[i6]    <= cfg_data_i[168:41];
      id_lb_q[i6]    <= cfg_data_i[171:169];
    end
    if (wr_sa) sa_q[i6] <= cfg_data_i[127:0];
    if (wr_s4) begin
      s4_lb_q[i6] <= cfg_data_i[3:1];
      s4_ip_q[i6] <= cfg_data_i[35:4];
    end
    if (wr_s6) begin
      s6_lb_q[i6] <= cfg_data_i[3:1];
      s6_ip_q[i6] <= cfg_data_i[131:4];
    end
    if (wr_ep) begin
      ep_lb_q[i7]    <= cfg_data_i[3:1];
      ep_val_q[i7]   <= cfg_data_i[67:4];
      ep_plen_q[i7]  <= cfg_data_i[74:68] > 7'd64 ? 7'd64 : cfg_data_i[74:68];
      ep_mask_q[i7]  <= plen_mask;
      ep_epoch_q[i7] <= cfg_data_i[106:75];
      ep_bits_q[i7]  <= cfg_data_i[111:107];
      ep_xor_q[i7]   <= cfg_data_i[127:112];
    end
    if (wr_map) begin
      map_lb_q[i5]    <= cfg_data_i[3:1];
      map_epoch_q[i5] <= cfg_data_i[35:4];
    end
    if (wr_cal) cal_mem_q[cfg_index_i] <= cfg_data_i[16:1];
    if (wr_mem) mem_mem_q[cfg_index_i[9:0]] <= cfg_data_i[210:1];
  end

  assign ttl_dec_o = ttl_dec_q;

  // ---- Key compares registered a cycle early (issue 27 item 2: <= 12 logic levels; branch udt21) ----
  // The wide exact compares of the searches (ip_dst's EtherType and address, 144 bits; mac_dst's MAC DA; the
  // source filters' addresses; the epoch TCAM's masked tick) were in front of the priority choice in the
  // lookup's cycle (ip_dst: 27 levels, `id_type_q` -> `id_lb_o`). Their keys are in the pipeline's register a
  // stage earlier (udplb_top: s2_q's are s1_q's fields, s3_q's are s2_q's), so each entry's compare is made
  // with the key the lookup will see next cycle (X_key: the _nx_ input when the key register advances, the
  // held key when it does not) and registered with the entry's valid bit: X_km_q[i] = entry i is valid and
  // its key field(s) equal the lookup's key, for the table as it is in that cycle. Exact in every cycle: a
  // table write in cycle t takes effect at t+1, when the compare registered at t is read, so for the written
  // entry the registered compare is made from the written value (cfg_data_i, one shared compare with the
  // key) and the written valid bit; every other entry's stored value does not change at t. Checked every
  // cycle of every simulation by the km_* assertions at the end (recomputed from the current table and key).
  // The fields compared with keys decided in the same stage (the iface masks with md/id_iface_i, the lb_id
  // with src_lb_i / ep_lb_i: S2's l2_iface and S3's ip_dst answer) stay in the lookup.
  // Every step below reads at most 6 signals and drives a (* keep *) wire (udt21's 7- to 9-input LUTs; see
  // udplb_prio_lookup): the keys (1); a stored entry's compare with the next key by threes of bits (1), by sixes (2), by
  // twos where needed (3), then the entry's next value: the held key's compare is the registered one unless
  // the entry is written (when the registers hold, neither the key nor the entry changes), the written
  // entry's compare with the key chosen by the entry's write enable. Written as continuous assignments in
  // generate loops (branch udt22): udt21 wrote the same steps with functions called in always_comb loops,
  // which Yosys's read_verilog took about seven times longer to elaborate (its AST inlines and unrolls every
  // call). One-dimensional kept vectors only (Yosys 0.55 could not size a 2-D array of a generate scope; see
  // lb_tables.sv). A kept wire is an output of the network Yosys hands to ABC, not a cut: ABC may still
  // recompute it inside a reader's wide LUT (docs/synthesis.md, branch udt22).
  (* keep *) logic [47:0]  md_key;
  (* keep *) logic [15:0]  id_tkey;
  (* keep *) logic [127:0] id_ikey, src_key;
  (* keep *) logic [63:0]  ep_key;
  assign md_key  = look_en_i ? md_mac_nx_i : md_mac_i;
  assign id_tkey = look_en_i ? id_type_nx_i : id_type_i;
  assign id_ikey = look_en_i ? id_ip_nx_i : id_ip_i;
  assign src_key = look_en_i ? src_ip_nx_i : src_ip_i;
  assign ep_key  = look_en_i ? ep_tick_nx_i : ep_tick_i;

  // Write enables per entry: the table and the index's high bits zero (as wr(): index < 64 / 128), then the
  // one-hot of the low bits.
  (* keep *) logic        cfg_hz0, cfg_hz1, cfg_hz2, wr6_md, wr6_id, wr6_s4, wr6_s6, wr7_ep;
  (* keep *) logic [63:0] cfg_dec6;
  (* keep *) logic [MdN-1:0] md_we;
  (* keep *) logic [IdN-1:0] id_we;
  (* keep *) logic [SrcN-1:0] s4_we, s6_we;
  (* keep *) logic [EpN-1:0]  ep_we;
  assign cfg_hz0 = cfg_index_i[13:8] == '0;
  assign cfg_hz1 = cfg_valid_i && cfg_index_i[7:6] == '0;
  assign cfg_hz2 = cfg_valid_i && !cfg_index_i[7];
  assign wr6_md  = cfg_hz0 && cfg_hz1 && cfg_table_i == 4'(nt_pkg::UdplbTblMacDst);
  assign wr6_id  = cfg_hz0 && cfg_hz1 && cfg_table_i == 4'(nt_pkg::UdplbTblIpDst);
  assign wr6_s4  = cfg_hz0 && cfg_hz1 && cfg_table_i == 4'(nt_pkg::UdplbTblSrc4);
  assign wr6_s6  = cfg_hz0 && cfg_hz1 && cfg_table_i == 4'(nt_pkg::UdplbTblSrc6);
  assign wr7_ep  = cfg_hz0 && cfg_hz2 && cfg_table_i == 4'(nt_pkg::UdplbTblEpoch);
  // (mac_dst, ip_dst and the source filters have 64 entries each: one decode of cfg_index_i[5:0].)
  for (genvar i = 0; i < 64; i++) begin : g_we
    assign cfg_dec6[i] = i6 == 6'(i);
    assign md_we[i]    = wr6_md && cfg_dec6[i];
    assign id_we[i]    = wr6_id && cfg_dec6[i];
    assign s4_we[i]    = wr6_s4 && cfg_dec6[i];
    assign s6_we[i]    = wr6_s6 && cfg_dec6[i];
  end
  for (genvar i = 0; i < EpN; i++) begin : g_ep_we
    assign ep_we[i] = wr7_ep && cfg_dec6[i%64] && cfg_index_i[6] == (i >= 64);
  end

  // The written entry's compare with the key (cfg_data_i's fields as the write stores them): by threes of
  // bits (wc1), by sixes (wc2), by threes or twos (wc3), with the written valid bit (wkm).
  (* keep *) logic [63:0] wr_plen_mask;
  (* keep *) logic        md_wkm, id_wkm, s4_wkm, s6_wkm, ep_wkm;
  assign wr_plen_mask = plen_mask;
  // mac_dst: 48 bits.
  (* keep *) logic [15:0] md_wc1;
  (* keep *) logic [2:0]  md_wc2;
  logic [47:0] md_wv;
  logic [17:0] md_wc1p;
  assign md_wv   = cfg_data_i[72:25];
  assign md_wc1p = {2'b11, md_wc1};
  for (genvar k = 0; k < 16; k++) begin : g_md_wc1
    assign md_wc1[k] = md_wv[3*k+:3] == md_key[3*k+:3];
  end
  for (genvar j = 0; j < 3; j++) begin : g_md_wc2
    assign md_wc2[j] = &md_wc1p[6*j+:6];
  end
  assign md_wkm = cfg_data_i[0] && &md_wc2;
  // ip_dst: EtherType and address, 144 bits.
  (* keep *) logic [47:0] id_wc1;
  (* keep *) logic [7:0]  id_wc2;
  (* keep *) logic [1:0]  id_wc3;
  logic [143:0] id_wv, id_wk;
  assign id_wv = {cfg_data_i[40:25], cfg_data_i[168:41]};
  assign id_wk = {id_tkey, id_ikey};
  for (genvar k = 0; k < 48; k++) begin : g_id_wc1
    assign id_wc1[k] = id_wv[3*k+:3] == id_wk[3*k+:3];
  end
  for (genvar j = 0; j < 8; j++) begin : g_id_wc2
    assign id_wc2[j] = &id_wc1[6*j+:6];
  end
  assign id_wc3 = {&id_wc2[7:4], &id_wc2[3:0]};
  assign id_wkm = cfg_data_i[0] && &id_wc3;
  // Source filter IPv4: 32 bits.
  (* keep *) logic [10:0] s4_wc1;
  (* keep *) logic [1:0]  s4_wc2;
  logic [32:0] s4_wv, s4_wk;
  assign s4_wv = {1'b0, cfg_data_i[35:4]};
  assign s4_wk = {1'b0, src_key[31:0]};
  for (genvar k = 0; k < 11; k++) begin : g_s4_wc1
    assign s4_wc1[k] = s4_wv[3*k+:3] == s4_wk[3*k+:3];
  end
  assign s4_wc2 = {&s4_wc1[10:6], &s4_wc1[5:0]};
  assign s4_wkm = cfg_data_i[0] && &s4_wc2;
  // Source filter IPv6: 128 bits.
  (* keep *) logic [42:0] s6_wc1;
  (* keep *) logic [7:0]  s6_wc2;
  (* keep *) logic [1:0]  s6_wc3;
  logic [128:0] s6_wv, s6_wk;
  logic [47:0]  s6_wc1p;
  assign s6_wv   = {1'b0, cfg_data_i[131:4]};
  assign s6_wk   = {1'b0, src_key};
  assign s6_wc1p = {5'h1f, s6_wc1};
  for (genvar k = 0; k < 43; k++) begin : g_s6_wc1
    assign s6_wc1[k] = s6_wv[3*k+:3] == s6_wk[3*k+:3];
  end
  for (genvar j = 0; j < 8; j++) begin : g_s6_wc2
    assign s6_wc2[j] = &s6_wc1p[6*j+:6];
  end
  assign s6_wc3 = {&s6_wc2[7:4], &s6_wc2[3:0]};
  assign s6_wkm = cfg_data_i[0] && &s6_wc3;
  // Epoch TCAM: the tick under the written prefix mask, 64 bits by twos.
  (* keep *) logic [31:0] ep_wc1;
  (* keep *) logic [5:0]  ep_wc2;
  (* keep *) logic [1:0]  ep_wc3;
  logic [63:0] ep_wv;
  logic [35:0] ep_wc1p;
  assign ep_wv   = cfg_data_i[67:4];
  assign ep_wc1p = {4'hf, ep_wc1};
  for (genvar k = 0; k < 32; k++) begin : g_ep_wc1
    assign ep_wc1[k] = ((ep_key[2*k+:2] ^ ep_wv[2*k+:2]) & wr_plen_mask[2*k+:2]) == '0;
  end
  for (genvar j = 0; j < 6; j++) begin : g_ep_wc2
    assign ep_wc2[j] = &ep_wc1p[6*j+:6];
  end
  assign ep_wc3 = {&ep_wc2[5:3], &ep_wc2[2:0]};
  assign ep_wkm = cfg_data_i[0] && &ep_wc3;

  // Each stored entry's compare with the next key (the same steps; held = the entry's next compare when not
  // written).
  logic [MdN-1:0]  md_km_d, md_km_q;
  logic [IdN-1:0]  id_km_d, id_km_q;
  logic [SrcN-1:0] s4_km_d, s4_km_q, s6_km_d, s6_km_q;
  logic [EpN-1:0]  ep_km_d, ep_km_q;
  (* keep *) logic [MdN-1:0]  md_held;
  (* keep *) logic [IdN-1:0]  id_held;
  (* keep *) logic [SrcN-1:0] s4_held, s6_held;
  (* keep *) logic [EpN-1:0]  ep_held;
  for (genvar i = 0; i < MdN; i++) begin : g_md_km
    (* keep *) logic [15:0] c1;
    (* keep *) logic [2:0]  c2;
    logic [47:0] ev;
    logic [17:0] c1p;
    assign ev  = md_da_q[i];
    assign c1p = {2'b11, c1};
    for (genvar k = 0; k < 16; k++) begin : g_k
      assign c1[k] = ev[3*k+:3] == md_mac_nx_i[3*k+:3];
    end
    for (genvar j = 0; j < 3; j++) begin : g_j
      assign c2[j] = &c1p[6*j+:6];
    end
    assign md_held[i] = look_en_i ? md_valid_q[i] && &c2 : md_km_q[i];
    assign md_km_d[i] = md_we[i] ? md_wkm : md_held[i];
  end
  for (genvar i = 0; i < IdN; i++) begin : g_id_km
    (* keep *) logic [47:0] c1;
    (* keep *) logic [7:0]  c2;
    (* keep *) logic [1:0]  c3;
    logic [143:0] ev, kv;
    assign ev = {id_type_q[i], id_ip_q[i]};
    assign kv = {id_type_nx_i, id_ip_nx_i};
    for (genvar k = 0; k < 48; k++) begin : g_k
      assign c1[k] = ev[3*k+:3] == kv[3*k+:3];
    end
    for (genvar j = 0; j < 8; j++) begin : g_j
      assign c2[j] = &c1[6*j+:6];
    end
    assign c3 = {&c2[7:4], &c2[3:0]};
    assign id_held[i] = look_en_i ? id_valid_q[i] && &c3 : id_km_q[i];
    assign id_km_d[i] = id_we[i] ? id_wkm : id_held[i];
  end
  for (genvar i = 0; i < SrcN; i++) begin : g_src_km
    (* keep *) logic [10:0] c41;
    (* keep *) logic [1:0]  c42;
    (* keep *) logic [42:0] c61;
    (* keep *) logic [7:0]  c62;
    (* keep *) logic [1:0]  c63;
    logic [32:0]  e4, k4;
    logic [128:0] e6, k6;
    logic [47:0]  c61p;
    assign e4   = {1'b0, s4_ip_q[i]};
    assign k4   = {1'b0, src_ip_nx_i[31:0]};
    assign e6   = {1'b0, s6_ip_q[i]};
    assign k6   = {1'b0, src_ip_nx_i};
    assign c61p = {5'h1f, c61};
    for (genvar k = 0; k < 11; k++) begin : g_k4
      assign c41[k] = e4[3*k+:3] == k4[3*k+:3];
    end
    assign c42 = {&c41[10:6], &c41[5:0]};
    for (genvar k = 0; k < 43; k++) begin : g_k6
      assign c61[k] = e6[3*k+:3] == k6[3*k+:3];
    end
    for (genvar j = 0; j < 8; j++) begin : g_j6
      assign c62[j] = &c61p[6*j+:6];
    end
    assign c63 = {&c62[7:4], &c62[3:0]};
    assign s4_held[i] = look_en_i ? s4_valid_q[i] && &c42 : s4_km_q[i];
    assign s4_km_d[i] = s4_we[i] ? s4_wkm : s4_held[i];
    assign s6_held[i] = look_en_i ? s6_valid_q[i] && &c63 : s6_km_q[i];
    assign s6_km_d[i] = s6_we[i] ? s6_wkm : s6_held[i];
  end
  for (genvar i = 0; i < EpN; i++) begin : g_ep_km
    (* keep *) logic [31:0] c1;
    (* keep *) logic [5:0]  c2;
    (* keep *) logic [1:0]  c3;
    logic [63:0] ev, mv;
    logic [35:0] c1p;
    assign ev  = ep_val_q[i];
    assign mv  = ep_mask_q[i];
    assign c1p = {4'hf, c1};
    for (genvar k = 0; k < 32; k++) begin : g_k
      assign c1[k] = ((ep_tick_nx_i[2*k+:2] ^ ev[2*k+:2]) & mv[2*k+:2]) == '0;
    end
    for (genvar j = 0; j < 6; j++) begin : g_j
      assign c2[j] = &c1p[6*j+:6];
    end
    assign c3 = {&c2[5:3], &c2[2:0]};
    assign ep_held[i] = look_en_i ? ep_valid_q[i] && &c3 : ep_km_q[i];
    assign ep_km_d[i] = ep_we[i] ? ep_wkm : ep_held[i];
  end
  // Reset with the valid flops (all entries invalid: every compare 0).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      md_km_q <= '0;
      id_km_q <= '0;
      s4_km_q <= '0;
      s6_km_q <= '0;
      ep_km_q <= '0;
    end else begin
      md_km_q <= md_km_d;
      id_km_q <= id_km_d;
      s4_km_q <= s4_km_d;
      s6_km_q <= s6_km_d;
      ep_km_q <= ep_km_d;
    end
  end

  // ---- Searches (issue 27 item 2: <= 12 logic levels; branch udt20) ----
  // The priority searches (l2_iface, mac_dst, ip_dst: the lowest priority among matching entries, ties to
  // the lower index; epoch groups: the longest prefix, ties to the lower index) were walks in index order
  // keeping a running best, a chain of N compares and multiplexers (367 levels for mac_dst). Which entry
  // beats which is a function of the table alone, so it is kept in registers and updated when an entry is
  // written (udplb_beat_matrix; as lb_tables' epoch TCAM does since branch lb17): bit c of X_beat[k] is set
  // when entry c beats entry k. A lookup is then AND/OR only: entry k wins if it matches and no matching
  // entry beats it (at most one wins: the order is total); the answer is the OR of the winner's fields. The
  // same answer as the walk (model/lb unchanged; no cycle added). Depth: the match, an N-input AND, an
  // N-input OR; the compares sit on the write path. A simulator runs the compares once per table write
  // instead of a chain on every lookup. The epoch's order is the longest prefix first: each group's matrix
  // orders the complemented prefix lengths (a longer prefix is a lower complement).
  logic [L2N-1:0][L2N-1:0] l2_beat;
  logic [MdN-1:0][MdN-1:0] md_beat;
  logic [IdN-1:0][IdN-1:0] id_beat;
  logic [udplb_pkg::UEpochGroups-1:0][nt_pkg::UdplbEpochGroup-1:0][nt_pkg::UdplbEpochGroup-1:0] ep_beat;
  logic [L2N*16-1:0] l2_prios;
  logic [MdN*16-1:0] md_prios;
  logic [IdN*16-1:0] id_prios;
  logic [EpN*7-1:0]  ep_nplens;  // complemented prefix lengths
  logic [6:0]        ep_wnplen;  // the written entry's, clamped to 64 as ep_plen_q is
  always_comb begin
    for (int i = 0; i < L2N; i++) l2_prios[16*i+:16] = l2_prio_q[i];
    for (int i = 0; i < MdN; i++) md_prios[16*i+:16] = md_prio_q[i];
    for (int i = 0; i < IdN; i++) id_prios[16*i+:16] = id_prio_q[i];
    for (int i = 0; i < EpN; i++) ep_nplens[7*i+:7] = ~ep_plen_q[i];
  end
  assign ep_wnplen = ~(cfg_data_i[74:68] > 7'd64 ? 7'd64 : cfg_data_i[74:68]);

  udplb_beat_matrix #(.N(L2N), .W(16)) u_l2_beat (
    .clk_i,
    .wr_i    (wr_l2),
    .idx_i   (i5),
    .prio_i  (cfg_data_i[40:25]),
    .prios_i (l2_prios),
    .beat_o  (l2_beat)
  );
  udplb_beat_matrix #(.N(MdN), .W(16)) u_md_beat (
    .clk_i,
    .wr_i    (wr_md),
    .idx_i   (i6),
    .prio_i  (cfg_data_i[24:9]),
    .prios_i (md_prios),
    .beat_o  (md_beat)
  );
  udplb_beat_matrix #(.N(IdN), .W(16)) u_id_beat (
    .clk_i,
    .wr_i    (wr_id),
    .idx_i   (i6),
    .prio_i  (cfg_data_i[24:9]),
    .prios_i (id_prios),
    .beat_o  (id_beat)
  );
  for (genvar g = 0; g < udplb_pkg::UEpochGroups; g++) begin : g_ep_beat
    udplb_beat_matrix #(.N(nt_pkg::UdplbEpochGroup), .W(7)) u_ep_beat (
      .clk_i,
      .wr_i    (wr_ep && 32'(i7[6:4]) == g),
      .idx_i   (i7[3:0]),
      .prio_i  (ep_wnplen),
      .prios_i (ep_nplens[7*nt_pkg::UdplbEpochGroup*g+:7*nt_pkg::UdplbEpochGroup]),
      .beat_o  (ep_beat[g])
    );
  end

  // l2_iface_table (a miss gives iface 0, MAC 0), in LUT6-sized steps on kept wires (as udt21 / udt22 wrote mac_dst): the
  // masked compare by twos of bits (1), by threes with the valid bit (2), the match (3), the beat row's AND
  // with the matches by threes (4), their OR (5), the winner (6), the fields' AND-OR by threes (7), the
  // output (8). (13 levels in udt21's first run.)
  localparam int unsigned L2G = (L2N + 2) / 3;  // groups of 3 entries
  localparam int unsigned L2C = 52;             // fields: iface in columns 0..3, MAC in 4..51
  (* keep *) logic [L2N-1:0] l2_match, l2_w2, l2_win;
  logic [3*L2G-1:0] l2_mp, l2_wp;
  logic [L2C*L2N-1:0] l2_colf;  // column c, entry i at c * L2N + i
  assign l2_mp = (3*L2G)'(l2_match);
  assign l2_wp = (3*L2G)'(l2_win);
  for (genvar i = 0; i < L2N; i++) begin : g_l2_e
    (* keep *) logic [5:0]     c1;
    (* keep *) logic [1:0]     c2;
    (* keep *) logic [L2G-1:0] w1;
    logic [11:0]      vv, mv;
    logic [L2C-1:0]   fv;
    logic [3*L2G-1:0] bp;
    assign vv = l2_val_q[i];
    assign mv = l2_mask_q[i];
    for (genvar k = 0; k < 6; k++) begin : g_k
      assign c1[k] = ((l2_vid_i[2*k+:2] ^ vv[2*k+:2]) & mv[2*k+:2]) == '0;
    end
    assign c2[0]       = l2_valid_q[i] && &c1[2:0];
    assign c2[1]       = &c1[5:3];
    assign l2_match[i] = &c2;
    assign bp = (3*L2G)'(l2_beat[i]);
    for (genvar k = 0; k < L2G; k++) begin : g_w
      assign w1[k] = |(bp[3*k+:3] & l2_mp[3*k+:3]);
    end
    assign l2_w2[i]  = |w1;
    assign l2_win[i] = l2_match[i] && !l2_w2[i];
    assign fv = {l2_mac_q[i], l2_iface_q[i]};
    for (genvar c = 0; c < L2C; c++) begin : g_c
      assign l2_colf[c*L2N+i] = fv[c];
    end
  end
  for (genvar c = 0; c < L2C; c++) begin : g_l2_f
    (* keep *) logic [L2G-1:0] f1;
    logic [3*L2G-1:0] cv;
    assign cv = (3*L2G)'(l2_colf[c*L2N+:L2N]);
    for (genvar k = 0; k < L2G; k++) begin : g_k
      assign f1[k] = |(l2_wp[3*k+:3] & cv[3*k+:3]);
    end
    if (c < 4) begin : g_iface
      assign l2_iface_o[c] = |f1;
    end else begin : g_mac
      assign l2_mac_o[c-4] = |f1;
    end
  end

  // mac_dst and ip_dst lookups: udplb_prio_lookup, one module for both (the match, the winner over the beat
  // matrix, the winner's fields by AND-OR, the hit), its tree steps in child modules so that the per-module
  // synthesis cuts the tree there (branch udt23; udt21 and udt22 wrote the same steps here on (* keep *)
  // wires, which ABC folded into 7- to 9-input LUTs: 17 and 19 levels). The fields are column-major vectors
  // (column c, entry i at c * N + i).
  localparam int unsigned IdB = udplb_pkg::UIdxBits;
  localparam int unsigned MdC = 49;       // mac_dst fields: MAC in columns 0..47, set in 48
  localparam int unsigned IdC = IdB + 3;  // ip_dst fields: the index in columns 0..IdB-1, lb above
  logic [4*MdN-1:0]   md_ivals, md_imasks;
  logic [MdC*MdN-1:0] md_colf;
  logic [MdC-1:0]     md_field;
  logic [4*IdN-1:0]   id_ivals, id_imasks;
  logic [IdC*IdN-1:0] id_colf;
  logic [IdC-1:0]     id_field;
  for (genvar i = 0; i < MdN; i++) begin : g_md_e
    logic [MdC-1:0] fv;
    assign md_ivals[4*i+:4]  = md_ival_q[i];
    assign md_imasks[4*i+:4] = md_imask_q[i];
    assign fv = {md_set_q[i], md_mac_q[i]};
    for (genvar c = 0; c < MdC; c++) begin : g_c
      assign md_colf[c*MdN+i] = fv[c];
    end
  end
  for (genvar i = 0; i < IdN; i++) begin : g_id_e
    logic [IdC-1:0] fv;
    assign id_ivals[4*i+:4]  = id_ival_q[i];
    assign id_imasks[4*i+:4] = id_imask_q[i];
    assign fv = {id_lb_q[i], IdB'(i)};
    for (genvar c = 0; c < IdC; c++) begin : g_c
      assign id_colf[c*IdN+i] = fv[c];
    end
  end
  udplb_prio_lookup #(.N(MdN), .C(MdC)) u_md_look (
    .km_i    (md_km_q),
    .iface_i (md_iface_i),
    .ival_i  (md_ivals),
    .imask_i (md_imasks),
    .beat_i  (md_beat),
    .col_i   (md_colf),
    .hit_o   (md_hit_o),
    .field_o (md_field)
  );
  assign md_mac_o = md_field[47:0];
  assign md_set_o = md_field[48];
  udplb_prio_lookup #(.N(IdN), .C(IdC)) u_id_look (
    .km_i    (id_km_q),
    .iface_i (id_iface_i),
    .ival_i  (id_ivals),
    .imask_i (id_imasks),
    .beat_i  (id_beat),
    .col_i   (id_colf),
    .hit_o   (id_hit_o),
    .field_o (id_field)
  );
  assign id_idx_o = id_field[IdB-1:0];
  assign id_lb_o  = id_field[IdC-1:IdB];

  assign sa_ip_o = sa_q[sa_idx_i];

  always_comb begin
    src4_hit_o = 1'b0;
    src6_hit_o = 1'b0;
    for (int i = 0; i < SrcN; i++) begin
      if (s4_km_q[i] && s4_lb_q[i] == src_lb_i) src4_hit_o = 1'b1;
      if (s6_km_q[i] && s6_lb_q[i] == src_lb_i) src6_hit_o = 1'b1;
    end
  end

  // Epoch TCAM, per group: the longest matching prefix, ties to the lower index (ep_beat above).
  // Each group's answer is built in ep_best and then stored whole: Yosys 0.55 cannot assign single
  // members of an array element (ep_group_o[g].hit), it infers a latch (docs/synthesis.md).
  udplb_pkg::uepoch_hit_t ep_best;
  logic [EpN-1:0]                     ep_match;
  logic [nt_pkg::UdplbEpochGroup-1:0] ep_win;
  always_comb begin
    ep_best = '0;
    ep_win  = '0;
    for (int i = 0; i < EpN; i++) begin
      ep_match[i] = ep_km_q[i] && ep_lb_q[i] == ep_lb_i;
    end
    for (int g = 0; g < udplb_pkg::UEpochGroups; g++) begin
      ep_best = '0;
      for (int j = 0; j < nt_pkg::UdplbEpochGroup; j++) begin
        ep_win[j] = ep_match[g*nt_pkg::UdplbEpochGroup+j] &&
                    (ep_beat[g][j] & ep_match[g*nt_pkg::UdplbEpochGroup+:nt_pkg::UdplbEpochGroup]) == '0;
        ep_best.plen  = ep_best.plen | ({7{ep_win[j]}} & ep_plen_q[g*nt_pkg::UdplbEpochGroup+j]);
        ep_best.epoch = ep_best.epoch | ({32{ep_win[j]}} & ep_epoch_q[g*nt_pkg::UdplbEpochGroup+j]);
        ep_best.bits  = ep_best.bits | ({5{ep_win[j]}} & ep_bits_q[g*nt_pkg::UdplbEpochGroup+j]);
        ep_best.sxor  = ep_best.sxor | ({16{ep_win[j]}} & ep_xor_q[g*nt_pkg::UdplbEpochGroup+j]);
      end
      ep_best.hit   = |ep_match[g*nt_pkg::UdplbEpochGroup+:nt_pkg::UdplbEpochGroup];
      ep_group_o[g] = ep_best;
    end
  end

  // Epoch map: the lowest matching row, the one with no match below it (a prefix OR; an OR of one-hot
  // terms rather than a chain of "not hit yet" multiplexers), in LUT6-sized steps on kept wires (19 levels
  // `map_epoch_i` -> `map_row_o` in udt21's first run): the compare of {valid, lb, epoch} by threes of bits
  // (1), by sixes (2), the match (3); the matches' OR by sixes (4); for row i the groups of six wholly below
  // it (5) and the rows below it in its own group (4); the first match (6); each row bit's OR of the first
  // matches by sixes (7), the output (8). The hit is the OR of the groups (5). Continuous assignments in
  // generate loops (branch udt22; 13 levels in udt21's run 2, <= 12 in udt22's run 1).
  localparam int unsigned MapG = (MapN + 5) / 6;
  (* keep *) logic [MapN-1:0] map_match, map_ga, map_gb, map_first;
  (* keep *) logic [MapG-1:0] map_grp;
  logic [35:0]       map_key;
  logic [6*MapG-1:0] map_mp;
  assign map_key = {1'b1, map_lb_i, map_epoch_i};
  assign map_mp  = (6*MapG)'(map_match);
  for (genvar i = 0; i < MapN; i++) begin : g_map_e
    (* keep *) logic [11:0] c1;
    (* keep *) logic [1:0]  c2;
    logic [35:0] ent;
    assign ent = {map_valid_q[i], map_lb_q[i], map_epoch_q[i]};
    for (genvar k = 0; k < 12; k++) begin : g_k
      assign c1[k] = ent[3*k+:3] == map_key[3*k+:3];
    end
    assign c2 = {&c1[11:6], &c1[5:0]};
    assign map_match[i] = &c2;
    // The groups of six wholly below row i, and the rows below it in its own group (none for the first of a
    // group: a constant 0).
    if (i >= 6) begin : g_ga
      assign map_ga[i] = |map_grp[i/6-1:0];
    end else begin : g_ga0
      assign map_ga[i] = 1'b0;
    end
    if (i % 6 != 0) begin : g_gb
      assign map_gb[i] = |map_match[i-1:6*(i/6)];
    end else begin : g_gb0
      assign map_gb[i] = 1'b0;
    end
    assign map_first[i] = map_match[i] && !map_ga[i] && !map_gb[i];
  end
  for (genvar j = 0; j < MapG; j++) begin : g_map_grp
    assign map_grp[j] = |map_mp[6*j+:6];
  end
  // Row bit b: the 16 rows with bit b set (row r of them: r with a 1 inserted at bit b), by sixes.
  for (genvar b = 0; b < udplb_pkg::URowBits; b++) begin : g_map_r
    (* keep *) logic [2:0] r1;
    logic [17:0] sel;
    for (genvar r = 0; r < MapN / 2; r++) begin : g_r
      assign sel[r] = map_first[((r >> b) << (b + 1)) | (1 << b) | (r & ((1 << b) - 1))];
    end
    assign sel[17:MapN/2] = '0;
    for (genvar k = 0; k < 3; k++) begin : g_k
      assign r1[k] = |sel[6*k+:6];
    end
    assign map_row_o[b] = |r1;
  end
  assign map_hit_o = |map_grp;
  logic unused_map_first0;
  assign unused_map_first0 = map_first[0];  // row 0 sets no row bit

  // Registered reads (block RAM: the read data register is the RAM's own output register; issue 27 item 3).
  // The valid bits are flops with reset, read through registers of their own on the same cycle. A 16,384-way
  // (calendar) or 1,024-way (member) read in front of one register was a LUT + MUXF7/8 tree of 12+ levels
  // (lb_tables' 1,024-way read measured 13 in lb17), so only the low address bits are read before the
  // register: every candidate the high bits can choose (each calendar row's 4 slots of a quarter, 128; the
  // member's 8) is registered, 128-way each, with the high address bits beside, which choose the candidate
  // after the register (branch udt21). The same bit as the single register held: both are loaded on rd_en_i
  // from the same flops and address.
  localparam int unsigned CalVC = nt_pkg::UdplbEpochRows * 4;  // calendar candidates: {row, slot[8:7]}
  localparam int unsigned MemVC = 8;                           // member candidates: addr[9:7]
  logic [15:0]              cal_word_q;
  logic [210:1]             mem_word_q;
  logic [CalVC-1:0]         cal_vc_d, cal_vc_q;
  logic [$clog2(CalVC)-1:0] cal_vsel_q;
  logic [MemVC-1:0]         mem_vc_d, mem_vc_q;
  logic [2:0]               mem_vsel_q;
  for (genvar r = 0; r < nt_pkg::UdplbEpochRows; r++) begin : g_cal_vc
    for (genvar h = 0; h < 4; h++) begin : g_h
      logic [127:0] vq;  // a candidate's 128 bits, taken at constant positions (no shifter)
      assign vq = cal_valid_q[r][128*h+:128];
      assign cal_vc_d[4*r+h] = vq[cal_addr_i[6:0]];
    end
  end
  for (genvar h = 0; h < MemVC; h++) begin : g_mem_vc
    logic [127:0] vq;
    assign vq = mem_valid_q[128*h+:128];
    assign mem_vc_d[h] = vq[mem_addr_i[6:0]];
  end
  always_ff @(posedge clk_i) begin
    if (rd_en_i) begin
      cal_word_q <= cal_mem_q[cal_addr_i];
      mem_word_q <= mem_mem_q[mem_addr_i];
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cal_vc_q   <= '0;
      cal_vsel_q <= '0;
      mem_vc_q   <= '0;
      mem_vsel_q <= '0;
    end else if (rd_en_i) begin
      cal_vc_q   <= cal_vc_d;
      cal_vsel_q <= cal_addr_i[13:7];
      mem_vc_q   <= mem_vc_d;
      mem_vsel_q <= mem_addr_i[9:7];
    end
  end
  assign cal_valid_o  = cal_vc_q[cal_vsel_q];
  assign cal_member_o = cal_word_q;
  assign mem_entry_o.valid     = mem_vc_q[mem_vsel_q];
  assign mem_entry_o.action    = mem_word_q[2:1];
  assign mem_entry_o.tag       = mem_word_q[12:3];
  assign mem_entry_o.mac       = mem_word_q[60:13];
  assign mem_entry_o.ip        = mem_word_q[188:61];
  assign mem_entry_o.udp_base  = mem_word_q[204:189];
  assign mem_entry_o.port_bits = mem_word_q[209:205];
  assign mem_entry_o.keep      = mem_word_q[210];

  logic unused_cfg;
  assign unused_cfg = ^cfg_data_i[nt_pkg::CfgDataBits-1:211];

  `NT_ASSERT(ep_hit_bits, $bits(udplb_pkg::uepoch_hit_t) == udplb_pkg::UEpochHitBits)

`ifndef SYNTHESIS
  // The registered key compares equal the compares of the current table with the current keys, every cycle
  // (the write bypass above; a lookup reads X_km_q as the old code read the compare).
  logic [MdN-1:0]  md_km_now;
  logic [IdN-1:0]  id_km_now;
  logic [SrcN-1:0] s4_km_now, s6_km_now;
  logic [EpN-1:0]  ep_km_now;
  always_comb begin
    for (int i = 0; i < MdN; i++) md_km_now[i] = md_valid_q[i] && md_da_q[i] == md_mac_i;
    for (int i = 0; i < IdN; i++) id_km_now[i] = id_valid_q[i] && id_type_q[i] == id_type_i && id_ip_q[i] == id_ip_i;
    for (int i = 0; i < SrcN; i++) begin
      s4_km_now[i] = s4_valid_q[i] && s4_ip_q[i] == src_ip_i[31:0];
      s6_km_now[i] = s6_valid_q[i] && s6_ip_q[i] == src_ip_i;
    end
    for (int i = 0; i < EpN; i++) ep_km_now[i] = ep_valid_q[i] && ((ep_tick_i ^ ep_val_q[i]) & ep_mask_q[i]) == '0;
  end
  `NT_ASSERT(km_md, md_km_q == md_km_now)
  `NT_ASSERT(km_id, id_km_q == id_km_now)
  `NT_ASSERT(km_s4, s4_km_q == s4_km_now)
  `NT_ASSERT(km_s6, s6_km_q == s6_km_now)
  `NT_ASSERT(km_ep, ep_km_q == ep_km_now)
`endif
endmodule
