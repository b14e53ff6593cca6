// The NAA controller (docs/naa.md "MRSP and RPC", docs/naa-microarchitecture.md "Controller"): takes the
// responder's completion events for the connected QP, reads an MRSP 0x01 request from the receive buffer
// (one DMA read), checks it one entry per cycle, programs one responder MR per granted region, writes the
// 0x02 (or 0x00) answer into its transmit buffer, posts one SEND to the requester and reposts the receive
// buffer. State for state as model/naa/naa_ctl.cc.
//   MRSP: Idle -> {Read -> ReadWait -> Header -> Entry x N} -> [Grant x max(N, old)] -> AnsWrite -> Cmd
//         -> CplWait -> Repost -> Idle
//   RPC:  Idle -> KStart -> KWait (naa_kernel has the DMA port) -> Cmd (WRITE_WITH_IMM) -> CplWait -> Repost
//   disconnect: Idle -> Revoke x n -> Idle
`include "nt_bytes.svh"
`include "nt_ports.svh"
module naa_ctl
(
  `NT_CLK_RST,
  input  logic                    connected_i,
  input  logic                    cqe_valid_i,
  input  rdma_pkg::cqe_t                    cqe_i,
  // DMA master (the responder's port shape).
  `NT_DMA_REQ_OUT(dma),
  `NT_DMA_RSP_IN(dma),
  // Writes into the responder's MR table and QP queues; taken when rcfg_ready_i (the CM goes first).
  `NT_CFG_OUT(rcfg),
  input  logic                    rcfg_ready_i,
  // The requester's command port.
  output logic                    cmd_valid_o,
  input  logic                    cmd_ready_i,
  output naa_pkg::naa_req_cmd_t            cmd_o,
  input  logic                    cpl_valid_i,
  input  naa_pkg::naa_req_cpl_t            cpl_i,
  // The external programming port (table NaaTblCtl).
  `NT_CFG_IN(cfg),
  `NT_NAA_CTL_CNT_OUT(cnt),
  output logic [7:0]              regions_o,
  output logic [3:0]              state_o,
  // An event is queued or being handled, or a grant waits to be revoked (the run is not over).
  output logic                    busy_o
);
  localparam int unsigned MsgBits = nt_pkg::NaaMsgBeats * nt_pkg::StreamBits;
  localparam int unsigned AnsBits = naa_pkg::AnsBeats * nt_pkg::StreamBits;
  localparam int unsigned EvBits = $clog2(nt_pkg::NaaCqeFifo);

  // Configuration (model/naa/naa_ctl.cc DecodeCtl).
  logic        enable_q;
  logic [63:0] pool_q, rxbuf_q, txbuf_q;
  // pool + pool_size, summed when the configuration is written (the controller reads only the end): the
  // entry checks then compare with a register instead of behind a 64-bit adder.
  logic [63:0] pool_end_q;
  logic [31:0] budget_q;
  logic        imm_naaice_q;  // the library's RPC immediates (model CtlCfg::imm_naaice)
  logic [7:0]  mr_first_q, mrs_q;
  logic [31:0] rkey_base_q;
  logic [3:0]  qp_slot_q;
  logic [23:0] qpn_q;
  logic [181:0] queues_q;  // the responder's QP-queues layout; [96:81] is rq_posted

  naa_pkg::ctl_state_e  state_q;
  // A word of the struct's width, not the struct: Yosys 0.55 reads an unpacked array of a struct type as ONE
  // element (docs/synthesis.md "One RTL source"); Verilator reads both.
  logic [$bits(cqe_i)-1:0] ev_q [nt_pkg::NaaCqeFifo];
  rdma_pkg::cqe_t        ev_head;  // ev_q at the read pointer (Yosys 0.55: no member of a variable-indexed element)
  logic [7:0]  ev_wr_q, ev_rd_q, queued;
  rdma_pkg::cqe_t        cur_q;
  logic [MsgBits-1:0] msg_q;
  logic [4:0]  beat_q;
  logic [5:0]  idx_q, req_n_q, n_q;
  logic [7:0]  err_q;
  logic [15:0] posted_q;
  // The connection fell since the controller was last idle while connected: what it is doing belongs to the
  // connection that went (its answer or result is not sent, its buffer not reposted) and its grant is revoked
  // in Idle, even if a new connection is up by then.
  logic        gone_q;
  logic [63:0] reg_fpga_q [nt_pkg::NaaRegions];
  logic [63:0] reg_host_q [nt_pkg::NaaRegions];
  logic [31:0] reg_size_q [nt_pkg::NaaRegions];
  logic [31:0] reg_rkey_q [nt_pkg::NaaRegions];
  logic [31:0] c_events_q, c_requests_q, c_grants_q, c_answers_q, c_reposts_q, c_failed_q, c_rpcs_q, c_rpc_err_q;
  logic        rpc_q;
  logic [7:0]  rpc_status_q;
  logic [1:0]  out_idx_q;
  logic [31:0] out_len_q;
  // The command's length, registered as Cmd is entered (SVA cmd_len_eq) and given in every state: naa_req
  // reads cmd_o only with cmd_valid_o, and its take (a shift and adds to alloc_q) behind the state decode and
  // this choice was naa_ctl's state -> naa_req's alloc_q 16 levels across naa_top (issue 27).
  logic [31:0] cmd_len_q, cmd_len_now;
  logic [4:0][31:0] c_errors_q;
  logic [nt_pkg::NaaCtlDrops-1:0][31:0] c_drops_q;
  assign queued = ev_wr_q - ev_rd_q;
  assign ev_head = ev_q[ev_rd_q[EvBits-1:0]];

  // Big-endian field of the message: n bytes from byte `off`.
  `NT_GET_BE_FN(msg_be, MsgBits)

  // Wide arithmetic in 16-bit chunks (issue 27 item 2): rdma_pkg::add64c and rdma_pkg::lt64 (one definition
  // for naa_ctl, naa_req and rdma_check since branch naq24), about 8 levels instead of a 16-CARRY4 chain.

  // The entry being checked or granted.
  logic [191:0] ent, ent_nx;
  logic [63:0]  ent_addr, ent_host;
  logic [31:0]  ent_size, ent_rkey;
  logic [7:0]   hdr_type, hdr_n;
  // The entry at idx_q as a multiplexer over constant positions (issue 27 depth: `msg_q[8*(4+24*idx_q)+:192]`
  // was a multiply, 3 DSPs, and a shifter over the whole message, 31 levels with the checks behind it). idx_q
  // never exceeds NaaRegions (it counts to req_n_q or grant_total, both <= NaaRegions), and entries 0..33 lie
  // inside msg_q; the message is padded with zeros so that every index has a constant in-range position.
  // An AND-OR of the decoded index (the indices are exclusive), not a chain of 64 priority muxes.
  // ent_nx is the entry the checks' first stage takes (nx_*_q below): entry 1 in Header, idx_q + 2 in Entry
  // (other states: not read), the same decode of idx_q selecting a later position (no adder ahead of the
  // decode; idx_q < 32 in Entry, and positions 64 and 65 are padding).
  localparam int unsigned EntPadBits = 8 * (4 + 24 * 66) - MsgBits;
  logic [MsgBits+EntPadBits-1:0] msg_pad;
  assign msg_pad = {{EntPadBits{1'b0}}, msg_q};
  always_comb begin
    ent    = '0;
    ent_nx = '0;
    for (int unsigned i = 0; i < 64; i++) begin
      ent    = ent    | ({192{idx_q == 6'(i)}} & msg_pad[8*(4+24*i)+:192]);
      ent_nx = ent_nx | ({192{idx_q == 6'(i)}} & msg_pad[8*(4+24*(i+2))+:192]);
    end
    if (state_q == naa_pkg::CtlHeader) ent_nx = msg_pad[8*(4+24)+:192];
  end
  assign ent_addr = msg_be({{(MsgBits-192){1'b0}}, ent}, 1, 7);
  assign ent_host = msg_be({{(MsgBits-192){1'b0}}, ent}, 8, 8);
  assign ent_rkey = 32'(msg_be({{(MsgBits-192){1'b0}}, ent}, 16, 4));
  assign ent_size = 32'(msg_be({{(MsgBits-192){1'b0}}, ent}, 20, 4));

  // The entry check (Entry) on registers (issue 27 item 2: the entry multiplexer, `ent_addr + ent_size` and
  // the 64-bit pool compares in one cycle were 33 levels), in two stages so that no cycle is added:
  // nx_addr_q / nx_size_q hold entry idx_q + 1 in every Entry cycle (entry 0 in Header), and chk_addr_q /
  // chk_end_q hold entry idx_q's address and end (address + size) in every Entry cycle. Entry 0 is taken as
  // the message's first beat arrives (bytes 4..27 of beat 0; msg_q's beat 0 is that beat), entry 1 in
  // Header, entry i + 2 in Entry at i; msg_q is not written after ReadWait. The compares themselves run in
  // the Entry cycle on the current pool_q / pool_end_q, as before (a configuration write still counts from
  // the next cycle on).
  logic [55:0] nx_addr_q, chk_addr_q;
  logic [31:0] nx_size_q;
  logic [56:0] chk_end_q;  // < 2^56 + 2^32: no carry out of 64 bits, as in the 64-bit original
  logic [64:0] nx_end;
  logic        chk_bad, chk_nomem;
  assign nx_end    = rdma_pkg::add64c({8'd0, nx_addr_q}, {32'd0, nx_size_q}, 1'b0);
  // ent_addr < pool || ent_addr >= pool + pool_size
  assign chk_bad   = rdma_pkg::lt64({8'd0, chk_addr_q}, pool_q) || !rdma_pkg::lt64({8'd0, chk_addr_q}, pool_end_q);
  // ent_addr + ent_size > pool_end
  assign chk_nomem = rdma_pkg::lt64(pool_end_q, {7'd0, chk_end_q});
  assign hdr_type = msg_q[7:0];
  assign hdr_n    = msg_q[15:8];
  // Header's length check cur_q.len < 4 + 24 hdr_n (at most 6,124: 13 bits; 24 n + 4 is {3 n, 3'b100}), made
  // as the message's first beat arrives (hdr_n is its byte 1, and neither it nor cur_q changes until Header)
  // and registered: a 32-bit multiply, add and compare were 3 DSPs and two carry chains ahead of Header's
  // decision (14 levels with the chains alone).
  logic [7:0] rsp_n;
  logic [9:0] rsp_n3;
  logic       hdr_short_q;
  assign rsp_n  = dma_rsp_data_i[15:8];
  assign rsp_n3 = {1'b0, rsp_n, 1'b0} + {2'd0, rsp_n};

  // The answer: 0x02 with the granted regions, or 0x00 with the error code.
  logic [AnsBits-1:0] ans;
  logic [15:0]        ans_len;
  // Region i of the g-th grant since reset (g from 0) has rkey rkey_base + 32 g + i (model NaaCtl::GrantKey):
  // a grant never reuses an rkey of an earlier one (for 2^27 grants). c_grants_q counts the earlier grants
  // while granting, and includes this one once the answer is written.
  // Each key is rkey_base + 32 g + j with j < 32 (issue 27 item 2: a 32-bit adder behind another, per region,
  // was two carry chains in series): the low five bits are rkey_base[4:0] + j, whose carry selects between
  // rkey_base[31:5] + g and rkey_base[31:5] + g + 1, two sums shared by every j. While granting g is
  // c_grants_q; in the answer it is c_grants_q - 1, held in ans_g_q (c_grants_q before the increment that
  // ends Grant; the answer lists keys only after a Grant, err_q == 0).
  logic [26:0] ans_g_q;
  logic [26:0] gk_hi0, ak_hi0;
  logic [27:0] gk_hi1, ak_hi1;  // {a, 1} + {b, 1} = 2 (a + b + 1): a + b + 1 in bits 27:1
  assign gk_hi0 = rkey_base_q[31:5] + c_grants_q[26:0];
  assign gk_hi1 = {rkey_base_q[31:5], 1'b1} + {c_grants_q[26:0], 1'b1};
  assign ak_hi0 = rkey_base_q[31:5] + ans_g_q;
  assign ak_hi1 = {rkey_base_q[31:5], 1'b1} + {ans_g_q, 1'b1};
  // The answer's two sums as registers, loaded from the next values of rkey_base_q and ans_g_q (SVA ak_eq): the
  // answer beat read them through the adders' carry chains, then the beat and state selects and naa_top's DMA
  // arbiter to the host port (naa_ctl's rkey_base_q -> dma_req_data_o 13 across naa_top; issue 27).
  // The sums for the next values of both operands (each written now or kept) side by side, chosen by an
  // AND-OR (a `?:` of sums would be folded by Yosys into one adder behind a mux of its operands, behind the
  // end-of-Grant compare and the programming port's decode: 13-14 levels).
  logic [26:0] ak_hi0_q;
  logic [27:0] ak_hi1_q;
  logic [3:0][26:0] ak0_c;  // [{rkey_base written, ans_g written}]
  logic [3:0][27:0] ak1_c;
  logic        ans_g_wr, rk_wr;
  always_comb begin
    for (int c = 0; c < 4; c++) begin
      ak0_c[c] = (c >= 2 ? cfg_data_i[176:150] : rkey_base_q[31:5]) + (c % 2 == 1 ? c_grants_q[26:0] : ans_g_q);
      ak1_c[c] = {c >= 2 ? cfg_data_i[176:150] : rkey_base_q[31:5], 1'b1} +
                 {c % 2 == 1 ? c_grants_q[26:0] : ans_g_q, 1'b1};
    end
  end
  function automatic logic [31:0] key_of(logic [26:0] hi0, logic [26:0] hi1, logic [4:0] base_lo, logic [4:0] j);
    logic [5:0] lo;
    lo     = {1'b0, base_lo} + {1'b0, j};
    key_of = {lo[5] ? hi1 : hi0, lo[4:0]};
  endfunction
  always_comb begin
    ans = '0;
    if (err_q != 8'd0) begin
      ans[7:0]  = naa_pkg::MrspError;
      ans[15:8] = err_q;
    end else begin
      ans[7:0]  = naa_pkg::MrspAdv;
      ans[15:8] = {2'd0, n_q};
      for (int j = 0; j < nt_pkg::NaaRegions; j++) begin
        for (int k = 0; k < 8; k++) ans[8*(4+16*j+k)+:8] = reg_fpga_q[j][8*(7-k)+:8];
        for (int k = 0; k < 4; k++) begin
          ans[8*(12+16*j+k)+:8] = 8'(key_of(ak_hi0_q, ak_hi1_q[27:1], rkey_base_q[4:0], 5'(j)) >> (8*(3-k)));
        end
        for (int k = 0; k < 4; k++) ans[8*(16+16*j+k)+:8] = reg_size_q[j][8*(3-k)+:8];
      end
    end
    ans_len = (err_q != 8'd0) ? 16'd4 : 16'd4 + 16'd16 * {10'd0, n_q};
  end

  // Outputs of the current state.
  logic [5:0]  grant_total;
  logic [9:0]  ans_left_hi;
  logic        ans_full;
  assign grant_total = (req_n_q > n_q) ? req_n_q : n_q;
  // ans_left = ans_len - 64 beat_q >= 64 (the beat is full), from ans_left's bits 15:6 alone (64 beat_q has
  // no low bits): a 10-bit subtraction, not the 16-bit one and a compare after it; a byte i < 64 of the beat
  // is inside the answer iff the beat is full or i < ans_len[5:0] (= ans_left[5:0]).
  assign ans_left_hi = ans_len[15:6] - {5'd0, beat_q};
  assign ans_full    = ans_left_hi != 10'd0;
  // The answer's beat at beat_q: an AND-OR over the constant beat positions (a part-select at
  // StreamBits * beat_q is a shifter over the whole answer).
  logic [nt_pkg::StreamBits-1:0] ans_beat;
  always_comb begin
    ans_beat = '0;
    for (int unsigned b = 0; b < naa_pkg::AnsBeats; b++) begin
      ans_beat = ans_beat | ({nt_pkg::StreamBits{beat_q == 5'(b)}} & ans[nt_pkg::StreamBits*b+:nt_pkg::StreamBits]);
    end
  end
  // The receive buffer's offset rx buffer j = NaaRxBufBytes * j, multiplied when the event is taken (cur_q
  // does not change until the next one) and added in 16-bit chunks: one 64-bit adder behind a multiplier was
  // a DSP cascade and 16 CARRY4 to dma_req_addr_o.
  logic [63:0] rd_off_q;
  logic [64:0] rd_addr, wr_addr, cfg_sum, ev_off;
  if (nt_pkg::NaaRxBufBytes != 6144 || nt_pkg::NaaMsgBytes >= 1024) begin : g_sizes
    $error("naa_ctl: ev_off needs NaaRxBufBytes = 6144 = 2^12 + 2^11, Read's length compare NaaMsgBytes < 1024");
  end
  assign ev_off  = rdma_pkg::add64c({20'd0, ev_head.wr_id, 12'd0}, {21'd0, ev_head.wr_id, 11'd0}, 1'b0);
  assign rd_addr = rdma_pkg::add64c(rxbuf_q, rd_off_q, 1'b0);
  assign wr_addr = rdma_pkg::add64c(txbuf_q, {53'd0, beat_q, 6'd0}, 1'b0);
  assign cfg_sum = rdma_pkg::add64c(cfg_data_i[64:1], cfg_data_i[128:65], 1'b0);
  // The kernels (naa_kernel), started from KStart on the grant's first three regions; they have the DMA port
  // in KWait.
  logic                  k_valid, k_write, k_done;
  logic [63:0]           k_addr;
  logic [15:0]           k_len;
  logic [nt_pkg::StreamBits-1:0] k_data;
  logic [7:0]            k_status;
  logic [1:0]            k_out_idx;
  logic [31:0]           k_out_len;
  // The kernel's function code and the answer's immediate in the configured encoding (model RpcFunction,
  // RpcReturnImm): the library's function code is bits 6:0 with the flag bit 7 (0, unknown, without it), its
  // return code bits 31:8.
  logic [31:0] k_fn, ret_imm;
  always_comb begin
    k_fn    = cur_q.imm;
    ret_imm = {24'd0, rpc_status_q};
    if (imm_naaice_q) begin
      k_fn    = cur_q.imm[7] ? {25'd0, cur_q.imm[6:0]} : 32'd0;
      ret_imm = {16'd0, rpc_status_q, 8'd0};
    end
  end
  logic [2:0][63:0]      k_addrs;
  logic [2:0][31:0]      k_sizes;
  always_comb begin
    for (int j = 0; j < 3; j++) begin
      k_addrs[j] = (6'(j) < n_q) ? reg_fpga_q[j] : 64'd0;
      k_sizes[j] = (6'(j) < n_q) ? reg_size_q[j] : 32'd0;
    end
  end
  naa_kernel u_kernel (
    `NT_CLK_RST_CONN,
    .start_i         (state_q == naa_pkg::CtlKStart),
    .fn_i            (k_fn),
    .nreg_i          ({2'd0, n_q}),
    .addr_i          (k_addrs),
    .size_i          (k_sizes),
    .budget_i        (budget_q),
    .dma_req_valid_o (k_valid),
    .dma_req_ready_i (dma_req_ready_i),  // its request is offered only in KWait (SVA k_valid_in_kwait)
    .dma_req_write_o (k_write),
    .dma_req_addr_o  (k_addr),
    .dma_req_len_o   (k_len),
    .dma_req_data_o  (k_data),
    .dma_rsp_valid_i (dma_rsp_valid_i && state_q == naa_pkg::CtlKWait),
    .dma_rsp_data_i  (dma_rsp_data_i),
    .done_o          (k_done),
    .status_o        (k_status),
    .out_idx_o       (k_out_idx),
    .out_len_o       (k_out_len)
  );

  always_comb begin
    dma_req_valid_o = 1'b0;
    dma_req_write_o = 1'b0;
    dma_req_addr_o  = '0;
    dma_req_len_o   = '0;
    dma_req_off_o   = '0;
    dma_req_data_o  = '0;
    rcfg_valid_o    = 1'b0;
    rcfg_table_o    = '0;
    rcfg_index_o    = '0;
    rcfg_data_o     = '0;
    cmd_valid_o     = 1'b0;
    cmd_o           = '0;
    unique case (state_q)
      naa_pkg::CtlRead: begin
        dma_req_valid_o = 1'b1;
        dma_req_addr_o  = rd_addr[63:0];  // rxbuf + NaaRxBufBytes * cur_q.wr_id
        // cur_q.len < NaaMsgBytes (< 1024): the high bits zero and a 10-bit compare, not a 32-bit chain
        dma_req_len_o   = (cur_q.len[31:10] == '0 && cur_q.len[9:0] < 10'(nt_pkg::NaaMsgBytes)) ? cur_q.len[15:0]
                        : 16'(nt_pkg::NaaMsgBytes);
      end
      naa_pkg::CtlGrant, naa_pkg::CtlRevoke: begin
        rcfg_valid_o = 1'b1;
        rcfg_table_o = nt_pkg::CfgTableBits'(nt_pkg::RdmaTblMr);
        rcfg_index_o = nt_pkg::CfgIndexBits'(mr_first_q) + nt_pkg::CfgIndexBits'(idx_q);
        if (state_q == naa_pkg::CtlGrant && idx_q < req_n_q) begin  // the MR layout of docs/rdma-microarchitecture.md
          rcfg_data_o[0]       = 1'b1;
          rcfg_data_o[32:1]    = key_of(gk_hi0, gk_hi1[27:1], rkey_base_q[4:0], idx_q[4:0]);  // idx_q < 32
          rcfg_data_o[96:33]   = ent_addr;
          rcfg_data_o[136:97]  = {8'd0, ent_size};
          rcfg_data_o[200:137] = ent_addr;
          rcfg_data_o[202:201] = 2'b11;  // remote read and write
        end
      end
      naa_pkg::CtlAnsWrite: begin
        dma_req_valid_o = 1'b1;
        dma_req_write_o = 1'b1;
        dma_req_addr_o  = wr_addr[63:0];  // txbuf + 64 beat_q
        dma_req_len_o   = ans_full ? 16'd64 : {10'd0, ans_len[5:0]};  // min(ans_left, 64)
        dma_req_data_o  = ans_beat;
        for (int i = 0; i < nt_pkg::StreamBytes; i++) begin
          if (!ans_full && 6'(i) >= ans_len[5:0]) dma_req_data_o[8*i+:8] = 8'd0;  // i >= dma_req_len_o
        end
      end
      naa_pkg::CtlCmd: begin
        cmd_valid_o = !gone_q;  // nothing of a connection that went reaches the requester
        if (!rpc_q) begin
          cmd_o.op    = naa_pkg::NaaOpSend;
          cmd_o.laddr = txbuf_q;
        end else begin  // the result region to the client's region of the same index, or the error to region 0
          cmd_o.op    = naa_pkg::NaaOpWriteImm;
          cmd_o.laddr = (rpc_status_q == naa_pkg::RpcOk) ? reg_fpga_q[{3'd0, out_idx_q}] : 64'd0;
          cmd_o.raddr = reg_host_q[(rpc_status_q == naa_pkg::RpcOk) ? {3'd0, out_idx_q} : 5'd0];
          cmd_o.rkey  = reg_rkey_q[(rpc_status_q == naa_pkg::RpcOk) ? {3'd0, out_idx_q} : 5'd0];
          cmd_o.imm   = ret_imm;
        end
      end
      naa_pkg::CtlKWait: begin  // the kernel has the DMA port
        dma_req_valid_o = k_valid;
        dma_req_write_o = k_write;
        dma_req_addr_o  = k_addr;
        dma_req_len_o   = k_len;
        dma_req_data_o  = k_data;
      end
      naa_pkg::CtlRepost: begin
        rcfg_valid_o             = 1'b1;
        rcfg_table_o             = nt_pkg::CfgTableBits'(nt_pkg::RdmaTblQpQueues);
        rcfg_index_o             = nt_pkg::CfgIndexBits'(qp_slot_q);
        rcfg_data_o[181:0]       = queues_q;
        rcfg_data_o[96:81]       = posted_q + 16'd1;
      end
      default: ;
    endcase
    cmd_o.len = cmd_len_q;
  end
  assign cmd_len_now = !rpc_q ? {16'd0, ans_len} : (rpc_status_q == naa_pkg::RpcOk) ? out_len_q : 32'd0;
`include "nt_assert.svh"
  `NT_ASSERT(cmd_len_eq, state_q != naa_pkg::CtlCmd || cmd_len_q == cmd_len_now)
  // The kernel runs only while the controller waits for it (KStart starts it, KWait lasts until it is done), so
  // the arbiter's ready reaches it ungated by the controller's state: a LUT less on naa_ctl's state -> the
  // kernel's state across naa_top (issue 27).
  `NT_ASSERT(k_valid_in_kwait, !k_valid || state_q == naa_pkg::CtlKWait)
  `NT_ASSERT(ak_eq, ak_hi0_q == ak_hi0 && ak_hi1_q == ak_hi1)

  // Flushed events: those queued when the connection is gone (in any state: none may reach a new connection),
  // and one arriving without a connection.
  logic        ev_ours;
  // c_drops_q[Flushed] + (queued + this event) while disconnected: the increment (at most 256) is added to
  // the low 9 bits, the event as the carry in ({x, e} + {y, e} is 2 (x + y + e) + ...), and their carry
  // selects the high 23 bits or their increment (issue 27 item 2: the qpn compare, queued and a 32-bit add
  // in series were 13 levels).
  logic [10:0] fl_lo;
  logic [22:0] fl_hi;
  logic [31:0] fl_cnt;
  logic        fl_ev;
  assign ev_ours = enable_q && cqe_valid_i && cqe_i.qpn == qpn_q;
  assign fl_ev   = ev_ours && !connected_i;
  assign fl_lo   = {1'b0, c_drops_q[nt_pkg::NaaCtlDropFlushed][8:0], fl_ev} +
                   {2'd0, (!connected_i ? queued : 8'd0), fl_ev};
  assign fl_hi   = c_drops_q[nt_pkg::NaaCtlDropFlushed][31:9] + 23'd1;
  assign fl_cnt  = {fl_lo[10] ? fl_hi : c_drops_q[nt_pkg::NaaCtlDropFlushed][31:9], fl_lo[9:1]};

  logic dma_fire, rcfg_fire;
  assign dma_fire  = dma_req_valid_o && dma_req_ready_i;
  assign rcfg_fire = rcfg_valid_o && rcfg_ready_i;
  // ans_g_q and rkey_base_q are written (the end of Grant; the programming port's entry 0), as below
  assign ans_g_wr  = state_q == naa_pkg::CtlGrant && rcfg_fire && idx_q + 6'd1 == grant_total;
  assign rk_wr     = cfg_valid_i && cfg_table_i == nt_pkg::CfgTableBits'(nt_pkg::NaaTblCtl) &&
                     cfg_index_i == nt_pkg::CfgIndexBits'(0);
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      ak_hi0_q <= '0;
      ak_hi1_q <= 28'd2;
    end else begin
      ak_hi0_q <= ({27{rk_wr && ans_g_wr}} & ak0_c[3]) | ({27{rk_wr && !ans_g_wr}} & ak0_c[2]) |
                  ({27{!rk_wr && ans_g_wr}} & ak0_c[1]) | ({27{!rk_wr && !ans_g_wr}} & ak0_c[0]);
      ak_hi1_q <= ({28{rk_wr && ans_g_wr}} & ak1_c[3]) | ({28{rk_wr && !ans_g_wr}} & ak1_c[2]) |
                  ({28{!rk_wr && ans_g_wr}} & ak1_c[1]) | ({28{!rk_wr && !ans_g_wr}} & ak1_c[0]);
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      enable_q    <= 1'b0;
      pool_q      <= '0;
      pool_end_q  <= '0;
      nx_addr_q   <= '0;
      nx_size_q   <= '0;
      chk_addr_q  <= '0;
      chk_end_q   <= '0;
      rd_off_q    <= '0;
      ans_g_q     <= '0;
      hdr_short_q <= 1'b0;
      rxbuf_q     <= '0;
      txbuf_q     <= '0;
      mr_first_q  <= '0;
      mrs_q       <= '0;
      rkey_base_q <= '0;
      qp_slot_q   <= '0;
      qpn_q       <= '0;
      queues_q    <= '0;
      state_q     <= naa_pkg::CtlIdle;
      ev_wr_q     <= '0;
      ev_rd_q     <= '0;
      cur_q       <= '0;
      msg_q       <= '0;
      beat_q      <= '0;
      idx_q       <= '0;
      req_n_q     <= '0;
      n_q         <= '0;
      err_q       <= '0;
      posted_q    <= '0;
      gone_q      <= 1'b0;
      budget_q    <= '0;
      imm_naaice_q <= 1'b0;
      rpc_q       <= 1'b0;
      rpc_status_q <= '0;
      out_idx_q   <= '0;
      out_len_q   <= '0;
      cmd_len_q   <= '0;
      for (int i = 0; i < nt_pkg::NaaCqeFifo; i++) ev_q[i] <= '0;
      for (int i = 0; i < nt_pkg::NaaRegions; i++) begin
        reg_fpga_q[i] <= '0;
        reg_host_q[i] <= '0;
        reg_size_q[i] <= '0;
        reg_rkey_q[i] <= '0;
      end
      {c_events_q, c_requests_q, c_grants_q, c_answers_q, c_reposts_q, c_failed_q, c_rpcs_q, c_rpc_err_q} <= '0;
      c_errors_q <= '0;
      c_drops_q  <= '0;
    end else begin
      // the entries Entry checks one and two cycles later (read only there; see chk_addr_q)
      if (state_q == naa_pkg::CtlReadWait && dma_rsp_valid_i && beat_q == 5'd0) begin  // entry 0
        nx_addr_q <= 56'(msg_be({{(MsgBits-nt_pkg::StreamBits){1'b0}}, dma_rsp_data_i}, 5, 7));
        nx_size_q <= 32'(msg_be({{(MsgBits-nt_pkg::StreamBits){1'b0}}, dma_rsp_data_i}, 24, 4));
      end else if (state_q == naa_pkg::CtlHeader || state_q == naa_pkg::CtlEntry) begin
        nx_addr_q <= 56'(msg_be({{(MsgBits-192){1'b0}}, ent_nx}, 1, 7));
        nx_size_q <= 32'(msg_be({{(MsgBits-192){1'b0}}, ent_nx}, 20, 4));
      end
      if (state_q == naa_pkg::CtlHeader || state_q == naa_pkg::CtlEntry) begin
        chk_addr_q <= nx_addr_q;
        chk_end_q  <= nx_end[56:0];
      end
      unique case (state_q)
        naa_pkg::CtlIdle: begin
          if (!connected_i || gone_q) begin  // disconnect (now or while busy): revoke the grant
            gone_q <= 1'b0;  // set again below while the connection is down
            if (n_q != 6'd0) begin
              idx_q   <= '0;
              state_q <= naa_pkg::CtlRevoke;
            end
          end else if (queued != 8'd0) begin
            cur_q   <= ev_head;
            rd_off_q <= ev_off[63:0];  // NaaRxBufBytes * ev_head.wr_id
            ev_rd_q <= ev_rd_q + 8'd1;
            if (ev_head.opcode == 8'd0) begin
              c_requests_q <= c_requests_q + 32'd1;
              rpc_q <= 1'b0;
              if (ev_head.len[31:2] == '0) begin  // len < 4
                err_q                    <= naa_pkg::MrspMalformed;
                c_errors_q[naa_pkg::MrspMalformed] <= c_errors_q[naa_pkg::MrspMalformed] + 32'd1;
                beat_q                   <= '0;
                state_q                  <= naa_pkg::CtlAnsWrite;
              end else begin
                state_q <= naa_pkg::CtlRead;
              end
            end else if (n_q == 6'd0) begin
              c_drops_q[nt_pkg::NaaCtlDropNoRegions] <= c_drops_q[nt_pkg::NaaCtlDropNoRegions] + 32'd1;
              state_q <= naa_pkg::CtlRepost;
            end else begin
              state_q <= naa_pkg::CtlKStart;
            end
          end
        end
        naa_pkg::CtlRead: begin
          if (dma_fire) begin
            beat_q  <= '0;
            state_q <= naa_pkg::CtlReadWait;
          end
        end
        naa_pkg::CtlReadWait: begin
          if (dma_rsp_valid_i) begin
            // each beat at its constant position (a variable-offset write was a shifter over the message)
            for (int unsigned b = 0; b < nt_pkg::NaaMsgBeats; b++) begin
              if (beat_q == 5'(b)) msg_q[nt_pkg::StreamBits*b+:nt_pkg::StreamBits] <= dma_rsp_data_i;
            end
            if (beat_q == 5'd0) begin  // byte 1 is the header's N (hdr_n from Header on)
              hdr_short_q <= cur_q.len[31:13] == '0 && cur_q.len[12:0] < {rsp_n3, 3'b100};
            end
            beat_q <= beat_q + 5'd1;
            if (dma_rsp_last_i) state_q <= naa_pkg::CtlHeader;
          end
        end
        naa_pkg::CtlHeader: begin
          if (hdr_type != naa_pkg::MrspAdvReq || hdr_n == 8'd0 || hdr_short_q) begin
            err_q                     <= naa_pkg::MrspMalformed;
            c_errors_q[naa_pkg::MrspMalformed] <= c_errors_q[naa_pkg::MrspMalformed] + 32'd1;
            beat_q                    <= '0;
            state_q                   <= naa_pkg::CtlAnsWrite;
          end else if (hdr_n > 8'(nt_pkg::NaaRegions) || hdr_n > mrs_q) begin
            err_q                   <= naa_pkg::MrspTooMany;
            c_errors_q[naa_pkg::MrspTooMany] <= c_errors_q[naa_pkg::MrspTooMany] + 32'd1;
            beat_q                  <= '0;
            state_q                 <= naa_pkg::CtlAnsWrite;
          end else begin
            req_n_q <= hdr_n[5:0];
            idx_q   <= '0;
            state_q <= naa_pkg::CtlEntry;
          end
        end
        naa_pkg::CtlEntry: begin
          if (chk_bad) begin
            err_q                      <= naa_pkg::MrspBadAddress;
            c_errors_q[naa_pkg::MrspBadAddress] <= c_errors_q[naa_pkg::MrspBadAddress] + 32'd1;
            beat_q                     <= '0;
            state_q                    <= naa_pkg::CtlAnsWrite;
          end else if (chk_nomem) begin
            err_q                    <= naa_pkg::MrspNoMemory;
            c_errors_q[naa_pkg::MrspNoMemory] <= c_errors_q[naa_pkg::MrspNoMemory] + 32'd1;
            beat_q                   <= '0;
            state_q                  <= naa_pkg::CtlAnsWrite;
          end else if (idx_q + 6'd1 == req_n_q) begin
            err_q   <= '0;
            idx_q   <= '0;
            state_q <= naa_pkg::CtlGrant;
          end else begin
            idx_q <= idx_q + 6'd1;
          end
        end
        naa_pkg::CtlGrant: begin
          if (rcfg_fire) begin
            if (idx_q < req_n_q) begin
              reg_fpga_q[idx_q[4:0]] <= ent_addr;
              reg_host_q[idx_q[4:0]] <= ent_host;
              reg_size_q[idx_q[4:0]] <= ent_size;
              reg_rkey_q[idx_q[4:0]] <= ent_rkey;
            end
            idx_q <= idx_q + 6'd1;
            if (idx_q + 6'd1 == grant_total) begin
              n_q        <= req_n_q;
              ans_g_q    <= c_grants_q[26:0];  // the answer's g (see key_of)
              c_grants_q <= c_grants_q + 32'd1;
              beat_q     <= '0;
              state_q    <= naa_pkg::CtlAnsWrite;
            end
          end
        end
        naa_pkg::CtlAnsWrite: begin
          if (dma_fire) begin
            beat_q <= beat_q + 5'd1;
            if (16'd64 * ({11'd0, beat_q} + 16'd1) >= ans_len) begin
              state_q   <= naa_pkg::CtlCmd;
              cmd_len_q <= cmd_len_now;
            end
          end
        end
        naa_pkg::CtlCmd: begin
          if (cmd_ready_i && !gone_q) begin
            state_q <= naa_pkg::CtlCplWait;
          end else if (!connected_i || gone_q) begin  // the connection went away: the answer has nowhere to go
            c_failed_q <= c_failed_q + 32'd1;
            state_q    <= naa_pkg::CtlRepost;
          end
        end
        naa_pkg::CtlCplWait: begin
          if (cpl_valid_i) begin
            if (cpl_i.status == naa_pkg::NaaCplOk) c_answers_q <= c_answers_q + 32'd1;
            else c_failed_q <= c_failed_q + 32'd1;
            state_q <= naa_pkg::CtlRepost;
          end
        end
        naa_pkg::CtlRepost: begin
          if (!connected_i || gone_q) begin  // the connection went away: the CM rewrites the queues on the next RTU
            state_q <= naa_pkg::CtlIdle;
          end else if (rcfg_fire) begin
            posted_q    <= posted_q + 16'd1;
            c_reposts_q <= c_reposts_q + 32'd1;
            state_q     <= naa_pkg::CtlIdle;
          end
        end
        naa_pkg::CtlKStart: begin
          c_rpcs_q <= c_rpcs_q + 32'd1;
          state_q  <= naa_pkg::CtlKWait;
        end
        naa_pkg::CtlKWait: begin
          if (k_done) begin
            rpc_q        <= 1'b1;
            rpc_status_q <= k_status;
            out_idx_q    <= k_out_idx;
            out_len_q    <= k_out_len;
            cmd_len_q    <= (k_status == naa_pkg::RpcOk) ? k_out_len : 32'd0;
            if (k_status != naa_pkg::RpcOk) c_rpc_err_q <= c_rpc_err_q + 32'd1;
            state_q      <= naa_pkg::CtlCmd;
          end
        end
        naa_pkg::CtlRevoke: begin
          if (rcfg_fire) begin
            idx_q <= idx_q + 6'd1;
            if (idx_q + 6'd1 == n_q) begin
              n_q     <= '0;
              state_q <= naa_pkg::CtlIdle;
            end
          end
        end
        default: state_q <= naa_pkg::CtlIdle;
      endcase
      // Completion events of the connected QP queue up; the state machine takes one per MRSP/RPC.
      if (ev_ours) begin
        c_events_q <= c_events_q + 32'd1;
        if (!connected_i) begin
          // flushed: counted below
        end else if (queued == 8'(nt_pkg::NaaCqeFifo)) begin
          c_drops_q[nt_pkg::NaaCtlDropOverflow] <= c_drops_q[nt_pkg::NaaCtlDropOverflow] + 32'd1;
        end else begin
          ev_q[ev_wr_q[EvBits-1:0]] <= cqe_i;
          ev_wr_q <= ev_wr_q + 8'd1;
        end
      end
      c_drops_q[nt_pkg::NaaCtlDropFlushed] <= fl_cnt;  // + queued + the event, while disconnected
      if (!connected_i) begin
        ev_rd_q  <= ev_wr_q;            // Idle takes an event only while connected
        gone_q   <= 1'b1;
        posted_q <= queues_q[96:81];  // the CM writes the template on the next RTU
      end
      if (cfg_valid_i && cfg_table_i == nt_pkg::CfgTableBits'(nt_pkg::NaaTblCtl)) begin
        if (cfg_index_i == nt_pkg::CfgIndexBits'(0)) begin
          enable_q    <= cfg_data_i[0];
          pool_q      <= cfg_data_i[64:1];
          pool_end_q  <= cfg_sum[63:0];  // pool + pool_size
          mr_first_q  <= cfg_data_i[136:129];
          mrs_q       <= cfg_data_i[144:137];
          rkey_base_q <= cfg_data_i[176:145];
          qp_slot_q   <= cfg_data_i[180:177];
          qpn_q       <= cfg_data_i[204:181];
        end else if (cfg_index_i == nt_pkg::CfgIndexBits'(1)) begin
          rxbuf_q  <= cfg_data_i[63:0];
          txbuf_q  <= cfg_data_i[127:64];
          budget_q <= cfg_data_i[159:128];
          imm_naaice_q <= cfg_data_i[160];
        end else if (cfg_index_i == nt_pkg::CfgIndexBits'(2)) begin
          queues_q <= cfg_data_i[181:0];
        end
      end
    end
  end

  assign cnt_events_o      = c_events_q;
  assign cnt_requests_o    = c_requests_q;
  assign cnt_grants_o      = c_grants_q;
  assign cnt_answers_o     = c_answers_q;
  assign cnt_reposts_o     = c_reposts_q;
  assign cnt_send_failed_o = c_failed_q;
  assign cnt_rpcs_o        = c_rpcs_q;
  assign cnt_rpc_errors_o  = c_rpc_err_q;
  assign cnt_errors_o      = c_errors_q;
  assign cnt_drops_o       = c_drops_q;
  assign regions_o         = {2'd0, n_q};
  assign state_o           = state_q;
  assign busy_o            = state_q != naa_pkg::CtlIdle || queued != 8'd0 || ((!connected_i || gone_q) && n_q != '0);

  logic unused_bits;
  assign unused_bits = ^{cfg_data_i[nt_pkg::CfgDataBits-1:205], cpl_i.tag, cur_q.qpn, cur_q.psn, cur_q.opcode,
                         reg_host_q[0], reg_rkey_q[0], gk_hi1[0], ak_hi1[0], rd_addr[64], wr_addr[64], cfg_sum[64],
                         ev_off[64], ent_nx[7:0], ent_nx[191:160], nx_end[64:57], fl_lo[0], cur_q.wr_id};
endmodule
