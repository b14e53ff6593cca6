// The testbench's host memory: a SystemC TLM-2.0 target (sparse byte store, read and write latency
// annotated on b_transport) behind a cycle API the lockstep harness steps, so the C++ model and the RTL see
// one memory with one timing. The harness never runs the SystemC scheduler: each accepted DMA request is
// one b_transport call through an initiator socket, and the annotated delay, converted back to cycles, is
// when the request completes.
//
// Two timing models (HostMemoryTiming; docs/rdma.md "Host memory and DMA" has the defaults and their sources):
//  - kPcie (the default): PCIe as on an Alveo U280 (Gen3 x16 / Gen4 x8). Writes are posted: a write needs
//    posted credits (one header credit, ceil(len / 16) data credits), which come back `write_latency` cycles
//    after the write has crossed the link, and the link carries `link_bytes_per_cycle` write bytes per cycle.
//    Reads need a tag, held from the Accept through the read's last beat; their first beat comes
//    `read_latency` cycles after the Accept, in request order.
//  - kSlots (the old model): every request holds one of `max_outstanding` slots, a write for
//    `write_latency` cycles, a read through its last beat; no link bandwidth.
// The DMA port has one request channel with one ready, so in kPcie a request is taken only when both a
// read tag and a write's credits and link room are free (the block's request kind is not known when the
// harness drives ready).
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
#include <string>
#include <utility>
#include <vector>

#include "model/common/dma.h"

namespace nettwin::tb {

// The host's timing. Defaults: docs/rdma.md "Host memory and DMA" (each with its source).
struct HostMemoryTiming {
  enum class Model { kPcie, kSlots };
  static constexpr uint32_t kDefaultReadLatency = 200;        // cycles (800 ns at 250 MHz)
  static constexpr uint32_t kDefaultWriteLatency = 100;       // cycles
  static constexpr uint32_t kDefaultOutstanding = 64;         // read tags (kPcie) / slots (kSlots)
  static constexpr uint32_t kDefaultPostedDataCredits = 1456;  // 16-byte units
  static constexpr uint32_t kDefaultPostedHeaderCredits = 784;
  static constexpr double kDefaultLinkMBps = 15750;           // PCIe Gen3 x16 after 128b/130b, MB/s

  Model model = Model::kPcie;
  uint32_t read_latency = kDefaultReadLatency;    // cycles from a read's Accept to its first beat
  uint32_t write_latency = kDefaultWriteLatency;  // kPcie: credit return after the link; kSlots: slot hold
  uint32_t max_outstanding = kDefaultOutstanding;  // kPcie: read tags; kSlots: requests of either kind
  uint32_t posted_data_credits = kDefaultPostedDataCredits;      // kPcie
  uint32_t posted_header_credits = kDefaultPostedHeaderCredits;  // kPcie
  double link_bytes_per_cycle = 0;  // kPcie: write bytes the link carries per cycle; 0 = 15750 MB/s / clock
};

// "pcie" or "slots"; ParseHostModel throws std::invalid_argument for anything else.
const char* HostModelName(HostMemoryTiming::Model m);
HostMemoryTiming::Model ParseHostModel(const std::string& s);

class HostMemory {
 public:
  static constexpr uint32_t kMaxReadLen = 4096;

  // Throws std::invalid_argument for read_latency 0 (the response would be due before the harness sees the
  // request), max_outstanding 0, too few posted credits for one 64-byte write, a link bandwidth that is not
  // positive, or a clock that is not positive or too fast for SystemC's 1 ps resolution.
  explicit HostMemory(const HostMemoryTiming& timing, double clock_mhz = 250);
  // The kSlots model (the old constructor).
  HostMemory(uint32_t read_latency, uint32_t write_latency, uint32_t max_outstanding, double clock_mhz = 250);
  ~HostMemory();
  HostMemory(const HostMemory&) = delete;
  HostMemory& operator=(const HostMemory&) = delete;
  HostMemory(HostMemory&&) noexcept;
  HostMemory& operator=(HostMemory&&) noexcept;

  // ---- Cycle API; `cycle` is the harness's cycle number. ----

  // Whether a request may be handshaken in `cycle`, from the requests accepted in earlier cycles. kSlots:
  // fewer than max_outstanding of them are outstanding (a write in cycles [accept, accept + write_latency),
  // a read from its Accept through the cycle of its last beat). kPcie: fewer than max_outstanding reads
  // outstanding, posted credits for a 64-byte write free (its credits are held from its Accept until
  // write_latency cycles after the link has carried it), and the link done with the earlier writes by the
  // end of this cycle (at most one write waits behind the one on the wire).
  bool Ready(uint64_t cycle) const;
  // Requests accepted before `cycle` whose slot (kSlots) or tag or credits (kPcie) are still held in it.
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

  uint32_t read_latency() const { return timing_.read_latency; }
  uint32_t write_latency() const { return timing_.write_latency; }
  uint32_t max_outstanding() const { return timing_.max_outstanding; }
  // The timing in force (link_bytes_per_cycle resolved from the clock if it was 0).
  const HostMemoryTiming& timing() const { return timing_; }
  double clock_mhz() const { return clock_mhz_; }

 private:
  class Target;     // the sc_module with the TLM target socket and the store
  class Initiator;  // the sc_module whose initiator socket the cycle API calls through

  struct Slot {
    uint64_t accept, retire;  // outstanding in cycles [accept, retire)
    bool write = false;
    uint32_t data_credits = 0;  // kPcie writes: 16-byte posted data credits held
  };
  struct PendingRead {
    uint64_t first_cycle = 0;
    uint32_t beats = 0, next = 0;
    std::vector<uint8_t> data;  // beats * 64 bytes, snapshotted at Accept
  };

  // One b_transport; returns the annotated delay in cycles.
  uint64_t Transport(bool write, uint64_t addr, uint8_t* data, uint32_t len);
  void Retire(uint64_t cycle);

  HostMemoryTiming timing_;
  double clock_mhz_;
  // kPcie: when the link is done with every write accepted so far, and with those accepted before the
  // last Accept's cycle (Ready of that cycle must not see its own request).
  double link_free_ = 0, link_free_before_last_ = 0;
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
