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
  input logic [3:0] ctl_state_o
);
`include "nt_assert.svh"
  `NT_ASSERT_KNOWN(outputs_known, {req_cpl_valid_o, busy_o})
  // the controller's FSM is in one of its 13 states (ctl_state_e, 4 bits)
  `NT_ASSERT(ctl_state_legal, ctl_state_o <= naa_pkg::CtlKWait)
endmodule

bind naa_top naa_top_sva u_sva (.clk_i, .rst_ni, .req_cpl_valid_o, .busy_o, .ctl_state_o);
`endif  // SYNTHESIS
