// A block's counters as one JSON object, every counter under its descriptor name ({"in": 3, "delivered": 2,
// ...}), for any counter struct generated from a block descriptor (it has ForEachCounter, docs/blockgen.md).
#pragma once

#include <array>
#include <cstddef>
#include <string>

namespace nettwin {

template <class T>
std::string CounterJsonValue(const T& v) {
  return std::to_string(v);
}
// A counter array (docs/blockgen.md) as a JSON array.
template <class T, size_t K>
std::string CounterJsonValue(const std::array<T, K>& a) {
  std::string s = "[";
  for (size_t i = 0; i < K; ++i) s += (i ? ", " : "") + std::to_string(a[i]);
  return s + "]";
}

template <class Counters>
std::string CountersJson(const Counters& c, const char* sep = ", ") {
  std::string s = "{";
  bool first = true;
  c.ForEachCounter([&](const char* name, auto value) {
    s += first ? "\"" : std::string(sep) + "\"";
    s += name;
    s += "\": " + CounterJsonValue(value);
    first = false;
  });
  return s + "}";
}

}  // namespace nettwin
