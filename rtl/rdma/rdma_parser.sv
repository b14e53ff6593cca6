// Parses a buffered request's headers (first two beats) into request_t: structure first (runt, malformed),
// then whether it is for this responder (docs/rdma.md "Request processing"). Mirrors ParseRequest().
module rdma_parser
(
  input  logic [8*rdma_pkg::HdrWindow-1:0] hdr_i,
  input  logic [15:0]            frame_len_i,
  input  rdma_pkg::responder_t             resp_i,
  output rdma_pkg::request_t               req_o
);

  function automatic int unsigned ext_len(logic [7:0] opcode);
    unique case (opcode)
      8'h06, 8'h0a, 8'h0c: ext_len = 16;
      8'h0b: ext_len = 20;
      8'h03, 8'h05, 8'h09: ext_len = 4;
      8'h13, 8'h14: ext_len = 28;
      8'h0d, 8'h0f, 8'h10, 8'h11: ext_len = 4;
      8'h12: ext_len = 12;
      default: ext_len = 0;
    endcase
  endfunction

  // The extension headers' length plus the pad count, as a 7-bit number (at most 28 + 3).
  function automatic logic [6:0] ext_pad(logic [7:0] opcode, logic [1:0] pad);
    ext_pad = 7'(ext_len(opcode)) + 7'(pad);
  endfunction

  // Whether a + ~b + c (17 bits, c a constant) is negative, i.e. a - b - 1 + c < 0 (c = 1 - n: a < b + n), for
  // the a, b where that difference fits 17 bits. One carry-save level and one carry chain instead of an adder in
  // front of a comparator (issue 27: 29 levels before).
  function automatic logic lt_sum(logic [15:0] a, logic [15:0] b, logic [16:0] c);
    logic [16:0] x, y, s, k;
    // verilator lint_off UNUSEDSIGNAL
    logic [16:0] r;  // (its sign bit is read)
    // verilator lint_on UNUSEDSIGNAL
    x = {1'b0, a};
    y = ~{1'b0, b};
    s = x ^ y ^ c;
    k = ((x & y) | (x & c) | (y & c)) << 1;
    r = s + k;
    lt_sum = r[16];  // the 17-bit sum is negative (a + c - b - 1 < 0): its sign bit, no compare after the adder
  endfunction

  // Every check and field is computed for both IP families at their fixed offsets (l4 = 34 or 54) at once and
  // chosen by the EtherType at the end; the length arithmetic is folded into compares with small constants
  // (data_len = frame_end - 4 - hdr_len = ip_len - 44 - ext (IPv4), ip_len - 24 - ext (IPv6)); the drop
  // reason is a priority over the check bits. The same request_t as the sequential form for every input
  // (Yosys equiv_make/equiv_simple of both; docs/rdma-microarchitecture.md "Parser depth").
  rdma_pkg::request_t    q;
  logic [15:0] et, frag, len;
  logic [7:0]  ver;
  logic [15:0] ip4_len, ip6_len;
  logic        is4, is6;
  // stage 1: structure (runt / malformed), per family
  logic        s1_drop4, s1_drop6, s1_runt4, s1_runt6;
  // stage 2: UDP and BTH, per family
  logic [7:0]  op4, op6, fl4, fl6;
  logic [6:0]  xp4, xp6;
  logic        s2_bad4, s2_bad6;
  logic [15:0] plen4, plen6;
  // stage 3: for us
  logic        mac_ok, ip4_ok, ip6_ok;
  logic        pass1, pass2, pass3;
  logic [3:0]  drop;
  logic [7:0]  opcode;
  logic [31:0] bth_qp, bth_psn;
  int unsigned l4;

  function automatic logic bad_op(logic [7:0] op);
    bad_op = op > 8'h14 && op != 8'h81;
  endfunction

  always_comb begin
    len     = frame_len_i;
    et      = nt_pkg::win_b16(hdr_i, 12);
    frag    = nt_pkg::win_b16(hdr_i, 20);
    ver     = nt_pkg::win_b8(hdr_i, 14);
    is4     = et == 16'h0800;
    is6     = et == 16'h86dd;
    ip4_len = nt_pkg::win_b16(hdr_i, 16);
    ip6_len = nt_pkg::win_b16(hdr_i, 18);
    // stage 1 (a runt first: len < 14, then the family's own order)
    s1_runt4 = len < 16'd34 || (ver == 8'h45 && lt_sum(len, ip4_len, 17'h1fff3));  // len < 14 + ip_len
    s1_drop4 = len < 16'd34 || ver != 8'h45 || lt_sum(len, ip4_len, 17'h1fff3) || ip4_len < 16'd44 ||
               frag[13:0] != '0 || nt_pkg::win_b8(hdr_i, 23) != 8'd17;
    s1_runt6 = len < 16'd54 || (ver[7:4] == 4'd6 && lt_sum(len, ip6_len, 17'h1ffcb));  // len < 54 + ip_len
    s1_drop6 = len < 16'd54 || ver[7:4] != 4'd6 || lt_sum(len, ip6_len, 17'h1ffcb) ||
               nt_pkg::win_b8(hdr_i, 20) != 8'd17 || ip6_len < 16'd24;
    // stage 2: UDP port and length, BTH flags and opcode, data length >= pad
    op4   = nt_pkg::win_b8(hdr_i, 34 + 8);
    op6   = nt_pkg::win_b8(hdr_i, 54 + 8);
    fl4   = nt_pkg::win_b8(hdr_i, 34 + 9);
    fl6   = nt_pkg::win_b8(hdr_i, 54 + 9);
    xp4   = ext_pad(op4, fl4[5:4]);
    xp6   = ext_pad(op6, fl6[5:4]);
    s2_bad4 = nt_pkg::win_b16(hdr_i, 34 + 2) != 16'(nt_pkg::RdmaUdpPort) ||
              17'(nt_pkg::win_b16(hdr_i, 34 + 4)) + 17'd20 != 17'(ip4_len) || fl4[3:0] != 4'd0 || bad_op(op4) ||
              ip4_len < 16'd44 + 16'(xp4);
    s2_bad6 = nt_pkg::win_b16(hdr_i, 54 + 2) != 16'(nt_pkg::RdmaUdpPort) ||
              nt_pkg::win_b16(hdr_i, 54 + 4) != ip6_len || fl6[3:0] != 4'd0 || bad_op(op6) ||
              ip6_len < 16'd24 + 16'(xp6);
    plen4 = ip4_len - 16'd44 - 16'(xp4);
    plen6 = ip6_len - 16'd24 - 16'(xp6);
    // stage 3
    mac_ok = {nt_pkg::win_b32(hdr_i, 0), nt_pkg::win_b16(hdr_i, 4)} == resp_i.mac;
    ip4_ok = resp_i.has_ip4 && nt_pkg::win_b32(hdr_i, 30) == resp_i.ip4;
    ip6_ok = resp_i.has_ip6 && {nt_pkg::win_b64(hdr_i, 38), nt_pkg::win_b64(hdr_i, 46)} == resp_i.ip6;
    // the family's verdicts
    pass1  = is4 ? !s1_drop4 : is6 && !s1_drop6;
    pass2  = pass1 && (is4 ? !s2_bad4 : !s2_bad6);
    pass3  = pass2 && mac_ok && (is4 ? ip4_ok : ip6_ok);
    if (len < 16'd14) drop = 4'(rdma_pkg::DropRunt);
    else if (!is4 && !is6) drop = 4'(rdma_pkg::DropMalformed);
    else if (!pass1) drop = (is4 ? s1_runt4 : s1_runt6) ? 4'(rdma_pkg::DropRunt) : 4'(rdma_pkg::DropMalformed);
    else if (!pass2) drop = 4'(rdma_pkg::DropMalformed);
    else if (!pass3) drop = 4'(rdma_pkg::DropNotForUs);
    else drop = 4'(rdma_pkg::DropNone);
    opcode  = is4 ? op4 : op6;
    l4      = is4 ? 34 : 54;
    bth_qp  = is4 ? nt_pkg::win_b32(hdr_i, 34 + 12) : nt_pkg::win_b32(hdr_i, 54 + 12);
    bth_psn = is4 ? nt_pkg::win_b32(hdr_i, 34 + 16) : nt_pkg::win_b32(hdr_i, 54 + 16);

    q      = '0;
    q.drop = drop;
    q.v6   = !is4 && is6 && len >= 16'd14;
    if (pass1) begin
      q.frame_end = is4 ? 16'(16'd14 + ip4_len) : 16'(16'd54 + ip6_len);
      q.opcode    = opcode;
      q.pad       = is4 ? fl4[5:4] : fl6[5:4];
      q.hdr_len   = 16'(l4 + 20 + ext_len(opcode));
    end
    if (pass2) q.plen = {16'd0, is4 ? plen4 : plen6};
    if (pass3) begin
      q.src_mac = {nt_pkg::win_b32(hdr_i, 6), nt_pkg::win_b16(hdr_i, 10)};
      q.src_ip4 = is4 ? nt_pkg::win_b32(hdr_i, 26) : 32'd0;
      q.src_ip6 = is4 ? 128'd0 : {nt_pkg::win_b64(hdr_i, 22), nt_pkg::win_b64(hdr_i, 30)};
      q.sport   = is4 ? nt_pkg::win_b16(hdr_i, 34) : nt_pkg::win_b16(hdr_i, 54);
      q.dqpn    = bth_qp[23:0];
      q.ackreq  = bth_psn[31];
      q.psn     = bth_psn[23:0];
      unique case (opcode)
        8'h06, 8'h0a, 8'h0b, 8'h0c: begin
          q.va     = is4 ? nt_pkg::win_b64(hdr_i, 34 + 20) : nt_pkg::win_b64(hdr_i, 54 + 20);
          q.rkey   = is4 ? nt_pkg::win_b32(hdr_i, 34 + 28) : nt_pkg::win_b32(hdr_i, 54 + 28);
          q.dmalen = is4 ? nt_pkg::win_b32(hdr_i, 34 + 32) : nt_pkg::win_b32(hdr_i, 54 + 32);
        end
        8'h13, 8'h14: begin
          q.va      = is4 ? nt_pkg::win_b64(hdr_i, 34 + 20) : nt_pkg::win_b64(hdr_i, 54 + 20);
          q.rkey    = is4 ? nt_pkg::win_b32(hdr_i, 34 + 28) : nt_pkg::win_b32(hdr_i, 54 + 28);
          q.swap    = is4 ? nt_pkg::win_b64(hdr_i, 34 + 32) : nt_pkg::win_b64(hdr_i, 54 + 32);
          q.compare = is4 ? nt_pkg::win_b64(hdr_i, 34 + 40) : nt_pkg::win_b64(hdr_i, 54 + 40);
          q.dmalen  = 32'd8;
        end
        default: ;
      endcase
      if (opcode == 8'h03 || opcode == 8'h05 || opcode == 8'h09) q.imm = is4 ? nt_pkg::win_b32(hdr_i, 34 + 20) : nt_pkg::win_b32(hdr_i, 54 + 20);
      if (opcode == 8'h0b) q.imm = is4 ? nt_pkg::win_b32(hdr_i, 34 + 36) : nt_pkg::win_b32(hdr_i, 54 + 36);
    end
  end

  // Header bytes read whole and used in part.
  logic unused_bits;
  assign unused_bits = ^{resp_i.aq_linear, frag[15:14], fl4[7:6], fl6[7:6], bth_qp[31:24], bth_psn[30:24]};

  assign req_o = q;
endmodule
