// Parses a buffered request's headers (first two beats) into request_t: structure first (runt, malformed),
// then whether it is for this responder (docs/rdma.md "Request processing"). Mirrors ParseRequest().
// What depends on the first beat alone comes in computed and registered (pre_i, rdma_parse_pre, at the
// first beat's arrival; branch rv17): here the frame-length terms, the responder compares, the verdicts and
// the fields (docs/rdma-microarchitecture.md "Parser depth").
module rdma_parser
(
  input  logic [8*rdma_pkg::HdrWindow-1:0] hdr_i,
  input  logic [15:0]                      frame_len_i,
  input  rdma_pkg::responder_t             resp_i,
  input  rdma_pkg::pre_t                   pre_i,   // rdma_parse_pre of hdr_i's first beat
  output rdma_pkg::request_t               req_o
);

  // a < b (a 16 bits, b 17) as a parallel prefix written as logic, not a carry chain (ABC balances it with
  // the verdicts that follow): per bit, a < b decided here (g) or equal so far (e), combined from the top.
  function automatic logic lt_v(logic [15:0] a, logic [16:0] b);
    logic [15:0] g, e;
    g = ~a & b[15:0];
    e = ~(a ^ b[15:0]);
    for (int l = 0; l < 4; l++) begin
      for (int i = 0; i + (1 << l) < 16; i += (2 << l)) begin
        // the span starting at i (2^l bits) under the one above it (i + 2^l, 2^l bits), kept at index i
        g[i] = g[i + (1 << l)] | (e[i + (1 << l)] & g[i]);
        e[i] = e[i + (1 << l)] & e[i];
      end
    end
    lt_v = b[16] | g[0];
  endfunction

  // A family's drop reason when its lt term (len < frame_end) is set: a runt if the frame is short or the
  // version right (then the length is what failed), else malformed.
  function automatic logic [3:0] drop_lt(logic short_len, logic ver_ok);
    drop_lt = (short_len || ver_ok) ? 4'(rdma_pkg::DropRunt) : 4'(rdma_pkg::DropMalformed);
  endfunction
  // ... and when it is clear: stage 1's runt or malformed, stage 2 malformed, stage 3 not for us, else none.
  function automatic logic [3:0] drop_no_lt(logic short_len, logic bad, logic for_us);
    drop_no_lt = short_len ? 4'(rdma_pkg::DropRunt) : bad ? 4'(rdma_pkg::DropMalformed) :
                 !for_us ? 4'(rdma_pkg::DropNotForUs) : 4'(rdma_pkg::DropNone);
  endfunction

  // The family (pre_i.is4, else pre_i.is6) chose every term of pre_i; the frame-length terms and the
  // responder compares are chosen here by the same family. lt (len < 14 / 54 + ip_len) is the deepest term,
  // so every verdict takes it last, beside terms that do not depend on it.
  rdma_pkg::request_t q;
  logic [15:0] len;
  logic        is4, fam, runt, short_len, lt, mac_ok, ip_ok;
  logic        e1, e2, e3, pass1, pass2, pass3;
  logic [3:0]  drop;
  logic [31:0] bth_qp, bth_psn;

  always_comb begin
    len       = frame_len_i;
    is4       = pre_i.is4;
    fam       = pre_i.is4 || pre_i.is6;
    runt      = rdma_pkg::lt_c(len, 16'd14);
    short_len = is4 ? rdma_pkg::lt_c(len, 16'd34) : rdma_pkg::lt_c(len, 16'd54);
    lt        = lt_v(len, pre_i.frame_end);
    mac_ok    = {nt_pkg::win_b32(hdr_i, 0), nt_pkg::win_b16(hdr_i, 4)} == resp_i.mac;
    ip_ok     = is4 ? resp_i.has_ip4 && nt_pkg::win_b32(hdr_i, 30) == resp_i.ip4
                    : resp_i.has_ip6 && {nt_pkg::win_b64(hdr_i, 38), nt_pkg::win_b64(hdr_i, 46)} == resp_i.ip6;
    // e<n>: stage n's verdict without the lt term (which only drops)
    e1    = fam && !short_len && !pre_i.oth;
    e2    = e1 && !pre_i.s2_bad;
    e3    = e2 && mac_ok && ip_ok;
    pass1 = e1 && !lt;
    pass2 = e2 && !lt;
    pass3 = e3 && !lt;
    // the drop reason: a runt first, then neither family malformed, then the family's order with lt last
    if (runt) drop = 4'(rdma_pkg::DropRunt);
    else if (!fam) drop = 4'(rdma_pkg::DropMalformed);
    else drop = lt ? drop_lt(short_len, pre_i.ver_ok)
                   : drop_no_lt(short_len, pre_i.oth || pre_i.s2_bad, mac_ok && ip_ok);
    bth_qp  = is4 ? nt_pkg::win_b32(hdr_i, 34 + 12) : nt_pkg::win_b32(hdr_i, 54 + 12);
    bth_psn = is4 ? nt_pkg::win_b32(hdr_i, 34 + 16) : nt_pkg::win_b32(hdr_i, 54 + 16);

    q      = '0;
    q.drop = drop;
    q.v6   = pre_i.is6 && !runt;
    if (pass1) begin
      q.frame_end = pre_i.frame_end[15:0];
      q.opcode    = pre_i.opcode;
      q.pad       = pre_i.pad;
      q.hdr_len   = pre_i.hdr_len;
    end
    if (pass2) q.plen = {16'd0, pre_i.plen};
    if (pass3) begin
      q.src_mac = {nt_pkg::win_b32(hdr_i, 6), nt_pkg::win_b16(hdr_i, 10)};
      q.src_ip4 = is4 ? nt_pkg::win_b32(hdr_i, 26) : 32'd0;
      q.src_ip6 = is4 ? 128'd0 : {nt_pkg::win_b64(hdr_i, 22), nt_pkg::win_b64(hdr_i, 30)};
      q.sport   = is4 ? nt_pkg::win_b16(hdr_i, 34) : nt_pkg::win_b16(hdr_i, 54);
      q.dqpn    = bth_qp[23:0];
      q.ackreq  = bth_psn[31];
      q.psn     = bth_psn[23:0];
      unique case (pre_i.opcode)
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
      if (pre_i.opcode == 8'h03 || pre_i.opcode == 8'h05 || pre_i.opcode == 8'h09) begin
        q.imm = is4 ? nt_pkg::win_b32(hdr_i, 34 + 20) : nt_pkg::win_b32(hdr_i, 54 + 20);
      end
      if (pre_i.opcode == 8'h0b) q.imm = is4 ? nt_pkg::win_b32(hdr_i, 34 + 36) : nt_pkg::win_b32(hdr_i, 54 + 36);
    end
  end

  // Header bytes read whole and used in part.
  logic unused_bits;
  assign unused_bits = ^{resp_i.aq_linear, bth_qp[31:24], bth_psn[30:24]};

  assign req_o = q;
endmodule
