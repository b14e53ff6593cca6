// Types and helpers of the RoCEv2 responder (docs/rdma.md, docs/rdma-microarchitecture.md).
package rdma_pkg;

  localparam int unsigned HdrWindow = 128;
  localparam int unsigned AqGroupBytes = nt_pkg::RdmaAqGroup * nt_pkg::RdmaAqeBytes;

  // Front end (one request at a time from the receive ring) and back end (the in-flight queue's head).
  typedef enum logic [3:0] {
    StRx, StCheck, StWrDma, StRdIssue, StAtRead, StAqIssue, StAqWait,
    StLookup  // Check's first cycle (rdma_check's lookup registers), before StCheck
  } state_e;
  typedef enum logic { BkIdle, BkSend } back_e;
  // The atomic executor (the oldest queued atomic not executed yet): compute, new value, AQE.
  typedef enum logic [1:0] { ExIdle, ExAtWrite, ExAqWrite } ex_e;
  typedef enum logic [1:0] { PendRespond, PendRead, PendAtomic } pend_e;

  // Drop reasons (model/rdma/rdma_types.h Drop).
  localparam int unsigned DropNone = 0, DropRunt = 1, DropMalformed = 2, DropNotForUs = 3, DropBadIcrc = 4,
                          DropUnknownQp = 5, DropNotRequest = 6, DropPsnAhead = 7, DropOverflow = 8,
                          DropCnp = 9, NumDrops = 10;

  typedef enum logic [2:0] {
    JobDrop, JobRespond, JobNone, JobWrite, JobRead, JobAtomic, JobAtomicDup,
    JobWait  // the request's receive WQE is posted but not prefetched yet: it waits in Check
  } job_e;

  // A receive WQE as the host wrote it (little-endian: buffer address, length, wr_id), prefetched on chip.
  typedef struct packed {
    logic [63:0] addr;
    logic [31:0] len;
    logic [31:0] wr_id;
  } wqe_t;

  typedef struct packed {
    logic         has_ip4;
    logic         has_ip6;
    logic         aq_linear;
    logic [47:0]  mac;
    logic [31:0]  ip4;
    logic [127:0] ip6;
  } responder_t;

  typedef struct packed {
    logic         valid;
    logic [23:0]  qpn;
    logic [23:0]  dest_qp;
    logic [23:0]  epsn;
    logic [3:0]   mtu_log2;
    logic [15:0]  max_rd_atomic;
    logic [63:0]  aq;
    logic [3:0]   aq_groups;
  } qp_cfg_t;

  typedef struct packed {
    logic         valid;
    logic [63:0]  rq;
    logic [15:0]  rq_entries;
    logic [15:0]  rq_posted;
    logic [63:0]  cq;
    logic [15:0]  cq_entries;
    logic [4:0]   rnr_timer;
  } qp_queues_t;

  typedef struct packed {
    qp_cfg_t                        cfg;
    qp_queues_t                     queues;
    logic [23:0]                    epsn;
    logic [23:0]                    msn;
    logic                           nak_sent;
    logic                           w_open;
    logic [63:0]                    w_pa;
    logic [31:0]                    w_remaining;
    logic [8:0]                     aq_wr;
    logic                           aq_lapped;  // the AQ wrapped since the QP entry was written
    logic [nt_pkg::RdmaAqMaxGroups-1:0][23:0] grp_psn;
    logic [nt_pkg::RdmaAqMaxGroups-1:0]     grp_valid;
    logic [15:0]                    rq_head;
    logic [15:0]                    cq_tail;
    logic                           s_open;
    logic [63:0]                    s_addr;
    logic [31:0]                    s_room;
    logic [31:0]                    s_total;
    logic [31:0]                    s_wr_id;
    logic [31:0]                    w_dmalen;
  } qp_state_t;

  typedef struct packed {
    logic        valid;
    logic [31:0] rkey;
    logic [63:0] va;
    logic [39:0] len;
    logic [63:0] pa;
    logic        r;
    logic        w;
    logic        a;
  } mr_t;

  // The widths of the three entries held in tables, for those tables as 2-D packed vectors (an entry a word,
  // read whole into a struct): Yosys 0.55 reads a packed array of a packed struct as ONE element
  // (YosysHQ/yosys#2677; docs/synthesis.md "One RTL source") and rejects $bits(type), so the widths are
  // spelled out here. A width that differs from its struct is a -Wall WIDTH warning of the lint.
  localparam int unsigned WqeBits     = 64 + 32 + 32;                                          // wqe_t
  localparam int unsigned MrBits      = 1 + 32 + 64 + 40 + 64 + 3;                             // mr_t
  localparam int unsigned QpStateBits = (1 + 3 * 24 + 4 + 16 + 64 + 4) + (1 + 64 + 16 + 16 + 64 + 16 + 5) +
                                        24 + 24 + 1 + 1 + 64 + 32 + 9 + 1 + nt_pkg::RdmaAqMaxGroups * 25 +
                                        16 + 16 + 1 + 64 + 32 + 32 + 32 + 32;                  // qp_state_t

  typedef struct packed {
    logic [3:0]   drop;
    logic         v6;
    logic [47:0]  src_mac;
    logic [31:0]  src_ip4;
    logic [127:0] src_ip6;
    logic [15:0]  sport;
    logic [7:0]   opcode;
    logic [1:0]   pad;
    logic         ackreq;
    logic [23:0]  dqpn;
    logic [23:0]  psn;
    logic [63:0]  va;
    logic [63:0]  swap;
    logic [63:0]  compare;
    logic [31:0]  rkey;
    logic [31:0]  dmalen;
    logic [31:0]  imm;
    logic [15:0]  hdr_len;
    logic [15:0]  frame_end;
    logic [31:0]  plen;  // signed
  } request_t;

  // What rdma_parse_pre computes from a request's first beat (bytes 0..63) as it is received, registered per
  // receive slot, so that the parse of the slot starts from registers (docs/rdma-microarchitecture.md "Parser
  // depth"). Every term of one IP family, chosen by the EtherType: IPv4 if is4, else IPv6 if is6.
  typedef struct packed {
    logic         is4;        // EtherType IPv4
    logic         is6;        // EtherType IPv6 (and not IPv4)
    logic         ver_ok;     // the version byte is right (a length failure is then a runt)
    logic         oth;        // stage 1 without the frame length: version, least IP length, fragment, protocol
    logic         s2_bad;     // stage 2: UDP port and length, BTH flags and opcode, IP length against ext + pad
    logic [16:0]  frame_end;  // l3 + IP length (14 + IPv4 total length, 54 + IPv6 payload length), 17 bits
    logic [7:0]   opcode;
    logic [1:0]   pad;
    logic [15:0]  hdr_len;    // l4 + BTH (20) + extension headers
    logic [15:0]  plen;       // the payload length: IP length - l4 part - ext - pad (modulo 2^16)
  } pre_t;
  localparam int unsigned PreBits = 5 + 17 + 8 + 2 + 16 + 16;  // pre_t

  // a < k for a constant k, written bit by bit (Yosys keeps it as logic ABC can balance, not a carry chain).
  function automatic logic lt_c(logic [15:0] a, logic [15:0] k);
    logic lt, eq;
    lt = 1'b0;
    eq = 1'b1;
    for (int i = 15; i >= 0; i--) begin
      lt = lt | (eq & k[i] & ~a[i]);
      eq = eq & ~(a[i] ^ k[i]);
    end
    lt_c = lt;
  endfunction

  // Wide arithmetic in 16-bit chunks (issue 27 item 2; the one definition for rdma_check, naa_ctl and naa_req):
  // Yosys maps a 64-bit add or compare to one chain of 16 CARRY4 cells (16 levels by docs/synthesis.md's
  // measure). add64c: {carry out, a + b + cin}; per chunk the sum without (s0) and with (s1: {a, 1} + {b, 1}
  // is 2 (a + b + 1)) a carry in, side by side, chosen by the carry into the chunk: four 16-bit chains, not
  // one of 64 bits. (s1's bit 0 is always 0.)
  /* verilator lint_off UNUSEDSIGNAL */
  function automatic logic [64:0] add64c(logic [63:0] a, logic [63:0] b, logic cin);
    logic [16:0] s0;
    logic [17:0] s1;
    logic        c;
    logic [63:0] r;
    r = '0;
    c = cin;
    for (int k = 0; k < 4; k++) begin
      s0 = {1'b0, a[16*k+:16]} + {1'b0, b[16*k+:16]};
      s1 = {1'b0, a[16*k+:16], 1'b1} + {1'b0, b[16*k+:16], 1'b1};
      r[16*k+:16] = c ? s1[16:1] : s0[15:0];
      c = c ? s1[17] : s0[16];
    end
    add64c = {c, r};
  endfunction
  /* verilator lint_on UNUSEDSIGNAL */
  // a < b (unsigned): four 16-bit compares side by side, then the first unequal chunk from the top decides.
  // (As a plain-logic tree of (generate, propagate) pairs it was deeper: ABC mapped it to LUT6 + MUXF7/8/9
  // cascades, 15 levels with naa_ctl's Entry decision.)
  function automatic logic lt64(logic [63:0] a, logic [63:0] b);
    logic [3:0] lt;
    logic [3:1] eq;
    for (int k = 0; k < 4; k++) lt[k] = a[16*k+:16] < b[16*k+:16];
    for (int k = 1; k < 4; k++) eq[k] = a[16*k+:16] == b[16*k+:16];
    lt64 = lt[3] || (eq[3] && (lt[2] || (eq[2] && (lt[1] || (eq[1] && lt[0])))));
  endfunction

  typedef struct packed {
    logic         v6;
    logic [47:0]  dst_mac;
    logic [47:0]  src_mac;
    logic [31:0]  dst_ip4;
    logic [31:0]  src_ip4;
    logic [127:0] dst_ip6;
    logic [127:0] src_ip6;
    logic [15:0]  sport;
    logic [7:0]   opcode;
    logic [23:0]  dqpn;
    logic [23:0]  psn;
    logic [7:0]   syndrome;
    logic [23:0]  msn;
    logic [63:0]  atomic_value;
    logic [15:0]  plen;
  } desc_t;

  typedef struct packed {
    job_e        kind;
    logic [3:0]  drop;
    logic [3:0]  qp;
    logic        ack;
    logic [63:0] pa;
    logic [31:0] len;
    logic [31:0] mtu;
    logic [31:0] npkts;
    logic [31:0] pkt;
    logic [7:0]  opcode;
    logic [63:0] swap;
    logic [63:0] compare;
    logic [23:0] psn;
    logic [2:0]  grp;
    logic [3:0]  grps_left;
    logic        cqe;
    logic [31:0] cqe_wr_id;
    logic [31:0] cqe_len;
    logic [31:0] imm;
    logic [7:0]  cqe_opcode;
    logic        cqe_imm;
  } job_t;

  // An in-flight queue entry: a response waiting for its turn (and for its read data).
  typedef struct packed {
    pend_e       kind;
    logic [3:0]  qp;
    logic [63:0] pa;       // READ: the segment's host address; ATOMIC: the word
    logic [7:0]  opcode;
    logic [63:0] swap;     // ATOMIC: the operand, then the new value once computed
    logic [63:0] compare;
    logic [23:0] psn;
    logic        fwd;      // ATOMIC: the old value is the previous atomic's new value (on chip), no host read
    desc_t       desc;
  } pend_t;

  function automatic logic [31:0] crc32_byte(logic [31:0] crc_in, logic [7:0] b);
    logic [31:0] crc;
    crc = crc_in ^ {24'd0, b};
    for (int i = 0; i < 8; i++) crc = (crc >> 1) ^ (32'hedb88320 & {32{crc[0]}});
    crc32_byte = crc;
  endfunction

  // The byte at frame offset pos as the ICRC sees it (masked fields read as ones).
  function automatic logic [7:0] icrc_masked(int unsigned pos, logic [7:0] b, logic v6);
    icrc_masked = b;
    if (!v6) begin
      if (pos == 15 || pos == 22 || pos == 24 || pos == 25 || pos == 40 || pos == 41 || pos == 46) icrc_masked = 8'hff;
    end else begin
      if (pos == 14) icrc_masked = b | 8'h0f;
      else if ((pos >= 15 && pos <= 17) || pos == 21 || pos == 60 || pos == 61 || pos == 66) icrc_masked = 8'hff;
    end
  endfunction

  // The data part of a whole beat's register update from state 0 (nt_crc_pkg::CrcData).
  function automatic logic [31:0] crc32_data(logic [nt_pkg::StreamBits-1:0] d);
    crc32_data = nt_pkg::crc32_data(nt_crc_pkg::CrcData, d);
  endfunction

  // CRC register after the bytes of one beat that lie in [CrcIcrcLo, hi) of the frame (CrcIcrcLo = 14: the
  // ICRC starts at the IP header), the beat's first byte at frame offset base, a multiple of StreamBytes.
  // As GF(2) matrices (docs/rdma-microarchitecture.md "ICRC as GF(2) matrices"; the tables are generated by
  // scripts/nettwin/vnic/crc_tables.py, which checks this very formula against zlib): the beat covers its
  // bytes [a, b) (a = 14 in beat 0, else 0); with z the beat whose bytes outside [a, b) are zero (masked
  // fields as ones), the register is Take(64 - b) x (CrcData x z ^ Fwd(64 - a) x crc_in): the data part from
  // state 0 over the whole beat (leading zeros leave state 0 alone), the state moved over the 64 - a bytes
  // from a on, and both taken back by the 64 - b zero bytes after b. No covered byte: crc_in unchanged.
  // Replaces a chain of up to 64 byte steps (crc32_byte, still the reference: model/rdma IcrcBeat).
  // Take(t) of rdma_crc_pkg::CrcTake for a variable t, as an AND-OR of the 64 constant matrices: each matrix
  // bit is then a function of t alone (a LUT6). A part-select by t (CrcTake[32*32*t+:32*32]) became a
  // 65,536 -> 1,024-bit barrel shifter in Yosys's techmap (docs/synthesis.md "rdma_top after branch rchk23").
  function automatic logic [32*32-1:0] crc_take_mat(logic [5:0] t);
    logic [32*32-1:0] m;
    m = '0;
    for (int unsigned i = 0; i < 64; i++) m = m | ({32*32{t == 6'(i)}} & rdma_crc_pkg::CrcTake[32*32*i+:32*32]);
    crc_take_mat = m;
  endfunction

  function automatic logic [31:0] icrc_beat(logic [31:0] crc_in, logic [nt_pkg::StreamBits-1:0] data,
                                            int unsigned base, int unsigned hi, logic v6);
    logic        first;
    logic [6:0]  a, b;
    logic [5:0]  t;
    logic [nt_pkg::StreamBits-1:0] z;
    logic [31:0] st;
    first = base == 0;
    a     = first ? 7'(rdma_crc_pkg::CrcIcrcLo) : 7'd0;
    if (hi >= base + nt_pkg::StreamBytes) b = 7'(nt_pkg::StreamBytes);
    else if (hi <= base) b = 7'd0;
    else b = 7'(hi - base);
    z = '0;
    for (int unsigned i = 0; i < nt_pkg::StreamBytes; i++) begin
      if (7'(i) >= a && 7'(i) < b) begin
        // the masked fields lie in beats 0 and 1 (frame offsets 14..66): constant positions per beat
        if (first) z[8*i+:8] = icrc_masked(i, data[8*i+:8], v6);
        else if (base == nt_pkg::StreamBytes) z[8*i+:8] = icrc_masked(nt_pkg::StreamBytes + i, data[8*i+:8], v6);
        else z[8*i+:8] = data[8*i+:8];
      end
    end
    st = first ? nt_pkg::crc32_mat(rdma_crc_pkg::CrcHead, crc_in) : nt_pkg::crc32_mat(nt_crc_pkg::CrcBeat, crc_in);
    t  = 6'(7'(nt_pkg::StreamBytes) - b);
    icrc_beat = (b <= a) ? crc_in
              : nt_pkg::crc32_mat(crc_take_mat(t), crc32_data(z) ^ st);
  endfunction

  // The register after bytes [CrcIcrcLo, hi) of a whole frame f (byte i in bits 8i+7:8i) from crc_in, in one
  // step: beats = ceil(hi / 64) <= CrcPows, each beat's data part moved over the beats after it by one
  // precomputed matrix (CrcDataPow), so every register bit is one XOR tree over the frame, then the zero tail
  // after hi taken back: Take(64 beats - hi) x (Pow(beats - 1) x Head x crc_in ^ sum over k of DataPow(beats -
  // 1 - k) x z_k) (crc_tables.py checks the formula against zlib). With hi a constant (naa_cm's CM frames) the
  // masks and the matrices are constants. Bytes from hi on are not read.
  function automatic logic [31:0] icrc_frame(logic [31:0] crc_in,
                                             logic [rdma_crc_pkg::CrcPows*nt_pkg::StreamBits-1:0] f,
                                             int unsigned hi, logic v6);
    int unsigned beats, pos;
    logic [nt_pkg::StreamBits-1:0] z;
    logic [31:0] acc;
    beats = (hi + nt_pkg::StreamBytes - 1) / nt_pkg::StreamBytes;
    acc   = nt_pkg::crc32_mat(rdma_crc_pkg::CrcPow[32*32*(beats-1)+:32*32], nt_pkg::crc32_mat(rdma_crc_pkg::CrcHead, crc_in));
    for (int unsigned k = 0; k < rdma_crc_pkg::CrcPows; k++) begin
      z = '0;
      for (int unsigned i = 0; i < nt_pkg::StreamBytes; i++) begin
        pos = nt_pkg::StreamBytes * k + i;
        if (pos >= rdma_crc_pkg::CrcIcrcLo && pos < hi) z[8*i+:8] = icrc_masked(pos, f[8*pos+:8], v6);
      end
      if (k < beats) acc = acc ^ nt_pkg::crc32_data(rdma_crc_pkg::CrcDataPow[32*nt_pkg::StreamBits*(beats-1-k)+:32*nt_pkg::StreamBits], z);
    end
    icrc_frame = nt_pkg::crc32_mat(rdma_crc_pkg::CrcTake[32*32*(nt_pkg::StreamBytes*beats-hi)+:32*32], acc);
  endfunction

  // CRC register after the 8 bytes of ones that stand in for the LRH.
  function automatic logic [31:0] icrc_seed();
    logic [31:0] crc;
    crc = 32'hffffffff;
    for (int i = 0; i < 8; i++) crc = crc32_byte(crc, 8'hff);
    icrc_seed = crc;
  endfunction

  // Completion event (cqe_valid_o / cqe_o): the CQE the front end has just written, for a controller on chip
  // (naa_ctl) that would otherwise have to poll the CQ in host memory. imm is the immediate as a big-endian
  // number (the first wire byte in bits 31:24); opcode 0 SEND, 1 RDMA WRITE with immediate.
  typedef struct packed {
    logic [31:0] wr_id;
    logic [31:0] len;
    logic [31:0] imm;
    logic [23:0] qpn;
    logic [7:0]  opcode;
    logic [23:0] psn;
  } cqe_t;
endpackage
