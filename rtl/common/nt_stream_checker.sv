// Protocol checker for one valid/ready port: every stream port of every block (docs/ARCHITECTURE.md
// "Stream rules") and the blocks' inner valid/ready handshakes. Bound from rtl/<block>/<block>_sva.sv;
// simulation only (empty under SYNTHESIS). Assertions (docs/assertions.md):
//   valid_held   a beat offered and not taken is offered again on the next cycle
//   beat_stable  data, keep and last do not change while the beat waits
//   valid_known  valid has no X/Z bit; beat_known: neither has a valid beat
//   keep_contig  keep is contiguous from byte 0 (keep = 0 only for an empty frame's single beat)  [HasKeep]
//   keep_full    every beat but the last has all bytes                                          [HasKeep, HasLast]
//   pad_zero     bytes outside keep are zero                                                    [HasKeep, PadZero]
//   last_idle    last is low while valid is low                                                 [LastOnlyWithValid]
// Stability only (HasKeep = HasLast = 0) serves handshakes that carry any payload (DataBits wide).
//
// Written for simulation speed (docs/assertions.md "Cost in simulation"): Verilator 5.006 copies every
// variable an assertion reads into a sampled copy on every eval(), and `$stable(x)` keeps a past copy of x
// written every cycle. So the wide checks are computed here into 1-bit results, which are all the assertions
// read: the waiting beat is copied into one register only on a cycle it is offered and not taken, compared
// only on the cycle after, and the pad bytes are checked only on a valid beat that is not full, over 64-bit
// words with a byte mask spread from keep. Each assertion keeps its property (the comments give it).
`include "nt_ports.svh"
module nt_stream_checker #(
  parameter int unsigned KeepBits          = 64,
  parameter int unsigned DataBits          = 8 * KeepBits,
  parameter bit          HasKeep           = 1'b1,
  parameter bit          HasLast           = 1'b1,
  parameter bit          PadZero           = 1'b1,
  parameter bit          LastOnlyWithValid = 1'b0
) (
  `NT_CLK_RST,
  input logic                valid_i,
  input logic                ready_i,
  input logic [DataBits-1:0] data_i,
  input logic [KeepBits-1:0] keep_i,
  input logic                last_i
);
`ifndef SYNTHESIS
`include "nt_assert.svh"
  // held_q: at the last edge a beat was offered and not taken (valid && !ready); beat_q is that beat.
  logic                         held_q;
  logic [DataBits+KeepBits:0]   beat_q;
  logic                         beat_same;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) held_q <= 1'b0;
    else         held_q <= valid_i && !ready_i;
  end
  always_ff @(posedge clk_i) begin
    if (valid_i && !ready_i) beat_q <= {last_i, keep_i, data_i};
  end
  always_comb begin
    beat_same = 1'b1;
    if (held_q) beat_same = {last_i, keep_i, data_i} == beat_q;
  end
  // valid && !ready |=> valid
  `NT_ASSERT(valid_held, held_q |-> valid_i)
  // valid && !ready |=> $stable(data) && $stable(keep) && $stable(last)
  `NT_ASSERT(beat_stable, held_q |-> beat_same)
  `NT_ASSERT_KNOWN(valid_known, valid_i)
  `NT_ASSERT_KNOWN_IF(beat_known, {data_i, keep_i, last_i}, valid_i)
  if (HasKeep) begin : g_keep
    `NT_ASSERT(keep_contig, valid_i |-> (keep_i & (keep_i + KeepBits'(1))) == '0)
    if (HasLast) begin : g_full
      `NT_ASSERT(keep_full, valid_i && !last_i |-> &keep_i)
    end
    if (PadZero && DataBits == 8 * KeepBits) begin : g_pad
      // pad_ok: every byte i with keep[i] = 0 is zero (a full beat has no such byte).
      localparam int unsigned Words = (KeepBits + 7) / 8;  // 64-bit data words, 8 keep bits each
      logic [8*Words-1:0]  keep_w;
      logic [64*Words-1:0] data_w;
      logic [63:0]         spread, stray;
      logic                pad_ok;
      assign keep_w = (8*Words)'(keep_i);
      assign data_w = (64*Words)'(data_i);
      always_comb begin
        pad_ok = 1'b1;
        stray  = '0;
        spread = '0;
        if (valid_i && !(&keep_i)) begin
          for (int unsigned w = 0; w < Words; ++w) begin
            // keep bits b7..b0 -> bytes 0xff/0x00 (bit interleave: 8 bits to the low bit of 8 bytes)
            spread = 64'(keep_w[8*w+:8]);
            spread = (spread | (spread << 28)) & 64'h0000_000F_0000_000F;
            spread = (spread | (spread << 14)) & 64'h0003_0003_0003_0003;
            spread = (spread | (spread << 7))  & 64'h0101_0101_0101_0101;
            stray  = stray | (data_w[64*w+:64] & ~(spread * 64'hff));
          end
          pad_ok = stray == '0;
        end
      end
      // valid |-> the bytes outside keep are zero
      `NT_ASSERT(pad_zero, valid_i |-> pad_ok)
    end
  end
  if (HasLast && LastOnlyWithValid) begin : g_last
    `NT_ASSERT(last_idle, !valid_i |-> !last_i)
  end
`else
  logic unused;
  assign unused = ^{clk_i, rst_ni, valid_i, ready_i, data_i, keep_i, last_i};
`endif
endmodule
