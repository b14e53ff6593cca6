// The one format of a lockstep divergence message (every Binding::Compare, hand-written or generated from a
// block descriptor, docs/blockgen.md): the signal is the RTL port's name (`m_keep_o`, `cnt_in_o`), values are
// hex with 0x, and a stream's data names the first differing byte and shows the 8-byte window around it
// (`m_data_o byte 13 (bytes 8..15 shown)`, `0x0011223344556677`, bytes in wire order).
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>

#include "model/common/stream.h"

namespace nettwin::tb {

struct SignalDiff {
  std::string signal, rtl, model;
};

inline std::string HexValue(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// Bytes [from, from + n) of an array of `size` bytes, as one 0x hex number in wire order (byte `from` first).
inline std::string HexBytes(const uint8_t* bytes, int size, int from, int n) {
  std::string s = "0x";
  static const char* kDigits = "0123456789abcdef";
  for (int i = from; i < from + n && i < size; ++i) {
    s += kDigits[bytes[i] >> 4];
    s += kDigits[bytes[i] & 15];
  }
  return s;
}
// n bytes of a beat from `from`.
inline std::string HexBytes(const Beat& b, int from, int n) { return HexBytes(b.data.data(), kBeatBytes, from, n); }

// A Binding::Compare step: nothing when the two values agree, else the signal and both values.
inline std::optional<SignalDiff> DiffValues(std::string signal, uint64_t rtl, uint64_t model) {
  if (rtl == model) return std::nullopt;
  return SignalDiff{std::move(signal), HexValue(rtl), HexValue(model)};
}

// A wide port that is a byte array (a stream's data, a DMA request's data): the first differing byte and the
// 8-byte window around it.
inline std::optional<SignalDiff> DiffBytes(const std::string& signal, const uint8_t* r, const uint8_t* m, int n) {
  for (int i = 0; i < n; ++i) {
    if (r[i] != m[i]) {
      const int from = i & ~7;
      return SignalDiff{signal + " byte " + std::to_string(i) + " (bytes " + std::to_string(from) + ".." +
                            std::to_string(from + 7) + " shown)",
                        HexBytes(r, n, from, 8), HexBytes(m, n, from, 8)};
    }
  }
  return std::nullopt;
}

// A counter array port `<port>` (std::array per side, docs/blockgen.md): the first index that differs, named
// `drops_o[runt]` by its label (labels[i], nullptr for an index without one) or `rx_o[3]` by its index.
template <class T, size_t K>
std::optional<SignalDiff> DiffArray(const char* port, const std::array<T, K>& r, const std::array<T, K>& m,
                                    const char* const* labels) {
  for (size_t i = 0; i < K; ++i) {
    if (r[i] != m[i]) {
      const std::string index = labels != nullptr && labels[i] != nullptr ? labels[i] : std::to_string(i);
      return DiffValues(std::string(port) + "[" + index + "]", r[i], m[i]);
    }
  }
  return std::nullopt;
}

// A stream output port `<p>_valid_o, <p>_data_o, <p>_keep_o, <p>_last_o` compared as StreamPort::operator==
// does (the beat only while valid): the first of valid, last, keep, data that differs.
inline std::optional<SignalDiff> DiffStream(const std::string& p, const StreamPort& r, const StreamPort& m) {
  if (r.valid != m.valid) return DiffValues(p + "_valid_o", r.valid, m.valid);
  if (!r.valid) return std::nullopt;
  if (r.beat.last != m.beat.last) return DiffValues(p + "_last_o", r.beat.last, m.beat.last);
  if (r.beat.keep != m.beat.keep) return DiffValues(p + "_keep_o", r.beat.keep, m.beat.keep);
  if (r.beat.data == m.beat.data) return std::nullopt;
  return DiffBytes(p + "_data_o", r.beat.data.data(), m.beat.data.data(), kBeatBytes);
}

}  // namespace nettwin::tb
