// Differential test of naa_req (branch naa22, scripts/naa_req_diff.sh): main @ 7fd7cad's requester
// (naa_req_ref, the frame composed from variable offsets) against the registered-shape one, one stimulus,
// every output compared every cycle. Random commands (controller and programming port; SEND / WRITE /
// WRITE_WITH_IMM, lengths 0..3 MTU), a DMA slave with gaps, back-pressure on the request stream, ACK / NAK
// frames built for the last PSNs sent (with their ICRC: they complete messages) and malformed ones, settings
// writes, and the connection's fields changing at random times; the MTU (8..12) only where naa_cm changes it:
// at an edge before which the connection was down (naa_cm writes mtu_log2_q on a REQ it accepts, only in
// ConnIdle; naa_req's snd_left_reg / snd_mtu_range assertions rely on it since branch naq24). +cycles=N.
module tb;
  logic clk = 0, rst_n = 0;
  logic s_valid; logic [nt_pkg::StreamBits-1:0] s_data; logic [nt_pkg::StreamBytes-1:0] s_keep; logic s_last;
  logic m_ready, dma_req_ready, dma_rsp_valid, dma_rsp_last; logic [nt_pkg::StreamBits-1:0] dma_rsp_data;
  logic cmd_valid; naa_pkg::naa_req_cmd_t cmd; naa_pkg::naa_conn_t conn;
  logic cfg_valid; logic [nt_pkg::CfgTableBits-1:0] cfg_table; logic [nt_pkg::CfgIndexBits-1:0] cfg_index;
  logic [nt_pkg::CfgDataBits-1:0] cfg_data;
  localparam int OW = 1 + 1 + nt_pkg::StreamBits + nt_pkg::StreamBytes + 1 + 1 + 64 + 16 + 1 + 1 + 10 + 32 + 32 +
                      nt_pkg::NaaReqDrops * 32 + nt_pkg::NaaReqCnts * 32 + 1;
  logic [OW-1:0] o_ref, o_new;
`define INST(NAME, O) \
  NAME u_``NAME (.clk_i(clk), .rst_ni(rst_n), .s_valid_i(s_valid), .s_data_i(s_data), .s_keep_i(s_keep), \
    .s_last_i(s_last), .s_ready_o(O[0]), .m_valid_o(O[1]), .m_data_o(O[2+:512]), .m_keep_o(O[514+:64]), \
    .m_last_o(O[578]), .m_ready_i(m_ready), .dma_req_valid_o(O[579]), .dma_req_ready_i(dma_req_ready), \
    .dma_req_addr_o(O[580+:64]), .dma_req_len_o(O[644+:16]), .dma_rsp_valid_i(dma_rsp_valid), \
    .dma_rsp_last_i(dma_rsp_last), .dma_rsp_data_i(dma_rsp_data), .cmd_valid_i(cmd_valid), .cmd_ready_o(O[660]), \
    .cmd_i(cmd), .cpl_valid_o(O[661]), .cpl_o(O[662+:10]), .conn_i(conn), .cfg_valid_i(cfg_valid), \
    .cfg_table_i(cfg_table), .cfg_index_i(cfg_index), .cfg_data_i(cfg_data), .cnt_packets_in_o(O[672+:32]), \
    .cnt_processed_o(O[704+:32]), .cnt_drops_o(O[736+:nt_pkg::NaaReqDrops*32]), \
    .cnt_o(O[736+nt_pkg::NaaReqDrops*32+:nt_pkg::NaaReqCnts*32]), .busy_o(O[OW-1]));
  `INST(naa_req_ref, o_ref)
  `INST(naa_req, o_new)

  int cycles = 200000;
  int errors = 0, beats = 0, frames = 0, icrc_beats = 0, acks = 0, cpls = 0, fills = 0;
  logic [47:0] mac; logic [31:0] ip4;
  logic [23:0] last_psn;
  logic first_beat;
  logic was_connected;
  int dma_left, dma_gap;
  int ack_wait;
  naa_pkg::naa_req_cmd_t rc;

  function automatic naa_pkg::naa_req_cmd_t rand_cmd();
    naa_pkg::naa_req_cmd_t c;
    c.op    = naa_pkg::naa_req_op_e'($urandom_range(2));
    c.laddr = {$urandom, $urandom};
    case ($urandom_range(5))
      0: c.len = 0;
      1: c.len = $urandom_range(1, 16);
      2: c.len = $urandom_range(1, 300);
      3: c.len = $urandom_range(200, 5000);
      4: c.len = $urandom_range(1, 12000);
      default: c.len = 32'(256 * $urandom_range(1, 16)) + 32'($urandom_range(3)) - 32'd1;
    endcase
    if (c.op == naa_pkg::NaaOpWrite && c.len == 0) c.len = 1;
    c.raddr = {$urandom, $urandom};
    c.rkey  = $urandom;
    c.imm   = $urandom;
    c.tag   = 8'($urandom);
    return c;
  endfunction

  // An ACK / NAK frame for this endpoint (the fields naa_req checks), its ICRC appended.
  function automatic logic [nt_pkg::StreamBits-1:0] ack_frame(logic [23:0] psn, logic [7:0] syn);
    logic [nt_pkg::StreamBits-1:0] f;
    logic [31:0] icrc;
    f = '0;
    for (int i = 0; i < 6; i++) f[8*i+:8] = mac[8*(5-i)+:8];
    f[8*12+:8] = 8'h08; f[8*13+:8] = 8'h00; f[8*14+:8] = 8'h45;
    f[8*16+:8] = 8'd0; f[8*17+:8] = 8'd48; f[8*20+:8] = 8'h40; f[8*22+:8] = 8'd64; f[8*23+:8] = 8'd17;
    for (int i = 0; i < 4; i++) f[8*(30+i)+:8] = ip4[8*(3-i)+:8];
    f[8*36+:8] = 8'(nt_pkg::RdmaUdpPort >> 8); f[8*37+:8] = 8'(nt_pkg::RdmaUdpPort);
    f[8*38+:8] = 8'd0; f[8*39+:8] = 8'd28; f[8*42+:8] = 8'h11;
    for (int i = 0; i < 3; i++) f[8*(47+i)+:8] = conn.local_qpn[8*(2-i)+:8];
    for (int i = 0; i < 3; i++) f[8*(51+i)+:8] = psn[8*(2-i)+:8];
    f[8*54+:8] = syn;
    icrc = ~rdma_pkg::icrc_beat(rdma_pkg::icrc_seed(), f, 0, 58, 1'b0);
    for (int i = 0; i < 4; i++) f[8*(58+i)+:8] = icrc[8*i+:8];
    return f;
  endfunction

  task automatic new_conn(logic was_connected);
    conn.mac = {$urandom, $urandom}; conn.ip = $urandom; conn.sport = 16'($urandom);
    conn.qpn = 24'($urandom); conn.local_qpn = 24'($urandom); conn.start_psn = 24'($urandom);
    if (!was_connected) conn.mtu_log2 = 4'($urandom_range(8, 12));
  endtask

  initial begin
    void'($value$plusargs("cycles=%d", cycles));
    s_valid = 0; s_data = '0; s_keep = '0; s_last = 0; m_ready = 1; dma_req_ready = 0; dma_rsp_valid = 0;
    dma_rsp_last = 0; dma_rsp_data = '0; cmd_valid = 0; cmd = '0; cfg_valid = 0; cfg_table = '0; cfg_index = '0;
    cfg_data = '0; conn = '0; new_conn(1'b0); conn.connected = 0;
    mac = {$urandom, $urandom}; ip4 = $urandom; last_psn = conn.start_psn; first_beat = 1;
    dma_left = 0; dma_gap = 0; ack_wait = 0;
    repeat (2) begin #1 clk = 1; #1 clk = 0; end
    rst_n = 1;
    for (int cyc = 0; cyc < cycles; cyc++) begin
      // ---- inputs for this cycle (from the outputs before the edge: both DUTs see the same) ----
      cfg_valid = 0; cfg_data = '0;
      if (cyc == 1 || $urandom_range(20000) == 0) begin
        // the endpoint's MAC / IPv4 (responder table 0, index 0)
        if (cyc != 1) begin mac = {$urandom, $urandom}; ip4 = $urandom; end
        cfg_valid = 1; cfg_table = nt_pkg::CfgTableBits'(nt_pkg::RdmaTblResponder); cfg_index = '0;
        cfg_data[50:3] = mac; cfg_data[82:51] = ip4;
      end else if (cyc == 2 || $urandom_range(30000) == 0) begin
        cfg_valid = 1; cfg_table = nt_pkg::CfgTableBits'(nt_pkg::NaaTblReq); cfg_index = '0;
        cfg_data[31:0] = 32'($urandom_range(300, 3000)); cfg_data[34:32] = 3'($urandom_range(2, 7));
        cfg_data[37:35] = 3'($urandom_range(7));
      end else if ($urandom_range(60) == 0) begin
        rc = rand_cmd();
        cfg_valid = 1; cfg_table = nt_pkg::CfgTableBits'(nt_pkg::NaaTblReq); cfg_index = 11'd1;
        cfg_data[$bits(rc)-1:0] = rc;
      end
      was_connected = conn.connected;  // (the cycle before's)
      if (cyc == 5) conn.connected = 1;
      if ($urandom_range(40000) == 0) conn.connected = !conn.connected;
      if ($urandom_range(15000) == 0) new_conn(was_connected);
      if (!was_connected && $urandom_range(2000) == 0) conn.mtu_log2 = 4'($urandom_range(8, 12));
      if ($urandom_range(50000) == 0) conn.ip = $urandom;  // at any time, even in a frame
      if (!cmd_valid || o_new[660] || $urandom_range(50) == 0) begin
        cmd_valid = $urandom_range(20) == 0;
        cmd = rand_cmd();
      end
      m_ready = $urandom_range(9) != 0;
      dma_req_ready = $urandom_range(3) == 0;
      dma_rsp_valid = 0; dma_rsp_last = 0;
      if (dma_left > 0 && dma_gap == 0 && $urandom_range(2) != 0) begin
        dma_rsp_valid = 1; dma_rsp_last = dma_left == 1;
        for (int w = 0; w < nt_pkg::StreamBits / 32; w++) dma_rsp_data[32*w+:32] = $urandom;
      end
      // ACK / NAK frames (one beat); sometimes malformed
      s_valid = 0;
      if (ack_wait > 0) ack_wait--;
      else if ($urandom_range(60) == 0) begin
        int r;
        logic [7:0] syn;
        r = $urandom_range(99);  // mostly ACKs; a fatal NAK rarely (it flushes until the next connection)
        syn = r < 85 ? 8'h00 : r < 92 ? 8'h60 : r < 98 ? 8'h20 | 8'($urandom_range(3)) : $urandom_range(9) == 0 ? 8'h61 : 8'($urandom);
        s_data = ack_frame(last_psn - 24'($urandom_range(3)), syn);
        if ($urandom_range(30) == 0) s_data[8 * $urandom_range(61) +: 8] ^= 8'($urandom_range(1, 255));
        s_keep = {2'b00, {62{1'b1}}}; s_last = 1; s_valid = 1;
        ack_wait = $urandom_range(2, 40);
      end
      #1;
      if (o_ref !== o_new) begin
        errors++;
        if (errors <= 10) begin
          $display("cycle %0d: outputs differ (m_valid %b/%b last %b/%b keep %h/%h)", cyc, o_ref[1], o_new[1],
                   o_ref[578], o_new[578], o_ref[514+:64], o_new[514+:64]);
          for (int i = 0; i < 64; i++)
            if (o_ref[2+8*i+:8] !== o_new[2+8*i+:8]) $display("  data byte %0d: %h / %h", i, o_ref[2+8*i+:8], o_new[2+8*i+:8]);
          if (o_ref[736+:nt_pkg::NaaReqDrops*32+nt_pkg::NaaReqCnts*32] !== o_new[736+:nt_pkg::NaaReqDrops*32+nt_pkg::NaaReqCnts*32])
            $display("  counters differ");
        end
      end
      // observe the request stream (for the ACKs' PSNs) and the DMA handshake
      if (o_new[1] && m_ready) begin
        beats++;
        if (first_beat) last_psn = {o_new[2+8*51+:8], o_new[2+8*52+:8], o_new[2+8*53+:8]};
        if (o_new[2+:512] != '0 && o_new[514+:64] != '1) icrc_beats++;
        first_beat = o_new[578];
        if (o_new[578]) frames++;
      end
      if (o_new[579] && dma_req_ready) begin
        dma_left = (int'(o_new[644+:16]) + 63) / 64; fills++;
      end else if (dma_rsp_valid) dma_left--;
      dma_gap = $urandom_range(3) == 0 ? 1 : 0;
      if (o_new[661]) cpls++;
      if (s_valid && o_new[0]) acks++;
      clk = 1; #1 clk = 0;
    end
    $display("naa_req diff: %0d cycles, %0d beats, %0d frames, %0d DMA reads, %0d ACK/NAK frames in, %0d completions, %0d cycles differ",
             cycles, beats, frames, fills, acks, cpls, errors);
    if (errors != 0) $fatal(1, "naa_req_diff: FAIL");
    $display("naa_req_diff: PASS");
    $finish;
  end
endmodule
