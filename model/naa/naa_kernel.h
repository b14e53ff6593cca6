// Cycle model of rtl/naa/naa_kernel.sv, the RPC kernels (docs/naa.md "MRSP and RPC"): streaming units over
// 512-bit DMA beats on the granted FPGA regions in the endpoint's memory.
//   1 add:  region 2 = region 0 + region 1 (little-endian 32-bit words), per 4 KiB chunk: read A, read B
//           (A into the chunk buffer, B added in place as it arrives), write the chunk back
//   2 crc:  CRC-32 (IEEE, as zlib.crc32) of region 0, 64 bytes per beat, every read issued back to back;
//           the 4 bytes (little-endian) written at region 1
//   3 copy: region 1 = region 0, per chunk: read, write back
//   Idle -> Check -> {RdA [-> RdB] -> Wait -> Write}* | {RdA* -> Wait -> CrcWrite} -> Done;  timeout -> Drain -> Done
#pragma once

#include <array>
#include <cstdint>

#include "model/common/dma.h"
#include "nt_params.h"

namespace nettwin::naa {

constexpr int kChunkBeats = static_cast<int>(params::kNaaChunkBeats);
namespace rpc {
constexpr uint8_t kOk = 0x00, kTimeout = 0x02, kUnknownFn = 0x10, kRegions = 0x11, kSize = 0x12;
constexpr uint32_t kAdd = 1, kCrc = 2, kCopy = 3;
}  // namespace rpc

struct KernelStart {
  bool valid = false;
  uint32_t fn = 0;
  uint8_t nreg = 0;                // regions granted
  std::array<uint64_t, 3> addr{};  // FPGA regions 0..2 (va = pa)
  std::array<uint32_t, 3> size{};
  uint32_t budget = 0;  // cycles from start before the kernel gives up (0x02)
};

enum class KState : uint8_t { kIdle, kCheck, kRdA, kRdB, kWait, kWrite, kCrcWrite, kDrain, kDone };

struct KernelOut {
  DmaRequest dma_req;
  bool done = false;  // one cycle: status, out_idx, out_len valid
  uint8_t status = 0;
  uint8_t out_idx = 0;  // the result region (written back to the client's region of the same index)
  uint32_t out_len = 0;
  KState state = KState::kIdle;
};

class NaaKernel {
 public:
  // Combinational outputs of the state; `dma_ready` and the response are this cycle's inputs.
  const KernelOut& Eval();
  void Tick(const KernelStart& start, bool dma_ready, const DmaResponse& rsp);

 private:
  uint32_t ChunkLen() const;
  KState state_ = KState::kIdle;
  KernelStart job_;
  KernelOut out_;
  std::array<std::array<uint8_t, kDmaBeatBytes>, kChunkBeats> buf_{};
  uint32_t done_bytes_ = 0;        // bytes of the region finished (add/copy: chunks written; crc: reads issued)
  uint32_t issued_ = 0;            // crc: bytes whose reads are issued
  uint32_t expect_ = 0, got_ = 0;  // beats of issued reads, beats received
  int k_ = 0;                      // add/copy: write beat
  uint32_t crc_ = 0xFFFFFFFFu;
  uint32_t cycles_ = 0;
  uint8_t status_ = 0;
};

}  // namespace nettwin::naa
