// The connection manager on QP1 (IBA chapter 12 over RoCEv2): receives a CM MAD frame into a 6-beat buffer
// with the ICRC computed as the beats arrive, decides in one cycle (Parse), programs the responder's QP
// through its programming port on RTU (connect) and DREQ (tear down), and sends its REP / REJ / DREP one beat
// per cycle with the ICRC appended on the fly. State for state as model/naa/naa_cm.cc.
//   Rx -> Parse -> { Rx | Drain -> { Resp | CfgQp -> CfgQueues -> Rx | CfgQp -> Resp } } ; Resp -> Rx
`include "nt_ports.svh"
module naa_cm
(
  `NT_CLK_RST,
  `NT_STREAM_IN(s),
  `NT_STREAM_OUT(m),
  // The responder holds no request (none in its ring or back end): the CM acts only then, so its responses
  // and QP writes keep the order of the client's frames.
  input  logic                    rdma_idle_i,
  // The CM is between a frame's last beat and its action (Parse, Drain, QP writes): the front end holds
  // every input until then.
  output logic                    hold_o,
  // In REP-sent, the client's first packet on the connection's QP waits at the input (a lost RTU): in Rx the
  // CM establishes the connection as on an RTU (no CM frame is counted).
  input  logic                    est_i,
  // The external programming port (responder table 0 and the CM table are read here).
  `NT_CFG_IN(cfg),
  // Writes into the responder's QP tables.
  `NT_CFG_OUT(qcfg),
  `NT_NAA_CM_CNT_OUT(cnt),
  output logic [1:0]              conn_o,
  // The connection, exported to the requester and the controller (valid while info_o.connected).
  output naa_pkg::naa_conn_t               info_o,
  output logic                    busy_o
);
  naa_pkg::cm_state_e             state_q, after_q;
  logic [47:0]           mac_q;
  logic [31:0]           ip4_q;
  logic                  has_ip4_q;
  naa_pkg::cm_cfg_t               cfg_q;
  // The configuration word (table NaaTblCm, index 0), field by field (Yosys 0.55: docs/synthesis.md).
  naa_pkg::cm_cfg_t               cfg_d;
  always_comb begin
    cfg_d                 = '0;
    cfg_d.listen          = cfg_data_i[0];
    cfg_d.service_id      = cfg_data_i[64:1];
    cfg_d.ca_guid         = cfg_data_i[128:65];
    cfg_d.start_psn       = cfg_data_i[152:129];
    cfg_d.initiator_depth = cfg_data_i[160:153];
    cfg_d.rnr_retry       = cfg_data_i[163:161];
    cfg_d.ack_delay       = cfg_data_i[168:164];
    cfg_d.qp_slot         = cfg_data_i[172:169];
    cfg_d.comm_id         = cfg_data_i[204:173];
  end
  logic [nt_pkg::CfgDataBits-1:0] qp_tpl_q, queues_tpl_q;
  logic [nt_pkg::StreamBits-1:0] buf_q [nt_pkg::NaaCmBufBeats];
  logic [2:0]            nb_q;
  logic [15:0]           len_q;
  logic                  overflow_q;
  logic [31:0]           crc_q;
  naa_pkg::conn_e                 conn_q;
  logic [31:0]           local_comm_q, remote_comm_q, accepted_q;
  logic [23:0]           client_qpn_q, client_psn_q;
  logic [47:0]           client_mac_q;
  logic [31:0]           client_ip_q;
  logic [15:0]           client_sport_q;
  logic [23:0]           start_psn_q;
  logic [7:0]            resp_res_q, init_depth_q;
  logic [3:0]            mtu_log2_q;
  logic                  implicit_q;  // the QP writes establish on a packet, not on an RTU frame
  logic                  cfg_connect_q;
  naa_pkg::cm_desc_t              desc_q;
  logic [2:0]            k_q;
  // The response's ICRC and IPv4 header checksum, recomputed every cycle from the registers the response is
  // composed of (desc_q is written in Parse only, and a response starts at least one cycle after it, in Drain or
  // CfgQp; the ICRC is needed from beat 4 on): issue 27, a whole beat's CRC in one cycle was 417 levels.
  logic [31:0]           icrc_q;
  // ... in two registered steps (issue 27: the whole frame's XOR trees and the final matrices in one cycle were
  // 14 levels): rsp_part_q[k] is beat k's data part moved to the frame's end (rdma_pkg::icrc_frame's terms, one
  // register each), icrc_q their sum with the seed's constant part, taken back by the zero tail. icrc_q is thus
  // one cycle later than before: final 3 cycles after Parse writes desc_q (csum_q is 2), and first read at
  // response beat RspLastBeat - 1, at least 5 cycles after Parse (Drain, then beats 0..3): no cycle added.
  localparam int unsigned RspCrcBeats = (naa_pkg::CmIcrcAt + nt_pkg::StreamBytes - 1) / nt_pkg::StreamBytes;
  logic [RspCrcBeats-1:0][31:0] rsp_part_q, rsp_part_d;
  logic [15:0]           csum_q;
  // The checksum in two registered steps (issue 27: the whole adder tree and its folds in one cycle were the
  // module's deepest path): csum_sum_q is the header words' sum, csum_q = fold(csum_sum_q). Since branch naa17
  // (the next values' multiplexers ahead of the adder tree were 13 levels) the sum is of registers only: ip4_q
  // and the destination in the frame buffer (bytes 26..29, which Parse copies into desc_q.dst_ip: every Parse
  // branch writes base_d's destination). The buffer is written only in Rx, so from Parse to the response's end it
  // holds the parsed frame and csum_q is final from the cycle after Drain's first, as before (a response always
  // follows a Parse: Drain is entered from Parse, or on est_i, whose path has no response). A programming
  // write of ip4_q reaches csum_q one cycle later than before, two cycles after the write: a write in Parse's
  // cycle is now the old address in the checksum, as in the model (its Parse composes the frame before the
  // cycle's writes; the RTL puts ip4_q itself into beat 0 whenever it is sent, so such a write was never exact).
  logic [18:0]           csum_sum_q;
  logic [31:0]           fr_dst_ip;
  logic [23:0]           mad_psn_q;
  logic [31:0]           c_in_q, c_proc_q, c_resp_q, c_rej_q, c_conn_q, c_disc_q;
  logic [nt_pkg::NaaCmDrops-1:0][31:0] c_drops_q;

  // ---- Parse: the buffered frame's fields and the checks (model/naa/naa_mad.cc ParseCm) ----
  logic [naa_pkg::CmBits-1:0] fr;
  always_comb begin
    for (int unsigned b = 0; b < nt_pkg::NaaCmBufBeats; b++) fr[nt_pkg::StreamBits*b+:nt_pkg::StreamBits] = buf_q[b];
  end

  logic        malformed, not_for_us, bad_icrc, bad_mad;
  // The tests of Parse that read only the frame's beats 0 and 1 (its header, the MAD header, the attribute),
  // registered from the buffer every cycle (issue 27, branch naa17: Parse's decision through them was 15
  // levels). In Parse they are one cycle behind the buffer, which is exact for every frame they decide: a frame
  // of NaaCmFrameBytes bytes has at least 6 beats, so beats 0 and 1 were written at least 4 cycles before
  // Parse, and one of another length is malformed by its length alone, whatever these flags say.
  logic        hdr_bad_q, hdr_bad_d, mad_bad_q, mad_bad_d;
  logic        attr_req_q, attr_rtu_q, attr_dreq_q, attr_rej_q;
  // Likewise the wide compares of those beats' fields with registers, each with the register's value at Parse:
  // the responder's MAC, IPv4 and its flag, and the service ID, as they are after this edge (their next
  // values, so a programming write in the last beat's cycle is seen, as when Parse read the registers); the connection's
  // comm ids and client QPN, which only Parse writes, as they are (unchanged in the cycle before Parse, an Rx
  // cycle).
  logic        nfu_q;            // not_for_us
  logic        svc_bad_q;        // the REQ's service ID is not ours
  logic        comm0_rem_q, comm1_loc_q, qpn_cli_q;
  logic        rsp_cfg_wr, cm_cfg_wr;
  logic [47:0] mac_d;
  logic        has_ip4_d;
  logic [31:0] ip4_d;
  logic [63:0] service_id_d;
  logic [31:0] rx_icrc;
  logic [15:0] m_attr;
  logic [31:0] m_comm0, m_comm1;
  logic [23:0] m_qpn, m_psn;
  logic [7:0]  m_resp_res, m_init_depth;
  logic [1:0]  m_transport;
  logic [3:0]  m_mtu;
  always_comb begin
    hdr_bad_d = naa_pkg::fbe(fr, 12, 2) != 64'h0800 ||
                naa_pkg::fbe(fr, 14, 1) != 64'h45 || naa_pkg::fbe(fr, 16, 2) != 64'(naa_pkg::CmIpLen) ||
                (naa_pkg::fbe(fr, 20, 2) & 64'h3fff) != 64'd0 || naa_pkg::fbe(fr, 23, 1) != 64'd17 ||
                naa_pkg::fbe(fr, 36, 2) != 64'(nt_pkg::RdmaUdpPort) || naa_pkg::fbe(fr, 38, 2) != 64'(naa_pkg::CmUdpLen) ||
                naa_pkg::fbe(fr, 42, 1) != 64'h64 || naa_pkg::fbe(fr, 43, 1) != 64'd0 || naa_pkg::fbe(fr, 47, 3) != 64'd1;
    malformed = overflow_q || len_q != 16'(nt_pkg::NaaCmFrameBytes) || hdr_bad_q;
    not_for_us = nfu_q;
    rx_icrc    = {fr[8*(naa_pkg::CmIcrcAt+3)+:8], fr[8*(naa_pkg::CmIcrcAt+2)+:8], fr[8*(naa_pkg::CmIcrcAt+1)+:8], fr[8*naa_pkg::CmIcrcAt+:8]};
    bad_icrc   = rx_icrc != ~crc_q;
    mad_bad_d  = naa_pkg::fbe(fr, 54, 4) != {32'd0, naa_pkg::Qp1Qkey} || naa_pkg::fbe(fr, naa_pkg::MadAt, 4) != 64'h0107_0203;
    bad_mad    = mad_bad_q;
    m_attr       = 16'(naa_pkg::fbe(fr, naa_pkg::MadAt + 16, 2));
    m_comm0      = 32'(naa_pkg::fbe(fr, naa_pkg::CmDataAt, 4));
    m_comm1      = 32'(naa_pkg::fbe(fr, naa_pkg::CmDataAt + 4, 4));
    m_qpn        = 24'(naa_pkg::fbe(fr, naa_pkg::CmDataAt + 32, 3));
    m_resp_res   = 8'(naa_pkg::fbe(fr, naa_pkg::CmDataAt + 35, 1));
    m_init_depth = 8'(naa_pkg::fbe(fr, naa_pkg::CmDataAt + 39, 1));
    m_transport  = fr[8*(naa_pkg::CmDataAt+43)+1+:2];
    m_psn        = 24'(naa_pkg::fbe(fr, naa_pkg::CmDataAt + 44, 3));
    m_mtu        = fr[8*(naa_pkg::CmDataAt+50)+4+:4];
  end

  // The QP template's fields the negotiation uses (rdma QP table layout).
  logic [23:0] tpl_qpn;
  logic [3:0]  tpl_mtu_log2;
  logic [15:0] tpl_max_rd_atomic;
  assign tpl_qpn           = qp_tpl_q[24:1];
  assign tpl_mtu_log2      = qp_tpl_q[76:73];
  assign tpl_max_rd_atomic = qp_tpl_q[92:77];

  // ---- Response beat (header from cm_compose, the ICRC from icrc_q) ----
  // The frame's last beat and its keep (constants: a CM frame has NaaCmFrameBytes bytes).
  localparam int unsigned RspLastBeat = (nt_pkg::NaaCmFrameBytes - 1) / nt_pkg::StreamBytes;
  localparam int unsigned RspLastBytes = nt_pkg::NaaCmFrameBytes - nt_pkg::StreamBytes * RspLastBeat;
  logic [naa_pkg::CmBits-1:0]      rsp_frame;
  logic [nt_pkg::StreamBits-1:0]  rsp_data;
  logic [nt_pkg::StreamBytes-1:0] rsp_keep;
  logic                   rsp_last;
  logic [31:0]            rsp_icrc_d, rsp_acc;
  logic [nt_pkg::StreamBits-1:0] rsp_z;
  always_comb begin
    rsp_frame  = naa_pkg::cm_compose(desc_q, mac_q, ip4_q, csum_q);
    // The frame's ICRC as rdma_pkg::icrc_frame(icrc_seed(), rsp_frame, CmIcrcAt, 0) computes it, its beat terms
    // registered in rsp_part_q (above), then summed and taken back into icrc_q.
    for (int unsigned k = 0; k < RspCrcBeats; k++) begin
      rsp_z = '0;
      for (int unsigned i = 0; i < nt_pkg::StreamBytes; i++) begin
        if (nt_pkg::StreamBytes * k + i >= rdma_crc_pkg::CrcIcrcLo && nt_pkg::StreamBytes * k + i < naa_pkg::CmIcrcAt) begin
          rsp_z[8*i+:8] = rdma_pkg::icrc_masked(nt_pkg::StreamBytes * k + i, rsp_frame[8*(nt_pkg::StreamBytes*k+i)+:8], 1'b0);
        end
      end
      rsp_part_d[k] = nt_pkg::crc32_data(
          rdma_crc_pkg::CrcDataPow[32*nt_pkg::StreamBits*(RspCrcBeats-1-k)+:32*nt_pkg::StreamBits], rsp_z);
    end
    rsp_acc = nt_pkg::crc32_mat(rdma_crc_pkg::CrcPow[32*32*(RspCrcBeats-1)+:32*32],
                                nt_pkg::crc32_mat(rdma_crc_pkg::CrcHead, rdma_pkg::icrc_seed()));
    for (int unsigned k = 0; k < RspCrcBeats; k++) rsp_acc = rsp_acc ^ rsp_part_q[k];
    rsp_icrc_d = ~nt_pkg::crc32_mat(
        rdma_crc_pkg::CrcTake[32*32*(nt_pkg::StreamBytes*RspCrcBeats-naa_pkg::CmIcrcAt)+:32*32], rsp_acc);
    rsp_data  = rsp_frame[nt_pkg::StreamBits*int'(k_q)+:nt_pkg::StreamBits];
    // ICRC byte j (frame byte CmIcrcAt + j) in its beat, at its offset there: both constants, so the choice is
    // a compare of k_q with a constant (as a compare of 32-bit byte offsets it was a carry chain: issue 27).
    for (int unsigned j = 0; j < 4; j++) begin
      if (int'(k_q) == (naa_pkg::CmIcrcAt + j) / nt_pkg::StreamBytes) begin
        rsp_data[8*((naa_pkg::CmIcrcAt+j)%nt_pkg::StreamBytes)+:8] = icrc_q[8*j+:8];
      end
    end
    rsp_keep = (int'(k_q) == RspLastBeat) ? nt_pkg::StreamBytes'((65'd1 << RspLastBytes) - 65'd1) : '1;
    rsp_last = int'(k_q) >= RspLastBeat;
  end

  assign s_ready_o = state_q == naa_pkg::CmRx;
  assign busy_o    = state_q != naa_pkg::CmRx;
  assign hold_o    = state_q == naa_pkg::CmParse || state_q == naa_pkg::CmDrain || state_q == naa_pkg::CmCfgQp || state_q == naa_pkg::CmCfgQueues;
  assign m_valid_o = state_q == naa_pkg::CmResp;
  assign m_data_o  = m_valid_o ? rsp_data : '0;
  assign m_keep_o  = m_valid_o ? rsp_keep : '0;
  assign m_last_o  = m_valid_o && rsp_last;

  // ---- Writes into the responder: the connected QP (template with the negotiated fields), its queues, or
  // the invalid entry that tears the connection down ----
  always_comb begin
    qcfg_valid_o = state_q == naa_pkg::CmCfgQp || state_q == naa_pkg::CmCfgQueues;
    qcfg_index_o = nt_pkg::CfgIndexBits'(cfg_q.qp_slot);
    qcfg_table_o = nt_pkg::CfgTableBits'(nt_pkg::RdmaTblQp);
    qcfg_data_o  = '0;
    if (state_q == naa_pkg::CmCfgQueues) begin
      qcfg_table_o = nt_pkg::CfgTableBits'(nt_pkg::RdmaTblQpQueues);
      qcfg_data_o  = queues_tpl_q;
    end else if (cfg_connect_q) begin
      qcfg_data_o        = qp_tpl_q;
      qcfg_data_o[0]     = 1'b1;
      qcfg_data_o[48:25] = client_qpn_q;
      qcfg_data_o[72:49] = client_psn_q;
      qcfg_data_o[76:73] = mtu_log2_q;
      qcfg_data_o[92:77] = {8'd0, resp_res_q};
    end
    if (!qcfg_valid_o) qcfg_data_o = '0;
  end

  // Negotiated values of a new connection (IBA 12.7.29/12.7.30: ours never above what the client offers).
  logic [7:0] resp_res_new, init_depth_new;
  logic [3:0] mtu_new;
  // The REQ's path MTU is invalid (not 1..5) or above the qp line's (REJ 26; model naa_cm.cc).
  logic       mtu_bad;
  assign mtu_bad = m_mtu < 4'd1 || m_mtu > 4'd5 || m_mtu + 4'd7 > tpl_mtu_log2;
  always_comb begin
    resp_res_new   = (tpl_max_rd_atomic > 16'd255) ? 8'd255 : tpl_max_rd_atomic[7:0];
    if (m_init_depth < resp_res_new) resp_res_new = m_init_depth;
    init_depth_new = (m_resp_res < cfg_q.initiator_depth) ? m_resp_res : cfg_q.initiator_depth;
    mtu_new        = (m_mtu + 4'd7 < tpl_mtu_log2) ? m_mtu + 4'd7 : tpl_mtu_log2;
  end

  // ---- The response descriptor: what every answer takes from the frame, and a REP's fields (a retried
  // REQ gets the stored connection's, a new one the values it negotiates now) ----
  logic     req_dup;
  naa_pkg::cm_desc_t base_d, rep_d;
  always_comb begin
    req_dup        = conn_q != naa_pkg::ConnIdle && comm0_rem_q && qpn_cli_q;
    base_d         = '0;
    base_d.tid     = naa_pkg::fbe(fr, naa_pkg::MadAt + 8, 8);
    base_d.dst_mac = 48'(naa_pkg::fbe(fr, 6, 6));
    base_d.dst_ip  = 32'(naa_pkg::fbe(fr, 26, 4));
    base_d.sport   = 16'(naa_pkg::fbe(fr, 34, 2));
    base_d.psn     = mad_psn_q;
    rep_d             = base_d;
    rep_d.attr        = naa_pkg::AttrRep;
    rep_d.local_comm  = req_dup ? local_comm_q : cfg_q.comm_id + accepted_q;
    rep_d.remote_comm = m_comm0;
    rep_d.qpn         = tpl_qpn;
    rep_d.start_psn   = cfg_q.start_psn;
    rep_d.resp_res    = req_dup ? resp_res_q : resp_res_new;
    rep_d.init_depth  = req_dup ? init_depth_q : init_depth_new;
    rep_d.rnr_retry   = cfg_q.rnr_retry;
    rep_d.ack_delay   = cfg_q.ack_delay;
    rep_d.guid        = cfg_q.ca_guid;
  end

  // The programming writes and the next values of the registers they write (Parse's flags above read them).
  assign rsp_cfg_wr   = cfg_valid_i && cfg_table_i == nt_pkg::CfgTableBits'(nt_pkg::RdmaTblResponder) && cfg_index_i == '0;
  assign cm_cfg_wr    = cfg_valid_i && cfg_table_i == nt_pkg::CfgTableBits'(nt_pkg::NaaTblCm) && cfg_index_i == 11'd0;
  assign ip4_d        = rsp_cfg_wr ? cfg_data_i[82:51] : ip4_q;
  assign mac_d        = rsp_cfg_wr ? cfg_data_i[50:3] : mac_q;
  assign has_ip4_d    = rsp_cfg_wr ? cfg_data_i[0] : has_ip4_q;
  assign service_id_d = cm_cfg_wr ? cfg_d.service_id : cfg_q.service_id;
  assign fr_dst_ip    = 32'(naa_pkg::fbe(fr, 26, 4));  // base_d.dst_ip

  // ---- Receive ----
  logic rx_fire;
  assign rx_fire = s_valid_i && s_ready_o;

  logic ours;
  assign ours = comm1_loc_q && comm0_rem_q;

  // The receive ICRC of beat nb_q: rdma_pkg::icrc_beat(nb_q == 0 ? seed : crc_q, s_data_i, 64 nb_q, CmIcrcAt, 0)
  // with each beat's constants spelled out (issue 27): the bytes covered, [14, 64) in beat 0, then [0, 64) until
  // beat (CmIcrcAt - 1) / 64, which ends at CmIcrcAt and so takes its zero tail back (CrcTake), none after; the
  // masked fields by their frame offsets. As icrc_beat's 32-bit offset arithmetic on a variable base, the
  // compares were carry chains ahead of the matrices (20 levels); here the data part is one
  // CrcData product of a beat masked by a function of nb_q, the register part CrcHead x seed (a constant) or
  // CrcBeat x crc_q, and the tail a constant CrcTake.
  // In two registered steps (issue 27, branch naa17: in one cycle 17 levels): the beat's data part (CrcData x
  // z) into rx_dz_q with its beat index (rx_dk_q) when the beat is taken, the register part, the sum and the
  // tail the next cycle into crc_q. crc_q is read only by the next beat's second step and by Parse's ICRC
  // check; the last beat the ICRC covers, (CmIcrcAt - 1) / 64, is not the frame's last (checked below), so a
  // frame of the right length (NaaCmFrameBytes) has crc_q final by Parse, and one of another length is
  // malformed, a drop Parse tests before the ICRC. No cycle added.
  logic [nt_pkg::StreamBits-1:0] rx_z;
  logic [31:0]                   rx_x, rx_crc_d, rx_dz_q;
  logic [2:0]                    rx_dk_q;
  logic                          rx_dv_q;
`ifndef SYNTHESIS
  if ((naa_pkg::CmIcrcAt - 1) / nt_pkg::StreamBytes >= (nt_pkg::NaaCmFrameBytes - 1) / nt_pkg::StreamBytes) begin : g_icrc_check
    $error("naa_cm: the receive ICRC's last beat must come before the frame's last beat");
  end
`endif
  always_comb begin
    rx_z = '0;
    for (int unsigned k = 0; k < nt_pkg::NaaCmBufBeats; k++) begin
      if (int'(nb_q) == k) begin
        for (int unsigned i = 0; i < nt_pkg::StreamBytes; i++) begin
          if ((k != 0 || i >= rdma_crc_pkg::CrcIcrcLo) && nt_pkg::StreamBytes * k + i < naa_pkg::CmIcrcAt) begin
            rx_z[8*i+:8] = rdma_pkg::icrc_masked(nt_pkg::StreamBytes * k + i, s_data_i[8*i+:8], 1'b0);
          end
        end
      end
    end
    rx_x     = rx_dz_q ^ ((rx_dk_q == '0) ? nt_pkg::crc32_mat(rdma_crc_pkg::CrcHead, rdma_pkg::icrc_seed())
                                          : nt_pkg::crc32_mat(nt_crc_pkg::CrcBeat, crc_q));
    rx_crc_d = crc_q;
    for (int unsigned k = 0; k < nt_pkg::NaaCmBufBeats; k++) begin
      if (int'(rx_dk_q) == k && nt_pkg::StreamBytes * k < naa_pkg::CmIcrcAt) begin
        if (nt_pkg::StreamBytes * (k + 1) <= naa_pkg::CmIcrcAt) rx_crc_d = rx_x;
        else rx_crc_d = nt_pkg::crc32_mat(rdma_crc_pkg::CrcTake[32*32*(nt_pkg::StreamBytes*(k+1)-naa_pkg::CmIcrcAt)+:32*32], rx_x);
      end
    end
  end

  always_ff @(posedge clk_i) begin
    if (rx_fire && int'(nb_q) < nt_pkg::NaaCmBufBeats) buf_q[nb_q] <= s_data_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q       <= naa_pkg::CmRx;
      after_q       <= naa_pkg::CmRx;
      mac_q         <= '0;
      ip4_q         <= '0;
      has_ip4_q     <= 1'b0;
      cfg_q         <= '0;
      qp_tpl_q      <= '0;
      queues_tpl_q  <= '0;
      nb_q          <= '0;
      len_q         <= '0;
      overflow_q    <= 1'b0;
      crc_q         <= '0;
      hdr_bad_q     <= 1'b0;
      mad_bad_q     <= 1'b0;
      attr_req_q    <= 1'b0;
      attr_rtu_q    <= 1'b0;
      attr_dreq_q   <= 1'b0;
      attr_rej_q    <= 1'b0;
      nfu_q         <= 1'b0;
      svc_bad_q     <= 1'b0;
      comm0_rem_q   <= 1'b0;
      comm1_loc_q   <= 1'b0;
      qpn_cli_q     <= 1'b0;
      rx_dz_q       <= '0;
      rx_dk_q       <= '0;
      rx_dv_q       <= 1'b0;
      conn_q        <= naa_pkg::ConnIdle;
      local_comm_q  <= '0;
      remote_comm_q <= '0;
      accepted_q    <= '0;
      client_qpn_q  <= '0;
      client_psn_q  <= '0;
      client_mac_q  <= '0;
      client_ip_q   <= '0;
      client_sport_q <= '0;
      start_psn_q   <= '0;
      resp_res_q    <= '0;
      init_depth_q  <= '0;
      mtu_log2_q    <= '0;
      implicit_q    <= 1'b0;
      cfg_connect_q <= 1'b0;
      desc_q        <= '0;
      k_q           <= '0;
      icrc_q        <= '0;
      rsp_part_q    <= '0;
      csum_q        <= '0;
      csum_sum_q    <= naa_pkg::ip4_csum_sum(16'(naa_pkg::CmIpLen), 32'd0, 32'd0);
      mad_psn_q     <= '0;
      c_in_q        <= '0;
      c_proc_q      <= '0;
      c_resp_q      <= '0;
      c_rej_q       <= '0;
      c_conn_q      <= '0;
      c_disc_q      <= '0;
      c_drops_q     <= '0;
    end else begin
      csum_sum_q <= naa_pkg::ip4_csum_sum(16'(naa_pkg::CmIpLen), ip4_q, fr_dst_ip);
      csum_q     <= naa_pkg::ip4_csum_fold(csum_sum_q);
      rsp_part_q <= rsp_part_d;
      icrc_q     <= rsp_icrc_d;
      rx_dv_q    <= 1'b0;
      if (rx_dv_q) crc_q <= rx_crc_d;
      hdr_bad_q   <= hdr_bad_d;
      mad_bad_q   <= mad_bad_d;
      attr_req_q  <= m_attr == naa_pkg::AttrReq;
      attr_rtu_q  <= m_attr == naa_pkg::AttrRtu;
      attr_dreq_q <= m_attr == naa_pkg::AttrDreq;
      attr_rej_q  <= m_attr == naa_pkg::AttrRej;
      nfu_q       <= naa_pkg::fbe(fr, 0, 6) != {16'd0, mac_d} || !has_ip4_d || naa_pkg::fbe(fr, 30, 4) != {32'd0, ip4_d};
      svc_bad_q   <= naa_pkg::fbe(fr, naa_pkg::CmDataAt + 8, 8) != service_id_d;
      comm0_rem_q <= m_comm0 == remote_comm_q;
      comm1_loc_q <= m_comm1 == local_comm_q;
      qpn_cli_q   <= m_qpn == client_qpn_q;
      if (rsp_cfg_wr) begin
        has_ip4_q <= cfg_data_i[0];
        mac_q     <= cfg_data_i[50:3];
        ip4_q     <= cfg_data_i[82:51];
      end
      if (cfg_valid_i && cfg_table_i == nt_pkg::CfgTableBits'(nt_pkg::NaaTblCm)) begin
        if (cfg_index_i == 11'd0) begin
          cfg_q <= cfg_d;
        end
        if (cfg_index_i == 11'd1) qp_tpl_q <= cfg_data_i;
        if (cfg_index_i == 11'd2) queues_tpl_q <= cfg_data_i;
      end
      unique case (state_q)
        naa_pkg::CmRx: begin
          if (est_i && conn_q == naa_pkg::ConnRepSent) begin
            conn_q        <= naa_pkg::ConnEstablished;
            c_conn_q      <= c_conn_q + 1;
            cfg_connect_q <= 1'b1;
            implicit_q    <= 1'b1;
            after_q       <= naa_pkg::CmCfgQp;
            state_q       <= naa_pkg::CmDrain;
          end else if (rx_fire) begin
            if (int'(nb_q) < nt_pkg::NaaCmBufBeats) begin
              rx_dz_q <= rdma_pkg::crc32_data(rx_z);
              rx_dk_q <= nb_q;
              rx_dv_q <= 1'b1;
              nb_q    <= nb_q + 1;
            end else begin
              overflow_q <= 1'b1;
            end
            len_q <= len_q + 16'(nt_pkg::keep_count(s_keep_i));  // keep is contiguous (stream rules)
            if (s_last_i) begin
              c_in_q  <= c_in_q + 1;
              state_q <= naa_pkg::CmParse;
            end
          end
        end
        naa_pkg::CmParse: begin
          nb_q       <= '0;
          len_q      <= '0;
          overflow_q <= 1'b0;
          k_q        <= '0;
          state_q    <= naa_pkg::CmRx;
          desc_q     <= base_d;
          if (malformed) begin
            c_drops_q[nt_pkg::NaaCmDropMalformed] <= c_drops_q[nt_pkg::NaaCmDropMalformed] + 1;
          end else if (not_for_us) begin
            c_drops_q[nt_pkg::NaaCmDropNotForUs] <= c_drops_q[nt_pkg::NaaCmDropNotForUs] + 1;
          end else if (bad_icrc) begin
            c_drops_q[nt_pkg::NaaCmDropBadIcrc] <= c_drops_q[nt_pkg::NaaCmDropBadIcrc] + 1;
          end else if (bad_mad) begin
            c_drops_q[nt_pkg::NaaCmDropBadMad] <= c_drops_q[nt_pkg::NaaCmDropBadMad] + 1;
          end else begin
            // (the attribute's four values as flags: at most one set)
            if (attr_req_q) begin
              if (req_dup) begin
                // A retried REQ: its REP again while the RTU is outstanding, nothing once established.
                if (conn_q == naa_pkg::ConnRepSent) begin
                  desc_q             <= rep_d;
                  after_q            <= naa_pkg::CmResp;
                state_q            <= naa_pkg::CmDrain;
                end else begin
                  c_drops_q[nt_pkg::NaaCmDropIgnored] <= c_drops_q[nt_pkg::NaaCmDropIgnored] + 1;
                end
              end else if (!cfg_q.listen || svc_bad_q ||
                           m_transport != 2'd0 || mtu_bad || conn_q != naa_pkg::ConnIdle) begin
                desc_q.attr        <= naa_pkg::AttrRej;
                desc_q.remote_comm <= m_comm0;
                desc_q.reason      <= (!cfg_q.listen || svc_bad_q)
                                      ? naa_pkg::RejInvalidServiceId
                                    : (m_transport != 2'd0) ? naa_pkg::RejInvalidTransport
                                    : mtu_bad ? naa_pkg::RejInvalidMtu : naa_pkg::RejNoQp;
                c_rej_q            <= c_rej_q + 1;
                after_q            <= naa_pkg::CmResp;
                state_q            <= naa_pkg::CmDrain;
              end else begin
                remote_comm_q      <= m_comm0;
                client_qpn_q       <= m_qpn;
                client_psn_q       <= m_psn;
                client_mac_q       <= base_d.dst_mac;
                client_ip_q        <= base_d.dst_ip;
                client_sport_q     <= base_d.sport;
                start_psn_q        <= cfg_q.start_psn;
                local_comm_q       <= cfg_q.comm_id + accepted_q;
                accepted_q         <= accepted_q + 1;
                resp_res_q         <= resp_res_new;
                init_depth_q       <= init_depth_new;
                mtu_log2_q         <= mtu_new;
                conn_q             <= naa_pkg::ConnRepSent;
                desc_q             <= rep_d;
                after_q            <= naa_pkg::CmResp;
                state_q            <= naa_pkg::CmDrain;
              end
            end else if (attr_rtu_q) begin
              if (conn_q == naa_pkg::ConnRepSent && ours) begin
                conn_q        <= naa_pkg::ConnEstablished;
                c_conn_q      <= c_conn_q + 1;
                cfg_connect_q <= 1'b1;
                after_q       <= naa_pkg::CmCfgQp;
                state_q       <= naa_pkg::CmDrain;
              end else begin
                c_drops_q[nt_pkg::NaaCmDropIgnored] <= c_drops_q[nt_pkg::NaaCmDropIgnored] + 1;
              end
            end else if (attr_dreq_q) begin
              desc_q.attr        <= naa_pkg::AttrDrep;
              desc_q.local_comm  <= m_comm1;
              desc_q.remote_comm <= m_comm0;
              after_q            <= naa_pkg::CmResp;
              state_q            <= naa_pkg::CmDrain;
              if (conn_q != naa_pkg::ConnIdle && ours) begin
                conn_q        <= naa_pkg::ConnIdle;
                c_disc_q      <= c_disc_q + 1;
                cfg_connect_q <= 1'b0;
                after_q       <= naa_pkg::CmCfgQp;
              end
            end else if (attr_rej_q) begin
              if (conn_q == naa_pkg::ConnRepSent && ours) begin
                conn_q   <= naa_pkg::ConnIdle;
                c_proc_q <= c_proc_q + 1;
              end else begin
                c_drops_q[nt_pkg::NaaCmDropIgnored] <= c_drops_q[nt_pkg::NaaCmDropIgnored] + 1;
              end
            end else begin
              c_drops_q[nt_pkg::NaaCmDropIgnored] <= c_drops_q[nt_pkg::NaaCmDropIgnored] + 1;
            end
          end
        end
        naa_pkg::CmDrain: if (rdma_idle_i) state_q <= after_q;
        naa_pkg::CmCfgQp: state_q <= cfg_connect_q ? naa_pkg::CmCfgQueues : naa_pkg::CmResp;
        naa_pkg::CmCfgQueues: begin
          if (!implicit_q) c_proc_q <= c_proc_q + 1;
          implicit_q <= 1'b0;
          state_q  <= naa_pkg::CmRx;
        end
        naa_pkg::CmResp: begin
          if (m_ready_i) begin
            k_q    <= k_q + 1;
            if (rsp_last) begin
              c_resp_q  <= c_resp_q + 1;
              c_proc_q  <= c_proc_q + 1;
              mad_psn_q <= mad_psn_q + 1;
              state_q   <= naa_pkg::CmRx;
            end
          end
        end
        default: state_q <= naa_pkg::CmRx;
      endcase
    end
  end

  assign cnt_packets_in_o  = c_in_q;
  assign cnt_processed_o   = c_proc_q;
  assign cnt_responses_o   = c_resp_q;
  assign cnt_drops_o       = c_drops_q;
  assign cnt_rejects_o     = c_rej_q;
  assign cnt_connects_o    = c_conn_q;
  assign cnt_disconnects_o = c_disc_q;
  assign conn_o            = conn_q;
  // Built field by field (Yosys 0.55 rejects assignment patterns: docs/synthesis.md).
  always_comb begin
    info_o           = '0;
    info_o.connected = conn_q == naa_pkg::ConnEstablished;
    info_o.mac       = client_mac_q;
    info_o.ip        = client_ip_q;
    info_o.sport     = client_sport_q;
    info_o.qpn       = client_qpn_q;
    info_o.local_qpn = tpl_qpn;
    info_o.start_psn = start_psn_q;
    info_o.mtu_log2  = mtu_log2_q;
  end

  logic unused;
  assign unused = ^{cfg_data_i[nt_pkg::CfgDataBits-1:205], cfg_data_i[2:1], fr[naa_pkg::CmBits-1:8*nt_pkg::NaaCmFrameBytes]};
endmodule
