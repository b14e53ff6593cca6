// The NAAICE network-attached accelerator endpoint (docs/naa.md): the RoCEv2 responder (rdma_top, as it is)
// with the InfiniBand connection manager (naa_cm) in front of it, the requester (naa_req), the controller
// (naa_ctl: MRSP and RPC), and a DMA arbiter (naa_dma_arb) in front of host memory. A frame whose first beat is RoCEv2 over
// IPv4 to destination QP 1 goes to the CM; every other frame goes to the responder. The CM programs the
// responder's QP when a connection is established or torn down; their response frames share the output
// (a source keeps it from its first offered beat to its last beat taken; the CM first when both start).
// State for state as model/naa/naa_cycle_model.cc; see docs/naa-microarchitecture.md.
`include "nt_ports.svh"
module naa_top
(
  // The responder's ports (rdma_top's), its counters included.
  `NT_RDMA_PORTS,
  // Connection manager counters and state.
  `NT_NAA_CM_CNT_OUT(cm),
  output logic [1:0]                   cm_conn_o,
  output logic                         cm_busy_o,
  // The responder's completion events (docs/rdma.md "Completion events"), for the controller and lockstep.
  output logic                         cqe_valid_o,
  output rdma_pkg::cqe_t               cqe_o,
  // The connection the CM exports to the requester and the controller.
  output naa_pkg::naa_conn_t                    conn_info_o,
  // Requester counters, its completion pulse (to the controller) and state.
  output logic [31:0]                  req_packets_in_o,
  output logic [31:0]                  req_processed_o,
  output logic [nt_pkg::NaaReqDrops*32-1:0]    req_drops_o,
  output logic [nt_pkg::NaaReqCnts*32-1:0]     req_cnt_o,
  output logic                         req_cpl_valid_o,
  output naa_pkg::naa_req_cpl_t                 req_cpl_o,
  output logic                         req_busy_o,
  // Controller counters and state (naa_ctl).
  `NT_NAA_CTL_CNT_OUT(ctl),
  output logic [7:0]                   ctl_regions_o,
  output logic [3:0]                   ctl_state_o,
  output logic                         ctl_busy_o,
  // The responder's back end holds a request (for the testbench's accounting).
  output logic                         busy_o
);
  // ---- Input: route each frame by its first beat (CM: RoCEv2/IPv4 to QP 1; requester: an ACK/NAK to this
  // endpoint's QP while connected; responder: everything else) ----
  naa_pkg::naa_conn_t conn;
  logic in_frame_q, route_cm_q, route_rq_q, route_cm, route_rq, is_roce4, is_cm, is_rq, cm_est;
  always_comb begin
    is_roce4 = s_keep_i[49] && s_data_i[8*12+:16] == 16'h0008 && s_data_i[8*14+:8] == 8'h45 &&
               s_data_i[8*23+:8] == 8'd17 && {s_data_i[8*36+:8], s_data_i[8*37+:8]} == 16'(nt_pkg::RdmaUdpPort);
    is_cm = is_roce4 && s_data_i[8*47+:24] == 24'h01_0000;
    is_rq = is_roce4 && conn.connected && s_data_i[8*42+:8] == 8'h11 &&
            {s_data_i[8*47+:8], s_data_i[8*48+:8], s_data_i[8*49+:8]} == conn.local_qpn;
    route_cm = in_frame_q ? route_cm_q : is_cm;
    route_rq = in_frame_q ? route_rq_q : is_rq && !is_cm;
    // A lost RTU (IBA chapter 12, passive side in REP-sent): in REP-sent, the client's first packet on the connection's QP
    // establishes the connection. The frame waits (not taken) while the CM does the RTU's work, then goes on.
    cm_est = !in_frame_q && s_valid_i && is_roce4 && !is_cm && cm_conn_o == naa_pkg::ConnRepSent &&
             {s_data_i[8*47+:8], s_data_i[8*48+:8], s_data_i[8*49+:8]} == conn.local_qpn &&
             {s_data_i[8*26+:8], s_data_i[8*27+:8], s_data_i[8*28+:8], s_data_i[8*29+:8]} == conn.ip;
  end

  logic cm_s_ready, rd_s_ready, rq_s_ready;
  logic cm_hold;
  assign s_ready_o = !cm_hold && !cm_est && (route_cm ? cm_s_ready : route_rq ? rq_s_ready : rd_s_ready);

  // ---- Output: one source at a time (0 the CM, 1 the responder, 2 the requester; in that order when free) ----
  localparam int unsigned OutSrcs = 3;
  logic                                   out_lock_q;
  logic [1:0]                             out_src_q, out_src;
  logic [OutSrcs-1:0]                     src_valid, src_last;
  logic [OutSrcs-1:0][nt_pkg::StreamBits-1:0]     src_data;
  logic [OutSrcs-1:0][nt_pkg::StreamBytes-1:0]    src_keep;
  logic cm_m_valid, cm_m_last, rd_m_valid, rd_m_last, rq_m_valid, rq_m_last;
  logic [nt_pkg::StreamBits-1:0]  cm_m_data, rd_m_data, rq_m_data;
  logic [nt_pkg::StreamBytes-1:0] cm_m_keep, rd_m_keep, rq_m_keep;
  assign src_valid = {rq_m_valid, rd_m_valid, cm_m_valid};
  assign src_last  = {rq_m_last, rd_m_last, cm_m_last};
  assign src_data  = {rq_m_data, rd_m_data, cm_m_data};
  assign src_keep  = {rq_m_keep, rd_m_keep, cm_m_keep};
  always_comb begin
    if (out_lock_q) out_src = out_src_q;
    else if (cm_m_valid) out_src = 2'd0;
    else if (rd_m_valid) out_src = 2'd1;
    else if (rq_m_valid) out_src = 2'd2;
    else out_src = 2'd1;
  end
`ifdef NT_MUTATE_NAA  // a planted protocol bug (docs/assertions.md)
  nt_mutant_valid_drop u_mutant (
    .clk_i, .rst_ni, .valid_i(src_valid[out_src]), .ready_i(m_ready_i), .valid_o(m_valid_o));
`else
  assign m_valid_o = src_valid[out_src];
`endif
  assign m_data_o  = src_data[out_src];
  assign m_keep_o  = src_keep[out_src];
  assign m_last_o  = src_last[out_src];

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_frame_q <= 1'b0;
      route_cm_q <= 1'b0;
      route_rq_q <= 1'b0;
      out_lock_q <= 1'b0;
      out_src_q  <= 2'd0;
    end else begin
      if (s_valid_i && s_ready_o) begin
        in_frame_q <= !s_last_i;
        route_cm_q <= route_cm;
        route_rq_q <= route_rq;
      end
      if (m_valid_o) begin
        out_lock_q <= !(m_ready_i && m_last_o);
        out_src_q  <= out_src;
      end
    end
  end

  // ---- The controller port (docs/naa-microarchitecture.md "Controller port"): naa_ctl's commands to the
  // requester, its completions, its DMA master (arbiter master 2), the responder's completion events, the
  // connection, and its writes into the responder (after the CM's) ----
  logic                    ctl_cmd_valid, ctl_cmd_ready;
  naa_pkg::naa_req_cmd_t            ctl_cmd;
  logic                    ctl_cpl_valid;
  naa_pkg::naa_req_cpl_t            ctl_cpl;
  logic                    ctl_dma_req_valid, ctl_dma_req_ready, ctl_dma_req_write;
  logic [63:0]             ctl_dma_req_addr;
  logic [15:0]             ctl_dma_req_len;
  logic [5:0]              ctl_dma_req_off;
  logic [nt_pkg::StreamBits-1:0]   ctl_dma_req_data;
  logic                    ctl_dma_rsp_valid;
  logic                    ctl_cfg_valid, ctl_cfg_ready;
  logic [nt_pkg::CfgTableBits-1:0] ctl_cfg_table;
  logic [nt_pkg::CfgIndexBits-1:0] ctl_cfg_index;
  logic [nt_pkg::CfgDataBits-1:0]  ctl_cfg_data;
  assign conn_info_o = conn;

  // DMA masters of the arbiter: 0 the responder, 1 the requester, 2 the controller.
  logic [nt_pkg::NaaDmaMasters-1:0]                 dv, dr, dw, rsp_v;
  logic [nt_pkg::NaaDmaMasters-1:0][63:0]           da;
  logic [nt_pkg::NaaDmaMasters-1:0][15:0]           dl;
  logic [nt_pkg::NaaDmaMasters-1:0][5:0]            doff;
  logic [nt_pkg::NaaDmaMasters-1:0][nt_pkg::StreamBits-1:0] dd;
  logic                                     rsp_last;
  logic [nt_pkg::StreamBits-1:0]                    rsp_data;

  // ---- Programming port: the CM's QP writes win, then the controller's; the CM table is not the
  // responder's ----
  logic                    qcfg_valid;
  logic [nt_pkg::CfgTableBits-1:0] qcfg_table;
  logic [nt_pkg::CfgIndexBits-1:0] qcfg_index;
  logic [nt_pkg::CfgDataBits-1:0]  qcfg_data;
  logic                    rd_cfg_valid;
  logic [nt_pkg::CfgTableBits-1:0] rd_cfg_table;
  logic [nt_pkg::CfgIndexBits-1:0] rd_cfg_index;
  logic [nt_pkg::CfgDataBits-1:0]  rd_cfg_data;
  always_comb begin
    ctl_cfg_ready = !qcfg_valid;
    if (qcfg_valid) begin
      rd_cfg_valid = 1'b1;
      rd_cfg_table = qcfg_table;
      rd_cfg_index = qcfg_index;
      rd_cfg_data  = qcfg_data;
    end else if (ctl_cfg_valid) begin
      rd_cfg_valid = 1'b1;
      rd_cfg_table = ctl_cfg_table;
      rd_cfg_index = ctl_cfg_index;
      rd_cfg_data  = ctl_cfg_data;
    end else begin
      rd_cfg_valid = cfg_valid_i && cfg_table_i != nt_pkg::CfgTableBits'(nt_pkg::NaaTblCm);
      rd_cfg_table = cfg_table_i;
      rd_cfg_index = cfg_index_i;
      rd_cfg_data  = cfg_data_i;
    end
  end

  // The responder is idle: its back end is free and every frame it took in is processed or dropped, i.e.
  // processed + the NumDrops drop counters == packets in (mod 2^32). A chain of eleven 32-bit adds and a
  // compare was 16 logic levels (docs/synthesis.md "Session 25"); the same equation as a carry-save tree: the
  // eleven counters and ~packets_in (twelve operands) reduced by 3:2 steps to a pair x, y whose sum is
  // processed + drops + ~packets_in; that sum is all ones (-1) exactly when processed + drops == packets_in, and
  // x + y == -1 (mod 2^32) exactly when y == ~x: a bitwise test, no carry chain. naa_top_sva's
  // `rdma_idle_sum` checks it against the adds every cycle.
  function automatic logic [63:0] csa3(logic [31:0] a, logic [31:0] b, logic [31:0] c);
    csa3 = {((a & b) | (a & c) | (b & c)) << 1, a ^ b ^ c};  // {carry, sum}: a + b + c == carry + sum
  endfunction
  logic        rdma_idle;
  logic [11:0][31:0] id_op;  // processed, the NumDrops (10) drop counters, ~packets_in
  logic [3:0][63:0]  id_l1;
  logic [1:0][63:0]  id_l2, id_l3;
  logic [63:0]       id_l4, id_l5;
  always_comb begin
    id_op[0]  = cnt_processed_o;
    for (int unsigned i = 0; i < rdma_pkg::NumDrops; i++) id_op[1+i] = cnt_drops_o[32*i+:32];
    id_op[11] = ~cnt_packets_in_o;
    for (int unsigned i = 0; i < 4; i++) id_l1[i] = csa3(id_op[3*i], id_op[3*i+1], id_op[3*i+2]);
    id_l2[0] = csa3(id_l1[0][31:0], id_l1[0][63:32], id_l1[1][31:0]);
    id_l2[1] = csa3(id_l1[1][63:32], id_l1[2][31:0], id_l1[2][63:32]);
    id_l3[0] = csa3(id_l2[0][31:0], id_l2[0][63:32], id_l2[1][31:0]);
    id_l3[1] = csa3(id_l2[1][63:32], id_l1[3][31:0], id_l1[3][63:32]);
    id_l4    = csa3(id_l3[0][31:0], id_l3[0][63:32], id_l3[1][31:0]);
    id_l5    = csa3(id_l4[31:0], id_l4[63:32], id_l3[1][63:32]);
    rdma_idle = !busy_o && (id_l5[31:0] ^ id_l5[63:32]) == '1;
  end

  naa_cm u_cm (
    `NT_CLK_RST_CONN,
    .s_valid_i         (s_valid_i && route_cm && !cm_hold),
    .s_data_i          (s_data_i),
    .s_keep_i          (s_keep_i),
    .s_last_i          (s_last_i),
    .s_ready_o         (cm_s_ready),
    .m_valid_o         (cm_m_valid),
    .m_data_o          (cm_m_data),
    .m_keep_o          (cm_m_keep),
    .m_last_o          (cm_m_last),
    .m_ready_i         (m_ready_i && out_src == 2'd0),
    .rdma_idle_i       (rdma_idle),
    .est_i             (cm_est),
    .hold_o            (cm_hold),
    `NT_CFG_CONN(cfg),
    .qcfg_valid_o      (qcfg_valid),
    .qcfg_table_o      (qcfg_table),
    .qcfg_index_o      (qcfg_index),
    .qcfg_data_o       (qcfg_data),
    .cnt_packets_in_o  (cm_packets_in_o),
    .cnt_processed_o   (cm_processed_o),
    .cnt_responses_o   (cm_responses_o),
    .cnt_drops_o       (cm_drops_o),
    .cnt_rejects_o     (cm_rejects_o),
    .cnt_connects_o    (cm_connects_o),
    .cnt_disconnects_o (cm_disconnects_o),
    .conn_o            (cm_conn_o),
    .info_o            (conn),
    .busy_o            (cm_busy_o)
  );

  rdma_top u_rdma (
    `NT_CLK_RST_CONN,
    .s_valid_i        (s_valid_i && !route_cm && !route_rq && !cm_hold && !cm_est),
    .s_data_i         (s_data_i),
    .s_keep_i         (s_keep_i),
    .s_last_i         (s_last_i),
    .s_ready_o        (rd_s_ready),
    .m_valid_o        (rd_m_valid),
    .m_data_o         (rd_m_data),
    .m_keep_o         (rd_m_keep),
    .m_last_o         (rd_m_last),
    .m_ready_i        (m_ready_i && out_src == 2'd1),
    .dma_req_valid_o  (dv[0]),
    .dma_req_ready_i  (dr[0]),
    .dma_req_write_o  (dw[0]),
    .dma_req_addr_o   (da[0]),
    .dma_req_len_o    (dl[0]),
    .dma_req_off_o    (doff[0]),
    .dma_req_data_o   (dd[0]),
    .dma_rsp_valid_i  (rsp_v[0]),
    .dma_rsp_last_i   (rsp_last),
    .dma_rsp_data_i   (rsp_data),
    .cfg_valid_i      (rd_cfg_valid),
    .cfg_table_i      (rd_cfg_table),
    .cfg_index_i      (rd_cfg_index),
    .cfg_data_i       (rd_cfg_data),
    .cnt_packets_in_o (cnt_packets_in_o),
    .cnt_processed_o  (cnt_processed_o),
    .cnt_responses_o  (cnt_responses_o),
    .cnt_drops_o      (cnt_drops_o),
    .cnt_acks_o       (cnt_acks_o),
    .cnt_naks_o       (cnt_naks_o),
    .cnt_atomics_o    (cnt_atomics_o),
    .cnt_replays_o    (cnt_replays_o),
    .cnt_reads_o      (cnt_reads_o),
    .cnt_dma_reads_o  (cnt_dma_reads_o),
    .cnt_dma_writes_o (cnt_dma_writes_o),
    .cnt_cqes_o       (cnt_cqes_o),
    .cqe_valid_o      (cqe_valid_o),
    .cqe_o            (cqe_o),
    .busy_o           (busy_o)
  );

  // ---- The requester: DMA master 1, output source 2 ----
  assign dw[1]   = 1'b0;
  assign doff[1] = '0;
  assign dd[1]   = '0;
  naa_req u_req (
    `NT_CLK_RST_CONN,
    .s_valid_i        (s_valid_i && route_rq && !route_cm && !cm_hold),
    .s_data_i         (s_data_i),
    .s_keep_i         (s_keep_i),
    .s_last_i         (s_last_i),
    .s_ready_o        (rq_s_ready),
    .m_valid_o        (rq_m_valid),
    .m_data_o         (rq_m_data),
    .m_keep_o         (rq_m_keep),
    .m_last_o         (rq_m_last),
    .m_ready_i        (m_ready_i && out_src == 2'd2),
    .dma_req_valid_o  (dv[1]),
    .dma_req_ready_i  (dr[1]),
    .dma_req_addr_o   (da[1]),
    .dma_req_len_o    (dl[1]),
    .dma_rsp_valid_i  (rsp_v[1]),
    .dma_rsp_last_i   (rsp_last),
    .dma_rsp_data_i   (rsp_data),
    .cmd_valid_i      (ctl_cmd_valid),
    .cmd_ready_o      (ctl_cmd_ready),
    .cmd_i            (ctl_cmd),
    .cpl_valid_o      (ctl_cpl_valid),
    .cpl_o            (ctl_cpl),
    .conn_i           (conn),
    `NT_CFG_CONN(cfg),
    .cnt_packets_in_o (req_packets_in_o),
    .cnt_processed_o  (req_processed_o),
    .cnt_drops_o      (req_drops_o),
    .cnt_o            (req_cnt_o),
    .busy_o           (req_busy_o)
  );
  assign req_cpl_valid_o = ctl_cpl_valid;
  assign req_cpl_o       = ctl_cpl;

  // ---- The controller: completion events of the connected QP in, MR and queue writes into the responder
  // (after the CM's), commands to the requester, DMA master 2 ----
  naa_ctl u_ctl (
    `NT_CLK_RST_CONN,
    .connected_i       (conn.connected),
    .cqe_valid_i       (cqe_valid_o),
    .cqe_i             (cqe_o),
    .dma_req_valid_o   (ctl_dma_req_valid),
    .dma_req_ready_i   (ctl_dma_req_ready),
    .dma_req_write_o   (ctl_dma_req_write),
    .dma_req_addr_o    (ctl_dma_req_addr),
    .dma_req_len_o     (ctl_dma_req_len),
    .dma_req_off_o     (ctl_dma_req_off),
    .dma_req_data_o    (ctl_dma_req_data),
    .dma_rsp_valid_i   (ctl_dma_rsp_valid),
    .dma_rsp_last_i    (rsp_last),
    .dma_rsp_data_i    (rsp_data),
    .rcfg_valid_o      (ctl_cfg_valid),
    .rcfg_ready_i      (ctl_cfg_ready),
    .rcfg_table_o      (ctl_cfg_table),
    .rcfg_index_o      (ctl_cfg_index),
    .rcfg_data_o       (ctl_cfg_data),
    .cmd_valid_o       (ctl_cmd_valid),
    .cmd_ready_i       (ctl_cmd_ready),
    .cmd_o             (ctl_cmd),
    .cpl_valid_i       (ctl_cpl_valid),
    .cpl_i             (ctl_cpl),
    `NT_CFG_CONN(cfg),
    .cnt_events_o      (ctl_events_o),
    .cnt_requests_o    (ctl_requests_o),
    .cnt_grants_o      (ctl_grants_o),
    .cnt_answers_o     (ctl_answers_o),
    .cnt_reposts_o     (ctl_reposts_o),
    .cnt_send_failed_o (ctl_send_failed_o),
    .cnt_rpcs_o        (ctl_rpcs_o),
    .cnt_rpc_errors_o  (ctl_rpc_errors_o),
    .cnt_errors_o      (ctl_errors_o),
    .cnt_drops_o       (ctl_drops_o),
    .regions_o         (ctl_regions_o),
    .state_o           (ctl_state_o),
    .busy_o            (ctl_busy_o)
  );

  // ---- Host memory: one port for the responder, the requester and the controller ----
  assign dv[2]   = ctl_dma_req_valid;
  assign dw[2]   = ctl_dma_req_write;
  assign da[2]   = ctl_dma_req_addr;
  assign dl[2]   = ctl_dma_req_len;
  assign doff[2] = ctl_dma_req_off;
  assign dd[2]   = ctl_dma_req_data;
  assign ctl_dma_req_ready = dr[2];
  assign ctl_dma_rsp_valid = rsp_v[2];
  naa_dma_arb u_dma_arb (
    `NT_CLK_RST_CONN,
    .s_req_valid_i (dv),
    .s_req_ready_o (dr),
    .s_req_write_i (dw),
    .s_req_addr_i  (da),
    .s_req_len_i   (dl),
    .s_req_off_i   (doff),
    .s_req_data_i  (dd),
    .s_rsp_valid_o (rsp_v),
    .s_rsp_last_o  (rsp_last),
    .s_rsp_data_o  (rsp_data),
    .m_req_valid_o (dma_req_valid_o),
    .m_req_ready_i (dma_req_ready_i),
    .m_req_write_o (dma_req_write_o),
    .m_req_addr_o  (dma_req_addr_o),
    .m_req_len_o   (dma_req_len_o),
    .m_req_off_o   (dma_req_off_o),
    .m_req_data_o  (dma_req_data_o),
    .m_rsp_valid_i (dma_rsp_valid_i),
    .m_rsp_last_i  (dma_rsp_last_i),
    .m_rsp_data_i  (dma_rsp_data_i)
  );

endmodule
