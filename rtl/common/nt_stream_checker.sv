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
module nt_stream_checker #(
  parameter int unsigned KeepBits          = 64,
  parameter int unsigned DataBits          = 8 * KeepBits,
  parameter bit          HasKeep           = 1'b1,
  parameter bit          HasLast           = 1'b1,
  parameter bit          PadZero           = 1'b1,
  parameter bit          LastOnlyWithValid = 1'b0
) (
  input logic                clk_i,
  input logic                rst_ni,
  input logic                valid_i,
  input logic                ready_i,
  input logic [DataBits-1:0] data_i,
  input logic [KeepBits-1:0] keep_i,
  input logic                last_i
);
`ifndef SYNTHESIS
`include "nt_assert.svh"
  `NT_ASSERT(valid_held, valid_i && !ready_i |=> valid_i)
  `NT_ASSERT(beat_stable, valid_i && !ready_i |=> $stable(data_i) && $stable(keep_i) && $stable(last_i))
  `NT_ASSERT_KNOWN(valid_known, valid_i)
  `NT_ASSERT_KNOWN_IF(beat_known, {data_i, keep_i, last_i}, valid_i)
  if (HasKeep) begin : g_keep
    `NT_ASSERT(keep_contig, valid_i |-> (keep_i & (keep_i + KeepBits'(1))) == '0)
    if (HasLast) begin : g_full
      `NT_ASSERT(keep_full, valid_i && !last_i |-> &keep_i)
    end
    if (PadZero && DataBits == 8 * KeepBits) begin : g_pad
      logic [DataBits-1:0] pad;
      always_comb begin
        for (int unsigned i = 0; i < KeepBits; ++i) pad[8*i+:8] = keep_i[i] ? 8'h00 : data_i[8*i+:8];
      end
      `NT_ASSERT(pad_zero, valid_i |-> pad == '0)
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
