// The host-memory DMA port shared by every block that reaches host memory: a request port (read or write)
// and an in-order read-response port, the same fields in SystemVerilog and C++. Its timing (when the request
// port is ready, when response beats come) is the testbench host memory's (tb/common/host_memory.h, PCIe-like
// by default), one object driving the RTL and the model alike.
#pragma once

#include <array>
#include <cstdint>

namespace nettwin {

constexpr int kDmaBeatBytes = 64;

// A write carries at most one beat: data bytes [off, off + len) go to host addresses [addr, addr + len).
// A read asks for `len` (1..4096) bytes from `addr`; they come back as ceil(len / 64) response beats,
// beat j holding host bytes [addr + 64 j, addr + 64 j + 64).
struct DmaRequest {
  bool valid = false;
  bool write = false;
  uint64_t addr = 0;
  uint16_t len = 0;
  uint8_t off = 0;
  std::array<uint8_t, kDmaBeatBytes> data{};
  bool operator==(const DmaRequest& o) const {
    return valid == o.valid && (!valid || (write == o.write && addr == o.addr && len == o.len && off == o.off &&
                                           (!write || data == o.data)));
  }
};

// A read-response beat; the block always accepts it (no ready).
struct DmaResponse {
  bool valid = false;
  bool last = false;
  std::array<uint8_t, kDmaBeatBytes> data{};
};

}  // namespace nettwin
