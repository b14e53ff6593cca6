// The divergence waveform a CLI run writes must hold the cycles around the divergence. A file-size bound
// alone cannot fail (an FST with tracing off is kilobytes of header and signal list), so the window's file is
// compared with the same replay traced only after the run ended.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "tb/common/harness.h"

namespace nettwin::tb::testing {

// `replay(options)` runs the failing run again with the given options and returns its RunResult, with the
// traced block closed (the FST is complete only then). Expects the replay to diverge at the same cycle and
// the window's FST to exceed the empty one by more than `min_extra_bytes`.
template <class Replay>
void ExpectDivergenceWindowTraced(const RunOptions& opt, const Mismatch& m, const std::string& stem,
                                  int64_t min_extra_bytes, Replay replay) {
  auto traced_bytes = [&](const std::string& fst, bool empty) {
    std::remove(fst.c_str());
    RunOptions o = ReplayAround(opt, m, fst);
    if (empty) o.trace_from = m.cycle + 100;
    const RunResult r = replay(o);
    EXPECT_TRUE(r.mismatch.has_value());
    if (r.mismatch) EXPECT_EQ(r.mismatch->cycle, m.cycle);  // deterministic replay
    std::ifstream f(fst, std::ios::binary | std::ios::ate);
    EXPECT_TRUE(f.good()) << fst;
    return static_cast<int64_t>(f.tellg());
  };
  const std::string dir = ::testing::TempDir();
  const int64_t empty = traced_bytes(dir + stem + "_empty.fst", true);
  const int64_t window = traced_bytes(dir + stem + ".fst", false);
  EXPECT_GT(window, empty + min_extra_bytes)
      << "the window's FST (" << window << " bytes) holds no more than an empty trace (" << empty << " bytes)";
}

}  // namespace nettwin::tb::testing
