// The RTL assertions' hook into the testbench (docs/assertions.md). A failed NT_ASSERT in a Verilated block
// calls the DPI function nt_sva_fail (rtl/common/nt_sva_pkg.sv) during eval(); it is recorded here, per
// thread, and VerilatedBlock collects it right after each eval() so the harness can stop the run with the
// assertion's name and cycle, like a divergence.
#pragma once

#include <optional>
#include <string>

namespace nettwin::tb {

// The first assertion that failed since the last call (its hierarchical name, e.g.
// "lb_tb_top.lb_tb_top.u_dut.u_sva_ports.u_m.valid_held"), and forgets it.
std::optional<std::string> TakeSvaFailure();

}  // namespace nettwin::tb
