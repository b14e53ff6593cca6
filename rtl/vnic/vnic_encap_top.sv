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
    logic [BeatBits-1:0]    out_beats;
    logic [vnic_pkg::PortIdxBits-1:0] port;
    logic                   linux_p;    // tail byte without the LT bits
  } desc_t;

  vnic_pkg::port_cfg_t  [nt_pkg::VnicPorts-1:0]      ports;
  vnic_pkg::mac_entry_t [nt_pkg::VnicMacEntries-1:0] macs;

  vnic_tables u_tables (
    `NT_CLK_RST_CONN,
    `NT_CFG_CONN(cfg),
    .ports_o(ports),
    .macs_o (macs)
  );

  // ---------------- write side ----------------
  logic                   sop, over_now, drop, m_fire, last_beat, head_valid, adv, m_valid;
  logic [6:0]             nb;
  logic [vnic_pkg::PortIdxBits-1:0] port_q, port;
  logic [47:0]            dmac_q, dmac;
  logic [15:0]            len;
  logic [31:0]            reason;
  vnic_pkg::port_cfg_t              pc;
  logic [23:0]            dlid, dlid_tbl;
  logic                   hit;
  vnic_pkg::linux_info_t            lx_q, lx;
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
    .s_valid_i,
    .s_data_i,
    .s_keep_i,
    .s_nbytes_i  (nb),
    .s_last_i,
    .s_ready_o,
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

  assign nb   = nt_pkg::keep_count(s_keep_i);
  assign port = sop ? s_port_i : port_q;
  assign pc   = ports[port];

  always_comb begin
    for (int i = 0; i < 6; i++) dmac[47-8*i-:8] = s_data_i[8*i+:8];
    if (!sop) dmac = dmac_q;
  end
  assign lx = sop ? vnic_pkg::linux_info(s_data_i, nb) : lx_q;

  // A port without a virtual switch id or SLID (0) is not enabled; a frame whose DLID comes out 0 is
  // dropped, as Linux counts tx_dlid_zero (docs/vnic.md "Drops").
  always_comb begin
    reason = 0;
    if (!over_now && len < 16'(14)) reason = nt_pkg::VnicEncDropRunt;
    else if (over_now || len > 16'(nt_pkg::VnicMaxEthBytes)) reason = nt_pkg::VnicEncDropTooLong;
    else if (!pc.valid || pc.veswid == '0 || pc.slid == '0) reason = nt_pkg::VnicEncDropPortDisabled;
    else if (dlid == '0) reason = nt_pkg::VnicEncDropDlidZero;
  end
  assign drop = reason != 0;

  // Destination LID (docs/vnic.md "DLID"): the MAC table's entry (the lowest matching index; a DLID 0 entry
  // counts as absent). Default profile: group MACs the port's multicast DLID, then the table, then the
  // port's default. Profile linux (opa_vnic_get_dlid): the table, group MACs, a locally administered MAC's
  // bytes 5, 4, 3, the default.
  // Each entry is read whole into mac_e first: Yosys 0.55 reads macs[i].valid as an undeclared wire.
  vnic_pkg::mac_entry_t mac_e;
  always_comb begin
    hit      = 1'b0;
    dlid_tbl = '0;
    mac_e    = '0;
    for (int i = nt_pkg::VnicMacEntries - 1; i >= 0; i--) begin
      mac_e = macs[i];
      if (mac_e.valid && mac_e.port == port && mac_e.mac == dmac && mac_e.dlid != '0) begin
        hit      = 1'b1;
        dlid_tbl = mac_e.dlid;
      end
    end
    if (!pc.linux_p) dlid = dmac[40] ? pc.mcast_dlid : hit ? dlid_tbl : pc.ucast_dlid;
    else if (hit) dlid = dlid_tbl;
    else if (dmac[40]) dlid = pc.mcast_dlid;
    else if (dmac[41]) dlid = {dmac[7:0], dmac[15:8], dmac[23:16]};
    else dlid = pc.ucast_dlid;
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

  assign len_qw = 11'((len + 16'(nt_pkg::VnicHdrBytes + nt_pkg::VnicTrailerBytes + 7)) >> 3);
  assign pad    = 3'({len_qw, 3'd0} - 14'(nt_pkg::VnicHdrBytes + nt_pkg::VnicTrailerBytes) - len[13:0]);
  //              LT    L2     FECN  RC     SC     DLID        BECN  length  SLID
  assign qw0    = {1'b1, 2'b10, 1'b0, rc, sc, dlid[19:0], 1'b0, len_qw, pc.slid[19:0]};
  assign qw1    = {16'd0, entropy, pc.pkey, dlid[23:20], pc.slid[23:20], 8'(nt_pkg::VnicL4Eth)};

  always_comb begin
    wdesc.hdr       = {pc.veswid, 16'd0, qw1, qw0};
    wdesc.len       = len[13:0];
    wdesc.pad       = pad;
    wdesc.len_qw    = len_qw;
    wdesc.out_beats = BeatBits'((12'(len_qw) + 12'd7) >> 3);
    wdesc.port      = port;
    wdesc.linux_p   = pc.linux_p;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      port_q <= '0;
      dmac_q <= '0;
      lx_q   <= '0;
    end else if (s_valid_i && s_ready_o && sop) begin  // the first beat's port, destination MAC, linux info
      port_q <= port;
      dmac_q <= dmac;
      lx_q   <= lx;
    end
  end

  // ---------------- read side, beat stage: beat k of the head frame from the buffer's registered reads ----
  logic [31:0]            crc_q, crc_beat, crc_back, icrc, part;
  logic [nt_pkg::StreamBits-1:0]  raw, raw_q;
  logic [15:0]            b0, total, keep_room;
  logic [5:0]             icrc_pos;  // in the last beat (the only one it is used in)
  logic [6:0]             keep_n;
  logic [nt_pkg::StreamBytes-1:0] keep_q;
  logic                   last_q, linux_q;
  logic [31:0]            part_q;
  logic [5:0]             ipos_q;
  logic [2:0]             pad_q;
  logic [vnic_pkg::PortIdxBits-1:0] oport_q;

  // the beat moves into the output register when that is empty or its beat is taken
  assign adv       = head_valid & (~m_valid | m_fire);
  assign last_beat = k_q == head.out_beats - 1'b1;
  assign b0        = 16'({k_q[BeatBits-2:0], 6'd0});
  assign icrc_pos  = 6'(16'(nt_pkg::VnicHdrBytes) + 16'(head.len) + 16'(head.pad));
  assign total     = {2'd0, head.len_qw, 3'd0};
  assign keep_room = total - b0;
  assign keep_n    = keep_room > 16'(nt_pkg::StreamBytes) ? 7'(nt_pkg::StreamBytes) : keep_room[6:0];

  // Output byte b = 64k + i: header byte b, or frame byte e = b - 20 (from beat k-1 for i < 20, else beat
  // k), or pad (0) up to the ICRC; zero from the ICRC on, where the output stage inserts ICRC and tail.
  always_comb begin
    for (int i = 0; i < nt_pkg::StreamBytes; i++) begin
      logic [15:0] b, e;
      b = b0 + 16'(i);
      e = b - 16'(nt_pkg::VnicHdrBytes);
      if (b < 16'(nt_pkg::VnicHdrBytes)) raw[8*i+:8] = head.hdr[8*i+:8];
      else if (e < 16'(head.len)) raw[8*i+:8] = i < nt_pkg::VnicHdrBytes ? prev_beat[8*(i+nt_pkg::StreamBytes-nt_pkg::VnicHdrBytes)+:8]
                                                                 : cur_beat[8*(i-nt_pkg::VnicHdrBytes)+:8];
      else raw[8*i+:8] = 8'd0;
    end
  end

  // The beat's CRC contribution from state 0. Every byte of a beat before the last is covered; the last
  // beat's bytes from the ICRC on are zero (above), which the output stage takes back.
  assign part = vnic_pkg::crc32_data(vnic_crc_pkg::CrcData, vnic_pkg::icrc_variant(raw, k_q == '0));

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
      part_q  <= part;
      ipos_q  <= icrc_pos;  // the ICRC is always in the last beat: 8 | total and 5 <= 8
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
  // beat, the register at the ICRC position (q = ipos[5:3]: 8q + 3 bytes of the beat before it) in one
  // matrix, CrcLast[q] = (part taken back by the 61 - 8q zero bytes) ^ (crc_q moved 8q + 3 bytes on); the
  // matrix is selected before it is applied, so each LUT takes 3 register bits and q (a few levels).
  assign crc_beat = vnic_pkg::crc32_mat(vnic_crc_pkg::CrcBeat, crc_q) ^ part_q;
  assign crc_back = vnic_pkg::crc32_mat64(vnic_crc_pkg::CrcLast[32*64*ipos_q[5:3]+:32*64], {crc_q, part_q});
  assign icrc     = ~crc_back;

  always_comb begin
    m_data_o = raw_q;
    for (int i = 0; i < nt_pkg::StreamBytes; i++) begin
      for (int j = 0; j < 4; j++) begin
        if (last_q && 6'(i) == ipos_q + 6'(j)) m_data_o[8*i+:8] = icrc[8*j+:8];
      end
      // LT = tail (profile linux: 0b00, the pad count alone as hfi1 writes it), Tail = pad
      if (last_q && 6'(i) == ipos_q + 6'd4) m_data_o[8*i+:8] = {1'b0, ~linux_q, 3'd0, pad_q};
    end
  end
  assign m_keep_o = keep_q;
  assign m_last_o = last_q;
  assign m_port_o = oport_q;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) crc_q <= '1;
    else if (m_fire) crc_q <= m_last_o ? '1 : crc_beat;
  end

endmodule
