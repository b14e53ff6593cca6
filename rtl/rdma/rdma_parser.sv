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

  // The extension headers' length in 4-byte units (every length in ext_len is a multiple of 4), so that
  // ext_len + pad = {ext_q, pad} (at most 28 + 3 = 31) with no adder.
  function automatic logic [2:0] ext_q(logic [7:0] opcode);
    ext_q = 3'(ext_len(opcode) / 4);
  endfunction

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

  // Whether a + b == c (17 bits): a + b + ~c (carry-save: s, k) is all ones exactly when a + b == c, and a sum
  // s + k is all ones exactly when s ^ k is (no carry anywhere); so no carry chain, one level and an AND tree.
  function automatic logic add_eq(logic [16:0] a, logic [16:0] b, logic [16:0] c);
    logic [16:0] y, s, k;
    y = ~c;
    s = a ^ b ^ y;
    k = ((a & b) | (a & y) | (b & y)) << 1;
    add_eq = &(s ^ k);
  endfunction

  // a - b - n (16 bits, n a constant) as one carry chain: the carry-save sum of a, ~b and 1 - n.
  function automatic logic [15:0] sub2(logic [15:0] a, logic [15:0] b, logic [15:0] n);
    logic [15:0] y, c, s, k;
    y = ~b;
    c = 16'd1 - n;
    s = a ^ y ^ c;
    k = ((a & y) | (a & c) | (y & c)) << 1;
    sub2 = s + k;
  endfunction

  // Whether a + ~b + c (17 bits, c a constant) is negative, i.e. a - b - 1 + c < 0 (c = 1 - n: a < b + n), for
  // the a, b where that difference fits 17 bits. One carry-save level, then the carry into the sign bit from a
  // parallel prefix (Kogge-Stone) written as logic, not an adder: ABC sees the whole path and balances it with
  // what follows (a carry chain's output is a fresh input to ABC, so the logic behind it was mapped as if it
  // started at level 0; issue 27).
  function automatic logic lt_sum(logic [15:0] a, logic [15:0] b, logic [16:0] c);
    logic [16:0] x, y, s, k;
    logic [15:0] g, p;
    x = {1'b0, a};
    y = ~{1'b0, b};
    s = x ^ y ^ c;
    k = ((x & y) | (x & c) | (y & c)) << 1;
    g = s[15:0] & k[15:0];
    p = s[15:0] | k[15:0];
    for (int l = 0; l < 4; l++) begin
      for (int i = 15; i >= (1 << l); i--) begin
        g[i] = g[i] | (p[i] & g[i - (1 << l)]);
        p[i] = p[i] & p[i - (1 << l)];
      end
    end
    lt_sum = s[16] ^ k[16] ^ g[15];  // the sum's sign bit: the carry into bit 16 is g[15]
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
  logic        short4, short6, ver4, ver6, lt4, lt6, oth4, oth6, runt;
  logic [3:0]  d4_1, d4_0, d6_1, d6_0;  // the drop reason per family, lt term set / clear
  logic        e1_4, e1_6, e2_4, e2_6, e3_4, e3_6;
  // stage 2: UDP and BTH, per family
  logic [7:0]  op4, op6, fl4, fl6;
  logic [4:0]  xp4, xp6;      // ext_len + pad = {ext_q, pad}
  logic [31:0] sh4, sh6;      // sh4[x]: ip4_len < 44 + x; sh6[x]: ip6_len < 24 + x (x = ext_len + pad)
  logic        s2_bad4, s2_bad6;
  logic [15:0] plen4, plen6;
  // stage 3: for us
  logic        mac_ok, ip4_ok, ip6_ok;
  logic        pass1, pass2, pass3;
  logic [3:0]  drop;
  logic [7:0]  opcode;
  logic [31:0] bth_qp, bth_psn;

  function automatic logic bad_op(logic [7:0] op);
    bad_op = !lt_c({8'd0, op}, 16'h15) && op != 8'h81;
  endfunction

  // A family's drop reason when its lt term (len < n + ip_len) is set: a runt if the frame is short or the
  // version right (then the length is what failed), else malformed.
  function automatic logic [3:0] drop_lt(logic short_len, logic ver_ok);
    drop_lt = (short_len || ver_ok) ? 4'(rdma_pkg::DropRunt) : 4'(rdma_pkg::DropMalformed);
  endfunction
  // ... and when it is clear: stage 1's runt or malformed, stage 2 malformed, stage 3 not for us, else none.
  function automatic logic [3:0] drop_no_lt(logic short_len, logic bad, logic for_us);
    drop_no_lt = short_len ? 4'(rdma_pkg::DropRunt) : bad ? 4'(rdma_pkg::DropMalformed) :
                 !for_us ? 4'(rdma_pkg::DropNotForUs) : 4'(rdma_pkg::DropNone);
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
    // stage 1 (a runt first: len < 14, then the family's own order); lt4 / lt6 (len < 14 / 54 + ip_len) are the
    // deepest terms, so every verdict below takes them last, beside terms that do not depend on them
    short4 = lt_c(len, 16'd34);
    short6 = lt_c(len, 16'd54);
    ver4   = ver == 8'h45;
    ver6   = ver[7:4] == 4'd6;
    lt4    = lt_sum(len, ip4_len, 17'h1fff3);  // len < 14 + ip_len
    lt6    = lt_sum(len, ip6_len, 17'h1ffcb);  // len < 54 + ip_len
    oth4   = !ver4 || lt_c(ip4_len, 16'd44) || frag[13:0] != '0 || nt_pkg::win_b8(hdr_i, 23) != 8'd17;
    oth6   = !ver6 || nt_pkg::win_b8(hdr_i, 20) != 8'd17 || lt_c(ip6_len, 16'd24);
    // stage 2: UDP port and length, BTH flags and opcode, data length >= pad
    op4   = nt_pkg::win_b8(hdr_i, 34 + 8);
    op6   = nt_pkg::win_b8(hdr_i, 54 + 8);
    fl4   = nt_pkg::win_b8(hdr_i, 34 + 9);
    fl6   = nt_pkg::win_b8(hdr_i, 54 + 9);
    xp4   = {ext_q(op4), fl4[5:4]};
    xp6   = {ext_q(op6), fl6[5:4]};
    // the least IP length of each ext + pad compared at once, the opcode and pad choosing one result
    for (int x = 0; x < 32; x++) begin
      sh4[x] = lt_c(ip4_len, 16'(44 + x));
      sh6[x] = lt_c(ip6_len, 16'(24 + x));
    end
    s2_bad4 = nt_pkg::win_b16(hdr_i, 34 + 2) != 16'(nt_pkg::RdmaUdpPort) ||
              !add_eq(17'(nt_pkg::win_b16(hdr_i, 34 + 4)), 17'd20, 17'(ip4_len)) || fl4[3:0] != 4'd0 ||
              bad_op(op4) || sh4[xp4];
    s2_bad6 = nt_pkg::win_b16(hdr_i, 54 + 2) != 16'(nt_pkg::RdmaUdpPort) ||
              nt_pkg::win_b16(hdr_i, 54 + 4) != ip6_len || fl6[3:0] != 4'd0 || bad_op(op6) ||
              sh6[xp6];
    plen4 = sub2(ip4_len, 16'(xp4), 16'd44);
    plen6 = sub2(ip6_len, 16'(xp6), 16'd24);
    // stage 3
    mac_ok = {nt_pkg::win_b32(hdr_i, 0), nt_pkg::win_b16(hdr_i, 4)} == resp_i.mac;
    ip4_ok = resp_i.has_ip4 && nt_pkg::win_b32(hdr_i, 30) == resp_i.ip4;
    ip6_ok = resp_i.has_ip6 && {nt_pkg::win_b64(hdr_i, 38), nt_pkg::win_b64(hdr_i, 46)} == resp_i.ip6;
    // the family's verdicts: e<n>_<f> is stage n's verdict for family f without its lt term (which only drops)
    e1_4   = is4 && !short4 && !oth4;
    e1_6   = !is4 && is6 && !short6 && !oth6;
    e2_4   = e1_4 && !s2_bad4;
    e2_6   = e1_6 && !s2_bad6;
    e3_4   = e2_4 && mac_ok && ip4_ok;
    e3_6   = e2_6 && mac_ok && ip6_ok;
    pass1  = (e1_4 && !lt4) || (e1_6 && !lt6);
    pass2  = (e2_4 && !lt4) || (e2_6 && !lt6);
    pass3  = (e3_4 && !lt4) || (e3_6 && !lt6);
    // the drop reason for each family and each value of its lt term (runt first, then malformed, then the family's
    // order: stage 1's runt or malformed, stage 2 malformed, stage 3 not for us), chosen last by is4 and lt
    runt = lt_c(len, 16'd14);
    if (runt) begin
      d4_1 = 4'(rdma_pkg::DropRunt);
      d4_0 = 4'(rdma_pkg::DropRunt);
      d6_1 = 4'(rdma_pkg::DropRunt);
      d6_0 = 4'(rdma_pkg::DropRunt);
    end else begin
      d4_1 = drop_lt(short4, ver4);
      d4_0 = drop_no_lt(short4, oth4 || s2_bad4, mac_ok && ip4_ok);
      if (!is6) begin  // and not is4 either where these are read
        d6_1 = 4'(rdma_pkg::DropMalformed);
        d6_0 = 4'(rdma_pkg::DropMalformed);
      end else begin
        d6_1 = drop_lt(short6, ver6);
        d6_0 = drop_no_lt(short6, oth6 || s2_bad6, mac_ok && ip6_ok);
      end
    end
    drop = is4 ? (lt4 ? d4_1 : d4_0) : (lt6 ? d6_1 : d6_0);
    opcode  = is4 ? op4 : op6;
    bth_qp  = is4 ? nt_pkg::win_b32(hdr_i, 34 + 12) : nt_pkg::win_b32(hdr_i, 54 + 12);
    bth_psn = is4 ? nt_pkg::win_b32(hdr_i, 34 + 16) : nt_pkg::win_b32(hdr_i, 54 + 16);

    q      = '0;
    q.drop = drop;
    q.v6   = !is4 && is6 && !lt_c(len, 16'd14);
    if (pass1) begin
      q.frame_end = is4 ? 16'(16'd14 + ip4_len) : 16'(16'd54 + ip6_len);
      q.opcode    = opcode;
      q.pad       = is4 ? fl4[5:4] : fl6[5:4];
      q.hdr_len   = is4 ? 16'(54 + ext_len(op4)) : 16'(74 + ext_len(op6));  // l4 + BTH (20) + ext
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
