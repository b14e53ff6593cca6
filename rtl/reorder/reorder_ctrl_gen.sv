// Control-packet generator of the reorder block: two request FIFOs (A: RTT_REPLY / NOTIFY / CLEAR from the
// decision stage; B: CLEARs of drained queues, served first) and a builder that turns one request into up
// to three control packets (RTT_REPLY, NOTIFY, CLEAR in that order) on the control stream.
`include "nt_ports.svh"
module reorder_ctrl_gen
(
  `NT_CLK_RST,
  input  logic                  push_a_i,
  input  reorder_pkg::ctrl_req_t             req_a_i,
  input  logic                  push_b_i,
  input  reorder_pkg::ctrl_req_t             req_b_i,
  output logic [3:0]            free_a_o,   // free entries in FIFO A
  output logic                  full_b_o,
  output logic                  busy_o,     // a request or packet is pending
  `NT_STREAM_OUT(c),
  input  logic                  p4_format_i,  // conweave-p4's wire format (reorder_pkg::build_ctrl_body)
  output logic                  sent_o      // the last beat of a control packet left this cycle
);
  localparam int unsigned DepthA = nt_pkg::ReorderCtrlFifo;
  localparam int unsigned DepthB = nt_pkg::ReorderQueues;
  localparam int unsigned AW = $clog2(DepthA);
  localparam int unsigned BW = $clog2(DepthB);

  // The FIFOs as plain words of ctrl_req_t's width: Yosys 0.55 reads an unpacked array of a struct type as ONE
  // element (docs/synthesis.md "One RTL source"), so with `ctrl_req_t a_mem_q [DepthA]` its netlist held one
  // bit per entry and no header at all (branch ring18 found it in the module run's flip-flop count).
  logic [reorder_pkg::CtrlReqBits-1:0] a_mem_q [DepthA];
  logic [reorder_pkg::CtrlReqBits-1:0] b_mem_q [DepthB];
  logic [AW-1:0] a_rd_q;
  logic [AW:0]   a_cnt_q;
  // FIFO A's free entries as a register of their own (DepthA - a_cnt_q, kept beside the count): free_a_o feeds
  // reorder_top's decision (d_fire), and the subtraction on the port was in series with it across the module
  // boundary (stitched 15 levels, session 23); reorder_ctrl_gen_sva free_a_current checks it every cycle
  logic [3:0]    free_a_q;
  logic [BW-1:0] b_rd_q;
  logic [BW:0]   b_cnt_q;

  logic          busy_q;
  reorder_pkg::ctrl_req_t     req_q;
  logic          beat_q;
  logic [nt_pkg::WindowBits-1:0] frame_q;  // the packet without its check fields (build_ctrl_body)
  logic [7:0]    len_q;
  logic [31:0]   cs_q;     // its IPv4 header checksum as a carry-save pair (ctrl_csum_pair), added at emit
  logic [31:0]   part_q;   // the ICRC register after beat 0 (ctrl_icrc_part0), for beat 1 of an IPv6 packet
  logic          c_valid_q;
  logic [nt_pkg::StreamBits-1:0] c_data_q;
  logic [nt_pkg::StreamBytes-1:0] c_keep_q;
  logic          c_last_q;

  logic          adv, pop_a, pop_b, emit, emit_last, load, next_pkt;
  logic [nt_pkg::StreamBits-1:0] emit_data;
  logic [nt_pkg::StreamBytes-1:0] emit_keep;
  logic [2:0]    rem;
  logic [7:0]    n;        // bytes of the packet from this beat on (len_q - 64 in beat 1; 8-bit wrap as below)
  reorder_pkg::ctrl_req_t     load_req;
  reorder_pkg::ctrl_req_t     next_req;  // req_q with the request bit just served cleared
  logic [nt_pkg::WindowBits+7:0] built;  // {len, frame} of the packet loaded next (when load or next_pkt)
  logic [31:0]   built_cs;                // ctrl_csum_pair of built
  logic [31:0]   part0;                   // ctrl_icrc_part0 of frame_q's beat 0 (IPv6)
  logic [15:0]   csum;                    // the IPv4 header checksum of frame_q
  logic [31:0]   icrc4, icrc6;            // the ICRC of frame_q if IPv4 (bytes 58..61), IPv6 (78..81)

  assign free_a_o = free_a_q;
  assign full_b_o = b_cnt_q == (BW + 1)'(DepthB);
  assign busy_o = busy_q || a_cnt_q != '0 || b_cnt_q != '0 || c_valid_q;
  assign c_valid_o = c_valid_q;
  assign c_data_o = c_data_q;
  assign c_keep_o = c_keep_q;
  assign c_last_o = c_last_q;
  assign sent_o = c_valid_q && c_ready_i && c_last_q;

  // The packet for the lowest request bit: op, and the epoch (the header's, or the flow's for a CLEAR).
  // build_ctrl_body is called once per family with the family a constant, so every byte position and
  // length in it is a constant and each family's packet is plain wiring of the header plus byte 8 and the
  // lengths; the family chooses after both (issue 27 depth: with the family a signal, its positions were
  // shifters on the path from the FIFOs to frame_q).
  function automatic logic [nt_pkg::WindowBits+7:0] build(reorder_pkg::ctrl_req_t r);
    logic [2:0] op;
    logic [1:0] ep;
    if (r.mask[reorder_pkg::MaskReply]) begin
      op = reorder_pkg::CwRttReply;
      ep = r.v6 ? r.hdr[8*70+2+:2] : r.hdr[8*50+2+:2];  // BTH byte 8 (54 / 34 + 16)
    end else if (r.mask[reorder_pkg::MaskNotify]) begin
      op = reorder_pkg::CwNotify;
      ep = r.v6 ? r.hdr[8*70+2+:2] : r.hdr[8*50+2+:2];
    end else begin
      op = reorder_pkg::CwClear;
      ep = r.clear_epoch;
    end
    build = r.v6 ? reorder_pkg::build_ctrl_body(r.hdr, 1'b1, op, ep, p4_format_i)
                 : reorder_pkg::build_ctrl_body(r.hdr, 1'b0, op, ep, p4_format_i);
  endfunction

  // The IPv4 header checksum's sum of a packet f from build_ctrl_body (checksum field 0): its nine other 16-bit
  // words reduced to a pair by four carry-save levels (nt_csum_pkg::csa3, one LUT each, no carry chain),
  // registered with the packet; ~ones_add of the pair at emit is the checksum. The same value as the chain
  // s = 0, s = ones_add(s, word) over the nine words: both are the words' sum modulo 0xffff in 1..0xffff,
  // or 0 only when every word is 0 (csa3 keeps that apart). For IPv6 the value is not used.
  function automatic logic [31:0] ctrl_csum_pair(logic [nt_pkg::WindowBits-1:0] f);
    logic [16*9-1:0] w;
    logic [31:0] p1, p2, p3, p4, p5, p6, p7;
    for (int unsigned i = 0; i < 10; i++) begin
      if (i < 5) w[16*i+:16] = {f[8*(14+2*i)+:8], f[8*(15+2*i)+:8]};
      else if (i > 5) w[16*(i-1)+:16] = {f[8*(14+2*i)+:8], f[8*(15+2*i)+:8]};
    end
    p1 = nt_csum_pkg::csa3(w[0+:16], w[16+:16], w[32+:16]);
    p2 = nt_csum_pkg::csa3(w[48+:16], w[64+:16], w[80+:16]);
    p3 = nt_csum_pkg::csa3(w[96+:16], w[112+:16], w[128+:16]);
    p4 = nt_csum_pkg::csa3(p1[31:16], p1[15:0], p2[31:16]);
    p5 = nt_csum_pkg::csa3(p2[15:0], p3[31:16], p3[15:0]);
    p6 = nt_csum_pkg::csa3(p4[31:16], p4[15:0], p5[31:16]);
    p7 = nt_csum_pkg::csa3(p6[31:16], p6[15:0], p5[15:0]);
    ctrl_csum_pair = p7;
  endfunction

  // The ICRC (rdma_pkg::icrc_beat's formula, docs/rdma-microarchitecture.md "ICRC as GF(2) matrices") of a
  // packet from build_ctrl_body, beat by beat: its bytes 14 .. cw_end - 1 (cw_end 58 or 78), masked fields as
  // ones. IPv4 (bytes 14..57, one beat): ctrl_icrc4 below. IPv6: ctrl_icrc_part0 is the register after beat
  // 0's bytes 14..63 from the seed, CrcData x z0 ^ CrcHead x seed (the second term a constant), registered at
  // beat 0's emit (part_q); in beat 1 it moves over the beat (CrcBeat), beat 1's bytes 64..77 join it, and
  // Take(50) takes back the 50 bytes from 78 on (0 in the packet): ctrl_icrc6. The matrices are nt_crc_pkg's
  // and rdma_crc_pkg's generated tables (products of them where two were applied in series), where
  // rdma_pkg::icrc_frame's per-family calls made Yosys's frontend slow. part0 is used for IPv6 only (an IPv4
  // packet has no beat 1), so its masked bytes are IPv6's.
  function automatic logic [31:0] ctrl_icrc_part0(logic [nt_pkg::StreamBits-1:0] d);
    logic [nt_pkg::StreamBits-1:0] z;
    z = '0;
    for (int unsigned i = rdma_crc_pkg::CrcIcrcLo; i < nt_pkg::StreamBytes; i++) z[8*i+:8] = rdma_pkg::icrc_masked(i, d[8*i+:8], 1'b1);
    ctrl_icrc_part0 = nt_pkg::crc32_data(nt_crc_pkg::CrcData, z) ^
                      nt_pkg::crc32_mat(rdma_crc_pkg::CrcHead, rdma_pkg::icrc_seed());
  endfunction

  // The ICRC of an IPv4 packet (one beat) from beat 0 in one product: ~(Take(6) x CrcData x z0 ^ Take(6) x CrcHead x
  // seed), Take(6) x CrcData generated as one matrix (rdma_crc_pkg::CrcTakeData6), so each bit is one XOR over
  // the beat (issue 27 depth: Take(6) applied to part0 put a second XOR tree behind the first in the emit
  // cycle, 15 levels). The masked bytes are IPv4's: the value is used only for an IPv4 packet.
  function automatic logic [31:0] ctrl_icrc4(logic [nt_pkg::StreamBits-1:0] d);
    logic [nt_pkg::StreamBits-1:0] z;
    z = '0;
    for (int unsigned i = rdma_crc_pkg::CrcIcrcLo; i < nt_pkg::StreamBytes; i++) z[8*i+:8] = rdma_pkg::icrc_masked(i, d[8*i+:8], 1'b0);
    ctrl_icrc4 = ~(nt_pkg::crc32_data(rdma_crc_pkg::CrcTakeData6, z) ^
                   nt_pkg::crc32_mat(rdma_crc_pkg::CrcTake[32*32*6+:32*32],
                                     nt_pkg::crc32_mat(rdma_crc_pkg::CrcHead, rdma_pkg::icrc_seed())));
  endfunction

  // Beat 1 of an IPv6 packet (frame bytes 64..77, byte 66 masked) onto the register after beat 0: the ICRC,
  // ~Take(50) x (CrcData x z1 ^ CrcBeat x part), as two generated products (CrcTakeData50, CrcTakeBeat50) so
  // each bit is one XOR over z1's 112 bits and part's 32.
  function automatic logic [31:0] ctrl_icrc6(logic [nt_pkg::StreamBits-1:0] d, logic [31:0] part);
    logic [nt_pkg::StreamBits-1:0] z;
    z = '0;
    for (int unsigned i = 0; i < 14; i++) z[8*i+:8] = rdma_pkg::icrc_masked(nt_pkg::StreamBytes + i, d[8*i+:8], 1'b1);
    ctrl_icrc6 = ~(nt_pkg::crc32_data(rdma_crc_pkg::CrcTakeData50, z) ^
                   nt_pkg::crc32_mat(rdma_crc_pkg::CrcTakeBeat50, part));
  endfunction

  always_comb begin
    adv = !c_valid_q || c_ready_i;
    pop_a = 1'b0;
    pop_b = 1'b0;
    emit = 1'b0;
    emit_last = 1'b0;
    emit_data = '0;
    emit_keep = '0;
    load = 1'b0;
    next_pkt = 1'b0;
    rem = req_q.mask & (req_q.mask - 3'd1);
    next_req = req_q;
    next_req.mask = rem;
    load_req = b_cnt_q != '0 ? b_mem_q[b_rd_q] : a_mem_q[a_rd_q];
    // len_q - 64 in beat 1 as an 8-bit difference: the packet is 62 or 82 bytes (beat 1 only when
    // len_q > 64), and where len_q < base the wrapped value (>= 192) still reads as "more than 64", as the
    // 32-bit difference did; so the keep mask and the last flag are those of min(len_q - base, 64) as before
    n = beat_q ? len_q - 8'(nt_pkg::StreamBytes) : len_q;
    // the check fields of the beat that leaves: the header checksum and the ICRC in beat 0 (IPv4: the packet
    // is 62 bytes, one beat), the ICRC in beat 1 (IPv6, 82 bytes)
    csum = ~reorder_pkg::ones_add(cs_q[31:16], cs_q[15:0]);
    part0 = ctrl_icrc_part0(frame_q[nt_pkg::StreamBits-1:0]);
    icrc4 = ctrl_icrc4(frame_q[nt_pkg::StreamBits-1:0]);
    icrc6 = ctrl_icrc6(frame_q[nt_pkg::WindowBits-1:nt_pkg::StreamBits], part_q);
    if (adv) begin
      if (busy_q) begin
        emit = 1'b1;
        emit_data = beat_q ? frame_q[nt_pkg::WindowBits-1:nt_pkg::StreamBits] : frame_q[nt_pkg::StreamBits-1:0];
        if (beat_q) begin
          emit_data[8*14+:32] = icrc6;  // bytes 78..81
        end else if (!req_q.v6) begin
          {emit_data[8*24+:8], emit_data[8*25+:8]} = csum;
          emit_data[8*58+:32] = icrc4;
        end
        emit_keep = reorder_pkg::keep_mask(n > 8'(nt_pkg::StreamBytes) ? nt_pkg::StreamBytes : 32'(n));
        emit_last = n <= 8'(nt_pkg::StreamBytes);
        if (emit_last && rem != 3'd0) next_pkt = 1'b1;
      end else if (b_cnt_q != '0 || a_cnt_q != '0) begin
        pop_b = b_cnt_q != '0;
        pop_a = !pop_b;
        load = 1'b1;
      end
    end
    // Built here rather than in the always_ff: Yosys 0.55 rejects a function's temporaries in a process with
    // an asynchronous reset (docs/synthesis.md). One builder: load and next_pkt never hold together. Only
    // when one of them holds (the only cycles the always_ff uses it), so that a simulator does not build a
    // packet every cycle (that doubled reorder_bench's RTL time).
    built = '0;
    // load only when idle, next_pkt only when busy: the choice by busy_q, a register (was load, which
    // waits for the FIFO counts and c_ready_i)
    if (load || next_pkt) built = build(busy_q ? next_req : load_req);
    built_cs = ctrl_csum_pair(built[nt_pkg::WindowBits-1:0]);
  end

  // The FIFOs' entries (no reset: an entry is read only after it was written).
  always_ff @(posedge clk_i) begin
    if (push_a_i) a_mem_q[a_rd_q + AW'(a_cnt_q)] <= req_a_i;
    if (push_b_i) b_mem_q[b_rd_q + BW'(b_cnt_q)] <= req_b_i;
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      a_rd_q <= '0;
      a_cnt_q <= '0;
      free_a_q <= 4'(DepthA);
      b_rd_q <= '0;
      b_cnt_q <= '0;
      busy_q <= 1'b0;
      req_q <= '0;
      beat_q <= 1'b0;
      frame_q <= '0;
      len_q <= '0;
      cs_q <= '0;
      part_q <= '0;
      c_valid_q <= 1'b0;
      c_data_q <= '0;
      c_keep_q <= '0;
      c_last_q <= 1'b0;
    end else begin
      a_cnt_q <= a_cnt_q + (AW + 1)'(push_a_i) - (AW + 1)'(pop_a);
      free_a_q <= free_a_q - 4'(push_a_i) + 4'(pop_a);
      b_cnt_q <= b_cnt_q + (BW + 1)'(push_b_i) - (BW + 1)'(pop_b);
      if (pop_a) a_rd_q <= a_rd_q + 1'b1;
      if (pop_b) b_rd_q <= b_rd_q + 1'b1;
      if (adv) begin
        c_valid_q <= emit;
        c_data_q <= emit_data;
        c_keep_q <= emit_keep;
        c_last_q <= emit_last;
      end
      if (load) begin
        busy_q <= 1'b1;
        req_q <= load_req;
        beat_q <= 1'b0;
        {len_q, frame_q} <= built;
        cs_q <= built_cs;
      end else if (emit) begin
        if (!emit_last) begin
          beat_q <= 1'b1;
          part_q <= part0;
        end else if (next_pkt) begin
          req_q.mask <= rem;
          beat_q <= 1'b0;
          {len_q, frame_q} <= built;
          cs_q <= built_cs;
        end else begin
          busy_q <= 1'b0;
        end
      end
    end
  end

endmodule
