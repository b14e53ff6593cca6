// The RDMA responder configuration (`nettwin rdma --config`): parsed or rejected with ConfigError; what it
// accepts turns into programming-port writes.
#include "model/rdma/rdma_config.h"
#include "tb/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return nettwin::fuzz::ParsedOrRejected<nettwin::rdma::ConfigError>(data, size, [](const std::string& text) {
    (void)nettwin::rdma::ParseConfig(text, "fuzz.txt").Writes();
  });
}
