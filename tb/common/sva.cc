#include "tb/common/sva.h"

#include <cstdio>
#include <utility>

namespace {
thread_local std::optional<std::string> g_failure;
}  // namespace

// Called by the Verilated code (DPI import in rtl/common/nt_sva_pkg.sv). Keeps the first failure of the
// cycle (later ones in the same cycle are usually its consequences) and prints each one, so a report
// cut short still names them.
extern "C" void nt_sva_fail(const char* name) {
  std::fprintf(stderr, "%%Error: RTL assertion failed: %s\n", name);
  if (!g_failure) g_failure = name;
}

namespace nettwin::tb {

std::optional<std::string> TakeSvaFailure() { return std::exchange(g_failure, std::nullopt); }

}  // namespace nettwin::tb
