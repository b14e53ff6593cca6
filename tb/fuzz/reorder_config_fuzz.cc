// The reorder configuration (`nettwin reorder --config`): parsed or rejected with ConfigError.
#include "model/reorder/reorder_config.h"
#include "tb/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return nettwin::fuzz::ParsedOrRejected<nettwin::reorder::ConfigError>(data, size, [](const std::string& text) {
    (void)nettwin::reorder::ParseConfig(text, "fuzz.txt");
  });
}
