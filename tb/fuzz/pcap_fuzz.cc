// The pcap/pcapng reader (`--in` of every command): any byte string is read or rejected with PcapError.
// The bytes are read through fmemopen, the reader's FILE* constructor: writing each input to a file and
// the path constructor's 1 MB stdio buffer made this target spend most of its time outside the parser
// (docs/PERF.md, "Fuzzing").
#include <cstdio>
#include <memory>

#include "model/common/pcap.h"
#include "tb/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;  // fmemopen rejects an empty buffer; the empty file is in the unit tests
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(
      fmemopen(const_cast<uint8_t*>(data), size, "rb"), &std::fclose);
  if (!f) return 0;
  // A static stdio buffer: fmemopen's own is allocated (and, under ASan, filled) for every input.
  static char buffer[64 * 1024];
  std::setvbuf(f.get(), buffer, _IOFBF, sizeof buffer);
  try {
    nettwin::PcapReader r(f.get(), "fuzz.pcap");
    nettwin::Packet p;
    while (r.Next(&p)) {
      if (p.bytes.size() > 1u << 20) __builtin_trap();  // a frame larger than any snaplen allows
    }
  } catch (const nettwin::PcapError&) {
  }
  return 0;
}
