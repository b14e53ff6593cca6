// Types and combinational functions of the ConWeave reorder block (docs/reorder.md,
// docs/reorder-microarchitecture.md). model/reorder/reorder_frame.cc computes the same functions in C++.
package reorder_pkg;

  localparam int unsigned CellW = $clog2(nt_pkg::ReorderCells);
  localparam int unsigned FlowW = $clog2(nt_pkg::ReorderFlows);
  localparam int unsigned QW = $clog2(nt_pkg::ReorderQueues);
  localparam int unsigned HdrBits = 8 * nt_pkg::ReorderHdrBytes;
  localparam int unsigned KeyBits = 8 * nt_pkg::ReorderKeyBytes;
  localparam int unsigned OfW = $clog2(nt_pkg::ReorderOutFifo);

  // CW opcodes (BTH byte 8 bits 6..4).
  localparam logic [2:0] CwNormal = 3'd0, CwRttRequest = 3'd1, CwRttReply = 3'd2, CwClear = 3'd3,
                         CwNotify = 3'd4;
  // Control request mask bits.
  localparam int unsigned MaskReply = 0, MaskNotify = 1, MaskClear = 2;

  typedef enum logic [1:0] {QFree = 2'd0, QHolding = 2'd1, QReleased = 2'd2} qstate_e;

  typedef struct packed {
    logic               ok;
    logic               v6;
    logic [15:0]        cw_off;
    logic [15:0]        ip_len;
    logic [7:0]         path_id;
    logic [2:0]         op;
    logic [1:0]         epoch;
    logic               rerouted;
    logic               tail;
    logic               ce;
    logic [15:0]        tx_ts;
    logic [15:0]        tail_tx_ts;
    logic [KeyBits-1:0] key;   // byte i in bits 8i+7:8i
    logic [15:0]        hash;
    logic [15:0]        nic_ip_len;
    logic [15:0]        nic_csum;
    logic [15:0]        nic_udp_len;
    logic [7:0]         nic_b8;
    logic [HdrBits-1:0] hdr;   // byte i in bits 8i+7:8i
  } meta_t;

  typedef struct packed {
    logic [KeyBits-1:0] key;
    logic [1:0]         epoch;
    logic               tail_seen;  // the TAIL of epoch - 1 has arrived
    logic               tail_next;  // the TAIL of epoch itself has arrived (TAIL first)
    logic               hq_valid;
    logic [QW-1:0]      hq;
    logic               owd_cur_valid;
    logic               owd_old_valid;
    logic [15:0]        owd_cur;
    logic [15:0]        owd_old;
    logic [15:0]        last_us;
  } flow_t;
  // flow_t's width: the flow-table RAM is an array of this many bits, because Yosys 0.55 infers no memory
  // from an array of a struct type (it made registers of it); Verilator's -Wall WIDTH checks the sum
  localparam int unsigned FlowEntryBits = KeyBits + 2 + 1 + 1 + 1 + QW + 1 + 1 + 3 * 16;

  typedef struct packed {
    logic [FlowW-1:0]   owner;
    logic [CellW-1:0]   head;
    logic [CellW-1:0]   tail;
    logic [15:0]        count;
    logic [15:0]        cells;
    logic [15:0]        deadline;
    logic               v6;
    logic [1:0]         clear_epoch;
    logic [HdrBits-1:0] hdr;
  } queue_t;

  typedef struct packed {
    logic             is_queue; // a released queue, else one packet
    logic             discard;  // a dropped packet: free its cells, send nothing
    logic [CellW-1:0] ref_idx;  // queue number or head cell
  } out_entry_t;
  localparam int unsigned OutEntryBits = 1 + 1 + CellW;  // out_entry_t's width (as FlowEntryBits)

  typedef struct packed {
    logic [HdrBits-1:0] hdr;
    logic               v6;
    logic [2:0]         mask;
    logic [1:0]         clear_epoch;
  } ctrl_req_t;
  localparam int unsigned CtrlReqBits = HdrBits + 1 + 3 + 2;  // ctrl_req_t's width (as OutEntryBits)

  function automatic logic [7:0] wb(logic [nt_pkg::WindowBits-1:0] w, int unsigned off);
    wb = w[8*off+:8];
  endfunction
  function automatic logic [15:0] wb16(logic [nt_pkg::WindowBits-1:0] w, int unsigned off);
    wb16 = {w[8*off+:8], w[8*(off+1)+:8]};
  endfunction

  // One's-complement sum: the carry out of bit 15 wrapped to bit 0. Both sums, without and with that carry,
  // are formed at once and the carry out of the first chooses (one carry chain deep, not two in series).
  function automatic logic [15:0] ones_add(logic [15:0] a, logic [15:0] b);
    logic [16:0] s0;
    logic [15:0] s1;
    s0 = {1'b0, a} + {1'b0, b};
    s1 = a + b + 16'd1;
    ones_add = s0[16] ? s1[15:0] : s0[15:0];
  endfunction

  // The IPv4 header checksum after the total length changes by 4 bytes, RFC 1624 eqn. 3 as model/common/
  // checksum.h computes it: HC' = ~(~HC + ~m + m') with m' = m + 4 (grow) or m - 4 (shrink), all sums
  // one's-complement with 16-bit wrapping of m'. ~m + m' is a constant but for the wrap of m': shrink gives
  // 0xFFFB (0xFFFC when m < 4, m - 4 wrapping), grow gives 4 (3 when m >= 0xFFFC). So one sum, not three in
  // series (issue 27 depth); the same value for every m.
  function automatic logic [15:0] csum_len_adjust(logic [15:0] hc, logic [15:0] m, logic grow);
    logic [15:0] k;
    if (grow) k = m >= 16'hfffc ? 16'd3 : 16'd4;
    else k = m < 16'd4 ? 16'hfffc : 16'hfffb;
    csum_len_adjust = ~ones_add(~hc, k);
  endfunction

  // Header parse of a fabric frame's first two beats; known_len < 0: the frame is longer than that.
  // p4: conweave-p4's wire format (docs/reorder.md "Two wire formats"): BTH byte 8 = AckReq | opcode(2) |
  // phase | epoch(2) | ask_reply | tail, IP/UDP lengths not grown for the CW header; mapped to the seed's
  // fields (op, epoch = epoch + phase, REROUTED = phase, TAIL), so nothing after the parse changes.
  // The frame length enters only as "shorter than the CW header's end" (bth + 20 bytes: 62 for IPv4, 82 for
  // IPv6): parse_cw_short takes those two flags, so a caller that knows them from keep bits (reorder_ingress)
  // has no length arithmetic on its path; parse_cw computes them from the length.
  function automatic meta_t parse_cw(logic [nt_pkg::WindowBits-1:0] w, int known_len, logic p4);
    int unsigned len;
    len = known_len < 0 ? 2 * nt_pkg::StreamBytes + 1 : unsigned'(known_len);
    parse_cw = parse_cw_short(w, len < 62, len < 82, p4);
  endfunction

  function automatic meta_t parse_cw_short(logic [nt_pkg::WindowBits-1:0] w, logic short4, logic short6, logic p4);
    parse_cw_short = parse_cw_pre(w, cw_pre(w), short4, short6, p4);
  endfunction

  // What parse_cw reads from the frame's first beat (bytes 0..63) alone: the EtherType, the IP header checks,
  // the UDP port and the lengths and checksum with their arithmetic. A caller that holds the first beat a
  // cycle before it parses (reorder_ingress's lookahead register) computes it as the beat arrives and
  // registers it, so only the second beat's bytes and the frame length are left for the parse's own cycle
  // (issue 27 depth). Fields as parse_cw_pre reads them.
  typedef struct packed {
    logic        et6;         // EtherType IPv6 (parse_cw's m.v6)
    logic        hdr_ok;      // IPv4 or IPv6 and its header checks pass (ip_len and ce are set)
    logic        port_ok;     // the UDP destination port of the family is ReorderUdpPort
    logic        ce;
    logic [15:0] ip_len;      // the family's IP length field
    logic [15:0] ip_len_p4;   // ip_len + 4 (16-bit wrap, as parse_cw's m.ip_len + 16'd4)
    logic [15:0] ip_len_m4;   // ip_len - 4
    logic [15:0] udp_len;     // the UDP length field
    logic [15:0] udp_len_m4;  // udp_len - 4
    logic [15:0] csum;        // the IPv4 header checksum field
    logic [15:0] csum_adj;    // csum after the IP length shrinks by 4 (RFC 1624)
    logic [16:0] exp_len;     // the frame length the IP length implies: 14 / 54 + ip_len
    logic [16:0] exp_len_p4;  // the same with ip_len_p4
  } cw_pre_t;

  function automatic cw_pre_t cw_pre(logic [nt_pkg::WindowBits-1:0] w);
    cw_pre_t p;
    logic et4;
    logic [15:0] ip4, ip6, u4, u6;
    logic [16:0] e4, e6;
    p = '0;
    et4 = wb16(w, 12) == 16'h0800;
    p.et6 = wb16(w, 12) == 16'h86dd;
    if (et4) p.hdr_ok = wb(w, 14) == 8'h45 && wb(w, 23) == 8'd17 && ((wb(w, 20) & 8'h3f) | wb(w, 21)) == 8'd0;
    else if (p.et6) p.hdr_ok = w[8*14+4+:4] == 4'd6 && wb(w, 20) == 8'd17;
    p.ce = p.et6 ? w[8*15+4+:2] == 2'b11 : w[8*15+:2] == 2'b11;
    // each family's sums from its own fixed bytes, then the family chooses (no adder after the choice, and
    // none after another: issue 27 depth)
    ip4 = wb16(w, 16);
    ip6 = wb16(w, 18);
    u4 = wb16(w, 38);
    u6 = wb16(w, 58);
    p.ip_len = p.et6 ? ip6 : ip4;
    p.port_ok = (p.et6 ? wb16(w, 56) : wb16(w, 36)) == 16'(nt_pkg::ReorderUdpPort);
    p.udp_len = p.et6 ? u6 : u4;
    p.ip_len_p4 = p.et6 ? ip6 + 16'd4 : ip4 + 16'd4;
    p.ip_len_m4 = p.et6 ? ip6 - 16'd4 : ip4 - 16'd4;
    p.udp_len_m4 = p.et6 ? u6 - 16'd4 : u4 - 16'd4;
    p.csum = wb16(w, 24);
    p.csum_adj = csum_len_adjust(p.csum, ip4, 1'b0);  // read for IPv4 only
    p.exp_len = p.et6 ? 17'd54 + 17'(ip6) : 17'd14 + 17'(ip4);
    // 14 / 54 + (ip_len + 4 wrapped to 16 bits): 18 / 58 + ip_len, less 65536 when ip_len + 4 wraps (then
    // the sum is 0x10000 .. 0x1003d, so bit 16 is cleared)
    e4 = 17'd18 + 17'(ip4);
    e6 = 17'd58 + 17'(ip6);
    p.exp_len_p4 = p.et6 ? {ip6 < 16'hfffc && e6[16], e6[15:0]} : {ip4 < 16'hfffc && e4[16], e4[15:0]};
    cw_pre = p;
  endfunction

  // parse_cw_short with the first beat's part (cw_pre of the same window) given: reads from w only the bytes
  // after the UDP header (BTH, CW header, key, the header copy). The expected lengths are for the caller.
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic meta_t parse_cw_pre(logic [nt_pkg::WindowBits-1:0] w, cw_pre_t p, logic short4, logic short6,
                                         logic p4);
    meta_t m;
    logic go2, go3;
    logic [7:0] b8;
    m = '0;
    m.v6 = p.et6;
    if (p.hdr_ok) begin
      m.ip_len = p.ip_len;
      m.ce = p.ce;
      m.cw_off = p.et6 ? 16'd74 : 16'd54;  // BTH (42 / 62) + 12
    end
    go2 = p.hdr_ok && !(p.et6 ? short6 : short4) && p.port_ok;  // length < bth + 12 + 4 + 4, port
    b8 = p.et6 ? wb(w, 70) : wb(w, 50);  // BTH byte 8
    go3 = 1'b0;
    if (go2) begin
      m.path_id = p.et6 ? wb(w, 66) : wb(w, 46);
      if (p4) begin
        // DATA (1) only: ask_reply without tail asks for an RTT_REPLY; 0 (no CW header), REPLY, NOTIFY: 7
        m.op = b8[6:5] != 2'd1 ? 3'd7 : (b8[1] && !b8[0]) ? CwRttRequest : CwNormal;
        m.epoch = b8[3:2] + {1'b0, b8[4]};
        m.rerouted = b8[4];
      end else begin
        m.op = b8[6:4];
        m.epoch = b8[3:2];
        m.rerouted = b8[1];
      end
      m.tail = b8[0];
      m.tx_ts = p.et6 ? wb16(w, 74) : wb16(w, 54);
      m.tail_tx_ts = p.et6 ? wb16(w, 76) : wb16(w, 56);
      go3 = m.op == CwNormal || m.op == CwRttRequest;
    end
    if (go3) begin
      m.key = cw_key(w, p.et6);
      m.nic_ip_len = p.ip_len_m4;
      m.nic_udp_len = p.udp_len_m4;
      m.nic_b8 = b8 & 8'h80;
      if (p4) begin
        // the lengths and the IPv4 checksum are the NIC's already; ip_len: the datagram the frame holds
        m.nic_ip_len = p.ip_len;
        m.nic_udp_len = p.udp_len;
        m.nic_csum = p.csum;
        m.ip_len = p.ip_len_p4;
      end else if (!p.et6) begin
        // RFC 1624 eqn. 3, as model/common/checksum.h: HC' = ~(~HC + ~m + m')
        m.nic_csum = p.csum_adj;
      end
      m.hdr = w[HdrBits-1:0];
      m.ok = 1'b1;
    end
    parse_cw_pre = m;
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // The flow key of a CW data frame (parse_cw's m.key when the frame is good): family, IP source and
  // destination (4 or 16 bytes each), destination QP (BTH bytes 5..7, the BTH at 42 or 62).
  function automatic logic [KeyBits-1:0] cw_key(logic [nt_pkg::WindowBits-1:0] w, logic v6);
    logic [KeyBits-1:0] k4, k6;
    // both families' keys from fixed window bytes, then the family chooses (no variable byte index)
    k4 = '0;
    k6 = '0;
    k6[7:0] = 8'd1;
    for (int unsigned i = 0; i < 16; i++) begin
      if (i < 4) begin
        k4[8*(1+i)+:8] = w[8*(26+i)+:8];
        k4[8*(17+i)+:8] = w[8*(30+i)+:8];
      end
      k6[8*(1+i)+:8] = w[8*(22+i)+:8];
      k6[8*(17+i)+:8] = w[8*(38+i)+:8];
    end
    for (int unsigned i = 0; i < 3; i++) begin
      k4[8*(33+i)+:8] = w[8*(47+i)+:8];
      k6[8*(33+i)+:8] = w[8*(67+i)+:8];
    end
    cw_key = v6 ? k6 : k4;
  endfunction

  // CRC-16/CCITT-FALSE of the flow key, bit by bit (the definition; evaluated only on constants here).
  function automatic logic [15:0] flow_hash_serial(logic [KeyBits-1:0] key);
    logic [15:0] crc;
    crc = 16'hffff;
    for (int unsigned i = 0; i < nt_pkg::ReorderKeyBytes; i++) begin
      crc = crc ^ {key[8*i+:8], 8'd0};
      for (int j = 0; j < 8; j++) crc = crc[15] ? ((crc << 1) ^ 16'h1021) : (crc << 1);
    end
    flow_hash_serial = crc;
  endfunction

  // The CRC is affine in the key: CRC(key) = CRC(0) ^ the XOR of the columns of the key's set bits. Row o of
  // the matrix (bits KeyBits o .. KeyBits o + KeyBits - 1) holds, for every key bit i, whether it flips CRC
  // bit o: the CRC-16 step applied from state 0 to bit i alone, through the bytes after it. Computed at
  // elaboration (a constant function), so each CRC bit is one XOR reduction of the key under its row (a
  // balanced tree of LUTs), where the serial loop is a chain of 288 steps that ABC does not rebalance
  // (61 levels in reorder_ingress; issue 27 depth).
  function automatic logic [16*KeyBits-1:0] hash_rows();
    logic [15:0] c;
    hash_rows = '0;
    for (int unsigned i = 0; i < KeyBits; i++) begin
      c = 16'h0100 << (i % 8);
      for (int unsigned n = 0; n < 8 * (nt_pkg::ReorderKeyBytes - i / 8); n++) begin
        c = c[15] ? ((c << 1) ^ 16'h1021) : (c << 1);
      end
      for (int unsigned o = 0; o < 16; o++) hash_rows[KeyBits*o+i] = c[o];
    end
  endfunction
  localparam logic [16*KeyBits-1:0] HashRows = hash_rows();
  localparam logic [15:0] HashOfZero = flow_hash_serial('0);

  function automatic logic [15:0] flow_hash(logic [KeyBits-1:0] key);
    for (int unsigned o = 0; o < 16; o++) flow_hash[o] = HashOfZero[o] ^ (^(key & HashRows[KeyBits*o+:KeyBits]));
  endfunction

  // Beat k of the NIC frame (see StripBeat in model/reorder/reorder_frame.h), its bytes j with keep[j] (the
  // first out_n: a thermometer); reads only the offsets and restored fields of m.
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [nt_pkg::StreamBits-1:0] strip_beat(logic [nt_pkg::StreamBits-1:0] cur, logic [nt_pkg::StreamBits-1:0] nxt,
                                                      int unsigned k, meta_t m, logic [nt_pkg::StreamBytes-1:0] keep);
    logic [nt_pkg::StreamBits-1:0] d;
    int unsigned base, p, udp, bth, lenpos;
    logic pre;
    d = '0;
    base = k * nt_pkg::StreamBytes;
    for (int unsigned j = 0; j < nt_pkg::StreamBytes; j++) begin
      // byte p comes from p (before the CW header) or p + 4. cw_off is 0, 54 or 74 (parse_cw), so only
      // beats 0 and 1 have bytes before it: a choice by k and the family, not a position compare
      pre = m.cw_off != 16'd0 &&
               (k == 0 ? j < (m.v6 ? 74 : 54) : k == 1 ? j + nt_pkg::StreamBytes < (m.v6 ? 74 : 54) : 1'b0);
      if (keep[j]) d[8*j+:8] = pre ? cur[8*j+:8] : j < 60 ? cur[8*(j+4)+:8] : nxt[8*(j-60)+:8];
    end
    udp = m.v6 ? 54 : 34;
    bth = udp + 8;
    lenpos = m.v6 ? 18 : 16;
    for (int unsigned j = 0; j < nt_pkg::StreamBytes; j++) begin
      p = base | j;  // base is a multiple of 64: no carry
      if (keep[j]) begin
        if (p == lenpos) d[8*j+:8] = m.nic_ip_len[15:8];
        if (p == lenpos + 1) d[8*j+:8] = m.nic_ip_len[7:0];
        if (!m.v6 && p == 24) d[8*j+:8] = m.nic_csum[15:8];
        if (!m.v6 && p == 25) d[8*j+:8] = m.nic_csum[7:0];
        if (p == udp + 4) d[8*j+:8] = m.nic_udp_len[15:8];
        if (p == udp + 5) d[8*j+:8] = m.nic_udp_len[7:0];
        if (p == bth + 4) d[8*j+:8] = 8'd0;
        if (p == bth + 8) d[8*j+:8] = m.nic_b8;
      end
    end
    strip_beat = d;
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */

  // The first n bytes (all 64 for n >= 64): bit j is j < n, a compare with a constant per bit, where
  // (1 << n) - 1 is a 64-bit shift and subtraction (issue 27 depth).
  function automatic logic [63:0] keep_mask(int unsigned n);
    for (int unsigned j = 0; j < 64; j++) keep_mask[j] = j < n;
  endfunction

  // A control packet for a mirrored header without its two check fields: bytes in bits 8i+7:8i of two beats,
  // and its length. The IPv4 header checksum (bytes 24-25) and the ICRC (the 4 bytes at the CW header's end,
  // cw_end = 58 / 78) are 0 here; reorder_ctrl_gen inserts them as each beat leaves (its ctrl_csum_pair,
  // ctrl_icrc_part0 and the ICRC steps), so that neither the checksum's adders nor the CRC's XOR trees lie
  // on the path from the request FIFOs to the frame register (issue 27 depth).
  // p4: byte 8 in conweave-p4's format: RTT_REPLY = REPLY phase 0 (epoch as received), NOTIFY = NOTIFY
  // (phase and epoch as received), CLEAR = REPLY phase 1 with epoch - 1 (the TAIL's conweave-p4 epoch).
  function automatic logic [nt_pkg::WindowBits+7:0] build_ctrl_body(logic [HdrBits-1:0] hdr, logic v6,
                                                                   logic [2:0] op, logic [1:0] epoch, logic p4);
    logic [nt_pkg::WindowBits-1:0] f;
    int unsigned udp, bth, cw_end, len, ipn, src;
    f = '0;
    udp = v6 ? 54 : 34;
    bth = udp + 8;
    cw_end = bth + 16;
    len = cw_end + 4;
    f[HdrBits-1:0] = hdr;
    // Constant loop bounds (Yosys 0.55 unrolls only those): the bytes from cw_end on are cleared.
    for (int unsigned i = 0; i < nt_pkg::ReorderHdrBytes; i++) if (i >= cw_end) f[8*i+:8] = 8'd0;
    for (int unsigned i = 0; i < 6; i++) begin
      f[8*i+:8] = hdr[8*(6+i)+:8];
      f[8*(6+i)+:8] = hdr[8*i+:8];
    end
    ipn = v6 ? 16 : 4;
    src = v6 ? 22 : 26;
    for (int unsigned i = 0; i < 16; i++) begin
      if (i < ipn) begin
        f[8*(src+i)+:8] = hdr[8*(src+ipn+i)+:8];
        f[8*(src+ipn+i)+:8] = hdr[8*(src+i)+:8];
      end
    end
    if (v6) begin
      f[8*21+:8] = 8'd64;
      {f[8*18+:8], f[8*19+:8]} = 16'(len - udp);
    end else begin
      f[8*22+:8] = 8'd64;
      {f[8*16+:8], f[8*17+:8]} = 16'(len - 14);
      {f[8*24+:8], f[8*25+:8]} = 16'd0;  // the header checksum, inserted at emit
    end
    {f[8*(udp+4)+:8], f[8*(udp+5)+:8]} = 16'(len - udp);
    if (!p4) f[8*(bth+8)+:8] = {hdr[8*(bth+8)+7], op, epoch, 2'b00};
    else if (op == CwNotify) f[8*(bth+8)+:8] = {hdr[8*(bth+8)+7], 2'd3, hdr[8*(bth+8)+4], epoch, 2'b00};
    else if (op == CwClear) f[8*(bth+8)+:8] = {hdr[8*(bth+8)+7], 2'd2, 1'b1, epoch - 2'd1, 2'b00};
    else f[8*(bth+8)+:8] = {hdr[8*(bth+8)+7], 2'd2, 1'b0, epoch, 2'b00};
    // the ICRC's 4 bytes (cw_end .. cw_end + 3: 58..61 or 78..81) and all after them are 0 already: bytes
    // from cw_end to ReorderHdrBytes - 1 = 79 by the loop above, the rest since f started as 0
    build_ctrl_body = {8'(len), f};
  endfunction

endpackage
