// MRSP messages as the client writes them and as the endpoint must answer (docs/naa.md "MRSP and RPC"),
// built from the seed's layout (big-endian fields), independently of the controller's code.
#pragma once

#include <cstdint>
#include <vector>

namespace nettwin::naa::test {

struct MrspEntry {
  uint64_t fpga;  // the requested FPGA address (56 bits)
  uint64_t host;  // the client's published host address, rkey and size
  uint32_t rkey, size;
  uint8_t flags = 0;
};

inline void PutBe(std::vector<uint8_t>* m, uint64_t v, int n) {
  for (int i = n - 1; i >= 0; --i) m->push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// A 0x01 request (`count` < 0: the entries' count; `type` other than 0x01 for malformed ones).
inline std::vector<uint8_t> MrspRequest(const std::vector<MrspEntry>& es, int count = -1, uint8_t type = 0x01) {
  std::vector<uint8_t> m = {type, static_cast<uint8_t>(count < 0 ? es.size() : count), 0, 0};
  for (const MrspEntry& e : es) {
    m.push_back(e.flags);
    PutBe(&m, e.fpga, 7);
    PutBe(&m, e.host, 8);
    PutBe(&m, e.rkey, 4);
    PutBe(&m, e.size, 4);
  }
  return m;
}

// The 0x02 answer granting every entry: address, rkey_base + i, size.
inline std::vector<uint8_t> MrspGrant(const std::vector<MrspEntry>& es, uint32_t rkey_base) {
  std::vector<uint8_t> m = {0x02, static_cast<uint8_t>(es.size()), 0, 0};
  for (size_t i = 0; i < es.size(); ++i) {
    PutBe(&m, es[i].fpga, 8);
    PutBe(&m, rkey_base + i, 4);
    PutBe(&m, es[i].size, 4);
  }
  return m;
}

inline std::vector<uint8_t> MrspError(uint8_t code) { return {0x00, code, 0, 0}; }

}  // namespace nettwin::naa::test
