// A block's counters as one JSON object, every counter under its descriptor name ({"in": 3, "delivered": 2,
// ...}), for any counter struct generated from a block descriptor (it has ForEachCounter, docs/blockgen.md).
#pragma once

#include <string>

namespace nettwin {

template <class Counters>
std::string CountersJson(const Counters& c, const char* sep = ", ") {
  std::string s = "{";
  bool first = true;
  c.ForEachCounter([&](const char* name, auto value) {
    s += first ? "\"" : std::string(sep) + "\"";
    s += name;
    s += "\": " + std::to_string(value);
    first = false;
  });
  return s + "}";
}

}  // namespace nettwin
