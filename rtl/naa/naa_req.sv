// The endpoint's RC requester on the connected QP (docs/naa.md "Requester", docs/naa-microarchitecture.md):
// takes commands (the controller's, or those posted through the programming port), sends each message as
// SEND or RDMA WRITE [with immediate] packets split at the negotiated MTU, one packet at a time (payload
// read by DMA into a one-packet buffer, frame composed and ICRC appended on the fly), and keeps every message
// until its last packet is acknowledged. ACK / NAK frames come in on s_*: a coalesced ACK completes all up to
// its PSN; a PSN sequence error NAK or a timeout goes back to the oldest unacknowledged PSN (Go-Back-N); an
// RNR NAK waits its timer first; a fatal NAK or an exhausted retry count completes the message with an error
// and flushes the rest. State for state as model/naa/naa_req.cc.
//   sender: Idle -> [Read -> Fill] -> Send -> Idle
`include "nt_ports.svh"
module naa_req
(
  `NT_CLK_RST,
  // ACK / NAK frames for this endpoint's QP (the front end routes them here).
  `NT_STREAM_IN(s),
  // Request frames.
  `NT_STREAM_OUT(m),
  // DMA master (payload reads).
  output logic                          dma_req_valid_o,
  input  logic                          dma_req_ready_i,
  output logic [63:0]                   dma_req_addr_o,
  output logic [15:0]                   dma_req_len_o,
  `NT_DMA_RSP_IN(dma),
  // The controller's commands and their completions.
  input  logic                          cmd_valid_i,
  output logic                          cmd_ready_o,
  input  naa_pkg::naa_req_cmd_t                  cmd_i,
  output logic                          cpl_valid_o,
  output naa_pkg::naa_req_cpl_t                  cpl_o,
  // The connection (naa_cm) and the external programming port (responder table 0, table NaaTblReq).
  input  naa_pkg::naa_conn_t                     conn_i,
  `NT_CFG_IN(cfg),
  output logic [31:0]                   cnt_packets_in_o,
  output logic [31:0]                   cnt_processed_o,
  output logic [nt_pkg::NaaReqDrops*32-1:0]     cnt_drops_o,
  output logic [nt_pkg::NaaReqCnts*32-1:0]      cnt_o,
  output logic                          busy_o
);
`include "nt_assert.svh"
  localparam int unsigned MsgBits = $clog2(nt_pkg::NaaReqMsgs);
  localparam int unsigned HqBits = $clog2(nt_pkg::NaaReqHostCmds);

  typedef enum logic [1:0] {SIdle, SRead, SFill, SSend} snd_state_e;

  // ---- Settings ----
  logic [47:0] mac_q;
  logic [31:0] ip4_q;
  logic [31:0] timeout_q;
  logic [31:0] timeout_m1_q;  // timeout_q - 1, written with it (the timer's compare below)
  logic [2:0]  retry_max_q, rnr_max_q;

  // ---- Host-posted commands, the message ring ----
  // A word of the struct's width, not the struct: Yosys 0.55 reads an unpacked array of a struct type as ONE
  // element (docs/synthesis.md "One RTL source"); Verilator reads both.
  logic [$bits(cmd_i)-1:0]      hq_q [nt_pkg::NaaReqHostCmds];
  logic [HqBits:0]     hq_wr_q, hq_rd_q;
  logic [$bits(cmd_i)-1:0]      msg_q [nt_pkg::NaaReqMsgs];
  logic [23:0]         msg_psn_q [nt_pkg::NaaReqMsgs];
  logic [23:0]         msg_n_q [nt_pkg::NaaReqMsgs];
  logic [23:0]         msg_end_q [nt_pkg::NaaReqMsgs];  // msg_psn + msg_n (mod 2^24): the completion test
  // Per message len + (psn << mtu_log2) mod 2^32 (psn its first PSN): a go-back's bytes left in one subtract
  // (below, "The sender's bytes left").
  logic [31:0]         msg_b_q [nt_pkg::NaaReqMsgs];
  logic [31:0]         msg_p_q [nt_pkg::NaaReqMsgs];  // psn << mtu_log2 (mod 2^32): a go-back's offset likewise
  logic                msg_host_q [nt_pkg::NaaReqMsgs];
  logic [MsgBits:0]    head_q, tail_q, snd_msg_q;

  // ---- PSNs, timers, error state ----
  logic        live_q;                  // connected and initialised from the connection
  logic [23:0] alloc_q, snd_q, snd_pkt_q, una_q, max_q;
  logic        fatal_q, fail_first_q;
  naa_pkg::naa_cpl_status_e fail_status_q;
  logic [31:0] timer_q, rnr_wait_q;
  logic        rnr_waiting_q, rw_q;
  logic [2:0]  retry_left_q, rnr_left_q;

  // ---- Sender ----
  snd_state_e            sst_q;
  // The packet's payload, one write port (the fill) and one registered read port: block RAM (issue 27;
  // docs/naa-microarchitecture.md "Payload buffer").
  logic [nt_pkg::StreamBits-1:0] buf_q [nt_pkg::NaaReqBufBeats];
  logic [nt_pkg::StreamBits-1:0] buf_rd_q, buf_wr_q, win_hi, win_lo_q;
  logic                  buf_fwd_q;
  logic [6:0]            fill_q, k_q;
  logic [31:0]           rcrc_q;
  logic [7:0]            p_opcode;
  logic [6:0]            p_hdr_q;
  logic [12:0]           p_plen_q;
  logic [7:0]            p_opcode_q;
  logic                  p_ack_q, p_reth_q, p_imm_q;
  logic [23:0]           p_psn_q;
  logic [31:0]           snd_left_q;  // the sender's message's bytes from snd_pkt_q on (below)
  logic [31:0]           snd_off_q;   // snd_pkt_q << mtu_log2, the packet's offset in the message (below)
  logic [63:0]           p_va_q;
  logic [31:0]           p_rkey_q, p_dmalen_q, p_immv_q;
  logic [63:0]           p_laddr_q;
  // The packet's shape, registered (issue 27 item 2; docs/naa-microarchitecture.md "Transmit beat"): frame
  // offsets as (offset / 64, offset % 64) for the payload's end (pe), the ICRC (ia) and the frame's end (t),
  // the IPv4 / UDP lengths, and pk: 0x4500 + 0x4000 + 0x4011 + ip_len as a ones'-complement sum (the checksum's
  // per-packet part). Written at the start for an empty payload, then from p_hdr_q / p_plen_q in Read and Fill.
  logic [6:0]            pe_hi_q, ia_hi_q, t_hi_q;
  logic [5:0]            pe_lo_q, ia_lo_q, t_lo_q;
  logic [15:0]           ip_len_q, udp_len_q, pk_q;
  // The beat being sent, registered: beat 0, per byte header / payload / ICRC / kept, last beat, and the
  // ICRC's coverage (full: the beat is all covered; icb: the ICRC starts in it; else: nothing covered).
  logic                  k0_q;
  logic [nt_pkg::StreamBytes-1:0] hsel_q, psel_q, ien_q, keep_q;
  logic                  last_q, full_q, icb_q;
  logic [15:0]           ip4s_q;  // ip4_q's two halves as a ones'-complement sum

  // ---- Receive ----
  logic [nt_pkg::StreamBits-1:0] rx_q;
  logic                  rx_bad_icrc_q;  // rx_q's ICRC check, written with it (below)
  logic                  rx_keep62_q;  // the first beat keeps 62 bytes (written with rx_q, below)
  logic [1:0]            rx_nb_q;
  logic                  rx_full_q;

  // ---- Counters ----
  logic [31:0]                  c_in_q, c_proc_q;
  logic [nt_pkg::NaaReqDrops-1:0][31:0] c_drops_q;
  logic [nt_pkg::NaaReqCnts-1:0][31:0]  c_q;

  // a == b + 1 (mod 2^24) without the increment: a ^ b must be b's trailing ones and the bit above them (bit i
  // of b flips iff b's bits below i are all 1): a prefix AND and a compare, no carry chain (branch naq24).
  function automatic logic psn_is_inc(logic [23:0] a, logic [23:0] b);  // a == b + 1 (mod 2^24)
    logic [23:0] lo;
    for (int unsigned i = 0; i < 24; i++) lo[i] = (b & ((24'd1 << i) - 24'd1)) == ((24'd1 << i) - 24'd1);
    psn_is_inc = (a ^ b) == lo;
  endfunction

  // a is at or after b in PSN order (within half the space).
  function automatic logic psn_ge(logic [23:0] a, logic [23:0] b);
    logic [23:0] d;
    d = a - b;
    psn_ge = d < 24'h80_0000;
  endfunction

  // 16-bit ones'-complement sum (RFC 1071): a + b with the carry out added back, both sums formed at once.
  function automatic logic [15:0] oc_add(logic [15:0] a, logic [15:0] b);
    logic [16:0] s0;
    logic [15:0] s1;
    s0 = {1'b0, a} + {1'b0, b};
    s1 = a + b + 16'd1;
    oc_add = s0[16] ? s1 : s0[15:0];
  endfunction

  // The IPv4 header checksum ~(a + b + c + d) in ones'-complement arithmetic: two carry-save steps (a carry out
  // of bit 15 is worth 1: the carries rotate left) and one end-around-carry add, not the 19-bit sum and its two
  // folds (naa_pkg::ip4_csum, 21 levels). Equal to it: both are the sum mod 0xffff, in 1..0xffff as long as one
  // operand is not 0 (pk, the per-packet part, never is), where 0 and 0xffff differ.
  function automatic logic [15:0] oc_csum4(logic [15:0] a, logic [15:0] b, logic [15:0] c, logic [15:0] d);
    logic [15:0] s1, m1, s2, m2;
    s1 = a ^ b ^ c;
    m1 = (a & b) | (a & c) | (b & c);
    s2 = s1 ^ {m1[14:0], m1[15]} ^ d;
    m2 = (s1 & {m1[14:0], m1[15]}) | (s1 & d) | ({m1[14:0], m1[15]} & d);
    oc_csum4 = ~oc_add(s2, {m2[14:0], m2[15]});
  endfunction

  // The packet's shape from its header and payload lengths (the registers pe_*, ia_*, t_*, ip_len, udp_len,
  // pk, in that order): the payload ends at h + plen, the ICRC at h + plen + pad, the frame 4 bytes later.
  localparam int unsigned ShapeBits = 3 * 13 + 3 * 16;
  function automatic logic [ShapeBits-1:0] pkt_shape(logic [6:0] h, logic [12:0] plen);
    logic [12:0] pe, ia, t;
    logic [15:0] il;
    pe = 13'(h) + plen;
    ia = pe + 13'(2'(3'd4 - 3'(plen[1:0])));
    t  = ia + 13'd4;
    il = 16'(t) - 16'd14;
    pkt_shape = {pe, ia, t, il, 16'(t) - 16'd34, oc_add(16'hc511, il)};
  endfunction

  // Bytes of the beat at frame offset 64 kn that lie before frame offset 64 hi + lo.
  function automatic logic [nt_pkg::StreamBytes-1:0] bytes_below(logic [6:0] hi, logic [5:0] lo, logic [6:0] kn);
    logic [nt_pkg::StreamBytes-1:0] r;
    for (int unsigned i = 0; i < nt_pkg::StreamBytes; i++) r[i] = hi > kn || (hi == kn && 6'(i) < lo);
    bytes_below = r;
  endfunction

  // Beat kn of a packet whose header ends at h, payload at pe, ICRC at ia, frame at t: {hsel, psel, ien,
  // keep, last, full, icb} (the registers of the same names). ia and t are 2 mod 4 (h is 54, 58, 70 or 74,
  // plen + pad a multiple of 4), never a multiple of 64: the last beat is the one t lies in, and the ICRC's
  // coverage ends inside the beat ia lies in.
  localparam int unsigned BeatBits = 4 * nt_pkg::StreamBytes + 3;
  function automatic logic [BeatBits-1:0] beat_shape(logic [6:0] kn, logic [6:0] h, logic [12:0] pe,
                                                     logic [12:0] ia, logic [12:0] t);
    logic [nt_pkg::StreamBytes-1:0] bh, bpe, bia, bt;
    bh  = bytes_below({6'd0, h[6]}, h[5:0], kn);
    bpe = bytes_below(pe[12:6], pe[5:0], kn);
    bia = bytes_below(ia[12:6], ia[5:0], kn);
    bt  = bytes_below(t[12:6], t[5:0], kn);
    beat_shape = {bh, bpe & ~bh, bt & ~bia, bt, t[12:6] <= kn, ia[12:6] > kn, ia[12:6] == kn};
  endfunction

  // ---- The message at snd_msg_q: the next packet's shape ----
  naa_pkg::naa_req_cmd_t snd_cmd;
  logic [23:0]  snd_n;
  logic [31:0]  p_off, p_mtu;
  logic         p_gt;
  logic [12:0]  p_plen;
  logic [6:0]   p_hdr;
  logic         p_first, p_lastp, p_reth, p_imm, p_ack;
  logic [64:0]  p_va, p_laddr;  // (the carry out unused)
  always_comb begin
    snd_cmd = msg_q[snd_msg_q[MsgBits-1:0]];
    snd_n   = msg_n_q[snd_msg_q[MsgBits-1:0]];
    p_off   = 32'(snd_pkt_q) << conn_i.mtu_log2;
    p_mtu   = 32'd1 << conn_i.mtu_log2;
    // The bytes left, snd_cmd.len - p_off, are the register snd_left_q (branch naq24: the subtract behind the
    // shift was the deepest path, 17 levels); left > 2^m as masks: a bit above m, or bit m and one below it.
    p_gt    = (snd_left_q & (32'hffff_fffe << conn_i.mtu_log2)) != '0 ||
              ((snd_left_q & p_mtu) != '0 && (snd_left_q & ~(32'hffff_ffff << conn_i.mtu_log2)) != '0);
    p_plen  = p_gt ? 13'(p_mtu) : snd_left_q[12:0];
    // The packet's addresses in 16-bit chunks with carry select (rdma_pkg::add64c; a 64-bit add is one chain of
    // 16 CARRY4 cells: conn_i -> p_va_q / p_laddr_q was 20 levels with the shift in front)
    p_va    = rdma_pkg::add64c(snd_cmd.raddr, {32'd0, snd_off_q}, 1'b0);
    p_laddr = rdma_pkg::add64c(snd_cmd.laddr, {32'd0, snd_off_q}, 1'b0);
    p_first = snd_pkt_q == '0;
    p_lastp = psn_is_inc(snd_n, snd_pkt_q);  // snd_pkt_q + 1 == snd_n
    p_reth  = snd_cmd.op != naa_pkg::NaaOpSend && p_first;
    p_imm   = snd_cmd.op == naa_pkg::NaaOpWriteImm && p_lastp;
    // ((snd_pkt_q + 1) % 16 == 0: the low bits all ones)
    p_ack   = p_lastp || snd_pkt_q[$clog2(nt_pkg::NaaReqAckEvery)-1:0] == '1;
    p_hdr   = 7'd54 + (p_reth ? 7'd16 : 7'd0) + (p_imm ? 7'd4 : 7'd0);
    unique case (snd_cmd.op)
      naa_pkg::NaaOpSend:  p_opcode = (snd_n == 24'd1) ? 8'h04 : p_first ? 8'h00 : p_lastp ? 8'h02 : 8'h01;
      naa_pkg::NaaOpWrite: p_opcode = (snd_n == 24'd1) ? 8'h0a : p_first ? 8'h06 : p_lastp ? 8'h08 : 8'h07;
      default:    p_opcode = (snd_n == 24'd1) ? 8'h0b : p_first ? 8'h06 : p_lastp ? 8'h09 : 8'h07;
    endcase
  end

  // ---- The frame being sent: header (composed from the latched packet), payload, pad, ICRC ----
  // Every per-beat choice is a register (the shape registers above): byte i of beat k is a header byte if
  // hsel_q[i] (beat 0 or 1: the header is 54..74 bytes), a payload byte if psel_q[i], an ICRC byte if
  // ien_q[i], else 0 (pad, or after the frame); the payload window's offset is constant per header length.
  logic [1:0]            p_pad;
  logic [8*80-1:0]       hdr;
  always_comb begin
    p_pad     = 2'(3'd4 - 3'(p_plen_q[1:0]));
    hdr = '0;
    hdr = naa_pkg::put_hdr(hdr, 0, 6, {16'd0, conn_i.mac});
    hdr = naa_pkg::put_hdr(hdr, 6, 6, {16'd0, mac_q});
    hdr = naa_pkg::put_hdr(hdr, 12, 2, 64'h0800);
    hdr = naa_pkg::put_hdr(hdr, 14, 1, 64'h45);
    hdr = naa_pkg::put_hdr(hdr, 16, 2, {48'd0, ip_len_q});
    hdr = naa_pkg::put_hdr(hdr, 20, 2, 64'h4000);
    hdr = naa_pkg::put_hdr(hdr, 22, 1, 64'd64);
    hdr = naa_pkg::put_hdr(hdr, 23, 1, 64'd17);
    hdr = naa_pkg::put_hdr(hdr, 24, 2, {48'd0, oc_csum4(pk_q, ip4s_q, conn_i.ip[31:16], conn_i.ip[15:0])});
    hdr = naa_pkg::put_hdr(hdr, 26, 4, {32'd0, ip4_q});
    hdr = naa_pkg::put_hdr(hdr, 30, 4, {32'd0, conn_i.ip});
    hdr = naa_pkg::put_hdr(hdr, 34, 2, {48'd0, conn_i.sport});
    hdr = naa_pkg::put_hdr(hdr, 36, 2, 64'(nt_pkg::RdmaUdpPort));
    hdr = naa_pkg::put_hdr(hdr, 38, 2, {48'd0, udp_len_q});
    hdr = naa_pkg::put_hdr(hdr, 42, 1, {56'd0, p_opcode_q});
    hdr = naa_pkg::put_hdr(hdr, 43, 1, {58'd0, p_pad, 4'd0});
    hdr = naa_pkg::put_hdr(hdr, 44, 2, 64'hffff);
    hdr = naa_pkg::put_hdr(hdr, 47, 3, {40'd0, conn_i.qpn});
    hdr = naa_pkg::put_hdr(hdr, 50, 1, {56'd0, p_ack_q, 7'd0});
    hdr = naa_pkg::put_hdr(hdr, 51, 3, {40'd0, p_psn_q});
    if (p_reth_q) begin
      hdr = naa_pkg::put_hdr(hdr, 54, 8, p_va_q);
      hdr = naa_pkg::put_hdr(hdr, 62, 4, {32'd0, p_rkey_q});
      hdr = naa_pkg::put_hdr(hdr, 66, 4, {32'd0, p_dmalen_q});
    end
    // (the immediate at a constant offset per case: a variable one would be a shifter over the header)
    if (p_imm_q && p_reth_q) hdr = naa_pkg::put_hdr(hdr, 70, 4, {32'd0, p_immv_q});
    if (p_imm_q && !p_reth_q) hdr = naa_pkg::put_hdr(hdr, 54, 4, {32'd0, p_immv_q});
  end

  logic [nt_pkg::StreamBits-1:0]  tx_pre, tx_pay;
  logic [nt_pkg::StreamBits-1:0]  tx_z;
  logic [nt_pkg::StreamBytes-1:0] tx_keep;
  logic                   tx_last;
  logic [31:0]            crc_take, rcrc_d, crc_v;
  logic [2*nt_pkg::StreamBits-1:0] wb;
  logic [nt_pkg::StreamBits-1:0]   win;
  assign wb = {win_hi, win_lo_q};
  naa_mux4_level #(.W(nt_pkg::StreamBits)) u_win (
    .d0_i  (wb[8*10+:nt_pkg::StreamBits]),
    .d1_i  (wb[8*6+:nt_pkg::StreamBits]),
    .d2_i  (wb[8*58+:nt_pkg::StreamBits]),
    .d3_i  (wb[8*54+:nt_pkg::StreamBits]),
    .sel_i ({p_reth_q, p_imm_q}),
    .q_o   (win)
  );
  always_comb begin
    // Payload byte p sits at frame byte hdr + p: this beat's payload is a two-beat window of the buffer,
    // beats wj - 2 (win_lo_q) and wj - 1 (win_hi), wj = (base + 128 - hdr) / 64, shifted by (128 - hdr) % 64
    // bytes: 10, 6, 58 or 54 for a header of 54, 58, 70 or 74 bytes ({p_reth_q, p_imm_q}). Only payload
    // bytes (psel_q) are selected below, so the window's other bytes never reach the frame.
    // (the 4-way choice is the child naa_mux4_level above: one LUT6 a bit, a level of its own)
    // Header bytes lie in beat 0 (all of them up to 64) and beat 1 (bytes 64..73: hsel_q only below 10), so
    // from byte 16 on a header byte is beat 0's.
    for (int unsigned i = 0; i < nt_pkg::StreamBytes; i++) begin
      tx_pay[8*i+:8] = psel_q[i] ? win[8*i+:8] : 8'd0;
      if (!hsel_q[i]) tx_pre[8*i+:8] = tx_pay[8*i+:8];
      else if (i < 16 && !k0_q) tx_pre[8*i+:8] = hdr[8*(64+(i%16))+:8];
      else tx_pre[8*i+:8] = hdr[8*i+:8];
    end
    // The bytes the ICRC reads (rdma_pkg::icrc_beat with its bounds as registers): the bytes from the ICRC on
    // are 0 in tx_pre, so no byte mask; beat 0 drops bytes 0..13 and reads its masked fields (the IPv4
    // checksum among them) as ones; after beat 0 no header byte lies at 16 or above. So the IPv4 checksum
    // (an adder) never reaches the ICRC.
    for (int unsigned i = 0; i < nt_pkg::StreamBytes; i++) begin
      if (k0_q) begin
        if (i < rdma_crc_pkg::CrcIcrcLo) tx_z[8*i+:8] = 8'd0;
        else tx_z[8*i+:8] = rdma_pkg::icrc_masked(i, tx_pre[8*i+:8], 1'b0);
      end else begin
        tx_z[8*i+:8] = i < 16 ? tx_pre[8*i+:8] : tx_pay[8*i+:8];
      end
    end
  end

  // crc_v = CrcData x tx_z ^ (CrcHead or CrcBeat) x rcrc_q as trees of XOR6 levels, each level a child module
  // (naa_xor6_level: one LUT6 a level, the module's ports cut the tree; branch naa23). Per bit of the register:
  // 86 XORs of 6 beat bits (level 1), beside them 7 of 5 register bits (with k0_q: one LUT each, here), then by
  // sixes (16, 3, 1). Branch naa22 wrote the same trees on (* keep *) wires in this module: ABC kept the wires
  // but mapped the logic across them as LUT6 + MUXF7/8/9 groups (25 levels to m_data_o).
  localparam int unsigned CrcZc = (nt_pkg::StreamBits + 5) / 6;
  localparam int unsigned CrcL1 = CrcZc + 7;
  localparam int unsigned CrcL2 = (CrcL1 + 5) / 6;
  localparam int unsigned CrcL3 = (CrcL2 + 5) / 6;
  logic [6*CrcZc-1:0]      crc_zp;
  logic [34:0]             crc_rp;
  logic [32*6*CrcZc-1:0]   crc_l1_in;
  logic [32*CrcZc-1:0]     crc_l1;
  logic [32*7-1:0]         crc_st;
  logic [32*6*CrcL2-1:0]   crc_l2_in;
  logic [32*CrcL2-1:0]     crc_l2;
  logic [32*6*CrcL3-1:0]   crc_l3_in;
  logic [32*CrcL3-1:0]     crc_l3;
  logic [32*6-1:0]         crc_l4_in;
  assign crc_zp = (6*CrcZc)'(tx_z);
  assign crc_rp = 35'(rcrc_q);
  for (genvar o = 0; o < 32; o++) begin : g_crc
    logic [6*CrcZc-1:0] row;
    logic [34:0]        hrow, brow;
    assign row  = (6*CrcZc)'(nt_crc_pkg::CrcData[nt_pkg::StreamBits*o+:nt_pkg::StreamBits]);
    assign hrow = 35'(rdma_crc_pkg::CrcHead[32*o+:32]);
    assign brow = 35'(nt_crc_pkg::CrcBeat[32*o+:32]);
    assign crc_l1_in[6*CrcZc*o+:6*CrcZc] = crc_zp & row;
    for (genvar c = 0; c < 7; c++) begin : g_s
      assign crc_st[7*o+c] = k0_q ? ^(crc_rp[5*c+:5] & hrow[5*c+:5]) : ^(crc_rp[5*c+:5] & brow[5*c+:5]);
    end
    assign crc_l2_in[6*CrcL2*o+:6*CrcL2] = (6*CrcL2)'({crc_st[7*o+:7], crc_l1[CrcZc*o+:CrcZc]});
    assign crc_l3_in[6*CrcL3*o+:6*CrcL3] = (6*CrcL3)'(crc_l2[CrcL2*o+:CrcL2]);
    assign crc_l4_in[6*o+:6] = 6'(crc_l3[CrcL3*o+:CrcL3]);
  end
  naa_xor6_level #(.N(32*CrcZc)) u_crc_l1 (.d_i(crc_l1_in), .q_o(crc_l1));
  naa_xor6_level #(.N(32*CrcL2)) u_crc_l2 (.d_i(crc_l2_in), .q_o(crc_l2));
  naa_xor6_level #(.N(32*CrcL3)) u_crc_l3 (.d_i(crc_l3_in), .q_o(crc_l3));
  naa_xor6_level #(.N(32))       u_crc_l4 (.d_i(crc_l4_in), .q_o(crc_v));

  // In the ICRC's beat it covers ia_lo_q bytes: the 64 - ia_lo_q zero bytes after them taken back. ia_lo_q
  // is 2 mod 4, so the matrix is one of 16, a constant AND-OR over ia_lo_q[5:2] (no variable part-select);
  // applied by pairs of columns (one LUT6 each: 4 select bits, 2 bits of crc_v), then by sixes (child levels).
  logic [32*32-1:0] take_m;
  always_comb begin
    take_m = '0;
    for (int unsigned c = 0; c < 16; c++) begin
      take_m = take_m | ({32*32{ia_lo_q[5:2] == 4'(c)}} & rdma_crc_pkg::CrcTake[32*32*(62-4*c)+:32*32]);
    end
  end
  logic [32*16-1:0] take_t1;
  logic [32*18-1:0] take_t2_in;
  logic [32*3-1:0]  take_t2;
  logic [32*6-1:0]  take_t3_in;
  for (genvar o = 0; o < 32; o++) begin : g_take
    for (genvar m = 0; m < 16; m++) begin : g_m
      assign take_t1[16*o+m] = (take_m[32*o+2*m] & crc_v[2*m]) ^ (take_m[32*o+2*m+1] & crc_v[2*m+1]);
    end
    assign take_t2_in[18*o+:18] = 18'(take_t1[16*o+:16]);
    assign take_t3_in[6*o+:6]   = 6'(take_t2[3*o+:3]);
  end
  naa_xor6_level #(.N(32*3)) u_take_t2 (.d_i(take_t2_in), .q_o(take_t2));
  naa_xor6_level #(.N(32))   u_take_t3 (.d_i(take_t3_in), .q_o(crc_take));

  always_comb begin
    rcrc_d  = full_q ? nt_pkg::crc32_mat(rdma_crc_pkg::CrcTake[0+:32*32], crc_v) : icb_q ? crc_take : rcrc_q;
    tx_keep = keep_q;
    tx_last = last_q;
  end

  // ---- The shape registers' next values ----
  // At the start of a packet: for an empty payload (a constant per header length); a packet with payload
  // goes through Read (at least one cycle) and Fill (at least one): Read and Fill write the packet's shape
  // from p_hdr_q / p_plen_q, Fill beat 0's from it, and each sent beat the next beat's.
  logic [ShapeBits-1:0] shape_d, shape0;
  // The packet's offsets from p_hdr_q / p_plen_q (Read and Fill) and its lengths from t_q (Fill; branch naq24).
  // il = t - 14 and pk = oc_add(0xc511, il) = t + 0xc503: il < 2^13, so 0xc511 + il has no carry out to add back.
  // Read writes the lengths too (with t_q's value then, not yet this packet's): they are read only in Send.
  function automatic logic [12:0] add3(logic [12:0] a, logic [12:0] b, logic [12:0] c);
    add3 = (a ^ b ^ c) + {(a[11:0] & b[11:0]) | (a[11:0] & c[11:0]) | (b[11:0] & c[11:0]), 1'b0};
  endfunction
  logic [12:0] pe_d, ia_d, t_d, t_r;
  logic [47:0] len_d;
  logic [2:0]  pad_d;
  always_comb begin
    pad_d = 3'(2'(3'd4 - 3'(p_plen_q[1:0])));
    pe_d  = 13'(p_hdr_q) + p_plen_q;
    ia_d  = add3(13'(p_hdr_q), p_plen_q, 13'(pad_d));
    t_d   = add3(13'(p_hdr_q), p_plen_q, 13'(pad_d) + 13'd4);
    t_r   = {t_hi_q, t_lo_q};
    len_d = {16'(t_r) - 16'd14, 16'(t_r) - 16'd34, 16'(t_r) + 16'hc503};
  end
`ifndef SYNTHESIS
  // In Send the shape registers are pkt_shape's of the packet (Fill wrote the lengths from Read's t).
  `NT_ASSERT(shape_reg, sst_q != SSend ||
      {pe_hi_q, pe_lo_q, ia_hi_q, ia_lo_q, t_hi_q, t_lo_q, ip_len_q, udp_len_q, pk_q} == pkt_shape(p_hdr_q, p_plen_q))
`endif
  logic [BeatBits-1:0]  beat_d, beat0;
  always_comb begin
    unique case ({p_reth, p_imm})
      2'b00: begin
        shape0 = pkt_shape(7'd54, 13'd0);
        beat0  = beat_shape(7'd0, 7'd54, 13'd54, 13'd54, 13'd58);
      end
      2'b01: begin
        shape0 = pkt_shape(7'd58, 13'd0);
        beat0  = beat_shape(7'd0, 7'd58, 13'd58, 13'd58, 13'd62);
      end
      2'b10: begin
        shape0 = pkt_shape(7'd70, 13'd0);
        beat0  = beat_shape(7'd0, 7'd70, 13'd70, 13'd70, 13'd74);
      end
      default: begin
        shape0 = pkt_shape(7'd74, 13'd0);
        beat0  = beat_shape(7'd0, 7'd74, 13'd74, 13'd74, 13'd78);
      end
    endcase
    // (pe, ia, t each as one add of three operands, a carry-save step first; the lengths and pk from t_q in
    // Fill, below: pkt_shape chained four adds, 14 levels to pk_q)
    shape_d = {pe_d, ia_d, t_d, len_d};
    beat_d  = beat_shape(sst_q == SSend ? k_q + 7'd1 : 7'd0, p_hdr_q, {pe_hi_q, pe_lo_q}, {ia_hi_q, ia_lo_q},
                         {t_hi_q, t_lo_q});
  end

  assign m_valid_o = sst_q == SSend;
  // ICRC byte j at frame offset ia + j, ia = 2 mod 4: byte i of a beat holds ICRC byte (i + 2) % 4 (the ICRC's
  // bytes, the composed bytes and the valid gate: one LUT6 a bit, in a child module of its own).
  naa_req_tx_out u_tx_out (
    .valid_i    (m_valid_o),
    .icb_i      (icb_q),
    .ien_i      (ien_q),
    .crc_take_i (crc_take),
    .rcrc_i     (rcrc_q),
    .pre_i      (tx_pre),
    .data_o     (m_data_o)
  );
  assign m_keep_o  = m_valid_o ? tx_keep : '0;
  assign m_last_o  = m_valid_o && tx_last;
  assign dma_req_valid_o = sst_q == SRead;
  assign dma_req_addr_o  = sst_q == SRead ? p_laddr_q : '0;
  assign dma_req_len_o   = sst_q == SRead ? 16'(p_plen_q) : '0;

  // ---- Commands in ----
  logic ring_full, ring_empty, host_take, ctl_take, take;
  naa_pkg::naa_req_cmd_t take_cmd, hq_cmd;
  assign hq_cmd      = hq_q[hq_rd_q[HqBits-1:0]];
  assign ring_full   = (tail_q - head_q) == (MsgBits + 1)'(nt_pkg::NaaReqMsgs);
  assign ring_empty  = tail_q == head_q;
  assign cmd_ready_o = live_q && !ring_full;
  assign ctl_take    = cmd_valid_i && cmd_ready_o;
  assign host_take   = !cmd_valid_i && live_q && !ring_full && hq_wr_q != hq_rd_q;
  assign take        = ctl_take || host_take;
  // (chosen by cmd_valid_i, not ctl_take: take_cmd is read only when a command is taken, and then ctl_take ==
  // cmd_valid_i since host_take needs !cmd_valid_i; so the ring's head_q -> ring_full -> ctl_take no longer lies
  // in front of the command's length, npkts and alloc_q's adds (branch naa23))
  assign take_cmd    = cmd_valid_i ? cmd_i : hq_cmd;

  // The command's packet count n = npkts(len, mtu_log2) and alloc_q + n, without npkts's 32-bit increment in
  // series with the 24-bit add (issue 27 item 2: conn_i -> alloc_q was 34 levels). With lo = (len >> m)[23:0],
  // r = a remainder, sat = (len >> m) + r >= 2^24: n = 1 for len = 0, else ((lo + r) mod 2^24) | sat. So
  // alloc_q + n is one of alloc_q + lo (+ 0, 1 or 2), or alloc_q + 1 (lo + r wraps to 0), formed side by side
  // (+ 1 as {a, 1} + {b, 1}, + 2 by a carry-save step) and chosen by r, sat, lo[0] and len = 0.
  // a + b + c (mod 2^24) as two 12-bit halves side by side, the high one with and without the low one's carry
  // ({x, 1} + {y, 1} is 2 (x + y + 1)), chosen by it: 3 CARRY4 and a LUT in series, not 6 CARRY4 (branch naa23).
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [23:0] add24cs(logic [23:0] a, logic [23:0] b, logic c);
    logic [13:0] lo;
    logic [12:0] h1;
    logic [11:0] h0;
    lo = {1'b0, a[11:0], c} + {1'b0, b[11:0], c};
    h0 = a[23:12] + b[23:12];
    h1 = {a[23:12], 1'b1} + {b[23:12], 1'b1};
    add24cs = {lo[13] ? h1[12:1] : h0, lo[12:1]};
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */
  logic [31:0] alloc_sh;
  assign alloc_sh = 32'(alloc_q) << conn_i.mtu_log2;  // the message's first PSN << m (msg_p_q, msg_b_q)
  // {n, alloc_q + n} of a command of length len. The choice (lo = 0: alloc_q + 1; no saturation: alloc_q + lo +
  // r; n = 0 | 1: alloc_q + 1; n = lo | 1; n = (lo + 1) | 1) as one-hot selects of the four sums and their
  // AND-OR, not a priority chain of 24-bit muxes after the adds (cmd_i -> alloc_q was 12-13 levels; SVA
  // take_alloc_eq).
  // x >> conn_i.mtu_log2 as two levels of 4:1 selects, by 4 * m[3:2] then by m[1:0], each an AND-OR of
  // decoded selects (a LUT6 a bit each): Yosys's $shr became a 4-stage shifter that ABC mapped as 5 LUTs in
  // series in front of the take's adds (conn_i -> alloc_q 13; issue 27).
  function automatic logic [31:0] shr_mtu(logic [31:0] x);
    logic [63:0] xx, tt;
    logic [3:0]  m;
    xx = {32'd0, x};
    m  = conn_i.mtu_log2;
    tt = '0;
    for (int i = 0; i < 32; i++) begin
      tt[i] = (m[3:2] == 2'd0 && xx[i]) || (m[3:2] == 2'd1 && xx[i+4]) || (m[3:2] == 2'd2 && xx[i+8]) ||
              (m[3:2] == 2'd3 && xx[i+12]);
    end
    for (int i = 0; i < 32; i++) begin
      shr_mtu[i] = (m[1:0] == 2'd0 && tt[i]) || (m[1:0] == 2'd1 && tt[i+1]) || (m[1:0] == 2'd2 && tt[i+2]) ||
                   (m[1:0] == 2'd3 && tt[i+3]);
    end
  endfunction
  function automatic logic [47:0] take_calc(logic [31:0] len, logic en);
    logic [31:0] sh;
    logic [23:0] lo, n, a0, a1, a2, ap1, s2, c2;
    logic        r, sat, zero, sel_a0, sel_a1, sel_a2, sel_ap1;
    sh   = shr_mtu(len);
    lo   = sh[23:0];
    // (the remainder's mask as ~(ones << m), not (1 << m) - 1: that was a 32-bit carry chain, 8 CARRY4, in
    // front of the choice; branch naa23)
    r    = (len & ~(32'hffff_ffff << conn_i.mtu_log2)) != '0;
    zero = len == '0;
    sat  = sh[31:24] != '0 || (r && lo == '1);
    n    = zero ? 24'd1 : (r ? add24cs(lo, 24'd0, 1'b1) : lo) | {23'd0, sat};
    a0   = add24cs(alloc_q, lo, 1'b0);
    a1   = add24cs(alloc_q, lo, 1'b1);
    s2   = alloc_q ^ lo ^ 24'd2;
    c2   = {(alloc_q[22:0] & lo[22:0]) | ((alloc_q[22:0] | lo[22:0]) & 23'd2), 1'b0};
    a2   = add24cs(s2, c2, 1'b0);
    ap1  = alloc_q + 24'd1;
    sel_ap1 = !zero && sat && r && lo == '1;
    sel_a0  = !zero && ((!sat && !r) || (sat && !r && lo[0]));
    sel_a2  = !zero && sat && r && lo != '1 && lo[0];
    sel_a1  = en && !(sel_ap1 || sel_a0 || sel_a2);
    take_calc = {{24{en}} & n, ({24{en && sel_a0}} & a0) | ({24{sel_a1}} & a1) | ({24{en && sel_a2}} & a2) |
                 ({24{en && sel_ap1}} & ap1)};
  endfunction
  // Both sources' {n, alloc_q + n} side by side (0 for the one not taken), the command taken (cmd_valid_i:
  // the controller's command first) entering only the selects of the last AND-OR: cmd_valid_i comes from
  // naa_ctl's state, and as take_cmd's select in front of the shift and the adds it made naa_ctl's state ->
  // alloc_q 16 levels across naa_top (issue 27).
  logic [47:0] tk_ctl, tk_host;
  logic [23:0] take_n, take_alloc;
  assign tk_ctl     = take_calc(cmd_i.len, cmd_valid_i);
  assign tk_host    = take_calc(hq_cmd.len, !cmd_valid_i);
  assign take_n     = tk_ctl[47:24] | tk_host[47:24];
  assign take_alloc = tk_ctl[23:0] | tk_host[23:0];
`ifndef SYNTHESIS
  // The priority chain the one-hot selects replace, on the command taken.
  function automatic logic [23:0] take_alloc_ref(logic [31:0] len);
    logic [31:0] sh;
    logic [23:0] lo, a0, a1, a2;
    logic        r, sat;
    sh  = len >> conn_i.mtu_log2;
    lo  = sh[23:0];
    r   = (len & ~(32'hffff_ffff << conn_i.mtu_log2)) != '0;
    sat = sh[31:24] != '0 || (r && lo == '1);
    a0  = alloc_q + lo;
    a1  = alloc_q + lo + 24'd1;
    a2  = alloc_q + lo + 24'd2;
    if (len == '0) take_alloc_ref = a1;
    else if (!sat) take_alloc_ref = r ? a1 : a0;
    else if (r && lo == '1) take_alloc_ref = alloc_q + 24'd1;
    else if (!r) take_alloc_ref = lo[0] ? a0 : a1;
    else take_alloc_ref = lo[0] ? a2 : a1;
  endfunction
  `NT_ASSERT(take_alloc_eq, take_alloc == take_alloc_ref(take_cmd.len))
  `NT_ASSERT(take_n_eq, take_n == (take_cmd.len == '0 ? 24'd1 : take_alloc_ref(take_cmd.len) - alloc_q))
`endif

  // ---- Completions: one per cycle, the oldest message ----
  logic [23:0]     head_acked;
  logic            head_done, flushing;
  naa_pkg::naa_cpl_status_e cpl_status;
  // head_acked >= n && !head_acked[23] (a = una - psn, mod 2^24) without a compare after the subtract: with
  // e = una - (psn + n) = a - n (mod 2^24) formed beside a, and a < 2^23, a >= n is !e[23] for n <= 2^23
  // (a >= n: e = a - n < 2^23; a < n: e = a - n + 2^24 >= 2^24 - n >= 2^23); n > 2^23 is never done (a <
  // 2^23 < n). The subtract was followed by a 24-bit compare on una_q's path to the sender's go-back
  // (naa_req's deepest, 13 levels: docs/synthesis.md "Session 26"); SVA head_done_eq. Only the signs of a and e
  // are read (sub_msb24, below).
  logic [23:0] head_n;
  // Bit 23 of a - b (mod 2^24) from four 6-bit pieces side by side, each piece's carry out for both carries in,
  // and the carry into bit 23 as one sum of products of them (a carry-select lookahead; a piece's carry with
  // carry in 1 is at least its carry with 0, so c23 = h0 + h1 (n0 + n1 (m0 + m1 l))): 2 CARRY4 and two LUTs
  // instead of a 6-CARRY4 chain (written as three chained selects, ABC kept them as three LUTs in series). una_q -> head_done -> cpl_valid_o -> naa_ctl's state enable was 13
  // across naa_top (issue 27). SVA head_done_eq checks the result.
  /* verilator lint_off UNUSEDSIGNAL */  // (each piece's carry out is read, not its sum)
  function automatic logic sub_msb24(logic [23:0] a, logic [23:0] b);
    logic [7:0] l;
    logic [6:0] m0, n0;
    logic [7:0] m1, n1;
    logic [5:0] h0;
    logic [6:0] h1;
    logic       c23;
    l   = {1'b0, a[5:0], 1'b1} + {1'b0, ~b[5:0], 1'b1};       // a + ~b + 1, bits 5:0; carry out l[7]
    m0  = {1'b0, a[11:6]} + {1'b0, ~b[11:6]};
    m1  = {1'b0, a[11:6], 1'b1} + {1'b0, ~b[11:6], 1'b1};
    n0  = {1'b0, a[17:12]} + {1'b0, ~b[17:12]};
    n1  = {1'b0, a[17:12], 1'b1} + {1'b0, ~b[17:12], 1'b1};
    h0  = {1'b0, a[22:18]} + {1'b0, ~b[22:18]};
    h1  = {1'b0, a[22:18], 1'b1} + {1'b0, ~b[22:18], 1'b1};
    c23 = h0[5] || (h1[6] && n0[6]) || (h1[6] && n1[7] && m0[6]) || (h1[6] && n1[7] && m1[7] && l[7]);
    sub_msb24 = a[23] ^ ~b[23] ^ c23;
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */
  always_comb begin
    head_acked = una_q - msg_psn_q[head_q[MsgBits-1:0]];
    head_n     = msg_n_q[head_q[MsgBits-1:0]];
    head_done  = !ring_empty && !sub_msb24(una_q, msg_psn_q[head_q[MsgBits-1:0]]) &&
                 !sub_msb24(una_q, msg_end_q[head_q[MsgBits-1:0]]) && !(head_n[23] && head_n[22:0] != '0);
    flushing   = !ring_empty && (fatal_q || !live_q);
    cpl_status = head_done ? naa_pkg::NaaCplOk : fail_first_q ? fail_status_q : naa_pkg::NaaCplFlushed;
  end
  assign cpl_valid_o = (head_done || flushing) && !msg_host_q[head_q[MsgBits-1:0]];
  // The head message read whole, then its tag; cpl_o field by field (Yosys 0.55: docs/synthesis.md).
  naa_pkg::naa_req_cmd_t head_cmd;
  assign head_cmd = msg_q[head_q[MsgBits-1:0]];
  always_comb begin
    cpl_o        = '0;
    cpl_o.tag    = head_cmd.tag;
    cpl_o.status = cpl_status;
  end

  // ---- The sender's offset and bytes left (branch naq24) ----
  // snd_off_q = p_off = snd_pkt_q << m and snd_left_q = snd_cmd.len - p_off (mod 2^32, m = mtu_log2) whenever
  // a packet can start (live, not fatal, snd_msg_q != tail_q; asserted below), kept where snd_msg_q /
  // snd_pkt_q / the sender's message change: live start (packet 0 of msg_q[head_q]), the last beat of a packet
  // (the same message: plus / minus the MTU; the next one: 0 / its length), a go-back to packet una_q - psn of
  // the head message ((una_q << m) - msg_p_q[head] and msg_b_q[head] - (una_q << m), msg_p = psn << m, msg_b =
  // len + msg_p: exact for m >= 8, where 2^24 << m is 0 mod 2^32; naa_cm's MTU is 8..12 and fixed while live),
  // a command taken into the sender's slot (0 / its length: the sender is then at packet 0 of it). Each is a
  // 16-bit-chunk add or a read: p_left = len - (snd_pkt_q << m) was the deepest path (17-18 levels to sst_q).
  naa_pkg::naa_req_cmd_t snd_nxt_cmd;
  logic [31:0]           snd_left_mtu, snd_left_gb, snd_off_mtu, snd_off_gb, una_sh;
  logic [MsgBits-1:0]    snd_slot_nx;
  logic                  snd_goback, snd_next_msg;
  always_comb begin
    snd_nxt_cmd  = msg_q[snd_msg_q[MsgBits-1:0] + 1'b1];
    snd_left_mtu = 32'(rdma_pkg::add64c({32'd0, snd_left_q}, {32'd0, ~p_mtu}, 1'b1));
    una_sh       = 32'(una_q) << conn_i.mtu_log2;
    snd_left_gb  = 32'(rdma_pkg::add64c({32'd0, msg_b_q[head_q[MsgBits-1:0]]}, {32'd0, ~una_sh}, 1'b1));
    snd_off_mtu  = 32'(rdma_pkg::add64c({32'd0, snd_off_q}, {32'd0, p_mtu}, 1'b0));
    snd_off_gb   = 32'(rdma_pkg::add64c({32'd0, una_sh}, {32'd0, ~msg_p_q[head_q[MsgBits-1:0]]}, 1'b1));
    // (the sender's conditions below, for the slot it is at after this edge; the go-back's without !head_done:
    // with rw_q set nothing reads these two until a go-back loads them again, and head_done only delays it)
    snd_goback   = sst_q == SIdle && rw_q && live_q && !rx_full_q && !rnr_waiting_q;
    snd_next_msg = sst_q == SSend && m_ready_i && tx_last && live_q && p_lastp;
    snd_slot_nx  = snd_goback ? head_q[MsgBits-1:0] :
                   snd_next_msg ? snd_msg_q[MsgBits-1:0] + 1'b1 : snd_msg_q[MsgBits-1:0];
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      snd_left_q <= '0;
      snd_off_q  <= '0;
    end else begin
      if (conn_i.connected && !live_q && sst_q == SIdle && ring_empty) begin
        snd_left_q <= head_cmd.len;
        snd_off_q  <= '0;
      end
      if (snd_goback) begin
        snd_left_q <= snd_left_gb;
        snd_off_q  <= snd_off_gb;
      end
      if (sst_q == SSend && m_ready_i && tx_last && live_q) begin
        snd_left_q <= p_lastp ? snd_nxt_cmd.len : snd_left_mtu;
        snd_off_q  <= p_lastp ? '0 : snd_off_mtu;
      end
      if (take && tail_q[MsgBits-1:0] == snd_slot_nx) begin
        snd_left_q <= take_cmd.len;
        snd_off_q  <= '0;
      end
    end
  end

`ifndef SYNTHESIS
  // Wherever a packet starts (the only reader: p_plen, p_dmalen, p_va, p_laddr, the next state). (While rw_q is
  // set the sender may be behind head_q, and a command taken can land in its slot; the go-back reloads both.)
  logic snd_can_start;
  assign snd_can_start = sst_q == SIdle && live_q && !fatal_q && !rw_q && !rnr_waiting_q && snd_msg_q != tail_q;
  `NT_ASSERT(snd_left_reg, !snd_can_start || snd_left_q == snd_cmd.len - p_off)
  `NT_ASSERT(snd_off_reg, !snd_can_start || snd_off_q == p_off)
  always_ff @(posedge clk_i) begin
    if (snd_can_start && (snd_left_q != snd_cmd.len - p_off || snd_off_q != p_off)) begin
      $display("%t snd_left/off: left %h off %h, want %h %h; msg %0d tail %0d head %0d pkt %0d una %h m %0d",
               $time, snd_left_q, snd_off_q, snd_cmd.len - p_off, p_off, snd_msg_q, tail_q, head_q, snd_pkt_q,
               una_q, conn_i.mtu_log2);
    end
  end
  `NT_ASSERT(p_lastp_eq, p_lastp == (snd_pkt_q + 24'd1 == snd_n))
  // the completion test's form (above): msg_end = psn + n for the head message, and head_done as before
  logic [23:0] head_end_sim, head_psn_n_sim;  // (as wires: Verilator 5.006 fails on array reads inside)
  assign head_end_sim   = msg_end_q[head_q[MsgBits-1:0]];
  assign head_psn_n_sim = msg_psn_q[head_q[MsgBits-1:0]] + head_n;
  `NT_ASSERT(msg_end_inv, ring_empty || head_end_sim == head_psn_n_sim)
  `NT_ASSERT(head_done_eq, head_done == (!ring_empty && head_acked >= head_n && !head_acked[23]))
  `NT_ASSERT(p_ack_eq, p_ack == (p_lastp || (snd_pkt_q + 24'd1) % 24'(nt_pkg::NaaReqAckEvery) == 24'd0))
  // (the go-back's form needs m >= 8; naa_cm negotiates 8..12 and changes it only while not connected)
  `NT_ASSERT(snd_mtu_range, !live_q || (conn_i.mtu_log2 >= 4'd8 && conn_i.mtu_log2 <= 4'd12))
`endif

  // ---- The send window (branch naq24) ----
  // snd_q - una_q < NaaReqWindow (2^5) without the subtract: its bits 23:5 are 0 iff snd_q[23:5] == una_q[23:5]
  // + (the borrow of bits 4:0) (psn_is_inc: compares and a prefix AND, no carry chain; it was 13 levels to the
  // start's registers).
  localparam int unsigned WinBits = $clog2(nt_pkg::NaaReqWindow);
  logic win_open;
  assign win_open = (snd_q[WinBits-1:0] < una_q[WinBits-1:0]) ?
      psn_is_inc({snd_q[23:WinBits], WinBits'(0)}, {una_q[23:WinBits], {WinBits{1'b1}}}) :
      snd_q[23:WinBits] == una_q[23:WinBits];
`ifndef SYNTHESIS
  `NT_ASSERT(win_open_eq, win_open == ({8'd0, snd_q - una_q} < 32'(nt_pkg::NaaReqWindow)))
  `NT_ASSERT(win_pow2, nt_pkg::NaaReqWindow == (1 << WinBits))
`endif

  // ---- The retransmission timer's compare (branch naq24) ----
  // timer_q + 1 >= timeout_q, read only where timeout_q != 0, as timer_q >= timeout_q - 1 (a register written
  // with timeout_q) in 16-bit halves: timer_q + 1 never wraps (timer_q counts up only while timer_q + 1 <
  // timeout_q, from 0), so the two agree (asserted); not an increment in front of a 32-bit compare.
  logic timer_hit;
  assign timer_hit = !(timer_q[31:16] < timeout_m1_q[31:16] ||
                       (timer_q[31:16] == timeout_m1_q[31:16] && timer_q[15:0] < timeout_m1_q[15:0]));
`ifndef SYNTHESIS
  `NT_ASSERT(timer_hit_reg, timeout_q == '0 || timer_hit == (timer_q + 1 >= timeout_q))
`endif

  // ---- ACK frame: checks and fields (one beat, 62 bytes) ----
  logic        rx_malformed, rx_not_for_us, rx_bad_icrc;
  logic [7:0]  rx_syn;
  logic [23:0] rx_psn;
  logic        rx_ghost, rx_behind;
  always_comb begin
    rx_syn       = rx_q[8*54+:8];
    rx_malformed = rx_nb_q != 2'd1 || !rx_keep62_q || rx_q[8*12+:16] != 16'h0008 ||
                   rx_q[8*14+:8] != 8'h45 || {rx_q[8*16+:8], rx_q[8*17+:8]} != 16'd48 ||
                   (({rx_q[8*20+:8], rx_q[8*21+:8]}) & 16'h3fff) != 16'd0 || rx_q[8*23+:8] != 8'd17 ||
                   {rx_q[8*36+:8], rx_q[8*37+:8]} != 16'(nt_pkg::RdmaUdpPort) ||
                   {rx_q[8*38+:8], rx_q[8*39+:8]} != 16'd28 || rx_q[8*42+:8] != 8'h11 ||
                   rx_syn[7] || rx_syn[7:5] == 3'b010 || (rx_syn[7:5] == 3'b011 && rx_syn[4:0] > 5'd4);
    rx_not_for_us = {rx_q[8*0+:8], rx_q[8*1+:8], rx_q[8*2+:8], rx_q[8*3+:8], rx_q[8*4+:8], rx_q[8*5+:8]} != mac_q ||
                    {rx_q[8*30+:8], rx_q[8*31+:8], rx_q[8*32+:8], rx_q[8*33+:8]} != ip4_q ||
                    {rx_q[8*47+:8], rx_q[8*48+:8], rx_q[8*49+:8]} != conn_i.local_qpn;
    rx_bad_icrc = rx_bad_icrc_q;
    rx_psn      = {rx_q[8*51+:8], rx_q[8*52+:8], rx_q[8*53+:8]};
  end

  // ---- The ACK decision's PSN arithmetic (branch naq24: una_q -> the decision's registers was 13 levels) ----
  // rx_d = rx_psn - una_q is a register written with rx_q (rx_d_q, from s_data_i and una_q as it is after that
  // edge: only a live start can change una_q there, an ACK's update needs rx_full_q, when nothing is received);
  // the decision reads it only for a one-beat frame (rx_nb_q == 1, else malformed), in the cycle after that
  // edge. The ghost check rx_d >(=) max_q - una_q compares two differences from una_q: with b1 = rx_psn <
  // una_q, b2 = max_q < una_q, (rx_psn - una_q) mod 2^24 < (max_q - una_q) mod 2^24 iff (b1 == b2 and rx_psn <
  // max_q) or (b2 and not b1) (the differences are rx_psn - max_q + 2^24 (b1 - b2)): three compares side by
  // side, not two subtracts and a compare in series. psn_ge(rx_psn + ack, snd_q + 1) is bit 23 of rx_psn +
  // ~snd_q + ack (one add with a carry in) being 0.
  logic [23:0] rx_d_q, s_psn;
  logic        rx_b1_q, rx_ack, rx_lt, rx_le, rx_b2;
  logic [24:0] rx_d_nx, rx_d_st, rx_d_una;
  logic [24:0] rx_go_sum;
  logic        rx_live_st;
  always_comb begin
    s_psn     = {s_data_i[8*51+:8], s_data_i[8*52+:8], s_data_i[8*53+:8]};
    // (both differences side by side, chosen after: una_q after the edge is start_psn at a live start; an
    // AND-OR, not a ?: of the two, which Yosys's opt_share folds into one subtract of a chosen operand, the
    // choice (ring_empty: head_q's compare) then in front of the carry chain: 14 levels in session 26)
    rx_live_st = conn_i.connected && !live_q && sst_q == SIdle && ring_empty;
    rx_d_st    = {1'b0, s_psn} - {1'b0, conn_i.start_psn};
    rx_d_una   = {1'b0, s_psn} - {1'b0, una_q};
    rx_d_nx    = ({25{rx_live_st}} & rx_d_st) | ({25{!rx_live_st}} & rx_d_una);
    rx_ack    = rx_syn[7:5] == 3'b000;
    rx_b2     = max_q < una_q;
    rx_lt     = rx_psn < max_q;
    rx_le     = rx_psn <= max_q;
    // rx_d > rx_out for a PSN sequence error NAK (syndrome 011 00000), else rx_d >= rx_out
    rx_ghost  = (rx_syn[7:5] == 3'b011 && rx_syn[4:0] == 5'd0) ? !((rx_b1_q == rx_b2 && rx_le) || (rx_b2 && !rx_b1_q))
                                                             : !((rx_b1_q == rx_b2 && rx_lt) || (rx_b2 && !rx_b1_q));
    rx_go_sum = {rx_psn, rx_ack} + {~snd_q, rx_ack};  // 2 (rx_psn + ~snd_q + ack)
    rx_behind = !rx_go_sum[24];
  end
`ifndef SYNTHESIS
  logic [23:0] rx_d_sim, rx_out_sim;
  assign rx_d_sim   = rx_psn - una_q;
  assign rx_out_sim = max_q - una_q;
  `NT_ASSERT(rx_d_reg, !rx_full_q || rx_nb_q != 2'd1 || (rx_d_q == rx_d_sim && rx_b1_q == (rx_psn < una_q)))
  // (where the decision reads it: rx_b1_q is rx_d_q's, written with rx_q)
  `NT_ASSERT(rx_ghost_eq, !rx_full_q || rx_nb_q != 2'd1 ||
      rx_ghost == ((rx_syn[7:5] == 3'b011 && rx_syn[4:0] == 5'd0) ? rx_d_sim > rx_out_sim : rx_d_sim >= rx_out_sim))
  `NT_ASSERT(rx_behind_eq, rx_behind == psn_ge(rx_ack ? rx_psn + 24'd1 : rx_psn, snd_q + 24'd1))
`endif

  // ---- The received frame's length check, registered beside rx_q (branch naq24) ----
  // A frame is well formed only as one beat (rx_nb_q == 1) of 62 bytes; the byte count was the sum of the
  // beats' $countones (a 64-bit popcount and a 16-bit add, 16-17 levels). With one beat it is that beat's
  // count, so "62 bytes" is written with rx_q from s_keep_i: exactly two bytes not kept, as zero counts of
  // byte pairs saturated at 3, added pairwise with saturation (as thermometer codes), equal to 2.
  // (counts as thermometers {>= 3, >= 2, >= 1}: ANDs and ORs only, no adder)
  function automatic logic [2:0] th_add(logic [2:0] a, logic [2:0] b);
    th_add = {a[2] | b[2] | (a[1] & b[0]) | (a[0] & b[1]), a[1] | b[1] | (a[0] & b[0]), a[0] | b[0]};
  endfunction
  logic [3*16-1:0] rxk_z1;
  logic [3*8-1:0]  rxk_z2;
  logic [3*4-1:0]  rxk_z3;
  logic [3*2-1:0]  rxk_z4;
  logic [2:0]      rxk_z5;
  logic            rx_keep62;
  always_comb begin
    for (int unsigned g = 0; g < 16; g++) begin
      rxk_z1[3*g+:3] = th_add(th_add({1'b0, &(~s_keep_i[4*g+:2]), |(~s_keep_i[4*g+:2])}, 3'd0),
                              {1'b0, &(~s_keep_i[4*g+2+:2]), |(~s_keep_i[4*g+2+:2])});
    end
    for (int unsigned g = 0; g < 8; g++) rxk_z2[3*g+:3] = th_add(rxk_z1[6*g+:3], rxk_z1[6*g+3+:3]);
    for (int unsigned g = 0; g < 4; g++) rxk_z3[3*g+:3] = th_add(rxk_z2[6*g+:3], rxk_z2[6*g+3+:3]);
    for (int unsigned g = 0; g < 2; g++) rxk_z4[3*g+:3] = th_add(rxk_z3[6*g+:3], rxk_z3[6*g+3+:3]);
    rxk_z5    = th_add(rxk_z4[2:0], rxk_z4[5:3]);
    rx_keep62 = rxk_z5[1] && !rxk_z5[2];  // exactly two bytes not kept
  end
`ifndef SYNTHESIS
  // The old byte count (every beat's $countones), kept for the check: where the decision reads the frame, the
  // register says what rx_len == 62 said.
  logic [15:0] rx_len_sim_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) rx_len_sim_q <= '0;
    else if (rx_full_q) rx_len_sim_q <= '0;
    else if (s_valid_i && s_ready_o) rx_len_sim_q <= rx_len_sim_q + 16'($countones(s_keep_i));
  end
  `NT_ASSERT(rx_keep62_reg, !rx_full_q || rx_nb_q != 2'd1 || rx_keep62_q == (rx_len_sim_q == 16'd62))
`endif

  // ---- The received frame's ICRC check, registered beside rx_q (branch naa23) ----
  // It reads rx_q only, so it is computed from s_data_i and written at the edge rx_q is written from it: exact
  // (asserted below). As rdma_pkg::icrc_beat(seed, beat, 0, 58): the register is Take(6) x CrcData x z ^
  // Take(6) x CrcHead x seed, z the beat's bytes 14..57 (masked fields as ones, other bytes 0), and the frame
  // is bad iff bytes 58..61 differ from its complement. Per bit one XOR over z (one generated matrix,
  // rdma_crc_pkg::CrcTakeData6, as reorder_ctrl_gen's ctrl_icrc4), the received bit and a constant, then the OR
  // of the 32 mismatches: 4 XOR6 and 2 OR6 levels, each a child module (naa_xor6_level / naa_or6_level).
  logic [nt_pkg::StreamBits-1:0] rxc_z;
  logic [31:0]                   rxc_icrc, rxc_k, rxc_mis;
  logic [32*6*CrcZc-1:0]         rxc_l1_in;
  logic [32*CrcZc-1:0]           rxc_l1;
  logic [32*6*15-1:0]            rxc_l2_in;
  logic [32*15-1:0]              rxc_l2;
  logic [32*18-1:0]              rxc_l3_in;
  logic [32*3-1:0]               rxc_l3;
  logic [32*6-1:0]               rxc_l4_in;
  logic [35:0]                   rxc_o1_in;
  logic [5:0]                    rxc_o1;
  logic                          rxc_bad;
  always_comb begin
    rxc_z = '0;
    for (int unsigned i = rdma_crc_pkg::CrcIcrcLo; i < 58; i++) begin
      rxc_z[8*i+:8] = rdma_pkg::icrc_masked(i, s_data_i[8*i+:8], 1'b0);
    end
    rxc_icrc = {s_data_i[8*61+:8], s_data_i[8*60+:8], s_data_i[8*59+:8], s_data_i[8*58+:8]};
    // (a mismatch is received ^ ~computed: the complement and the seed's part folded into one constant)
    rxc_k = ~nt_pkg::crc32_mat(rdma_crc_pkg::CrcTake[32*32*6+:32*32],
                               nt_pkg::crc32_mat(rdma_crc_pkg::CrcHead, rdma_pkg::icrc_seed()));
  end
  for (genvar o = 0; o < 32; o++) begin : g_rxc
    assign rxc_l1_in[6*CrcZc*o+:6*CrcZc] =
        {(6*CrcZc-nt_pkg::StreamBits)'(0), rxc_z & rdma_crc_pkg::CrcTakeData6[nt_pkg::StreamBits*o+:nt_pkg::StreamBits]};
    assign rxc_l2_in[90*o+:90] = 90'({rxc_k[o], rxc_icrc[o], rxc_l1[CrcZc*o+:CrcZc]});
    assign rxc_l3_in[18*o+:18] = 18'(rxc_l2[15*o+:15]);
    assign rxc_l4_in[6*o+:6]   = 6'(rxc_l3[3*o+:3]);
  end
  naa_xor6_level #(.N(32*CrcZc)) u_rxc_l1 (.d_i(rxc_l1_in), .q_o(rxc_l1));
  naa_xor6_level #(.N(32*15))    u_rxc_l2 (.d_i(rxc_l2_in), .q_o(rxc_l2));
  naa_xor6_level #(.N(32*3))     u_rxc_l3 (.d_i(rxc_l3_in), .q_o(rxc_l3));
  naa_xor6_level #(.N(32))       u_rxc_l4 (.d_i(rxc_l4_in), .q_o(rxc_mis));
  assign rxc_o1_in = 36'(rxc_mis);
  naa_or6_level #(.N(6)) u_rxc_o1 (.d_i(rxc_o1_in), .q_o(rxc_o1));
  naa_or6_level #(.N(1)) u_rxc_o2 (.d_i(rxc_o1), .q_o(rxc_bad));

`ifndef SYNTHESIS
  // The registered check equals the live one on rx_q from rx_q's first write on (both are written together).
  logic rx_seen_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) rx_seen_q <= 1'b0;
    else if (s_valid_i && s_ready_o && rx_nb_q == 2'd0) rx_seen_q <= 1'b1;
  end
  `NT_ASSERT(rx_icrc_reg, !rx_seen_q || rx_bad_icrc_q ==
      ({rx_q[8*61+:8], rx_q[8*60+:8], rx_q[8*59+:8], rx_q[8*58+:8]} !=
       ~rdma_pkg::icrc_beat(rdma_pkg::icrc_seed(), rx_q, 0, 58, 1'b0)))
`endif

  assign s_ready_o = !rx_full_q;
  assign busy_o    = !ring_empty || sst_q != SIdle || rx_full_q || (live_q && hq_wr_q != hq_rd_q);

  // ---- Payload buffer: written by the fill, read one cycle ahead ----
  // The window of beat k is {buf[wj - 1], buf[wj - 2]}; beat k + 1's is {buf[wj], buf[wj - 1]}: its low half
  // is beat k's high half. So one read per beat: at each edge the buffer reads the high beat of the beat the
  // sender is at after the edge (buf_rd_q), and the window's low half moves from the high one as the sender
  // steps (win_lo_q). Before the first beat (Read, Fill, k = 0) it reads beat 0's high beat; beat 0's low
  // beat (wj - 2 < 0) is never selected. Nothing is written while sending, so a stalled beat reads the same
  // beat again; a beat written at the edge it is read (the last fill beat, beat 0) comes from buf_wr_q.
  // The read address for both values of the sender's step, chosen by it last (m_ready_i comes from the output
  // arbitration behind the CM's state: stitched 14 when the step fed the adder); one step more is the next beat
  // (+ 64 bytes: + 1 modulo 64 after the shift). The fill compare reads the step-0 address: a fill (SFill) and a
  // step (SSend) never share a cycle. SVAs buf_ra_eq, buf_fwd_eq: the address and the compare as before.
  logic                  buf_we, snd_step;
  logic [5:0]            buf_ra, buf_ra0, buf_ra1;
  logic [13:0]           t_0;
  assign buf_we   = sst_q == SFill && dma_rsp_valid_i && int'(fill_q) < nt_pkg::NaaReqBufBeats;
  assign snd_step = sst_q == SSend && m_ready_i;
  assign t_0      = 14'(k_q) * 14'(nt_pkg::StreamBytes) + 14'd128 - 14'(p_hdr_q);
  assign buf_ra0  = 6'((t_0 >> 6) - 14'd1);  // wj - 1 after this edge, no step
  assign buf_ra1  = 6'(t_0 >> 6);            // wj - 1 after a step
  assign buf_ra   = snd_step ? buf_ra1 : buf_ra0;
  `NT_ASSERT(buf_ra_eq, buf_ra == 6'((((14'(k_q) + 14'(snd_step)) * 14'(nt_pkg::StreamBytes) + 14'd128 -
                                      14'(p_hdr_q)) >> 6) - 14'd1))
  `NT_ASSERT(buf_fwd_eq, !buf_we || buf_ra0 == buf_ra)
  assign win_hi   = buf_fwd_q ? buf_wr_q : buf_rd_q;

  always_ff @(posedge clk_i) begin
    if (buf_we) buf_q[fill_q[5:0]] <= dma_rsp_data_i;
    buf_rd_q <= buf_q[buf_ra];
    if (buf_we) buf_wr_q <= dma_rsp_data_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      buf_fwd_q <= 1'b0;
      win_lo_q  <= '0;
    end else begin
      buf_fwd_q <= buf_we && fill_q[5:0] == buf_ra0;
      if (snd_step) win_lo_q <= win_hi;
      else if (sst_q != SSend) win_lo_q <= '0;
    end
  end

  always_ff @(posedge clk_i) begin
    if (s_valid_i && s_ready_o && rx_nb_q == 2'd0) begin
      rx_q          <= s_data_i;
      rx_bad_icrc_q <= rxc_bad;
      rx_d_q        <= rx_d_nx[23:0];
      rx_b1_q       <= rx_d_nx[24];
      rx_keep62_q   <= rx_keep62;
    end
    if (cfg_valid_i && cfg_table_i == nt_pkg::CfgTableBits'(nt_pkg::NaaTblReq) && cfg_index_i == 11'd1 &&
        (hq_wr_q - hq_rd_q) != (HqBits + 1)'(nt_pkg::NaaReqHostCmds)) begin
      hq_q[hq_wr_q[HqBits-1:0]] <= naa_pkg::naa_req_cmd_t'(cfg_data_i[$bits(take_cmd)-1:0]);
    end
    if (take) begin
      msg_q[tail_q[MsgBits-1:0]]      <= take_cmd;
      msg_psn_q[tail_q[MsgBits-1:0]]  <= alloc_q;
      msg_n_q[tail_q[MsgBits-1:0]]    <= take_n;
      msg_end_q[tail_q[MsgBits-1:0]]  <= take_alloc;  // alloc_q + take_n (mod 2^24), as alloc_q's next
      msg_b_q[tail_q[MsgBits-1:0]]    <= 32'(rdma_pkg::add64c({32'd0, take_cmd.len}, {32'd0, alloc_sh}, 1'b0));
      msg_p_q[tail_q[MsgBits-1:0]]    <= alloc_sh;
      msg_host_q[tail_q[MsgBits-1:0]] <= !ctl_take;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mac_q <= '0;
      ip4_q <= '0;
      timeout_q <= 32'(nt_pkg::NaaReqTimeout);
      timeout_m1_q <= 32'(nt_pkg::NaaReqTimeout) - 32'd1;
      retry_max_q <= 3'd7;
      rnr_max_q <= 3'd7;
      hq_wr_q <= '0;
      hq_rd_q <= '0;
      head_q <= '0;
      tail_q <= '0;
      snd_msg_q <= '0;
      live_q <= 1'b0;
      alloc_q <= '0;
      snd_q <= '0;
      snd_pkt_q <= '0;
      una_q <= '0;
      max_q <= '0;
      fatal_q <= 1'b0;
      fail_first_q <= 1'b0;
      fail_status_q <= naa_pkg::NaaCplOk;
      timer_q <= '0;
      rnr_wait_q <= '0;
      rnr_waiting_q <= 1'b0;
      rw_q <= 1'b0;
      retry_left_q <= '0;
      rnr_left_q <= '0;
      sst_q <= SIdle;
      fill_q <= '0;
      k_q <= '0;
      rcrc_q <= '0;
      p_hdr_q <= '0;
      p_plen_q <= '0;
      p_opcode_q <= '0;
      p_ack_q <= 1'b0;
      p_reth_q <= 1'b0;
      p_imm_q <= 1'b0;
      p_psn_q <= '0;
      p_va_q <= '0;
      p_rkey_q <= '0;
      p_dmalen_q <= '0;
      p_immv_q <= '0;
      p_laddr_q <= '0;
      {pe_hi_q, pe_lo_q, ia_hi_q, ia_lo_q, t_hi_q, t_lo_q, ip_len_q, udp_len_q, pk_q} <= '0;
      k0_q <= 1'b0;
      {hsel_q, psel_q, ien_q, keep_q, last_q, full_q, icb_q} <= '0;
      ip4s_q <= '0;
      rx_nb_q <= '0;
      rx_full_q <= 1'b0;
      c_in_q <= '0;
      c_proc_q <= '0;
      c_drops_q <= '0;
      c_q <= '0;
    end else begin
      // ---- Settings and host-posted commands ----
      if (cfg_valid_i && cfg_table_i == nt_pkg::CfgTableBits'(nt_pkg::RdmaTblResponder) && cfg_index_i == '0) begin
        mac_q <= cfg_data_i[50:3];
        ip4_q <= cfg_data_i[82:51];
        ip4s_q <= oc_add(cfg_data_i[82:67], cfg_data_i[66:51]);
      end
      if (cfg_valid_i && cfg_table_i == nt_pkg::CfgTableBits'(nt_pkg::NaaTblReq)) begin
        if (cfg_index_i == 11'd0) begin
          timeout_q   <= cfg_data_i[31:0];
          timeout_m1_q <= cfg_data_i[31:0] - 32'd1;
          retry_max_q <= cfg_data_i[34:32];
          rnr_max_q   <= cfg_data_i[37:35];
        end
        if (cfg_index_i == 11'd1 && (hq_wr_q - hq_rd_q) != (HqBits + 1)'(nt_pkg::NaaReqHostCmds)) hq_wr_q <= hq_wr_q + 1;
      end

      // ---- The connection: live once connected and the sender and ring are clear of the last one ----
      if (!conn_i.connected) begin
        live_q <= 1'b0;
      end else if (!live_q && sst_q == SIdle && ring_empty) begin
        live_q        <= 1'b1;
        alloc_q       <= conn_i.start_psn;
        snd_q         <= conn_i.start_psn;
        una_q         <= conn_i.start_psn;
        max_q         <= conn_i.start_psn;
        snd_pkt_q     <= '0;
        snd_msg_q     <= head_q;
        fatal_q       <= 1'b0;
        fail_first_q  <= 1'b0;
        timer_q       <= '0;
        rnr_waiting_q <= 1'b0;
        rw_q          <= 1'b0;
        retry_left_q  <= retry_max_q;
        rnr_left_q    <= rnr_max_q;
      end

      // ---- Commands in ----
      if (take) begin
        tail_q  <= tail_q + 1;
        alloc_q <= take_alloc;
        if (host_take) hq_rd_q <= hq_rd_q + 1;
      end

      // ---- Completions ----
      if (head_done || flushing) begin
        head_q <= head_q + 1;
        unique case (cpl_status)
          naa_pkg::NaaCplOk:            c_q[nt_pkg::NaaReqCntCplOk] <= c_q[nt_pkg::NaaReqCntCplOk] + 1;
          naa_pkg::NaaCplRetryExceeded: c_q[nt_pkg::NaaReqCntCplRetry] <= c_q[nt_pkg::NaaReqCntCplRetry] + 1;
          naa_pkg::NaaCplRemoteError:   c_q[nt_pkg::NaaReqCntCplRemote] <= c_q[nt_pkg::NaaReqCntCplRemote] + 1;
          default:             c_q[nt_pkg::NaaReqCntCplFlushed] <= c_q[nt_pkg::NaaReqCntCplFlushed] + 1;
        endcase
        if (!head_done) fail_first_q <= 1'b0;
      end

      // ---- Timers ----
      if (live_q && !fatal_q && una_q != max_q && !rnr_waiting_q && !rw_q && timeout_q != '0) begin
        if (timer_hit) begin
          timer_q <= '0;
          c_q[nt_pkg::NaaReqCntTimeouts] <= c_q[nt_pkg::NaaReqCntTimeouts] + 1;
          if (retry_left_q == '0) begin
            fatal_q       <= 1'b1;
            fail_first_q  <= 1'b1;
            fail_status_q <= naa_pkg::NaaCplRetryExceeded;
          end else begin
            retry_left_q <= retry_left_q - 1;
            rw_q <= 1'b1;  // Go-Back-N from una
          end
        end else begin
          timer_q <= timer_q + 1;
        end
      end
      if (rnr_waiting_q) begin
        if (rnr_wait_q <= 32'd1) begin
          rnr_waiting_q <= 1'b0;
          rw_q <= 1'b1;  // Go-Back-N from una
        end
        rnr_wait_q <= rnr_wait_q - 1;
      end

      // ---- Receive an ACK frame (one beat kept, the rest counted) ----
      if (s_valid_i && s_ready_o) begin
        if (rx_nb_q != 2'd3) rx_nb_q <= rx_nb_q + 1;
        if (s_last_i) begin
          rx_full_q <= 1'b1;
          c_in_q    <= c_in_q + 1;
        end
      end
      if (rx_full_q) begin
        rx_full_q <= 1'b0;
        rx_nb_q   <= '0;
        if (rx_malformed) begin
          c_drops_q[nt_pkg::NaaReqDropMalformed] <= c_drops_q[nt_pkg::NaaReqDropMalformed] + 1;
        end else if (rx_not_for_us) begin
          c_drops_q[nt_pkg::NaaReqDropNotForUs] <= c_drops_q[nt_pkg::NaaReqDropNotForUs] + 1;
        end else if (rx_bad_icrc) begin
          c_drops_q[nt_pkg::NaaReqDropBadIcrc] <= c_drops_q[nt_pkg::NaaReqDropBadIcrc] + 1;
        end else if (!live_q) begin
          c_drops_q[nt_pkg::NaaReqDropNotConnected] <= c_drops_q[nt_pkg::NaaReqDropNotConnected] + 1;
        end else if (fatal_q || rx_d_q[23]) begin
          // Behind una (a duplicate or stale ACK/NAK), or after a fatal error: seen and ignored.
          c_proc_q <= c_proc_q + 1;
          c_q[nt_pkg::NaaReqCntStale] <= c_q[nt_pkg::NaaReqCntStale] + 1;
        end else if (rx_ghost) begin
          c_drops_q[nt_pkg::NaaReqDropGhost] <= c_drops_q[nt_pkg::NaaReqDropGhost] + 1;
        end else begin
          c_proc_q <= c_proc_q + 1;
          // An ACK acknowledges its PSN; a NAK the PSNs before it.
          una_q <= (rx_syn[7:5] == 3'b000) ? rx_psn + 24'd1 : rx_psn;
          if (rx_syn[7:5] == 3'b000 || rx_d_q != '0) begin
            timer_q      <= '0;
            retry_left_q <= retry_max_q;
            rnr_left_q   <= rnr_max_q;
          end
          // The sender is behind what is now acknowledged: it moves up to una.
          if (rx_behind) rw_q <= 1'b1;  // Go-Back-N from una (psn_ge(una after it, snd_q + 1))
          unique case (rx_syn[7:5])
            3'b000: c_q[nt_pkg::NaaReqCntAcks] <= c_q[nt_pkg::NaaReqCntAcks] + 1;
            3'b001: begin
              c_q[nt_pkg::NaaReqCntNakRnr] <= c_q[nt_pkg::NaaReqCntNakRnr] + 1;
              if (rnr_max_q != 3'd7 && (rx_d_q == '0 ? rnr_left_q : rnr_max_q) == '0) begin
                fatal_q       <= 1'b1;
                fail_first_q  <= 1'b1;
                fail_status_q <= naa_pkg::NaaCplRetryExceeded;
              end else begin
                if (rnr_max_q != 3'd7) rnr_left_q <= (rx_d_q == '0 ? rnr_left_q : rnr_max_q) - 1;
                rnr_waiting_q <= 1'b1;
                rnr_wait_q    <= (32'(rx_syn[4:0]) + 32'd1) * 32'(nt_pkg::NaaReqRnrUnit);
              end
            end
            default: begin
              if (rx_syn[4:0] == 5'd0) begin
                c_q[nt_pkg::NaaReqCntNakSeq] <= c_q[nt_pkg::NaaReqCntNakSeq] + 1;
                if ((rx_d_q == '0 ? retry_left_q : retry_max_q) == '0) begin
                  fatal_q       <= 1'b1;
                  fail_first_q  <= 1'b1;
                  fail_status_q <= naa_pkg::NaaCplRetryExceeded;
                end else begin
                  retry_left_q <= (rx_d_q == '0 ? retry_left_q : retry_max_q) - 1;
                  rw_q <= 1'b1;  // Go-Back-N from una
                end
              end else begin
                c_q[nt_pkg::NaaReqCntNakFatal] <= c_q[nt_pkg::NaaReqCntNakFatal] + 1;
                fatal_q       <= 1'b1;
                fail_first_q  <= 1'b1;
                fail_status_q <= naa_pkg::NaaCplRemoteError;
              end
            end
          endcase
        end
      end

      // ---- Sender ----
      unique case (sst_q)
        SIdle: begin
          // (Not while an ACK is processed or an RNR wait runs: they may ask for another go-back.)
          if (rw_q && live_q && !head_done && !rx_full_q && !rnr_waiting_q) begin
            rw_q      <= 1'b0;
            snd_msg_q <= head_q;
            snd_q     <= una_q;
            snd_pkt_q <= una_q - msg_psn_q[head_q[MsgBits-1:0]];
            if (ring_empty) snd_pkt_q <= '0;
          end
          // (not an else of the go-back: the two are exclusive, rw_q against !rw_q, so the start does not wait
          // for head_done, una_q's 24-bit compare; branch naq24)
          if (live_q && !fatal_q && !rw_q && !rnr_waiting_q && snd_msg_q != tail_q && win_open) begin
            p_hdr_q    <= p_hdr;
            p_plen_q   <= p_plen;
            p_opcode_q <= p_opcode;
            p_ack_q    <= p_ack;
            p_reth_q   <= p_reth;
            p_imm_q    <= p_imm;
            p_psn_q    <= snd_q;
            p_va_q     <= p_va[63:0];
            p_rkey_q   <= snd_cmd.rkey;
            p_dmalen_q <= snd_left_q;  // snd_cmd.len - p_off
            p_immv_q   <= snd_cmd.imm;
            p_laddr_q  <= p_laddr[63:0];
            fill_q     <= '0;
            k_q        <= '0;
            rcrc_q     <= rdma_pkg::icrc_seed();
            sst_q      <= (p_plen != '0) ? SRead : SSend;
            {pe_hi_q, pe_lo_q, ia_hi_q, ia_lo_q, t_hi_q, t_lo_q, ip_len_q, udp_len_q, pk_q} <= shape0;
            k0_q       <= 1'b1;
            {hsel_q, psel_q, ien_q, keep_q, last_q, full_q, icb_q} <= beat0;
          end
        end
        SRead: begin
          {pe_hi_q, pe_lo_q, ia_hi_q, ia_lo_q, t_hi_q, t_lo_q, ip_len_q, udp_len_q, pk_q} <= shape_d;
          if (dma_req_ready_i) sst_q <= SFill;
        end
        SFill: begin
          {pe_hi_q, pe_lo_q, ia_hi_q, ia_lo_q, t_hi_q, t_lo_q, ip_len_q, udp_len_q, pk_q} <= shape_d;
          {hsel_q, psel_q, ien_q, keep_q, last_q, full_q, icb_q} <= beat_d;
          if (dma_rsp_valid_i) begin
            fill_q <= fill_q + 1;
            if (dma_rsp_last_i) sst_q <= SSend;
          end
        end
        SSend: begin
          if (m_ready_i) begin
            rcrc_q <= rcrc_d;
            k_q    <= k_q + 1;
            k0_q   <= 1'b0;
            {hsel_q, psel_q, ien_q, keep_q, last_q, full_q, icb_q} <= beat_d;
            if (tx_last) begin
              sst_q <= SIdle;
              c_q[nt_pkg::NaaReqCntSent] <= c_q[nt_pkg::NaaReqCntSent] + 1;
              if (!psn_ge(p_psn_q, max_q)) c_q[nt_pkg::NaaReqCntRetransmits] <= c_q[nt_pkg::NaaReqCntRetransmits] + 1;
              else max_q <= p_psn_q + 24'd1;
              if (live_q) begin
                snd_q <= snd_q + 24'd1;
                timer_q <= '0;
                if (p_lastp) begin  // snd_pkt_q + 1 == snd_n
                  snd_msg_q <= snd_msg_q + 1;
                  snd_pkt_q <= '0;
                end else begin
                  snd_pkt_q <= snd_pkt_q + 24'd1;
                end
              end
            end
          end
        end
        default: sst_q <= SIdle;
      endcase
    end
  end

  assign cnt_packets_in_o = c_in_q;
  assign cnt_processed_o  = c_proc_q;
  assign cnt_drops_o      = c_drops_q;
  assign cnt_o            = c_q;

  logic unused;
  assign unused = ^{cfg_data_i[nt_pkg::CfgDataBits-1:$bits(take_cmd)], snd_cmd.tag,
                  head_cmd, snd_nxt_cmd, rx_go_sum[23:0], rxk_z5[0], p_va[64], p_laddr[64], wb[8*6-1:0], wb[2*nt_pkg::StreamBits-1:8*(58+nt_pkg::StreamBytes)]};  // (of which cpl_o takes the tag)
endmodule
