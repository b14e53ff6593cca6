// OPA VNIC decapsulation: OPA 16B packets become Ethernet frames for the VNIC port their virtual switch id
// selects (port number as output sideband). Store and forward, because the ICRC, the length and the pad
// count are only known at the packet's last byte: the write side stores the packet and checks it at its
// last beat (drop reasons in the order of docs/vnic.md); the read side strips the 20 header bytes and the
// pad, ICRC and tail at one beat per cycle.
module vnic_decap_top
(
  input  logic                               clk_i,
  input  logic                               rst_ni,
  input  logic                               s_valid_i,
  input  logic [nt_pkg::StreamBits-1:0]              s_data_i,
  input  logic [nt_pkg::StreamBytes-1:0]             s_keep_i,
  input  logic                               s_last_i,
  input  logic [vnic_pkg::PortIdxBits-1:0]             s_port_i,
  output logic                               s_ready_o,
  output logic                               m_valid_o,
  output logic [nt_pkg::StreamBits-1:0]              m_data_o,
  output logic [nt_pkg::StreamBytes-1:0]             m_keep_o,
  output logic                               m_last_o,
  output logic [vnic_pkg::PortIdxBits-1:0]             m_port_o,
  input  logic                               m_ready_i,
  input  logic                               cfg_valid_i,
  input  logic [nt_pkg::CfgTableBits-1:0]            cfg_table_i,
  input  logic [nt_pkg::CfgIndexBits-1:0]            cfg_index_i,
  input  logic [nt_pkg::CfgDataBits-1:0]             cfg_data_i,
  output logic [31:0]                        cnt_in_o,
  output logic [31:0]                        cnt_out_o,
  output logic [vnic_pkg::NumReasons*32-1:0]   cnt_drops_o
);
  localparam int unsigned BeatBits = $clog2(nt_pkg::VnicMaxBeats) + 1;
  localparam int unsigned HdrBits = 8 * nt_pkg::VnicHdrBytes;

  typedef struct packed {
    logic [13:0]            len;        // Ethernet bytes
    logic [BeatBits-1:0]    out_beats;
    logic [vnic_pkg::PortIdxBits-1:0] port;
  } desc_t;

  vnic_pkg::port_cfg_t  [nt_pkg::VnicPorts-1:0]      ports;
  // ports[port], whole (Yosys 0.55 reads no member of a variable-indexed element); only .pkey is used
  // verilator lint_off UNUSEDSIGNAL
  vnic_pkg::port_cfg_t                              port_cfg;
  // verilator lint_on UNUSEDSIGNAL
  vnic_pkg::mac_entry_t [nt_pkg::VnicMacEntries-1:0] macs;

  vnic_tables u_tables (
    .clk_i,
    .rst_ni,
    .cfg_valid_i,
    .cfg_table_i,
    .cfg_index_i,
    .cfg_data_i,
    .ports_o(ports),
    .macs_o (macs)
  );

  // ---------------- write side ----------------
  logic                   sop, over_now, drop, found, m_fire, last_beat;
  logic [HdrBits-1:0]     hdr_q, hdr;
  logic [31:0]            crc_q, crc_last;
  logic [6:0]             nl, crc_n;
  logic [15:0]            n, eth_len;
  logic [63:0]            qw0, qw1;
  logic [31:0]            icrc_rx, reason;
  logic [7:0]             tail;
  logic [vnic_pkg::PortIdxBits-1:0] port;
  desc_t                  wdesc, head;
  logic [BeatBits-1:0]    k_q;
  logic [nt_pkg::StreamBits-1:0]  cur_beat, next_beat;

  vnic_store_forward #(
    .DescBits($bits(wdesc)),
    .RdOff   (0)
  ) u_sf (
    .clk_i,
    .rst_ni,
    .s_valid_i,
    .s_data_i,
    .s_keep_i,
    .s_last_i,
    .s_ready_o,
    .sop_o       (sop),
    .over_o      (over_now),
    .bytes_o     (n),
    .drop_i      (drop),
    .reason_i    (reason[3:0]),
    .desc_i      (wdesc),
    .head_valid_o(m_valid_o),
    .head_o      (head),
    .k_o         (k_q),
    .rd_a_o      (cur_beat),
    .rd_b_o      (next_beat),
    .out_fire_i  (m_fire),
    .out_last_i  (last_beat),
    .cnt_in_o,
    .cnt_out_o,
    .cnt_drops_o
  );

  assign nl  = vnic_pkg::popcount64(s_keep_i);
  assign hdr = sop ? s_data_i[HdrBits-1:0] : hdr_q;
  assign qw0 = hdr[63:0];
  assign qw1 = hdr[127:64];

  // The ICRC covers every byte before it: the earlier beats (crc_q) and the last beat up to its last 5.
  assign crc_n    = nl >= 7'd5 ? nl - 7'd5 : 7'd0;
  assign crc_last = ~vnic_pkg::crc32_beat(crc_q, s_data_i, crc_n, sop);
  always_comb begin
    icrc_rx = '0;
    tail    = '0;
    for (int i = 0; i < nt_pkg::StreamBytes; i++) begin
      for (int j = 0; j < 4; j++) begin
        if (7'(i) + 7'd5 == nl + 7'(j)) icrc_rx[8*j+:8] = s_data_i[8*i+:8];
      end
      if (7'(i) + 7'd1 == nl) tail = s_data_i[8*i+:8];
    end
  end

  // The VNIC port of the virtual switch id (the lowest configured port with it).
  always_comb begin
    found = 1'b0;
    port  = '0;
    for (int i = nt_pkg::VnicPorts - 1; i >= 0; i--) begin
      if (ports[i].valid && ports[i].veswid != '0 && ports[i].veswid == hdr[159:144]) begin
        found = 1'b1;
        port  = vnic_pkg::PortIdxBits'(i);
      end
    end
  end
  assign port_cfg = ports[port];

  always_comb begin
    reason = 0;
    if (!over_now && n < 16'(nt_pkg::VnicMinPktBytes)) reason = nt_pkg::VnicDecDropRunt;
    else if (qw0[62:61] != 2'b10 || !qw0[63]) reason = nt_pkg::VnicDecDropBadL2;
    else if (qw1[7:0] != 8'(nt_pkg::VnicL4Eth)) reason = nt_pkg::VnicDecDropBadL4;
    else if (over_now || n != {2'd0, qw0[30:20], 3'd0}) reason = nt_pkg::VnicDecDropLength;
    else if (crc_last != icrc_rx) reason = nt_pkg::VnicDecDropIcrc;
    // Tail LT 0b01 (the spec's tail flit) or 0b00 (Linux hfi1 writes the pad count alone).
    else if (tail[7] || tail[5:0] > 6'd7 ||
             16'(tail[5:0]) > n - 16'(nt_pkg::VnicHdrBytes + 14 + nt_pkg::VnicTrailerBytes)) reason = nt_pkg::VnicDecDropPad;
    else if (!found) reason = nt_pkg::VnicDecDropVeswid;
    else if (!vnic_pkg::pkey_match(qw1[31:16], port_cfg.pkey)) reason = nt_pkg::VnicDecDropPkey;
  end
  assign drop    = reason != 0;
  assign eth_len = n - 16'(nt_pkg::VnicHdrBytes + nt_pkg::VnicTrailerBytes) - 16'(tail[2:0]);

  always_comb begin
    wdesc.len       = eth_len[13:0];
    wdesc.out_beats = BeatBits'((eth_len + 16'd63) >> 6);
    wdesc.port      = port;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      hdr_q <= '0;
      crc_q <= '1;
    end else if (s_valid_i && s_ready_o) begin
      hdr_q <= hdr;
      crc_q <= s_last_i ? '1 : vnic_pkg::crc32_beat(crc_q, s_data_i, 7'(nt_pkg::StreamBytes), sop);
    end
  end

  // ---------------- read side ----------------
  logic [15:0]           b0, keep_room;
  logic [6:0]            keep_n;

  assign m_fire    = m_valid_o & m_ready_i;
  assign last_beat = k_q == head.out_beats - 1'b1;
  assign b0        = 16'({k_q[BeatBits-2:0], 6'd0});
  assign keep_room = 16'(head.len) - b0;
  assign keep_n    = keep_room > 16'(nt_pkg::StreamBytes) ? 7'(nt_pkg::StreamBytes) : keep_room[6:0];

  // Frame byte e = 64k + i is packet byte e + 20: beat k for i < 44, else beat k+1.
  always_comb begin
    for (int i = 0; i < nt_pkg::StreamBytes; i++) begin
      if (b0 + 16'(i) < 16'(head.len)) begin
        m_data_o[8*i+:8] = i < nt_pkg::StreamBytes - nt_pkg::VnicHdrBytes ? cur_beat[8*(i+nt_pkg::VnicHdrBytes)+:8]
                                                         : next_beat[8*(i+nt_pkg::VnicHdrBytes-nt_pkg::StreamBytes)+:8];
      end else begin
        m_data_o[8*i+:8] = 8'd0;
      end
    end
  end
  assign m_keep_o = vnic_pkg::keep_mask(keep_n);
  assign m_last_o = last_beat;
  assign m_port_o = head.port;

  logic unused;
  assign unused = ^{s_port_i, macs, qw0[19:0], qw0[31], qw0[60:32], qw1[63:32], qw1[15:8], hdr[143:128], tail[6]};
endmodule
