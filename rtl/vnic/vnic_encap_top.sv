// OPA VNIC encapsulation: Ethernet frames from VNIC ports (port number as input sideband) become OPA 16B
// packets (docs/vnic.md). Store and forward, because the 16B header carries the packet length: the write
// side stores the frame and, at its last beat, checks it and builds the 20 header bytes; the read side
// sends header + frame (realigned 20 bytes later) + pad + ICRC + tail at one beat per cycle, through an
// output register stage that splits the ICRC (docs/vnic-microarchitecture.md "ICRC pipeline"): the beat
// stage forms the beat and its CRC contribution, the output stage adds the running CRC and inserts the ICRC.
`include "nt_ports.svh"
module vnic_encap_top
(
  `NT_VNIC_PORTS
);
  localparam int unsigned BeatBits = $clog2(nt_pkg::VnicMaxBeats) + 1;
  localparam int unsigned HdrBits = 8 * nt_pkg::VnicHdrBytes;

  typedef struct packed {
    logic [HdrBits-1:0]     hdr;
    logic [13:0]            len;        // Ethernet bytes
    logic [2:0]             pad;
    logic [10:0]            len_qw;
    logic [BeatBits-1:0]    last_k;     // the last output beat (out beats - 1)
    logic [BeatBits-1:0]    dlast;      // the output beat of the frame's last byte ...
    logic [6:0]             dn;         // ... and its data bytes there (1..64)
    logic [vnic_pkg::PortIdxBits-1:0] port;
    logic                   linux_p;    // tail byte without the LT bits
  } desc_t;

  // the tables as entry words (vnic_tables), each read whole into a vnic_pkg::port_cfg_t / mac_entry_t
  logic [nt_pkg::VnicPorts-1:0][vnic_pkg::PortCfgBits-1:0]       ports;
  logic [nt_pkg::VnicMacEntries-1:0][vnic_pkg::MacEntryBits-1:0] macs;

  vnic_tables u_tables (
    `NT_CLK_RST_CONN,
    `NT_CFG_CONN(cfg),
    .ports_o(ports),
    .macs_o (macs)
  );

  // ---------------- input stage: the beat's byte count; a first beat's lookups ----------------
  // An input register (issue 27: the last beat's checks and header were computed from the input ports in
  // one cycle: the byte count, the MAC search, profile linux's parse, then the drop decision). As in
  // decapsulation: s_ready_o = empty or the buffer takes its beat; one cycle of latency, full throughput.
  // A first beat's port, destination MAC, port entry, MAC-table search and linux info are registered when it
  // loads and held for its frame (the next first beat loads when this frame's last beat leaves).
  logic                   in_v_q, in_last_q, in_sop_q, sf_ready, in_load;
  // verilator lint_off UNUSEDSIGNAL
  logic                   in_take;  // u_in's take strobe: decapsulation's ICRC uses it, encapsulation not
  // verilator lint_on UNUSEDSIGNAL
  logic [nt_pkg::StreamBits-1:0]  in_data_q;
  logic [nt_pkg::StreamBytes-1:0] in_keep_q;
  logic [6:0]             nb, in_nb_q;
  logic [vnic_pkg::PortIdxBits-1:0] port_q;
  logic [47:0]            dmac_q, dmac_in;
  vnic_pkg::port_cfg_t    pc_q, pc_in;
  vnic_pkg::linux_pre_t   lx_q, lx_in;

  vnic_in_reg u_in (
    `NT_CLK_RST_CONN,
    .s_valid_i  (s_valid_i),
    .s_ready_o  (s_ready_o),
    .s_data_i   (s_data_i),
    .s_keep_i   (s_keep_i),
    .s_last_i   (s_last_i),
    .s_nbytes_i (nb),
    .load_o     (in_load),
    .sop_o      (in_sop_q),
    .take_o     (in_take),
    .m_valid_o  (in_v_q),
    .m_ready_i  (sf_ready),
    .m_data_o   (in_data_q),
    .m_keep_o   (in_keep_q),
    .m_last_o   (in_last_q),
    .m_nbytes_o (in_nb_q)
  );
  assign nb        = nt_pkg::keep_count(s_keep_i);

  always_comb begin
    for (int i = 0; i < 6; i++) dmac_in[47-8*i-:8] = s_data_i[8*i+:8];
  end
  assign pc_in = ports[s_port_i];
  assign lx_in = vnic_pkg::linux_pre(s_data_i, nb);

  // Destination LID from the MAC table (docs/vnic.md "DLID"): the lowest matching index; a DLID 0 entry
  // counts as absent. Each entry is read whole into mac_e first: Yosys 0.55 reads macs[i].valid as an
  // undeclared wire. Every entry is compared at once, then the lowest hit is chosen by a tree of 2:1
  // choices (the lower half wins), not by a chain of 64 (issue 27: 33 levels). In two halves (issue 27:
  // 21 levels from the input beat through the compares and the whole tree): with a first beat, each group
  // of MacG entries' lowest hit is registered (grp_hit_q, grp_dlid_q); the choice among the groups is made
  // from those registers when the frame's last beat uses it. The table is read at the first beat, as before.
  // Groups of 4 (branch rv17; 8 before: 15 levels from the input to the group registers, the compares and a
  // 3-step choice), the 16 groups chosen after the register in two rounds of first_hit over 4 (4 groups of
  // 4, then the 4 results; the lower index wins in both, so the lowest hit overall, as before).
  localparam int unsigned MacN = nt_pkg::VnicMacEntries;
  localparam int unsigned MacG = 4;                // entries per group; groups per round of the choice
  localparam int unsigned MacGroups = MacN / MacG;
  localparam int unsigned MacSup = MacG * MacG;    // the groups padded to 4 x 4 for the two rounds
  if (MacN % MacG != 0 || MacGroups > MacSup) begin : gen_mac_check
    $error("VnicMacEntries must be a multiple of 4, at most 64");
  end
  vnic_pkg::mac_entry_t mac_e;
  logic [MacN-1:0]        mac_hit;
  logic [MacN-1:0][23:0]  mac_dlid;
  always_comb begin
    mac_e = '0;
    for (int i = 0; i < MacN; i++) begin
      mac_e       = macs[i];
      mac_hit[i]  = mac_e.valid && mac_e.port == s_port_i && mac_e.mac == dmac_in && mac_e.dlid != '0;
      mac_dlid[i] = mac_e.dlid;
    end
  end

  // The lowest hit of h (MacG entries, a power of 2): {any hit, its DLID (0 without a hit)}. A heap: leaves
  // MacG + i, node j's children 2j (lower indices) and 2j + 1.
  function automatic logic [24:0] first_hit(logic [MacG-1:0] h, logic [MacG-1:0][23:0] d);
    logic [2*MacG-1:0]       th;
    logic [2*MacG-1:0][23:0] td;
    th = '0;
    td = '0;
    for (int i = 0; i < MacG; i++) begin
      th[MacG+i] = h[i];
      td[MacG+i] = h[i] ? d[i] : 24'd0;  // no hit: DLID 0, as the chain gave
    end
    for (int j = MacG - 1; j >= 1; j--) begin
      th[j] = th[2*j] | th[2*j+1];
      td[j] = th[2*j] ? td[2*j] : td[2*j+1];
    end
    first_hit = {th[1], td[1]};
  endfunction

  logic [MacGroups-1:0]       grp_hit_in, grp_hit_q;
  logic [MacGroups-1:0][23:0] grp_dlid_in, grp_dlid_q;
  logic                       tbl_hit;
  logic [23:0]                tbl_dlid;
  logic [MacSup-1:0]          grp_hit_pad;   // the groups padded to MacSup (no hit)
  logic [MacSup-1:0][23:0]    grp_dlid_pad;
  logic [MacG-1:0]            sup_hit;       // first round: per 4 groups, the lowest hit
  logic [MacG-1:0][23:0]      sup_dlid;
  always_comb begin
    grp_hit_pad  = '0;
    grp_dlid_pad = '0;
    for (int g = 0; g < MacGroups; g++) begin
      {grp_hit_in[g], grp_dlid_in[g]} = first_hit(mac_hit[MacG*g+:MacG], mac_dlid[MacG*g+:MacG]);
      grp_hit_pad[g]  = grp_hit_q[g];
      grp_dlid_pad[g] = grp_dlid_q[g];
    end
    for (int s = 0; s < MacG; s++) begin
      {sup_hit[s], sup_dlid[s]} = first_hit(grp_hit_pad[MacG*s+:MacG], grp_dlid_pad[MacG*s+:MacG]);
    end
  end
  assign {tbl_hit, tbl_dlid} = first_hit(sup_hit, sup_dlid);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      port_q     <= '0;
      dmac_q     <= '0;
      pc_q       <= '0;
      grp_hit_q  <= '0;
      grp_dlid_q <= '0;
      lx_q       <= '0;
    end else if (in_load && in_sop_q) begin
      port_q     <= s_port_i;
      dmac_q     <= dmac_in;
      pc_q       <= pc_in;
      grp_hit_q  <= grp_hit_in;
      grp_dlid_q <= grp_dlid_in;
      lx_q       <= lx_in;
    end
  end

  // ---------------- write side ----------------
  logic                   sop, over_now, drop, m_fire, last_beat, head_valid, adv, m_valid;
  logic [vnic_pkg::PortIdxBits-1:0] port;
  logic [47:0]            dmac;
  logic [15:0]            len;
  logic [31:0]            reason;
  vnic_pkg::port_cfg_t              pc;
  logic [23:0]            dlid;
  vnic_pkg::linux_info_t            lx;
  logic                   dlid_zero;
  logic [4:0]             sc;
  logic [2:0]             rc;
  logic [15:0]            entropy;
  logic [10:0]            len_qw;
  logic [2:0]             pad;
  logic [63:0]            qw0, qw1;
  desc_t                  wdesc, head;
  logic [BeatBits-1:0]    k_q;
  logic [nt_pkg::StreamBits-1:0]  prev_beat, cur_beat;

  vnic_store_forward #(
    .DescBits($bits(wdesc)),
    .RdOff   (-1)
  ) u_sf (
    `NT_CLK_RST_CONN,
    .s_valid_i   (in_v_q),
    .s_data_i    (in_data_q),
    .s_keep_i    (in_keep_q),
    .s_nbytes_i  (in_nb_q),
    .s_last_i    (in_last_q),
    .s_ready_o   (sf_ready),
    .sop_o       (sop),
    .over_o      (over_now),
    .bytes_o     (len),
    .drop_i      (drop),
    .reason_i    (reason[3:0]),
    .desc_i      (wdesc),
    .head_valid_o(head_valid),
    .head_o      (head),
    .k_o         (k_q),
    .rd_a_o      (prev_beat),
    .rd_b_o      (cur_beat),
    .out_fire_i  (adv),
    .out_last_i  (last_beat),
    .sent_i      (m_fire & m_last_o),
    .cnt_in_o,
    .cnt_out_o,
    .cnt_drops_o
  );

  assign port = port_q;
  assign dmac = dmac_q;
  assign pc   = pc_q;
  assign lx   = vnic_pkg::linux_fin(lx_q);

  // A port without a virtual switch id or SLID (0) is not enabled; a frame whose DLID comes out 0 is
  // dropped, as Linux counts tx_dlid_zero (docs/vnic.md "Drops").
  always_comb begin
    reason = 0;
    if (!over_now && len < 16'(14)) reason = nt_pkg::VnicEncDropRunt;
    else if (over_now || len > 16'(nt_pkg::VnicMaxEthBytes)) reason = nt_pkg::VnicEncDropTooLong;
    else if (!pc.valid || pc.veswid == '0 || pc.slid == '0) reason = nt_pkg::VnicEncDropPortDisabled;
    else if (dlid_zero) reason = nt_pkg::VnicEncDropDlidZero;
  end
  assign drop = reason != 0;

  // Default profile: group MACs the port's multicast DLID, then the table, then the port's default. Profile
  // linux (opa_vnic_get_dlid): the table, group MACs, a locally administered MAC's bytes 5, 4, 3, the default.
  always_comb begin
    if (!pc.linux_p) dlid = dmac[40] ? pc.mcast_dlid : tbl_hit ? tbl_dlid : pc.ucast_dlid;
    else if (tbl_hit) dlid = tbl_dlid;
    else if (dmac[40]) dlid = pc.mcast_dlid;
    else if (dmac[41]) dlid = {dmac[7:0], dmac[15:8], dmac[23:16]};
    else dlid = pc.ucast_dlid;
  end

  // dlid == 0 without the table's DLID (issue 27: the drop decision no longer waits for the group choice): a
  // hit's DLID is never 0 (an entry with DLID 0 does not hit), so only the other sources can give 0.
  always_comb begin
    if (!pc.linux_p) dlid_zero = dmac[40] ? pc.mcast_dlid == '0 : !tbl_hit && pc.ucast_dlid == '0;
    else if (tbl_hit) dlid_zero = 1'b0;
    else if (dmac[40]) dlid_zero = pc.mcast_dlid == '0;
    else if (dmac[41]) dlid_zero = dmac[23:0] == '0;
    else dlid_zero = pc.ucast_dlid == '0;
  end

  // SC, RC, entropy: the port's in the default profile; profile linux's per-frame rules otherwise.
  always_comb begin
    sc      = pc.sc;
    rc      = pc.rc;
    entropy = pc.entropy;
    if (pc.linux_p) begin
      if (lx.vlan) sc = dmac[40] ? pc.pcp_sc_mc[lx.pcp] : pc.pcp_sc_uc[lx.pcp];
      else sc = dmac[40] ? pc.sc_mc : pc.sc;
      rc      = pc.rc_word[lx.rc_shift+:3];
      entropy = {8'd0, lx.entropy};
    end
  end

  // quadwords ceil((len + 25) / 8) = (len + 32) >> 3 = len[13:3] + 4; pad = 8 len_qw - 25 - len = 7 - len[2:0]
  assign len_qw = 11'(len[13:3]) + 11'((nt_pkg::VnicHdrBytes + nt_pkg::VnicTrailerBytes + 7) >> 3);
  assign pad    = ~len[2:0];
  //              LT    L2     FECN  RC     SC     DLID        BECN  length  SLID
  assign qw0    = {1'b1, 2'b10, 1'b0, rc, sc, dlid[19:0], 1'b0, len_qw, pc.slid[19:0]};
  assign qw1    = {16'd0, entropy, pc.pkey, dlid[23:20], pc.slid[23:20], 8'(nt_pkg::VnicL4Eth)};

  always_comb begin
    wdesc.hdr       = {pc.veswid, 16'd0, qw1, qw0};
    wdesc.len       = len[13:0];
    wdesc.pad       = pad;
    wdesc.len_qw    = len_qw;
    // out beats ceil(8 len_qw / 64) = (len_qw + 7) >> 3, so the last is (len_qw - 1) >> 3 = (len[13:3] + 3) >> 3
    wdesc.last_k    = BeatBits'((12'(len[13:3]) + 12'd3) >> 3);
    // frame byte e is output byte e + 20: the last, len + 19, is in beat (len + 19) >> 6, byte (len + 19) & 63
    wdesc.dlast     = BeatBits'((len[13:0] + 14'(nt_pkg::VnicHdrBytes - 1)) >> 6);
    wdesc.dn        = 7'(6'(len[5:0] + 6'(nt_pkg::VnicHdrBytes - 1))) + 7'd1;
    wdesc.port      = port;
    wdesc.linux_p   = pc.linux_p;
  end

  // ---------------- read side, beat stage: beat k of the head frame from the buffer's registered reads ----
  logic [31:0]            crc_q, crc_beat, crc_back, icrc, part;
  logic [nt_pkg::StreamBits-1:0]  raw, raw_q;
  logic [6:0]             keep_n;
  logic [2:0]             icrc_q;    // the ICRC's quadword in the last beat (the only one it is used in)
  logic [nt_pkg::StreamBytes-1:0] dmask;
  logic                   first_q, whole_q, at_q, first, whole, at;
  logic [nt_pkg::StreamBytes-1:0] keep_q;
  logic                   last_q, linux_q;
  logic [7:0][31:0]       lane_part, lane_part_q;  // the part of each 64-bit lane of the beat
  logic [31:0]            part_q;
  logic [2:0]             iq_q;
  logic [7:0]             ilane_q;   // one-hot iq_q in a last beat, else 0
  logic [2:0]             pad_q;
  logic [vnic_pkg::PortIdxBits-1:0] oport_q;

  // the beat moves into the output register when that is empty or its beat is taken
  assign adv       = head_valid & (~m_valid | m_fire);
  assign last_beat = k_q == head.last_k;
  // the packet (25 + len + pad bytes) is 8 len_qw: a last beat keeps 8 (len_qw mod 8) bytes, or 64
  assign keep_n    = !last_beat ? 7'(nt_pkg::StreamBytes) :
                     head.len_qw[2:0] == 3'd0 ? 7'(nt_pkg::StreamBytes) : {1'b0, head.len_qw[2:0], 3'd0};
  // the ICRC at byte 20 + len + pad = 27 + 8 (len >> 3) (mod 64): quadword 3 + len[5:3], byte 3 of it
  assign icrc_q    = head.len[5:3] + 3'd3;

  // Output byte b = 64k + i: header byte b (k = 0, i < 20), or frame byte e = b - 20 (from beat k-1 for
  // i < 20, else beat k) while e < len, i.e. k < dlast or k = dlast and i < dn (dmask); zero after it: pad,
  // then the ICRC and tail the output stage inserts. (From the descriptor's dlast/dn rather than a 16-bit
  // compare per byte: issue 27, 16 levels from the descriptor to the beat's CRC part.)
  // The beat's position against the frame's end comes from registers: first_q (k = 0), and for k > 0
  // whole_q / at_q (k < dlast, k = dlast), set when the read side moves from beat k - 1 to k; beat 0 of a
  // frame reads them from the descriptor (dlast != 0 / = 0). (issue 27: the compares of k_q with dlast in
  // front of the byte selects and the 512-bit CRC part were 18 levels.)
  assign first  = first_q;
  assign whole  = first_q ? head.dlast != '0 : whole_q;
  assign at     = first_q ? head.dlast == '0 : at_q;
  assign dmask  = whole ? '1 : at ? vnic_pkg::keep_mask(head.dn) : '0;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      first_q  <= 1'b1;
      whole_q <= 1'b0;
      at_q     <= 1'b0;
    end else if (adv) begin
      first_q  <= last_beat;  // k_q after this edge: 0 after the frame's last beat, else k_q + 1
      whole_q <= k_q + 1'b1 < head.dlast;
      at_q     <= k_q + 1'b1 == head.dlast;
    end
  end

  always_comb begin
    for (int i = 0; i < nt_pkg::StreamBytes; i++) begin
      if (first && i < nt_pkg::VnicHdrBytes) raw[8*i+:8] = head.hdr[8*i+:8];
      else if (dmask[i]) raw[8*i+:8] = i < nt_pkg::VnicHdrBytes ? prev_beat[8*(i+nt_pkg::StreamBytes-nt_pkg::VnicHdrBytes)+:8]
                                                               : cur_beat[8*(i-nt_pkg::VnicHdrBytes)+:8];
      else raw[8*i+:8] = 8'd0;
    end
  end

  // The beat's CRC contribution from state 0. Every byte of a beat before the last is covered; the last
  // beat's bytes from the ICRC on are zero (above), which the output stage takes back.
  // Computed per 64-bit lane here (r[o] = ^(lane & row o's lane bits)) and the eight lane parts XORed in the
  // output stage: the 512-bit XOR trees after the byte selects were 16 levels in one cycle (issue 27).
  logic [nt_pkg::StreamBits-1:0] rawv;
  assign rawv = vnic_pkg::icrc_variant(raw, first);
  always_comb begin
    for (int l = 0; l < 8; l++) begin
      for (int o = 0; o < 32; o++) begin
        lane_part[l][o] = ^(rawv[64*l+:64] & nt_crc_pkg::CrcData[nt_pkg::StreamBits*o+64*l+:64]);
      end
    end
  end
  always_comb begin
    part = '0;
    for (int l = 0; l < 8; l++) part = part ^ lane_part_q[l];
  end

  // ---------------- read side, output stage ----------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) m_valid <= 1'b0;
    else if (adv) m_valid <= 1'b1;
    else if (m_fire) m_valid <= 1'b0;
  end

  always_ff @(posedge clk_i) begin
    if (adv) begin
      raw_q   <= raw;
      keep_q  <= vnic_pkg::keep_mask(keep_n);
      last_q  <= last_beat;
      oport_q <= head.port;
      lane_part_q <= lane_part;
      iq_q    <= icrc_q;    // the ICRC is always in the last beat: 8 | total and 5 <= 8
      ilane_q <= last_beat ? 8'(1) << icrc_q : 8'd0;
      pad_q   <= head.pad;
      linux_q <= head.linux_p;
    end
  end

`ifdef NT_MUTATE_VNIC  // a planted protocol bug (docs/assertions.md)
  nt_mutant_valid_drop u_mutant (
    .clk_i, .rst_ni, .valid_i(m_valid), .ready_i(m_ready_i), .valid_o(m_valid_o));
`else
  assign m_valid_o = m_valid;
`endif
  assign m_fire = m_valid_o & m_ready_i;

  // The running CRC (crc_q: the frame's earlier beats) one whole beat on, plus this beat's part. In the last
  // beat, the register at the ICRC position (quadword q = iq_q, byte 3: 8q + 3 bytes of the beat before it) in one
  // matrix, CrcLast[q] = (part taken back by the 61 - 8q zero bytes) ^ (crc_q moved 8q + 3 bytes on); the
  // matrix is selected before it is applied, so each LUT takes 3 register bits and q (a few levels).
  assign part_q   = part;
  assign crc_beat = nt_pkg::crc32_mat(nt_crc_pkg::CrcBeat, crc_q) ^ part_q;
  assign crc_back = vnic_pkg::crc32_mat64(nt_crc_pkg::CrcLast[32*64*iq_q+:32*64], {crc_q, part_q});
  assign icrc     = ~crc_back;

  always_comb begin
    m_data_o = raw_q;
    // ICRC bytes 0..3 at bytes 3..6 of quadword iq_q, the tail byte at its byte 7 (ilane_q: the position
    // decoded in the beat stage, so only a 2:1 select follows the ICRC here)
    for (int q = 0; q < 8; q++) begin
      if (ilane_q[q]) begin
        for (int j = 0; j < 4; j++) m_data_o[64*q+8*(3+j)+:8] = icrc[8*j+:8];
        // LT = tail (profile linux: 0b00, the pad count alone as hfi1 writes it), Tail = pad
        m_data_o[64*q+56+:8] = {1'b0, ~linux_q, 3'd0, pad_q};
      end
    end
  end
  assign m_keep_o = keep_q;
  assign m_last_o = last_q;
  assign m_port_o = oport_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) crc_q <= '1;
    else if (m_fire) crc_q <= m_last_o ? '1 : crc_beat;
  end

  logic unused;
  assign unused = ^{sop, dmac[47:42], dmac[39:24]};  // the frame buffer's own first-beat flag; MAC bytes
endmodule
