// The reorder configuration (`nettwin reorder --config`): parsed or rejected with ConfigError.
#include "model/reorder/reorder_config.h"
#include "tb/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    (void)nettwin::reorder::ParseConfig(nettwin::fuzz::Text(data, size), "fuzz.txt");
  } catch (const nettwin::reorder::ConfigError&) {
  }
  return 0;
}
