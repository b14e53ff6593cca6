// Types and helpers of the NAAICE endpoint (docs/naa.md, docs/naa-microarchitecture.md): the connection
// manager's, and the interface between the controller (naa_ctl) and the requester (naa_req).
`include "nt_bytes.svh"
package naa_pkg;

  // ---- Controller <-> requester (model/naa/naa_types.h, the same fields) ----
  typedef enum logic [1:0] { NaaOpSend = 2'd0, NaaOpWrite = 2'd1, NaaOpWriteImm = 2'd2 } naa_req_op_e;
  typedef struct packed {          // one work request: one message (SEND ONLY, or a WRITE split by MTU)
    naa_req_op_e  op;
    logic [63:0]  laddr;           // payload address in the endpoint's (host-memory-model) memory
    logic [31:0]  len;             // bytes; 0 allowed for SEND and WRITE_WITH_IMM
    logic [63:0]  raddr;           // remote virtual address (WRITE, WRITE_WITH_IMM)
    logic [31:0]  rkey;            // remote key (WRITE, WRITE_WITH_IMM)
    logic [31:0]  imm;             // immediate (WRITE_WITH_IMM)
    logic [7:0]   tag;             // returned in the completion
  } naa_req_cmd_t;
  typedef enum logic [1:0] { NaaCplOk = 2'd0, NaaCplRetryExceeded = 2'd1, NaaCplRemoteError = 2'd2,
                             NaaCplFlushed = 2'd3 } naa_cpl_status_e;
  typedef struct packed { logic [7:0] tag; naa_cpl_status_e status; } naa_req_cpl_t;

  // The connection the CM established, as the requester and the controller see it (naa_cm conn_o).
  typedef struct packed {
    logic        connected;        // RTU received, not yet torn down
    logic [47:0] mac;              // the client's MAC (the REQ's source)
    logic [31:0] ip;               // the client's IPv4 (the REQ's source)
    logic [15:0] sport;            // the REQ's UDP source port (this endpoint's frames go to it)
    logic [23:0] qpn;              // the client's QPN (destination QP of this endpoint's requests)
    logic [23:0] local_qpn;        // this endpoint's QPN (ACKs for the requester arrive on it)
    logic [23:0] start_psn;        // the REP's Starting PSN: the requester's first PSN
    logic [3:0]  mtu_log2;         // the negotiated path MTU (8..12)
  } naa_conn_t;

  localparam int unsigned CmBits = nt_pkg::NaaCmBufBeats * nt_pkg::StreamBits;  // the CM frame buffer, byte i in bits 8i+7:8i
  localparam int unsigned CmIcrcAt = nt_pkg::NaaCmFrameBytes - 4;
  localparam int unsigned CmIpLen = nt_pkg::NaaCmFrameBytes - 14;   // IPv4 total length of a CM frame
  localparam int unsigned CmUdpLen = nt_pkg::NaaCmFrameBytes - 34;  // its UDP length
  localparam int unsigned MadAt = 62;
  localparam int unsigned CmDataAt = MadAt + 24;
  localparam logic [15:0] AttrReq = 16'h0010, AttrRej = 16'h0012, AttrRep = 16'h0013, AttrRtu = 16'h0014,
                          AttrDreq = 16'h0015, AttrDrep = 16'h0016;
  localparam logic [15:0] RejNoQp = 16'd1, RejInvalidServiceId = 16'd8, RejInvalidTransport = 16'd9,
                          RejInvalidMtu = 16'd26;
  localparam logic [31:0] Qp1Qkey = 32'h8001_0000;

  // The controller (model/naa/naa_ctl.h).
  typedef enum logic [3:0] {CtlIdle, CtlRead, CtlReadWait, CtlHeader, CtlEntry, CtlGrant, CtlAnsWrite, CtlCmd,
                            CtlCplWait, CtlRepost, CtlRevoke, CtlKStart, CtlKWait} ctl_state_e;
  // The kernels (model/naa/naa_kernel.h): function codes, immediates, states.
  localparam logic [31:0] KernelAdd = 32'd1, KernelCrc = 32'd2, KernelCopy = 32'd3;
  localparam logic [7:0] RpcOk = 8'h00, RpcTimeout = 8'h02, RpcUnknownFn = 8'h10, RpcRegions = 8'h11,
                         RpcSize = 8'h12;
  typedef enum logic [3:0] {KIdle, KCheck, KRdA, KRdB, KWait, KWrite, KCrcWrite, KDrain, KDone} kernel_state_e;
  localparam logic [7:0] MrspError = 8'h00, MrspAdvReq = 8'h01, MrspAdv = 8'h02;
  localparam logic [7:0] MrspNoMemory = 8'h01, MrspBadAddress = 8'h02, MrspTooMany = 8'h03, MrspMalformed = 8'h04;
  localparam int unsigned AnsBeats = (4 + 16 * nt_pkg::NaaRegions + nt_pkg::StreamBytes - 1) / nt_pkg::StreamBytes;

  typedef enum logic [2:0] {CmRx, CmParse, CmDrain, CmCfgQp, CmCfgQueues, CmResp} cm_state_e;
  typedef enum logic [1:0] {ConnIdle = 2'd0, ConnRepSent = 2'd1, ConnEstablished = 2'd2} conn_e;

  // Table NaaTblCm, index 0 (model/naa/naa_types.cc Encode(CmCfg)).
  typedef struct packed {
    logic        listen;
    logic [63:0] service_id;
    logic [63:0] ca_guid;
    logic [23:0] start_psn;
    logic [7:0]  initiator_depth;
    logic [2:0]  rnr_retry;
    logic [4:0]  ack_delay;
    logic [3:0]  qp_slot;
    logic [31:0] comm_id;
  } cm_cfg_t;

  // A CM response (model/naa/naa_mad.h CmDesc).
  typedef struct packed {
    logic [15:0] attr;
    logic [63:0] tid;
    logic [31:0] local_comm;
    logic [31:0] remote_comm;
    logic [15:0] reason;
    logic [47:0] dst_mac;
    logic [31:0] dst_ip;
    logic [15:0] sport;
    logic [23:0] psn;
    logic [23:0] qpn;
    logic [23:0] start_psn;
    logic [7:0]  resp_res;
    logic [7:0]  init_depth;
    logic [2:0]  rnr_retry;
    logic [4:0]  ack_delay;
    logic [63:0] guid;
  } cm_desc_t;

  // A requester frame's header (at most 74 bytes: Ethernet, IPv4, UDP, BTH, RETH, ImmDt), byte i in bits 8i+7:8i.
  localparam int unsigned ReqHdrBits = 8 * 80;
  `NT_PUT_BE_FN(put_hdr, ReqHdrBits, 64)

  // IPv4 header checksum of this endpoint's frames (TOS 0, ID 0, DF, TTL 64, UDP).
  // In two steps, which naa_cm registers apart (issue 27): the sum of the header's 16-bit words (at most
  // 0x4500 + 0xffff + 0x4000 + 0x4011 + 4 x 0xffff < 2^19), then the end-around folds and the complement.
  function automatic logic [18:0] ip4_csum_sum(logic [15:0] len, logic [31:0] src, logic [31:0] dst);
    ip4_csum_sum = 19'h4500 + {3'd0, len} + 19'h4000 + 19'h4011 + {3'd0, src[31:16]} + {3'd0, src[15:0]} +
                   {3'd0, dst[31:16]} + {3'd0, dst[15:0]};
  endfunction
  function automatic logic [15:0] ip4_csum_fold(logic [18:0] sum);
    logic [16:0] s;
    s = {1'b0, sum[15:0]} + {14'd0, sum[18:16]};
    s = {1'b0, s[15:0]} + {16'd0, s[16]};
    ip4_csum_fold = ~s[15:0];
  endfunction
  function automatic logic [15:0] ip4_csum(logic [15:0] len, logic [31:0] src, logic [31:0] dst);
    ip4_csum = ip4_csum_fold(ip4_csum_sum(len, src, dst));
  endfunction

  // Big-endian fields of the frame buffer.
  `NT_GET_BE_FN(fbe, CmBits)
  `NT_PUT_BE_FN(put_be, CmBits, 64)


  // Bytes [0, CmIcrcAt) of a REP, REJ or DREP frame (model/naa/naa_mad.cc ComposeCm); csum is its IPv4 header
  // checksum, ip4_csum(CmIpLen, ip4, d.dst_ip) (naa_cm registers it: an adder tree, issue 27).
  function automatic logic [CmBits-1:0] cm_compose(cm_desc_t d, logic [47:0] mac, logic [31:0] ip4, logic [15:0] csum);
    logic [CmBits-1:0] f;
    f = '0;
    f = put_be(f, 0, 6, {16'd0, d.dst_mac});
    f = put_be(f, 6, 6, {16'd0, mac});
    f = put_be(f, 12, 2, 64'h0800);
    f = put_be(f, 14, 1, 64'h45);
    f = put_be(f, 16, 2, 64'(CmIpLen));
    f = put_be(f, 20, 2, 64'h4000);
    f = put_be(f, 22, 1, 64'd64);
    f = put_be(f, 23, 1, 64'd17);
    f = put_be(f, 24, 2, {48'd0, csum});
    f = put_be(f, 26, 4, {32'd0, ip4});
    f = put_be(f, 30, 4, {32'd0, d.dst_ip});
    f = put_be(f, 34, 2, {48'd0, d.sport});
    f = put_be(f, 36, 2, 64'(nt_pkg::RdmaUdpPort));
    f = put_be(f, 38, 2, 64'(CmUdpLen));
    f = put_be(f, 42, 1, 64'h64);
    f = put_be(f, 44, 2, 64'hffff);
    f = put_be(f, 47, 3, 64'd1);
    f = put_be(f, 51, 3, {40'd0, d.psn});
    f = put_be(f, 54, 4, {32'd0, Qp1Qkey});
    f = put_be(f, 59, 3, 64'd1);
    f = put_be(f, MadAt, 4, 64'h0107_0203);
    f = put_be(f, MadAt + 8, 8, d.tid);
    f = put_be(f, MadAt + 16, 2, {48'd0, d.attr});
    f = put_be(f, CmDataAt, 4, {32'd0, d.local_comm});
    f = put_be(f, CmDataAt + 4, 4, {32'd0, d.remote_comm});
    if (d.attr == AttrRep) begin
      f = put_be(f, CmDataAt + 12, 3, {40'd0, d.qpn});
      f = put_be(f, CmDataAt + 20, 3, {40'd0, d.start_psn});
      f = put_be(f, CmDataAt + 24, 1, {56'd0, d.resp_res});
      f = put_be(f, CmDataAt + 25, 1, {56'd0, d.init_depth});
      f = put_be(f, CmDataAt + 26, 1, {56'd0, d.ack_delay, 3'd0});
      f = put_be(f, CmDataAt + 27, 1, {56'd0, d.rnr_retry, 5'd0});
      f = put_be(f, CmDataAt + 28, 8, d.guid);
    end else if (d.attr == AttrRej) begin
      f = put_be(f, CmDataAt + 10, 2, {48'd0, d.reason});
    end
    cm_compose = f;
  endfunction

  // An address stepped by 2^p (mod 2^64) with no long chain (issue 27; docs/naa-microarchitecture.md "Kernel
  // depth"): bits [63:p] as groups of 8 bits (group g: bits [p + 8g, p + 8g + 8) below 64), and beside the address
  // a register of flags, flag g = group g is all ones. Group g increments when every group below it is all ones
  // (the flags: registers, not the address's bits), so a bit's carry is an AND of at most 7 flags and 7 bits of
  // its own group, whatever form the mapper gives it (an AND chain of 14 inputs is 3 LUT6 levels); the flags
  // of the stepped address come from the same registers: a group that increments is all ones after the step
  // exactly when it was all ones but its low bit. (A plain `x + c` is a 64-bit carry chain, 16 CARRY4 levels in
  // the depth measure; an AND tree per bit, the form before, was mapped by ABC as one shared chain, 25 levels.)
  function automatic logic [7:0] step_ones(logic [63:0] x, int unsigned p);
    logic [7:0] f;
    f = '1;
    for (int unsigned i = 0; i < 64; i++) if (i >= p) f[(i - p) / 8] = f[(i - p) / 8] & x[i];
    step_ones = f;
  endfunction
  function automatic logic [63:0] step_addr(logic [63:0] x, logic [7:0] ones, int unsigned p);
    logic [63:0] r;
    logic        c;
    r = x;
    for (int unsigned i = 0; i < 64; i++) begin
      if (i >= p) begin
        c = 1'b1;
        for (int unsigned g = 0; g < 8; g++) if (g < (i - p) / 8) c = c & ones[g];
        for (int unsigned j = 0; j < 64; j++) if (j >= p + 8 * ((i - p) / 8) && j < i) c = c & x[j];
        r[i] = x[i] ^ c;
      end
    end
    step_addr = r;
  endfunction
  function automatic logic [7:0] step_ones_next(logic [63:0] x, logic [7:0] ones, int unsigned p);
    logic [7:0] f, low;
    logic       c;
    low = '1;  // group g all ones but its lowest bit, which is 0
    for (int unsigned i = 0; i < 64; i++) begin
      if (i >= p) begin
        if ((i - p) % 8 == 0) low[(i - p) / 8] = low[(i - p) / 8] & !x[i];
        else low[(i - p) / 8] = low[(i - p) / 8] & x[i];
      end
    end
    for (int unsigned g = 0; g < 8; g++) begin
      c = 1'b1;
      for (int unsigned h = 0; h < 8; h++) if (h < g) c = c & ones[h];
      f[g] = c ? low[g] : ones[g];
    end
    step_ones_next = f;
  endfunction

  // (add64c, the 64-bit add in 16-bit chunks, and lt64: rdma_pkg, one definition since branch naq24)

endpackage
