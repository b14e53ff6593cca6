// Assertions of reorder_ingress (docs/assertions.md), bound onto every reorder_ingress by the `bind` at the end of
// this file, so the RTL itself is not edited. Simulation only: empty under SYNTHESIS.
`ifndef SYNTHESIS  // the whole file: assertions are simulation only
`include "nt_ports.svh"
module reorder_ingress_sva (
  `NT_CLK_RST,
  input logic        h_go,
  input logic        i_pend,
  input logic        go_pend,
  input logic        pm_is_go,
  input logic [15:0] pend_hash_next_o,
  input logic [15:0] hash_ref
);
`include "nt_assert.svh"
  // the prefetch's next hash with h_go chosen last (session 24) is i_pend ? pm.hash : pend_meta_q.hash
  `NT_ASSERT(go_pend_exact, i_pend == (h_go && go_pend) && (!h_go || pm_is_go))
  `NT_ASSERT(pend_hash_next_exact, pend_hash_next_o == hash_ref)
endmodule

bind reorder_ingress reorder_ingress_sva u_sva (
  .clk_i, .rst_ni, .h_go, .i_pend, .go_pend, .pm_is_go(pm == pm_go), .pend_hash_next_o,
  .hash_ref(i_pend ? pm.hash : pend_meta_q.hash));
`endif  // SYNTHESIS
