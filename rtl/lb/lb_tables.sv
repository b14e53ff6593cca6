// The load balancer's tables and their programming port. The filter CAM and the epoch TCAM are searched in
// two steps: every entry's match against the key is registered (flt_match_q, ep_match_q, loaded while
// rd_en_i, the pipeline advances), and the selection among the matching entries (lowest index; per group
// lowest priority) is a combinational read of those registers and of the table the next cycle, registered
// by the pipeline (issue 27: the compares and the selection in one cycle were 18-20 logic levels). The epoch
// map lookup is a combinational read of registered state; the calendar and member RAMs are read registered
// (the address one cycle, the entry the next, as a block RAM reads; rd_en_i holds the read while the pipeline
// stalls). A write is seen by lookups from the next cycle on: a search's matches are those of the table
// before the write of the cycle it is in S1, its selection reads the table of the next cycle (the cycle
// model does the same, model/lb/lb_cycle_model.cc).
// The filter CAM and the epoch TCAM are searched only while lookup_i (a clean first beat is in S1) and
// answer no hit otherwise: one search per frame, not one per beat (a simulator skips the loops).
//   filter  32 x exact CAM (MAC DA, EtherType, IP dst, UDP dst port), lowest index wins
//   epoch   128 x ternary with 16-bit priority; first stage reduces groups of LbEpochGroup entries
//   map     4 x epoch -> calendar row
//   cal     4 rows x 512 x (drop, member id) RAM, each row its own RAM, all four read at one slot registered,
//           the row chosen after the read register; valid bits in flops so reset clears the table
//   member  1024 x rewrite RAM, read registered, direct-mapped by {IPv6, member id[8:0]} with id[15:9] as tag
`include "nt_ports.svh"
module lb_tables
(
  `NT_CLK_RST,
  // Programming port: one whole entry per write.
  `NT_CFG_IN(cfg),
  // Filter CAM and epoch TCAM search enable.
  input  logic                    lookup_i,
  // Filter CAM.
  input  logic [47:0]             flt_mac_i,
  input  logic [15:0]             flt_ethertype_i,
  input  logic [127:0]            flt_ip_i,
  input  logic [15:0]             flt_port_i,
  output logic                    flt_hit_o,
  output logic                    flt_drop_o,
  // Epoch TCAM, first stage: best entry of each group.
  input  logic [63:0]             ep_tick_i,
  // (One vector per field: Yosys 0.55 reads a packed array of structs as one element; lb_pkg.)
  output logic [lb_pkg::EpochGroups-1:0]        ep_hit_o,
  output logic [lb_pkg::EpochGroups-1:0]        ep_drop_o,
  output logic [lb_pkg::EpochGroups-1:0][nt_pkg::LbEpochPrioBits-1:0] ep_prio_o,
  output logic [lb_pkg::EpochGroups-1:0][31:0]  ep_epoch_o,
  // Calendar epoch map, looked up for every group's epoch at once while map_lookup_i (lb_top keeps the
  // winner's row: the map's compares then run beside the second TCAM stage, not after it).
  input  logic                    map_lookup_i,
  input  logic [lb_pkg::EpochGroups-1:0][31:0] map_epoch_i,
  output logic [lb_pkg::EpochGroups-1:0]       map_hit_o,
  output logic [lb_pkg::EpochGroups-1:0][1:0]  map_row_o,
  // Calendar and member RAM reads: registered while rd_en_i (the pipeline advances).
  input  logic                    rd_en_i,
  // Calendar RAM: all four rows read at cal_slot_i (registered), cal_row_i picks one of the read words.
  input  logic [$clog2(nt_pkg::LbCalendarSlots)-1:0] cal_slot_i,
  input  logic [1:0]                      cal_row_i,
  output lb_pkg::cal_entry_t              cal_entry_o,
  // Member RAM.
  input  logic [9:0]              mem_addr_i,
  output lb_pkg::member_entry_t           mem_entry_o
);
  // One array per field rather than arrays of packed structs: the same flops, but a simulator then reads
  // each field as a native word instead of shifting it out of a wide vector, for every entry every cycle
  // (the CAM and TCAM searches dominated Verilator's time per cycle; docs/PERF.md).
  // The CAM, TCAM and epoch map arrays are read at every entry at once, so they are registers, not memories:
  // (* mem2reg *) tells Yosys so (it would otherwise infer a $mem_v2 with 192-276 read ports and time out
  // building their multiplexers; docs/synthesis.md). Verilator ignores the attribute and keeps the unpacked
  // arrays, whose variable-index writes it updates one element at a time.
  logic [nt_pkg::LbFilterEntries-1:0]   flt_valid_q;
  (* mem2reg *) logic           flt_drop_q [nt_pkg::LbFilterEntries];
  (* mem2reg *) logic [47:0]    flt_mac_q [nt_pkg::LbFilterEntries];
  (* mem2reg *) logic [15:0]    flt_type_q [nt_pkg::LbFilterEntries];
  (* mem2reg *) logic [127:0]   flt_ip_q [nt_pkg::LbFilterEntries];
  (* mem2reg *) logic [15:0]    flt_port_q [nt_pkg::LbFilterEntries];
  logic [nt_pkg::LbEpochEntries-1:0]    ep_valid_q;
  (* mem2reg *) logic           ep_drop_q [nt_pkg::LbEpochEntries];
  (* mem2reg *) logic [63:0]    ep_value_q [nt_pkg::LbEpochEntries];
  (* mem2reg *) logic [63:0]    ep_mask_q [nt_pkg::LbEpochEntries];
  (* mem2reg *) logic [nt_pkg::LbEpochPrioBits-1:0] ep_prio_q [nt_pkg::LbEpochEntries];
  (* mem2reg *) logic [31:0]    ep_epoch_q [nt_pkg::LbEpochEntries];
  logic [nt_pkg::LbCalendarEpochs-1:0]  map_valid_q;
  (* mem2reg *) logic [31:0]    map_epoch_q [nt_pkg::LbCalendarEpochs];
  localparam int unsigned SlotBits = $clog2(nt_pkg::LbCalendarSlots);
  logic [nt_pkg::LbCalendarEntries-1:0] cal_valid_q;
  logic [nt_pkg::LbMemberEntries-1:0]   mem_valid_q;
  logic [199:0]                 mem_mem_q [nt_pkg::LbMemberEntries];  // cfg_data_i[200:1]

  logic wr_flt, wr_ep, wr_map, wr_cal, wr_mem;
  assign wr_flt = cfg_valid_i && cfg_table_i == nt_pkg::CfgTableBits'(nt_pkg::LbTblFilter) &&
                  32'(cfg_index_i) < nt_pkg::LbFilterEntries;
  assign wr_ep  = cfg_valid_i && cfg_table_i == nt_pkg::CfgTableBits'(nt_pkg::LbTblEpoch) &&
                  32'(cfg_index_i) < nt_pkg::LbEpochEntries;
  assign wr_map = cfg_valid_i && cfg_table_i == nt_pkg::CfgTableBits'(nt_pkg::LbTblEpochMap) &&
                  32'(cfg_index_i) < nt_pkg::LbCalendarEpochs;
  assign wr_cal = cfg_valid_i && cfg_table_i == nt_pkg::CfgTableBits'(nt_pkg::LbTblCalendar) &&
                  32'(cfg_index_i) < nt_pkg::LbCalendarEntries;
  assign wr_mem = cfg_valid_i && cfg_table_i == nt_pkg::CfgTableBits'(nt_pkg::LbTblMember) &&
                  32'(cfg_index_i) < nt_pkg::LbMemberEntries;

  // Flop-based tables and valid bits (reset clears every table).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      flt_valid_q <= '0;
      ep_valid_q  <= '0;
      map_valid_q <= '0;
      cal_valid_q <= '0;
      mem_valid_q <= '0;
    end else begin
      if (wr_flt) flt_valid_q[cfg_index_i[4:0]] <= cfg_data_i[0];
      if (wr_ep) ep_valid_q[cfg_index_i[6:0]] <= cfg_data_i[0];
      if (wr_map) map_valid_q[cfg_index_i[1:0]] <= cfg_data_i[0];
      if (wr_cal) cal_valid_q[cfg_index_i] <= cfg_data_i[0];
      if (wr_mem) mem_valid_q[cfg_index_i[9:0]] <= cfg_data_i[0];
    end
  end

  // Entry payloads: no reset, only ever read behind the valid flops above.
  always_ff @(posedge clk_i) begin
    if (wr_flt) begin
      flt_drop_q[cfg_index_i[4:0]] <= cfg_data_i[1];
      flt_mac_q[cfg_index_i[4:0]]  <= cfg_data_i[49:2];
      flt_type_q[cfg_index_i[4:0]] <= cfg_data_i[65:50];
      flt_ip_q[cfg_index_i[4:0]]   <= cfg_data_i[193:66];
      flt_port_q[cfg_index_i[4:0]] <= cfg_data_i[209:194];
    end
    if (wr_ep) begin
      ep_drop_q[cfg_index_i[6:0]]  <= cfg_data_i[1];
      ep_value_q[cfg_index_i[6:0]] <= cfg_data_i[65:2];
      ep_mask_q[cfg_index_i[6:0]]  <= cfg_data_i[129:66];
      ep_prio_q[cfg_index_i[6:0]]  <= cfg_data_i[145:130];
      ep_epoch_q[cfg_index_i[6:0]] <= cfg_data_i[177:146];
    end
    if (wr_map) map_epoch_q[cfg_index_i[1:0]] <= cfg_data_i[32:1];
    if (wr_mem) mem_mem_q[cfg_index_i[9:0]] <= cfg_data_i[200:1];
  end

  // The searches' registers: each entry's match, and whether a search was made (the selections below are
  // evaluated only then, so a simulator skips their loops on every other cycle).
  logic [nt_pkg::LbFilterEntries-1:0] flt_match, flt_match_q;
  logic [nt_pkg::LbEpochEntries-1:0]  ep_match, ep_match_q;
  logic                               look_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      flt_match_q <= '0;
      ep_match_q  <= '0;
      look_q      <= 1'b0;
    end else if (rd_en_i) begin
      flt_match_q <= flt_match;
      ep_match_q  <= ep_match;
      look_q      <= lookup_i;
    end
  end

  // Filter: lowest-index exact match. Every entry is compared at once and registered (flt_match_q); the next
  // cycle, the lowest matching one is the one with no match below it (a prefix OR), so the verdict is an OR
  // of one-hot terms rather than a 32-deep chain of "not hit yet" multiplexers (issue 27: <= 12 levels).
  logic flt_below;  // an entry below i matches
  // Each entry's 208-bit compare in LUT6-sized steps on kept wires (branch udt21; `flt_ip_i` -> `flt_match` 13
  // in its first run, ABC's wide LUTs): by threes of bits (1), by sixes (2), by twos (3), the match (4).
  logic [209:0] flt_key;
  assign flt_key = {2'b0, flt_mac_i, flt_ethertype_i, flt_ip_i, flt_port_i};
  for (genvar i = 0; i < nt_pkg::LbFilterEntries; i++) begin : g_flt
    (* keep *) logic [71:0] c1;
    (* keep *) logic [11:0] c2;
    (* keep *) logic [1:0]  c3;
    logic [209:0] ent;
    assign ent = {2'b0, flt_mac_q[i], flt_type_q[i], flt_ip_q[i], flt_port_q[i]};
    for (genvar k = 0; k < 70; k++) begin : g_k
      assign c1[k] = ent[3*k+:3] == flt_key[3*k+:3];
    end
    assign c1[71:70] = '1;
    for (genvar j = 0; j < 12; j++) begin : g_j
      assign c2[j] = &c1[6*j+:6];
    end
    assign c3 = {&c2[11:6], &c2[5:0]};
    assign flt_match[i] = lookup_i && flt_valid_q[i] && &c3;
  end
  always_comb begin
    flt_hit_o  = 1'b0;
    flt_drop_o = 1'b0;
    flt_below  = 1'b0;
    if (look_q) begin
      flt_hit_o = |flt_match_q;
      for (int i = 0; i < nt_pkg::LbFilterEntries; i++) begin
        flt_drop_o = flt_drop_o | (flt_match_q[i] && !flt_below && flt_drop_q[i]);
        flt_below  = flt_below | flt_match_q[i];
      end
    end
  end

  // Epoch TCAM: per group, the lowest priority among matching entries; ties to the lower index. Which entry
  // of a group beats which is a function of the table alone, so it is kept in registers and updated when an
  // entry is written: ep_beat_q[g][j] has bit k set when entry k of group g beats its entry j (a lower
  // priority, or the same one and a lower index). A write of entry w (group g, position p, priority P)
  // compares P with every entry's priority (the 16 of group g are used) and rewrites row p and bit p of
  // every other row of g. A pair's bit is rewritten by every write of either entry, so it always holds the
  // order of the current priorities (a row is read only for a matching, so valid, so written entry; bit j
  // of row j is 0 from the entry's write on). A lookup is then AND/OR only: entry j wins if it matches and no
  // matching entry of its group beats it; the group's answer is the OR of the winner's fields (at most one
  // wins). Depth: the ternary match (registered, ep_match_q), then a 16-input AND, a 16-input OR, no compare
  // (issue 27: <= 12 levels); the compares sit on
  // the write path (cfg port -> ep_beat_q). The same answer as a walk in index order keeping the first of the
  // lowest priority (model/lb/lb_tables.cc EpochGroups). A simulator runs the compares once per table write
  // instead of all 960 on every lookup (docs/PERF.md "LB lockstep speed").
  localparam int unsigned Grp = nt_pkg::LbEpochGroup;
  localparam int unsigned GrpBits = $clog2(Grp);
  localparam int unsigned PrioBits = nt_pkg::LbEpochPrioBits;
  // No reset: a row is read only behind its entry's valid flop.
  (* mem2reg *) logic [Grp-1:0][Grp-1:0] ep_beat_q [lb_pkg::EpochGroups];
  logic [Grp-1:0][Grp-1:0]     ep_beat_old, ep_beat_nxt;  // the written group's rows, before and after
  logic [nt_pkg::LbEpochEntries-1:0] wr_lt_all, wr_eq_all;  // entry i: priority <, == the written one
  logic [Grp-1:0]              wr_lt, wr_eq;  // entry k of the written group: priority <, == the written one
  logic [PrioBits-1:0]         wr_prio;
  logic [GrpBits-1:0]          wr_pos;
  logic [lb_pkg::EpochGroups-1:0] wr_grp;     // one-hot
  assign wr_prio = cfg_data_i[145:130];
  assign wr_pos  = cfg_index_i[GrpBits-1:0];
  always_comb begin
    wr_grp      = '0;
    wr_lt_all   = '0;
    wr_eq_all   = '0;
    wr_lt       = '0;
    wr_eq       = '0;
    ep_beat_old = '0;
    ep_beat_nxt = '0;
    if (wr_ep) begin
      // The written priority is compared with every entry's at once, and the written group's answers (and
      // rows) selected afterwards by an OR of one-hot terms: the group select is then beside the compares,
      // not in front of them (the select, then the compares, were 13 levels from cfg_index_i; issue 27).
      for (int i = 0; i < nt_pkg::LbEpochEntries; i++) begin
        wr_lt_all[i] = ep_prio_q[i] < wr_prio;
        wr_eq_all[i] = ep_prio_q[i] == wr_prio;
      end
      for (int g = 0; g < lb_pkg::EpochGroups; g++) begin
        wr_grp[g] = 32'(cfg_index_i[6:GrpBits]) == g;
        ep_beat_old = ep_beat_old | ({Grp*Grp{wr_grp[g]}} & ep_beat_q[g]);
        wr_lt = wr_lt | ({Grp{wr_grp[g]}} & wr_lt_all[g*Grp+:Grp]);
        wr_eq = wr_eq | ({Grp{wr_grp[g]}} & wr_eq_all[g*Grp+:Grp]);
      end
      for (int k = 0; k < Grp; k++) begin
        for (int c = 0; c < Grp; c++) begin
          if (32'(wr_pos) == k) begin
            // Entry c beats the written entry: a lower priority, or the same one and a lower position.
            ep_beat_nxt[k][c] = 32'(wr_pos) != c && (wr_lt[c] || (wr_eq[c] && c < k));
          end else if (32'(wr_pos) == c) begin
            // The written entry beats entry k.
            ep_beat_nxt[k][c] = !wr_lt[k] && !(wr_eq[k] && c > k);
          end else begin
            ep_beat_nxt[k][c] = ep_beat_old[k][c];
          end
        end
      end
    end
  end
  always_ff @(posedge clk_i) begin
    if (wr_ep) ep_beat_q[cfg_index_i[6:GrpBits]] <= ep_beat_nxt;
  end

  // Every entry's ternary match is registered (ep_match_q); the winners are chosen from it the next cycle.
  always_comb begin
    ep_match = '0;
    if (lookup_i) begin
      for (int i = 0; i < nt_pkg::LbEpochEntries; i++) begin
        ep_match[i] = ep_valid_q[i] && ((ep_tick_i ^ ep_value_q[i]) & ep_mask_q[i]) == '0;
      end
    end
  end
  // Each group's winner and its fields in LUT6-sized steps (branch udt21): every step reads at most 6
  // signals and drives a (* keep *) wire, a boundary Yosys's abc pass keeps, so each step is one LUT6
  // (written as plain AND/OR, ABC mapped them to 7- to 9-input LUTs, LUT6 + MUXF7/8/9 cascades: 13 levels
  // `ep_match_q` -> `ep_prio_o` in lb17, 14 with a plain AND-OR). Continuous assignments, so that every
  // read is of the kept wire: the beat row AND the matches by threes (1), their OR (2), the winner, gated by
  // look_q (3), the fields' AND-OR by threes (4), the output (5); the hit: the wins by sixes (4), their OR (5).
  localparam int unsigned EpC = 1 + PrioBits + 32;  // drop, priority, epoch
  // (One-dimensional vectors only: Yosys 0.55 cannot take the width of a 2-D array of a generate scope read
  // from a nested one.)
  for (genvar g = 0; g < lb_pkg::EpochGroups; g++) begin : g_ep_sel
    (* keep *) logic [Grp-1:0] w2, win;
    (* keep *) logic [2:0]     h1;
    logic [17:0]          mp, wp;
    logic [EpC*Grp-1:0]   colf;  // column c, entry j at c * Grp + j
    assign mp = {2'b0, ep_match_q[g*Grp+:Grp]};
    assign wp = {2'b0, win};
    for (genvar j = 0; j < Grp; j++) begin : g_e
      (* keep *) logic [5:0] w1;
      logic [17:0]    bp;
      logic [EpC-1:0] fv;
      assign bp = {2'b0, ep_beat_q[g][j]};
      for (genvar k = 0; k < 6; k++) begin : g_k
        assign w1[k] = |(bp[3*k+:3] & mp[3*k+:3]);
      end
      assign w2[j]  = |w1;
      assign win[j] = look_q && mp[j] && !w2[j];
      assign fv = {ep_epoch_q[g*Grp+j], ep_prio_q[g*Grp+j], ep_drop_q[g*Grp+j]};
      for (genvar c = 0; c < EpC; c++) begin : g_c
        assign colf[c*Grp+j] = fv[c];
      end
    end
    for (genvar c = 0; c < EpC; c++) begin : g_f
      (* keep *) logic [5:0] f1;
      logic [17:0] cv;
      assign cv = {2'b0, colf[c*Grp+:Grp]};
      for (genvar k = 0; k < 6; k++) begin : g_k
        assign f1[k] = |(wp[3*k+:3] & cv[3*k+:3]);
      end
      if (c == 0) begin : g_drop
        assign ep_drop_o[g] = |f1;
      end else if (c <= PrioBits) begin : g_prio
        assign ep_prio_o[g][c-1] = |f1;
      end else begin : g_epoch
        assign ep_epoch_o[g][c-1-PrioBits] = |f1;
      end
    end
    for (genvar k = 0; k < 3; k++) begin : g_h
      assign h1[k] = |wp[6*k+:6];
    end
    assign ep_hit_o[g] = |h1;
  end

  // Calendar epoch map: lowest matching row, for each group's epoch.
  always_comb begin
    map_hit_o = '0;
    map_row_o = '0;
    if (map_lookup_i) begin
      for (int g = 0; g < lb_pkg::EpochGroups; g++) begin
        for (int i = nt_pkg::LbCalendarEpochs - 1; i >= 0; i--) begin
          if (map_valid_q[i] && map_epoch_q[i] == map_epoch_i[g]) begin
            map_hit_o[g] = 1'b1;
            map_row_o[g] = 2'(i);
          end
        end
      end
    end
  end

  logic unused_cfg;
  assign unused_cfg = ^cfg_data_i[nt_pkg::CfgDataBits-1:210];

  // Registered reads (block RAM: the read data register is the RAM's own output register; issue 27 item 3).
  // The valid bits are flops with reset, read through a register of their own on the same cycle.
  // The calendar is one RAM per epoch row, all read at the same slot: the row (the epoch TCAM's answer) is
  // needed only after the read register, to choose among the four words, so the TCAM's selection can take
  // its own cycle without delaying the calendar read (the row chosen by a 4-input multiplexer in S4).
  logic [nt_pkg::LbCalendarEpochs-1:0][16:0] cal_word_q;
  // The calendar valid flops likewise (a 512-way read per row measured 12 in lb17, 14 in udt21's first
  // run): per row 4 candidates of 128 (slot[8:7]), slot[8:7] registered beside choosing after the register.
  logic [4*nt_pkg::LbCalendarEpochs-1:0]     cal_vc_d, cal_vc_q;
  logic [1:0]                                cal_vh_q;
  logic [127:0]                              cal_vq;
  logic [199:0] mem_word_q;
  // The member valid flops are read in 8 candidates of 128 (the low address bits) into registers, the high
  // bits registered beside choose one after them (branch udt21: the 1,024-way read in front of one register
  // was 13 levels, LUT + MUXF7/8; the same bit, both registers loaded on rd_en_i from the same flops).
  localparam int unsigned MemVC = 8;
  logic [MemVC-1:0] mem_vc_d, mem_vc_q;
  logic [2:0]       mem_vsel_q;
  logic [127:0]     mem_vq;  // a candidate's 128 flops, taken at constant positions (no shifter)
  always_comb begin
    mem_vq = '0;
    for (int h = 0; h < MemVC; h++) begin
      mem_vq = mem_valid_q[128*h+:128];
      mem_vc_d[h] = mem_vq[mem_addr_i[6:0]];
    end
  end
  for (genvar r = 0; r < nt_pkg::LbCalendarEpochs; r++) begin : g_cal_row
    logic [16:0] row_mem_q [nt_pkg::LbCalendarSlots];
    logic        wr_row;
    assign wr_row = wr_cal && 32'(cfg_index_i[SlotBits+:2]) == r;
    always_ff @(posedge clk_i) begin
      if (wr_row) row_mem_q[cfg_index_i[SlotBits-1:0]] <= {cfg_data_i[1], cfg_data_i[17:2]};
      if (rd_en_i) cal_word_q[r] <= row_mem_q[cal_slot_i];
    end
  end
  always_ff @(posedge clk_i) begin
    if (rd_en_i) mem_word_q <= mem_mem_q[mem_addr_i];
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cal_vc_q       <= '0;
      cal_vh_q       <= '0;
      mem_vc_q       <= '0;
      mem_vsel_q     <= '0;
    end else if (rd_en_i) begin
      cal_vc_q       <= cal_vc_d;
      cal_vh_q       <= cal_slot_i[8:7];
      mem_vc_q       <= mem_vc_d;
      mem_vsel_q     <= mem_addr_i[9:7];
    end
  end
  always_comb begin
    cal_vq = '0;
    for (int r = 0; r < nt_pkg::LbCalendarEpochs; r++) begin
      for (int h = 0; h < 4; h++) begin
        cal_vq = cal_valid_q[512*r+128*h+:128];
        cal_vc_d[4*r+h] = cal_vq[cal_slot_i[6:0]];
      end
    end
  end
  assign cal_entry_o.valid  = cal_vc_q[{cal_row_i, cal_vh_q}];
  assign cal_entry_o.drop   = cal_word_q[cal_row_i][16];
  assign cal_entry_o.member = cal_word_q[cal_row_i][15:0];
  assign mem_entry_o.valid = mem_vc_q[mem_vsel_q];
  assign mem_entry_o.drop  = mem_word_q[0];
  assign mem_entry_o.tag   = mem_word_q[7:1];
  assign mem_entry_o.mac   = mem_word_q[55:8];
  assign mem_entry_o.ip    = mem_word_q[183:56];
  assign mem_entry_o.port  = mem_word_q[199:184];
endmodule
