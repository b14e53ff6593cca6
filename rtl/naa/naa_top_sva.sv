// naa_top's own assertions (docs/assertions.md); its stream ports are checked by
// rtl/common/nt_stream_ports_sva.sv, its DMA request port by rtl/rdma/rdma_dma_req_sva.sv, the responder
// inside it by rdma_top's. Bound by the `bind` at the end of this file, so the RTL itself is not edited.
// Simulation only: empty under SYNTHESIS.
`ifndef SYNTHESIS  // the whole file: assertions are simulation only
`include "nt_ports.svh"
module naa_top_sva (
  `NT_CLK_RST,
  input logic       req_cpl_valid_o,
  input logic       busy_o,
  input logic [3:0] ctl_state_o,
  // the responder's idle test (naa_top's carry-save form) and the counters it reads
  input logic       rdma_idle,
  input logic [31:0] cnt_processed_o,
  input logic [31:0] cnt_packets_in_o,
  input logic [rdma_pkg::NumDrops*32-1:0] cnt_drops_o
);
`include "nt_assert.svh"
  `NT_ASSERT_KNOWN(outputs_known, {req_cpl_valid_o, busy_o})
  // the controller's FSM is in one of its 13 states (ctl_state_e, 4 bits)
  `NT_ASSERT(ctl_state_legal, ctl_state_o <= naa_pkg::CtlKWait)
  // rdma_idle (a carry-save tree and a bitwise test) is the chain of adds it replaces, every cycle
  logic [31:0] rd_done;
  always_comb begin
    rd_done = cnt_processed_o;
    for (int unsigned i = 0; i < rdma_pkg::NumDrops; i++) rd_done = rd_done + cnt_drops_o[32*i+:32];
  end
  `NT_ASSERT(rdma_idle_sum, rdma_idle == (!busy_o && rd_done == cnt_packets_in_o))
endmodule

bind naa_top naa_top_sva u_sva (.clk_i, .rst_ni, .req_cpl_valid_o, .busy_o, .ctl_state_o, .rdma_idle,
                                .cnt_processed_o, .cnt_packets_in_o, .cnt_drops_o);
`endif  // SYNTHESIS
