// The testbench's host memory: a SystemC TLM-2.0 target (sparse byte store, read and write latency
// annotated on b_transport) behind a cycle API the lockstep harness steps, so the C++ model and the RTL see
// one memory with one timing. The harness never runs the SystemC scheduler: each accepted DMA request is
// one b_transport call through an initiator socket, and the annotated delay, converted back to cycles, is
// when the request completes.
//
// Per cycle the harness calls Ready(c) and Response(c) while building the block's inputs, then, after
// evaluating the block, Accept(c, request) if the block's request was handshaken. Hence a read's first beat
// comes at the earliest one cycle after its Accept (read_latency >= 1).
//
// SystemC caveats (details in host_memory.cc):
//  - libsystemc.so exports main() (which calls sc_main) and needs sc_main to link; host_memory.cc supplies a
//    weak sc_main that only reports a link-order mistake. A main() from a static library (gtest_main) must
//    come before -lsystemc on the link line, or libsystemc's main() is the one that runs.
//  - Several HostMemory objects may live and die in one process (unique module names are generated), but
//    the process must never call sc_start (modules can't be created once elaboration is done), and SystemC's
//    kernel is global and not thread-safe: create, use and destroy them on one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <utility>
#include <vector>

#include "model/common/dma.h"

namespace nettwin::tb {

class HostMemory {
 public:
  static constexpr uint32_t kMaxReadLen = 4096;

  // Throws std::invalid_argument for read_latency 0 (the response would be due before the harness sees the
  // request), max_outstanding 0 or a clock that is not positive or too fast for SystemC's 1 ps resolution.
  HostMemory(uint32_t read_latency, uint32_t write_latency, uint32_t max_outstanding, double clock_mhz = 250);
  ~HostMemory();
  HostMemory(const HostMemory&) = delete;
  HostMemory& operator=(const HostMemory&) = delete;
  HostMemory(HostMemory&&) noexcept;
  HostMemory& operator=(HostMemory&&) noexcept;

  // ---- Cycle API; `cycle` is the harness's cycle number. ----

  // Whether a request may be handshaken in `cycle`: fewer than max_outstanding requests accepted in earlier
  // cycles are still outstanding in it. A write is outstanding in cycles [accept, accept + write_latency), a
  // read from its Accept through the cycle of its last beat.
  bool Ready(uint64_t cycle) const { return Outstanding(cycle) < max_outstanding_; }
  size_t Outstanding(uint64_t cycle) const;

  // The block's request `r` was handshaken in `cycle`. A write lands in the store now (later reads see it:
  // PCIe reads don't pass posted writes); a read snapshots its data now. Throws std::invalid_argument for a
  // malformed request (reads: len 1..4096; writes: len 1..64, off + len <= 64; no wrap past 2^64) and
  // std::logic_error for a protocol error (not Ready, cycles not increasing).
  void Accept(uint64_t cycle, const DmaRequest& r);

  // The read-response beat offered in `cycle` (valid = false if none); the block always takes it. Call it
  // once per cycle with increasing cycles: a beat that falls due in a skipped cycle is a std::logic_error.
  DmaResponse Response(uint64_t cycle);

  // ---- Host-side access: untimed, not counted, not logged (configuration, checks, dumps). ----
  void Write(uint64_t addr, const uint8_t* p, size_t n);
  void Read(uint64_t addr, uint8_t* p, size_t n) const;

  // Accepted DMA requests, and their payload bytes (len of each request).
  uint64_t reads() const { return reads_; }
  uint64_t writes() const { return writes_; }
  uint64_t read_bytes() const { return read_bytes_; }
  uint64_t write_bytes() const { return write_bytes_; }
  // Every accepted request with its cycle, in order.
  const std::vector<std::pair<uint64_t, DmaRequest>>& log() const { return log_; }

  uint32_t read_latency() const { return read_latency_; }
  uint32_t write_latency() const { return write_latency_; }
  uint32_t max_outstanding() const { return max_outstanding_; }
  double clock_mhz() const { return clock_mhz_; }

 private:
  class Target;     // the sc_module with the TLM target socket and the store
  class Initiator;  // the sc_module whose initiator socket the cycle API calls through

  struct Slot {
    uint64_t accept, retire;  // outstanding in cycles [accept, retire)
  };
  struct PendingRead {
    uint64_t first_cycle = 0;
    uint32_t beats = 0, next = 0;
    std::vector<uint8_t> data;  // beats * 64 bytes, snapshotted at Accept
  };

  // One b_transport; returns the annotated delay in cycles.
  uint64_t Transport(bool write, uint64_t addr, uint8_t* data, uint32_t len);
  void Retire(uint64_t cycle);

  uint32_t read_latency_, write_latency_, max_outstanding_;
  double clock_mhz_;
  std::unique_ptr<Target> target_;
  std::unique_ptr<Initiator> initiator_;

  std::vector<Slot> slots_;
  std::deque<PendingRead> reads_pending_;
  bool any_accept_ = false, any_response_ = false, any_read_ = false;
  uint64_t last_accept_ = 0, last_response_ = 0, last_read_beat_ = 0;

  uint64_t reads_ = 0, writes_ = 0, read_bytes_ = 0, write_bytes_ = 0;
  std::vector<std::pair<uint64_t, DmaRequest>> log_;
};

}  // namespace nettwin::tb
