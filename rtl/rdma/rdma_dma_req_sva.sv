// The host DMA request port of rdma_top and naa_top (docs/assertions.md): a request waits, unchanged, until
// the host takes it. Bound onto both tops by the `bind`s at the end of this file (naa's builds include the
// responder's files). Simulation only: empty under SYNTHESIS.
module rdma_dma_req_sva (
  input logic                           clk_i,
  input logic                           rst_ni,
  input logic                           dma_req_valid_o,
  input logic                           dma_req_ready_i,
  input logic                           dma_req_write_o,
  input logic [63:0]                    dma_req_addr_o,
  input logic [15:0]                    dma_req_len_o,
  input logic [5:0]                     dma_req_off_o,
  input logic [nt_pkg::StreamBits-1:0]  dma_req_data_o,
  input logic                           cqe_valid_o
);
`ifndef SYNTHESIS
`include "nt_assert.svh"
  nt_stream_checker #(.KeepBits(1), .DataBits(1 + 64 + 16 + 6 + nt_pkg::StreamBits), .HasKeep(1'b0),
                      .HasLast(1'b0)) u_req (
    .clk_i, .rst_ni, .valid_i(dma_req_valid_o), .ready_i(dma_req_ready_i),
    .data_i({dma_req_write_o, dma_req_addr_o, dma_req_len_o, dma_req_off_o, dma_req_data_o}), .keep_i(1'b1),
    .last_i(1'b0));
  `NT_ASSERT_KNOWN(cqe_valid_known, cqe_valid_o)
`else
  logic unused;
  assign unused = ^{clk_i, rst_ni, dma_req_valid_o, dma_req_ready_i, dma_req_write_o, dma_req_addr_o,
                    dma_req_len_o, dma_req_off_o, dma_req_data_o, cqe_valid_o};
`endif
endmodule

`ifndef SYNTHESIS
bind rdma_top rdma_dma_req_sva u_sva_dma (
  .clk_i, .rst_ni, .dma_req_valid_o, .dma_req_ready_i, .dma_req_write_o, .dma_req_addr_o, .dma_req_len_o,
  .dma_req_off_o, .dma_req_data_o, .cqe_valid_o);
bind naa_top rdma_dma_req_sva u_sva_dma (
  .clk_i, .rst_ni, .dma_req_valid_o, .dma_req_ready_i, .dma_req_write_o, .dma_req_addr_o, .dma_req_len_o,
  .dma_req_off_o, .dma_req_data_o, .cqe_valid_o);
`endif
