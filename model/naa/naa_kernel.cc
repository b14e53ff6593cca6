#include "model/naa/naa_kernel.h"

#include <algorithm>

#include "model/common/crc32.h"

namespace nettwin::naa {
namespace {

uint32_t Beats(uint32_t len) { return (len + kDmaBeatBytes - 1) / kDmaBeatBytes; }

uint32_t Le32(const uint8_t* p) { return p[0] | p[1] << 8 | p[2] << 16 | static_cast<uint32_t>(p[3]) << 24; }

bool Working(KState s) {
  return s == KState::kRdA || s == KState::kRdB || s == KState::kWait || s == KState::kWrite || s == KState::kCrcWrite;
}

}  // namespace

uint32_t NaaKernel::ChunkLen() const {
  const uint32_t at = job_.fn == rpc::kCrc ? issued_ : done_bytes_;
  return std::min<uint32_t>(kChunkBeats * kDmaBeatBytes, job_.size[0] - at);
}

const KernelOut& NaaKernel::Eval() {
  out_.dma_req = DmaRequest{};
  DmaRequest& d = out_.dma_req;
  switch (state_) {
    case KState::kRdA:
      d.valid = true;
      d.addr = job_.addr[0] + (job_.fn == rpc::kCrc ? issued_ : done_bytes_);
      d.len = static_cast<uint16_t>(ChunkLen());
      break;
    case KState::kRdB:
      d.valid = true;
      d.addr = job_.addr[1] + done_bytes_;
      d.len = static_cast<uint16_t>(ChunkLen());
      break;
    case KState::kWrite: {
      const uint32_t chunk = ChunkLen();
      d.valid = true;
      d.write = true;
      d.addr = job_.addr[job_.fn == rpc::kAdd ? 2 : 1] + done_bytes_ + uint64_t{kDmaBeatBytes} * k_;
      d.len = static_cast<uint16_t>(std::min<uint32_t>(kDmaBeatBytes, chunk - kDmaBeatBytes * k_));
      std::copy(buf_[k_].begin(), buf_[k_].begin() + d.len, d.data.begin());
      break;
    }
    case KState::kCrcWrite: {
      const uint32_t crc = ~crc_;
      d.valid = true;
      d.write = true;
      d.addr = job_.addr[1];
      d.len = 4;
      for (int i = 0; i < 4; ++i) d.data[i] = static_cast<uint8_t>(crc >> (8 * i));
      break;
    }
    default: break;
  }
  out_.done = state_ == KState::kDone;
  out_.status = status_;
  out_.state = state_;
  return out_;
}

void NaaKernel::Tick(const KernelStart& start, bool dma_ready, const DmaResponse& rsp) {
  const bool fire = out_.dma_req.valid && dma_ready;
  const uint32_t got0 = got_;
  switch (state_) {
    case KState::kIdle:
      if (start.valid) {
        job_ = start;
        state_ = KState::kCheck;
      }
      break;
    case KState::kCheck: {
      const auto& s = job_.size;
      const uint32_t need = job_.fn == rpc::kAdd ? 3 : 2;
      status_ = rpc::kOk;
      if (job_.fn < rpc::kAdd || job_.fn > rpc::kCopy) {
        status_ = rpc::kUnknownFn;
      } else if (job_.nreg < need) {
        status_ = rpc::kRegions;
      } else if (job_.fn == rpc::kAdd   ? (s[0] != s[1] || s[0] != s[2] || s[0] % 4 != 0)
                 : job_.fn == rpc::kCrc ? s[1] < 4
                                        : s[1] < s[0]) {
        status_ = rpc::kSize;
      }
      out_.out_idx = job_.fn == rpc::kAdd ? 2 : 1;
      out_.out_len = job_.fn == rpc::kCrc ? 4 : s[0];
      crc_ = 0xFFFFFFFFu;
      done_bytes_ = issued_ = expect_ = got_ = 0;
      cycles_ = 0;
      if (status_ != rpc::kOk) {
        state_ = KState::kDone;
      } else if (s[0] == 0) {
        state_ = job_.fn == rpc::kCrc ? KState::kCrcWrite : KState::kDone;
      } else {
        state_ = KState::kRdA;
      }
      break;
    }
    case KState::kRdA:
      if (fire) {
        const uint32_t len = ChunkLen();
        expect_ += Beats(len);
        if (job_.fn == rpc::kCrc) {
          issued_ += len;
          if (issued_ == job_.size[0]) state_ = KState::kWait;
        } else {
          state_ = job_.fn == rpc::kAdd ? KState::kRdB : KState::kWait;
        }
      }
      break;
    case KState::kRdB:
      if (fire) {
        expect_ += Beats(ChunkLen());
        state_ = KState::kWait;
      }
      break;
    case KState::kWait:
      if (got0 == expect_) {
        k_ = 0;
        state_ = job_.fn == rpc::kCrc ? KState::kCrcWrite : KState::kWrite;
      }
      break;
    case KState::kWrite:
      if (fire) {
        const uint32_t chunk = ChunkLen();
        ++k_;
        if (static_cast<uint32_t>(kDmaBeatBytes * k_) >= chunk) {
          done_bytes_ += chunk;
          got_ = expect_ = 0;
          state_ = done_bytes_ == job_.size[0] ? KState::kDone : KState::kRdA;
        }
      }
      break;
    case KState::kCrcWrite:
      if (fire) state_ = KState::kDone;
      break;
    case KState::kDrain:
      if (got0 == expect_) state_ = KState::kDone;
      break;
    case KState::kDone: state_ = KState::kIdle; break;
  }
  // Read data, in the order the reads were issued (the host port's contract).
  if (rsp.valid) {
    if (job_.fn == rpc::kCrc) {
      const uint32_t base = kDmaBeatBytes * got0;
      for (uint32_t i = 0; i < kDmaBeatBytes && base + i < job_.size[0]; ++i) crc_ = Crc32Byte(crc_, rsp.data[i]);
    } else {
      const uint32_t nb = Beats(ChunkLen());
      if (got0 < nb) {
        buf_[got0] = rsp.data;
      } else {
        auto& b = buf_[got0 - nb];
        for (int i = 0; i < kDmaBeatBytes; i += 4) {
          const uint32_t sum = Le32(&b[i]) + Le32(&rsp.data[i]);
          for (int j = 0; j < 4; ++j) b[i + j] = static_cast<uint8_t>(sum >> (8 * j));
        }
      }
    }
    ++got_;
  }
  if (Working(state_)) {
    ++cycles_;
    if (cycles_ >= job_.budget) {
      status_ = rpc::kTimeout;
      state_ = KState::kDrain;
    }
  }
}

}  // namespace nettwin::naa
