// The pcap reader (`--in` of every command): any byte string is read or rejected with PcapError.
#include <cstdio>

#include "model/common/pcap.h"
#include "tb/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = nettwin::fuzz::ToFile(data, size, ".pcap");
  try {
    const auto pkts = nettwin::ReadPcap(path);
    for (const auto& p : pkts) {
      if (p.bytes.size() > 1u << 20) __builtin_trap();  // a frame larger than any snaplen allows
    }
  } catch (const nettwin::PcapError&) {
  }
  std::remove(path.c_str());
  return 0;
}
