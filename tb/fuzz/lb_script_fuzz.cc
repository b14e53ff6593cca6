// The LB control-plane script (`nettwin lb --tables`): parsed or rejected with ScriptError; whatever it
// accepts is applied to the tables.
#include "model/lb/lb_script.h"
#include "model/lb/lb_tables.h"
#include "tb/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace nettwin::lb;
  return nettwin::fuzz::ParsedOrRejected<ScriptError>(data, size, [](const std::string& text) {
    LbTables tables;
    for (const Segment& s : ParseScript(text, "fuzz.txt")) {
      for (const auto& w : s.writes) tables.Apply(w);
    }
  });
}
