// Assertion macros for the nettwin RTL (the shape of OpenTitan's prim_assert.sv, written for nettwin).
// Every macro is a concurrent assertion sampled at the rising clock edge and disabled while the reset is low.
// A failure calls nt_sva_pkg::nt_sva_fail with the assertion's hierarchical name (%m includes its label);
// the testbench turns that into a stop like a lockstep divergence (docs/assertions.md).
// Under SYNTHESIS (Yosys defines it) every macro expands to nothing, so the RTL stays one source.
// Include it inside a module body (after the ports); the defaults assume the clock clk_i and reset rst_ni.
`ifndef NT_ASSERT_SVH
`define NT_ASSERT_SVH

`ifndef SYNTHESIS
// prop must hold on every clock edge out of reset.
`define NT_ASSERT(name, prop, clk = clk_i, rst_n = rst_ni) \
  name: assert property (@(posedge clk) disable iff (!(rst_n)) (prop)) \
    else nt_sva_pkg::nt_sva_fail($sformatf("%m"));
// prop must never hold.
`define NT_ASSERT_NEVER(name, prop, clk = clk_i, rst_n = rst_ni) \
  `NT_ASSERT(name, !(prop), clk, rst_n)
// sig has no X or Z bit (a 4-state simulator; Verilator is 2-state, where this always holds).
`define NT_ASSERT_KNOWN(name, sig, clk = clk_i, rst_n = rst_ni) \
  `NT_ASSERT(name, !$isunknown(sig), clk, rst_n)
// if `cond`, sig has no X or Z bit.
`define NT_ASSERT_KNOWN_IF(name, sig, cond, clk = clk_i, rst_n = rst_ni) \
  `NT_ASSERT(name, (cond) |-> !$isunknown(sig), clk, rst_n)
// a FIFO/counter: no push when full, no pop when empty.
`define NT_ASSERT_NO_OVERFLOW(name, push, full, clk = clk_i, rst_n = rst_ni) \
  `NT_ASSERT(name, !((push) && (full)), clk, rst_n)
`define NT_ASSERT_NO_UNDERFLOW(name, pop, empty, clk = clk_i, rst_n = rst_ni) \
  `NT_ASSERT(name, !((pop) && (empty)), clk, rst_n)
// sig is at most one-hot (use with $onehot0 semantics).
`define NT_ASSERT_ONEHOT0(name, sig, clk = clk_i, rst_n = rst_ni) \
  `NT_ASSERT(name, $onehot0(sig), clk, rst_n)
`else
`define NT_ASSERT(name, prop, clk = clk_i, rst_n = rst_ni)
`define NT_ASSERT_NEVER(name, prop, clk = clk_i, rst_n = rst_ni)
`define NT_ASSERT_KNOWN(name, sig, clk = clk_i, rst_n = rst_ni)
`define NT_ASSERT_KNOWN_IF(name, sig, cond, clk = clk_i, rst_n = rst_ni)
`define NT_ASSERT_NO_OVERFLOW(name, push, full, clk = clk_i, rst_n = rst_ni)
`define NT_ASSERT_NO_UNDERFLOW(name, pop, empty, clk = clk_i, rst_n = rst_ni)
`define NT_ASSERT_ONEHOT0(name, sig, clk = clk_i, rst_n = rst_ni)
`endif

`endif  // NT_ASSERT_SVH
