// The VNIC configuration (`nettwin vnic --config`): parsed or rejected with ConfigError; what it accepts
// turns into programming-port writes, and those writes loaded into empty tables give the parsed tables back.
#include "model/vnic/vnic_config.h"
#include "tb/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nettwin::vnic;
  try {
    const Tables t = ParseConfig(nettwin::fuzz::Text(data, size), "fuzz.txt");
    Tables loaded;
    for (const auto& w : ConfigWrites(t)) loaded.Apply(w);
    for (size_t p = 0; p < t.ports.size(); ++p) {
      const PortCfg &a = t.ports[p], &b = loaded.ports[p];
      if (a.valid != b.valid) __builtin_trap();  // a port lost or invented by the programming words
      if (a.valid && (a.veswid != b.veswid || a.pkey != b.pkey || a.sc != b.sc || a.rc != b.rc || a.slid != b.slid ||
                      a.ucast_dlid != b.ucast_dlid || a.mcast_dlid != b.mcast_dlid || a.entropy != b.entropy)) {
        __builtin_trap();  // a field does not survive EncodePort / Apply
      }
    }
    for (size_t m = 0; m < t.macs.size(); ++m) {
      const MacEntry &a = t.macs[m], &b = loaded.macs[m];
      if (a.valid != b.valid || (a.valid && (a.port != b.port || a.mac != b.mac || a.dlid != b.dlid))) {
        __builtin_trap();  // a MAC entry does not survive EncodeMac / Apply
      }
    }
  } catch (const ConfigError&) {
  }
  return 0;
}
