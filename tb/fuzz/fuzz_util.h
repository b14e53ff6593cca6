// Shared by the libFuzzer targets: input as text or as a temporary file, and a clocked block driven with
// frames until it drains.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <deque>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "model/common/cfg_port.h"
#include "model/common/dma.h"
#include "model/common/stream.h"

namespace nettwin::fuzz {

inline std::string Text(const uint8_t* data, size_t size) { return std::string(reinterpret_cast<const char*>(data), size); }

// The target of a text parser: `use(text)` parses the input (and uses what it accepts); a rejection with the
// parser's error E is an accepted outcome, anything else (a crash, another exception) reaches the fuzzer.
template <class E, class Use>
int ParsedOrRejected(const uint8_t* data, size_t size, Use use) {
  try {
    use(Text(data, size));
  } catch (const E&) {
  }
  return 0;
}

// A file per process holding the input, for readers that take a path.
inline std::string ToFile(const uint8_t* data, size_t size, const char* ext) {
  const std::string path = "/tmp/nettwin_fuzz_" + std::to_string(getpid()) + ext;
  std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

// Splits the input into frames: each frame is a 2-byte big-endian length then that many bytes (clipped to
// what is left), so the fuzzer controls frame boundaries, sizes (up to max_len) and contents.
inline std::vector<std::vector<uint8_t>> Frames(const uint8_t* data, size_t size, size_t max_frames = 8,
                                                size_t max_len = 9000) {
  std::vector<std::vector<uint8_t>> frames;
  size_t i = 0;
  while (i + 2 <= size && frames.size() < max_frames) {
    size_t n = ((size_t{data[i]} << 8) | data[i + 1]) % (max_len + 1);
    i += 2;
    if (n > size - i) n = size - i;
    frames.emplace_back(data + i, data + i + n);
    i += n;
  }
  return frames;
}

// A block built (and programmed) once by `make` and copied into one working instance for every input: the
// same state as building it anew, without allocating and zeroing its memories for each input (the reorder
// block's constructor alone was 60 % of reorder_frame's time, docs/PERF.md "Fuzzing"). The statics belong
// to the (Block, kVariant) pair: a target with two configurations of one block gives each its own kVariant.
template <class Block, int kVariant = 0, class Make>
Block& Pristine(Make make) {
  static const Block pristine = make();
  static Block work = pristine;
  work = pristine;
  return work;
}

// Drives the programming-port writes into a clocked block, one per cycle, the stream ports idle.
template <class In, class Block>
void Program(Block* block, const std::vector<CfgWrite>& writes) {
  for (const CfgWrite& w : writes) {
    In in;
    in.cfg = w;
    in.cfg.valid = true;
    block->Eval(in);
    block->Tick();
  }
}

// Offers the frames' beats back to back (In::s, honouring Out::s_ready), calls `each(in, out)` every cycle
// before the edge so the target can set the other inputs and collect outputs, and then runs up to `drain`
// more cycles. If `each` returns bool, true means "the block is quiet" (nothing in flight) and ends the
// drain early: the fixed drain is then only the hang bound, not the cost of every input. Returns the
// number of cycles run.
template <class Block, class In, class Each>
uint64_t Drive(Block* block, In in, const std::vector<std::vector<uint8_t>>& frames, uint64_t drain, Each each) {
  std::vector<Beat> beats;
  for (const auto& f : frames) {
    const auto b = ToBeats(f);
    beats.insert(beats.end(), b.begin(), b.end());
  }
  size_t next = 0;
  uint64_t cycle = 0, idle = 0;
  while (idle < drain) {
    in.s.valid = next < beats.size();
    if (in.s.valid) in.s.beat = beats[next];
    const auto& out = block->Eval(in);
    const bool taken = in.s.valid && out.s_ready;
    bool quiet = false;
    if constexpr (std::is_same_v<decltype(each(&in, out)), bool>) {
      quiet = each(&in, out);
    } else {
      each(&in, out);
    }
    block->Tick();
    if (taken) ++next;
    ++cycle;
    if (next >= beats.size()) {
      if (quiet) break;
      ++idle;
    }
  }
  return cycle;
}

// Host memory for a block with the DMA port: accepts every request and answers reads with zero beats, in
// order, one per cycle. Each cycle: Serve(in) before the edge, then Observe(out.dma_req).
class ZeroHost {
 public:
  template <class In>
  void Serve(In* in) {
    in->dma_ready = true;
    in->dma_rsp = DmaResponse{};
    if (!reads_.empty()) {
      in->dma_rsp.valid = true;
      in->dma_rsp.last = --reads_.front() == 0;
      if (in->dma_rsp.last) reads_.pop_front();
    }
  }
  void Observe(const DmaRequest& d) {
    if (d.valid && !d.write) reads_.push_back(std::max(1, (d.len + kDmaBeatBytes - 1) / kDmaBeatBytes));
  }
  bool Idle() const { return reads_.empty(); }

 private:
  std::deque<int> reads_;  // beats still owed to outstanding reads
};

// Host memory that keeps what is written (sparse, by 64-byte line) and answers reads from it, in order, one
// beat per cycle, for blocks that read back what they (or a neighbour) wrote: the NAA controller reads the
// MRSP request the responder wrote. Each cycle: Serve(in) before the edge, then Observe(out.dma_req).
class MemHost {
 public:
  void Write(uint64_t addr, const uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i) Set(addr + i, p[i]);
  }
  template <class In>
  void Serve(In* in) {
    in->dma_ready = true;
    in->dma_rsp = DmaResponse{};
    if (reads_.empty()) return;
    Pending& r = reads_.front();
    in->dma_rsp.valid = true;
    for (int i = 0; i < kDmaBeatBytes; ++i) in->dma_rsp.data[i] = Byte(r.addr + static_cast<uint64_t>(i));
    r.addr += kDmaBeatBytes;
    in->dma_rsp.last = --r.beats == 0;
    if (in->dma_rsp.last) reads_.pop_front();
  }
  void Observe(const DmaRequest& d) {
    if (!d.valid) return;
    if (!d.write) {
      reads_.push_back(Pending{d.addr, std::max(1, (d.len + kDmaBeatBytes - 1) / kDmaBeatBytes)});
      return;
    }
    for (int i = 0; i < d.len && d.off + i < kDmaBeatBytes; ++i) Set(d.addr + static_cast<uint64_t>(i), d.data[d.off + i]);
  }
  bool Idle() const { return reads_.empty(); }

 private:
  struct Pending {
    uint64_t addr;
    int beats;
  };
  uint8_t Byte(uint64_t a) const {
    auto it = lines_.find(a / kDmaBeatBytes);
    return it == lines_.end() ? 0 : it->second[a % kDmaBeatBytes];
  }
  void Set(uint64_t a, uint8_t v) { lines_[a / kDmaBeatBytes][a % kDmaBeatBytes] = v; }
  std::deque<Pending> reads_;
  std::unordered_map<uint64_t, std::array<uint8_t, kDmaBeatBytes>> lines_;
};

}  // namespace nettwin::fuzz
