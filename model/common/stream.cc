#include "model/common/stream.h"

#include <algorithm>

namespace nettwin {

std::vector<Beat> ToBeats(const std::vector<uint8_t>& bytes) {
  std::vector<Beat> beats;
  size_t off = 0;
  do {
    Beat b;
    const size_t n = std::min<size_t>(kBeatBytes, bytes.size() - off);
    std::copy_n(bytes.begin() + static_cast<std::ptrdiff_t>(off), n, b.data.begin());
    b.keep = KeepMask(static_cast<int>(n));
    off += n;
    b.last = off >= bytes.size();
    beats.push_back(b);
  } while (off < bytes.size());
  return beats;
}

void AppendBeat(const Beat& b, std::vector<uint8_t>* bytes) {
  bytes->insert(bytes->end(), b.data.begin(), b.data.begin() + b.Bytes());
}

}  // namespace nettwin
