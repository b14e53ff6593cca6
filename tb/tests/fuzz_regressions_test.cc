// Inputs the fuzzers (tb/fuzz, `make fuzz`) found to crash or misbehave, each fixed: the parser must give
// its file:line error. The raw inputs are also in tb/fuzz/regressions/<target>/, which scripts/fuzz.sh
// replays under the sanitizers before every fuzzing run.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "model/re/re_packet_model.h"
#include "tb/tests/error_message.h"

namespace nettwin {
namespace {

std::string ReConfigError(const std::string& text) {
  return ErrorMessage<std::runtime_error>([&] { re::ParseReConfig(text, "re.txt"); });
}

// re_fuzz: "contexts nan" converted NaN to int (undefined behaviour) before the range check rejected it.
TEST(FuzzRegressions, ReConfigRejectsNanAndInfinityWithoutConvertingThem) {
  EXPECT_EQ(ReConfigError("contexts nan\n"), "re.txt:1: token 'nan': contexts must be an integer in 1..4096");
  EXPECT_EQ(ReConfigError("contexts -inf\n"), "re.txt:1: token '-inf': contexts must be an integer in 1..4096");
  EXPECT_EQ(ReConfigError("contexts 1e300\n"), "re.txt:1: token '1e300': contexts must be an integer in 1..4096");
  EXPECT_EQ(ReConfigError("buffer_bytes NAN\n"),
            "re.txt:1: token 'NAN': buffer_bytes must be an integer in 1..16777216");
  EXPECT_EQ(ReConfigError("buffer_bytes inf\n"),
            "re.txt:1: token 'inf': buffer_bytes must be an integer in 1..16777216");
  EXPECT_EQ(ReConfigError("timeout_us nan\n"), "re.txt:1: token 'nan': timeout_us must be in (0, 1e9]");
}

}  // namespace
}  // namespace nettwin
