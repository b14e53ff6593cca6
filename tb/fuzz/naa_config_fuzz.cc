// The NAAICE endpoint configuration (`nettwin naa --config`): parsed or rejected with ConfigError; what it
// accepts turns into programming-port writes.
#include "model/naa/naa_config.h"
#include "tb/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto c = nettwin::naa::ParseNaaConfig(nettwin::fuzz::Text(data, size), "fuzz.txt");
    (void)c.Writes();
  } catch (const nettwin::rdma::ConfigError&) {
  }
  return 0;
}
