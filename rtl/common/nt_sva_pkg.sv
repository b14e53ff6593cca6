// The one hook of the RTL assertions into the testbench: a failed NT_ASSERT calls nt_sva_fail with its
// hierarchical name; tb/common/sva.cc records it and the harness stops the run (docs/assertions.md).
// Empty under SYNTHESIS.
package nt_sva_pkg;
`ifndef SYNTHESIS
  import "DPI-C" function void nt_sva_fail(input string name);
`endif
endpackage
