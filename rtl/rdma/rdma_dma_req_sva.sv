// The host DMA request port of rdma_top and naa_top (docs/assertions.md): a request, once offered, stays
// offered until the host takes it. Bound onto both tops by the `bind`s at the end of this file (naa's builds
// include the responder's files). Simulation only: empty under SYNTHESIS.
// The payload is stable too (AXI4 A3.2.1): rdma_top holds a request offered and not taken (its hold_q
// register) and naa_dma_arb keeps the grant of such a request (lock_q); until both did, this rule was waived
// (docs/assertions.md "Findings").
`ifndef SYNTHESIS  // the whole file: assertions are simulation only
`include "nt_ports.svh"
module rdma_dma_req_sva (
  `NT_CLK_RST,
  `NT_DMA_REQ_MON(dma),
  input logic                           cqe_valid_o
);
`include "nt_assert.svh"
  `NT_ASSERT(req_valid_held, dma_req_valid_o && !dma_req_ready_i |=> dma_req_valid_o)
  `NT_ASSERT_KNOWN(req_valid_known, dma_req_valid_o)
  `NT_ASSERT(req_stable, dma_req_valid_o && !dma_req_ready_i |=> $stable({dma_req_write_o, dma_req_addr_o,
             dma_req_len_o, dma_req_off_o, dma_req_data_o}))
  `NT_ASSERT_KNOWN(cqe_valid_known, cqe_valid_o)
endmodule

bind rdma_top rdma_dma_req_sva u_sva_dma (
  .clk_i, .rst_ni, .dma_req_valid_o, .dma_req_ready_i, .dma_req_write_o, .dma_req_addr_o, .dma_req_len_o,
  .dma_req_off_o, .dma_req_data_o, .cqe_valid_o);
bind naa_top rdma_dma_req_sva u_sva_dma (
  .clk_i, .rst_ni, .dma_req_valid_o, .dma_req_ready_i, .dma_req_write_o, .dma_req_addr_o, .dma_req_len_o,
  .dma_req_off_o, .dma_req_data_o, .cqe_valid_o);
`endif  // SYNTHESIS
