// OPA VNIC decapsulation: OPA 16B packets become Ethernet frames for the VNIC port their virtual switch id
// selects (port number as output sideband). Store and forward, because the ICRC, the length and the pad
// count are only known at the packet's last byte: the write side stores the packet and checks it at its
// last beat (drop reasons in the order of docs/vnic.md); the read side strips the 20 header bytes and the
// pad, ICRC and tail at one beat per cycle. An input register stage splits the ICRC check
// (docs/vnic-microarchitecture.md "ICRC pipeline"): it computes each beat's CRC contribution and, for a
// last beat, the received ICRC moved forward to where the running CRC can be compared with it directly.
`include "nt_ports.svh"
module vnic_decap_top
(
  `NT_VNIC_PORTS
);
  localparam int unsigned BeatBits = $clog2(nt_pkg::VnicMaxBeats) + 1;
  localparam int unsigned HdrBits = 8 * nt_pkg::VnicHdrBytes;

  typedef struct packed {
    logic [13:0]            len;        // Ethernet bytes
    logic [BeatBits-1:0]    out_beats;
    logic [vnic_pkg::PortIdxBits-1:0] port;
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

  // ---------------- input stage: the beat's CRC part, the received ICRC moved forward ----------------
  logic                   in_v_q, in_last_q, in_sop_q, sf_ready, in_take, in_load;
  logic [nt_pkg::StreamBits-1:0]  in_data_q, crc_in;
  logic [nt_pkg::StreamBytes-1:0] in_keep_q;
  logic [6:0]             nl, in_nb_q;
  logic [31:0]            in_part_q, in_want_q;
  logic [31:0]            want;
  logic [7:0]             tail_in, tail, in_tail_q;
  logic [6:0]             in_tail39_q;
  logic [5:0]             in_trail_q;
  logic                   in_ob_inc_q;
  logic [nt_pkg::VnicPorts-1:0] vs_match, vs_pkey, in_match_q, in_pkey_q;

  vnic_in_reg u_in (
    `NT_CLK_RST_CONN,
    .s_valid_i  (s_valid_i),
    .s_ready_o  (s_ready_o),
    .s_data_i   (s_data_i),
    .s_keep_i   (s_keep_i),
    .s_last_i   (s_last_i),
    .s_nbytes_i (nl),
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
  assign nl        = nt_pkg::keep_count(s_keep_i);

  // The ICRC covers every byte before it: whole beats, and in the last beat all but its last 5 bytes (keep
  // is contiguous from byte 0, the stream rule: byte i is covered iff byte i + 5 is kept). ICRC byte j is at
  // nl - 5 + j, the tail at nl - 1.
  // kend: one-hot at the last kept byte (keep[i] and not keep[i + 1]). The tail byte is the OR of the data
  // bytes under it, not a chain of 64 ifs (issue 27: 59 levels from s_keep_i to tail_in on main).
  logic [nt_pkg::StreamBytes-1:0] kend;
  assign kend = s_keep_i & ~(s_keep_i >> 1);
  always_comb begin
    crc_in  = vnic_pkg::icrc_variant(s_data_i, in_sop_q);
    tail_in = '0;
    for (int i = 0; i < nt_pkg::StreamBytes; i++) begin
      if (s_last_i && (i + 5 >= nt_pkg::StreamBytes || !s_keep_i[(i + 5) % nt_pkg::StreamBytes])) crc_in[8*i+:8] = 8'd0;
      tail_in = tail_in | (s_data_i[8*i+:8] & {8{kend[i]}});
    end
  end

  // With the bytes from the ICRC on zeroed, a whole-beat update leaves the register 64 - (nl - 5) zero bytes
  // past the true one; so the packet is good iff that register equals ~ICRC moved the same bytes forward.
  // nl = 8q + 8 (kend at byte 8q + 7, the ICRC at bytes 8q + 3..6) gives matrix q (q = 0..7), nl = 0 matrix 8
  // (no ICRC byte in this beat: ~0); other nl fail the length check first (want is then 0). Each candidate's
  // ICRC is at fixed bytes, so the eight fixed matrices are applied in parallel and the result selected by
  // kend (issue 27: the ICRC selected first, then a matrix selected by the byte count: 64 levels on main, 16
  // with the ICRC as ORs under kend).
  always_comb begin
    want = s_keep_i == '0 ? nt_pkg::crc32_mat(nt_crc_pkg::CrcFwd[32*32*8+:32*32], '1) : '0;
    for (int q = 0; q < 8; q++) begin
      want = want | ({32{kend[8*q+7]}} &
                     nt_pkg::crc32_mat(nt_crc_pkg::CrcFwd[32*32*q+:32*32], ~s_data_i[8*(8*q+3)+:32]));
    end
  end

  // The port lookups of a first beat, per port (issue 27: the virtual switch id search, then the selected
  // port's partition key, then the drop decision was too deep for the last beat's cycle). The tables are
  // read when the first beat enters this register (docs/vnic-microarchitecture.md "Lookups at the first beat").
  vnic_pkg::port_cfg_t port_e;
  always_comb begin
    port_e = '0;
    for (int i = 0; i < nt_pkg::VnicPorts; i++) begin
      port_e      = ports[i];
      vs_match[i] = port_e.valid && port_e.veswid != '0 && port_e.veswid == s_data_i[159:144];
      vs_pkey[i]  = vnic_pkg::pkey_match(s_data_i[95:80], port_e.pkey);
    end
  end

  always_ff @(posedge clk_i) begin
    if (in_load) begin
      in_part_q <= nt_pkg::crc32_data(nt_crc_pkg::CrcData, crc_in);
      in_want_q <= want;
      in_tail_q <= tail_in;
      // the last beat's byte arithmetic that only needs this beat (n = 64 beats + nl, t = tail pad count):
      // t + 39 > n is the pad check; n - 25 - t the frame length, whose beats ceil((n - 25 - t) / 64) are
      // n[14:6] + (n[5:0] + 38 - t >= 64), n[5:0] = nl[5:0] (n = 64 * beats + nl, nl <= 64)
      in_tail39_q <= 7'(tail_in[5:0]) + 7'(nt_pkg::VnicHdrBytes + 14 + nt_pkg::VnicTrailerBytes);
      in_trail_q  <= 6'(nt_pkg::VnicHdrBytes + nt_pkg::VnicTrailerBytes) + 6'(tail_in[2:0]);
      in_ob_inc_q <= 7'(nl[5:0]) + 7'd63 - 7'(nt_pkg::VnicHdrBytes + nt_pkg::VnicTrailerBytes) - 7'(tail_in[2:0])
                     >= 7'd64;
    end
  end

  // first-beat values, held for the frame: the next first beat loads when this frame's last one leaves
  always_ff @(posedge clk_i) begin
    if (in_load && in_sop_q) begin
      in_match_q <= vs_match;
      in_pkey_q  <= vs_pkey;
    end
  end

  // ---------------- write side ----------------
  logic                   sop, over_now, drop, found, pkey_ok, m_fire, last_beat, head_valid, icrc_ok;
  logic [HdrBits-1:0]     hdr_q, hdr;
  logic [31:0]            crc_fwd_q, crc_fwd, crc_ones_fwd, crc_beat;
  logic                   crc_fresh_q;
  logic [15:0]            n, eth_len;
  logic [63:0]            qw0, qw1;
  logic [31:0]            reason;
  logic [vnic_pkg::PortIdxBits-1:0] port;
  desc_t                  wdesc, head;
  logic [BeatBits-1:0]    k_q;
  logic [nt_pkg::StreamBits-1:0]  cur_beat, next_beat;

  vnic_store_forward #(
    .DescBits($bits(wdesc)),
    .RdOff   (0)
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
    .bytes_o     (n),
    .drop_i      (drop),
    .reason_i    (reason[3:0]),
    .desc_i      (wdesc),
    .head_valid_o(head_valid),
    .head_o      (head),
    .k_o         (k_q),
    .rd_a_o      (cur_beat),
    .rd_b_o      (next_beat),
    .out_fire_i  (m_fire),
    .out_last_i  (last_beat),
    .sent_i      (m_fire & last_beat),
    .cnt_in_o,
    .cnt_out_o,
    .cnt_drops_o
  );

  assign hdr = sop ? in_data_q[HdrBits-1:0] : hdr_q;
  assign qw0 = hdr[63:0];
  assign qw1 = hdr[127:64];

  // The running CRC (the earlier beats) one whole beat on, plus this beat's part. The register holds the
  // running CRC already moved one beat on (crc_fwd_q = CrcBeat x crc), computed when the beat before was
  // taken, so the last beat's check is a 32-bit XOR and compare of registers (issue 27: the matrix, the XOR
  // and the compare in front of the drop reason were 15 levels). At a frame's start the CRC is all ones:
  // crc_fresh_q selects CrcBeat x ~0 (a constant) instead.
  assign crc_ones_fwd = nt_pkg::crc32_mat(nt_crc_pkg::CrcBeat, '1);
  assign crc_fwd      = crc_fresh_q ? crc_ones_fwd : crc_fwd_q;
  assign crc_beat     = crc_fwd ^ in_part_q;
  assign icrc_ok      = crc_beat == in_want_q;
  assign tail     = in_tail_q;

  // The VNIC port of the virtual switch id (the lowest configured port with it) and its key match, from
  // the first beat's per-port matches.
  always_comb begin
    port    = '0;
    pkey_ok = 1'b0;
    for (int i = nt_pkg::VnicPorts - 1; i >= 0; i--) begin
      if (in_match_q[i]) begin
        port    = vnic_pkg::PortIdxBits'(i);
        pkey_ok = in_pkey_q[i];
      end
    end
  end
  assign found = |in_match_q;

  always_comb begin
    reason = 0;
    if (!over_now && n < 16'(nt_pkg::VnicMinPktBytes)) reason = nt_pkg::VnicDecDropRunt;
    else if (qw0[62:61] != 2'b10 || !qw0[63]) reason = nt_pkg::VnicDecDropBadL2;
    else if (qw1[7:0] != 8'(nt_pkg::VnicL4Eth)) reason = nt_pkg::VnicDecDropBadL4;
    else if (over_now || n != {2'd0, qw0[30:20], 3'd0}) reason = nt_pkg::VnicDecDropLength;
    else if (!icrc_ok) reason = nt_pkg::VnicDecDropIcrc;
    // Tail LT 0b01 (the spec's tail flit) or 0b00 (Linux hfi1 writes the pad count alone).
    // t > n - 39 as t + 39 > n: here n >= 40 (the runt check came first, or the length check for over)
    else if (tail[7] || tail[5:0] > 6'd7 || 16'(in_tail39_q) > n) reason = nt_pkg::VnicDecDropPad;
    else if (!found) reason = nt_pkg::VnicDecDropVeswid;
    else if (!pkey_ok) reason = nt_pkg::VnicDecDropPkey;
  end
  assign drop    = reason != 0;
  assign eth_len = n - 16'(in_trail_q);

  always_comb begin
    wdesc.len       = eth_len[13:0];
    wdesc.out_beats = n[14:6] + BeatBits'(in_ob_inc_q);  // (eth_len + 63) >> 6
    wdesc.port      = port;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      hdr_q       <= '0;
      crc_fresh_q <= 1'b1;
    end else if (in_take) begin
      hdr_q       <= hdr;
      crc_fresh_q <= in_last_q;
    end
  end

  always_ff @(posedge clk_i) begin
    if (in_take) crc_fwd_q <= nt_pkg::crc32_mat(nt_crc_pkg::CrcBeat, crc_beat);
  end

  // ---------------- read side ----------------
  logic [15:0]           b0, keep_room;
  logic [6:0]            keep_n;

`ifdef NT_MUTATE_VNIC  // a planted protocol bug (docs/assertions.md)
  nt_mutant_valid_drop u_mutant (
    .clk_i, .rst_ni, .valid_i(head_valid), .ready_i(m_ready_i), .valid_o(m_valid_o));
`else
  assign m_valid_o = head_valid;
`endif
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
  assign unused = ^{s_port_i, macs, port_e, qw0[19:0], qw0[31], qw0[60:32], qw1[63:32], qw1[31:8], hdr[159:128],
                    tail[6], n[15], eth_len[15:14]};
endmodule
