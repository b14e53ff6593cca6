#include "tb/common/host_memory.h"

#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>
#include <systemc>
#include <tlm>
#include <unordered_map>

// libsystemc.so defines main() (it calls sc_main) and so leaves sc_main undefined: without a definition,
// every executable linking it fails with "undefined reference to `sc_main'". Our executables have their
// own main() and never enter SystemC's, so this weak definition only satisfies the linker (a real sc_main
// elsewhere overrides it). It runs only when the linker took libsystemc's main() instead of the program's,
// which happens when that main() sits in a static library (gtest_main) placed after -lsystemc: say so and
// fail rather than silently running nothing.
extern "C" __attribute__((weak)) int sc_main(int, char*[]) {
  std::fputs(
      "nettwin: libsystemc's main() ran instead of the program's own: put the library that defines main() "
      "(e.g. -lgtest_main) before -lsystemc on the link line\n",
      stderr);
  return 1;
}

namespace nettwin::tb {
namespace {

constexpr uint64_t kPageBytes = 4096;

std::string Hex(uint64_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}

// Whether [addr, addr + n) runs past 2^64.
bool Wraps(uint64_t addr, uint64_t n) { return n > 0 && addr + (n - 1) < addr; }

}  // namespace

// The memory proper: a sparse store (4 KiB pages allocated on first write, unwritten bytes read as 0) behind
// a TLM-2.0 target socket whose b_transport annotates the read or write latency.
class HostMemory::Target : public sc_core::sc_module {
 public:
  Target(sc_core::sc_module_name name, uint32_t read_latency, uint32_t write_latency, sc_core::sc_time period)
      : sc_core::sc_module(name),
        socket_("socket"),
        read_latency_(read_latency),
        write_latency_(write_latency),
        period_(period) {
    socket_.register_b_transport(this, &Target::BTransport);
  }

  tlm_utils::simple_target_socket<Target>& socket() { return socket_; }

  uint64_t Cycles(const sc_core::sc_time& delay) const { return static_cast<uint64_t>(std::llround(delay / period_)); }

  void Store(uint64_t addr, const uint8_t* p, uint64_t n) {
    while (n > 0) {
      const uint64_t in_page = addr % kPageBytes;
      const uint64_t chunk = std::min(n, kPageBytes - in_page);
      // operator[] value-initializes a new page, so its unwritten bytes read as 0.
      std::memcpy(pages_[addr / kPageBytes].data() + in_page, p, chunk);
      addr += chunk;
      p += chunk;
      n -= chunk;
    }
  }

  void Load(uint64_t addr, uint8_t* p, uint64_t n) const {
    while (n > 0) {
      const uint64_t in_page = addr % kPageBytes;
      const uint64_t chunk = std::min(n, kPageBytes - in_page);
      const auto it = pages_.find(addr / kPageBytes);
      if (it == pages_.end()) {
        std::memset(p, 0, chunk);
      } else {
        std::memcpy(p, it->second.data() + in_page, chunk);
      }
      addr += chunk;
      p += chunk;
      n -= chunk;
    }
  }

 private:
  void BTransport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
    const tlm::tlm_command cmd = t.get_command();
    if (cmd != tlm::TLM_READ_COMMAND && cmd != tlm::TLM_WRITE_COMMAND) {
      t.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
      return;
    }
    if (t.get_byte_enable_ptr() != nullptr) {
      t.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
      return;
    }
    if (t.get_streaming_width() < t.get_data_length()) {
      t.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
      return;
    }
    if (Wraps(t.get_address(), t.get_data_length())) {
      t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    if (cmd == tlm::TLM_WRITE_COMMAND) {
      Store(t.get_address(), t.get_data_ptr(), t.get_data_length());
    } else {
      Load(t.get_address(), t.get_data_ptr(), t.get_data_length());
    }
    t.set_dmi_allowed(false);  // every access must go through b_transport to be timed
    delay += static_cast<double>(cmd == tlm::TLM_WRITE_COMMAND ? write_latency_ : read_latency_) * period_;
    t.set_response_status(tlm::TLM_OK_RESPONSE);
  }

  tlm_utils::simple_target_socket<Target> socket_;
  uint32_t read_latency_, write_latency_;
  sc_core::sc_time period_;
  std::unordered_map<uint64_t, std::array<uint8_t, kPageBytes>> pages_;
};

// The harness's side of the bus. Ports may only be created inside a module, hence a module of its own.
class HostMemory::Initiator : public sc_core::sc_module {
 public:
  explicit Initiator(sc_core::sc_module_name name) : sc_core::sc_module(name), socket_("socket") {}
  tlm_utils::simple_initiator_socket<Initiator>& socket() { return socket_; }

 private:
  tlm_utils::simple_initiator_socket<Initiator> socket_;
};

const char* HostModelName(HostMemoryTiming::Model m) {
  return m == HostMemoryTiming::Model::kPcie ? "pcie" : "slots";
}

HostMemoryTiming::Model ParseHostModel(const std::string& s) {
  if (s == "pcie") return HostMemoryTiming::Model::kPcie;
  if (s == "slots") return HostMemoryTiming::Model::kSlots;
  throw std::invalid_argument("host memory model must be pcie or slots, got '" + s + "'");
}

namespace {

HostMemoryTiming SlotsTiming(uint32_t read_latency, uint32_t write_latency, uint32_t max_outstanding) {
  HostMemoryTiming t;
  t.model = HostMemoryTiming::Model::kSlots;
  t.read_latency = read_latency;
  t.write_latency = write_latency;
  t.max_outstanding = max_outstanding;
  return t;
}

}  // namespace

HostMemory::HostMemory(uint32_t read_latency, uint32_t write_latency, uint32_t max_outstanding, double clock_mhz)
    : HostMemory(SlotsTiming(read_latency, write_latency, max_outstanding), clock_mhz) {}

HostMemory::HostMemory(const HostMemoryTiming& timing, double clock_mhz) : timing_(timing), clock_mhz_(clock_mhz) {
  if (timing.read_latency == 0) {
    throw std::invalid_argument(
        "HostMemory: read_latency must be >= 1 (the harness drives a cycle's responses before it sees that "
        "cycle's request)");
  }
  if (timing.max_outstanding == 0) throw std::invalid_argument("HostMemory: max_outstanding must be >= 1");
  if (!(clock_mhz > 0) || !std::isfinite(clock_mhz)) {
    throw std::invalid_argument("HostMemory: clock_mhz must be positive, got " + std::to_string(clock_mhz));
  }
  if (timing.model == HostMemoryTiming::Model::kPcie) {
    if (timing.posted_data_credits < kDmaBeatBytes / 16 || timing.posted_header_credits < 1) {
      throw std::invalid_argument(
          "HostMemory: posted credits must allow one 64-byte write (>= 4 data credits, >= 1 header credit)");
    }
    if (timing_.link_bytes_per_cycle == 0) timing_.link_bytes_per_cycle = HostMemoryTiming::kDefaultLinkMBps / clock_mhz;
    if (!(timing_.link_bytes_per_cycle > 0) || !std::isfinite(timing_.link_bytes_per_cycle)) {
      throw std::invalid_argument("HostMemory: link_bytes_per_cycle must be positive");
    }
  }
  // sc_time rounds to the time resolution (1 ps by default); a period rounded to 0 could not be converted
  // back to cycles.
  const sc_core::sc_time period(1e6 / clock_mhz, sc_core::SC_PS);
  if (period == sc_core::SC_ZERO_TIME) {
    throw std::invalid_argument("HostMemory: clock_mhz " + std::to_string(clock_mhz) +
                                " is beyond SystemC's time resolution");
  }
  // Module names must be unique among live SystemC objects, and gtest makes many of these in one process.
  // Creating modules outside sc_main is fine as long as elaboration (sc_start) never happens; b_transport
  // is then a plain virtual call through the bound socket.
  target_ = std::make_unique<Target>(sc_core::sc_gen_unique_name("host_memory"), timing.read_latency,
                                     timing.write_latency, period);
  initiator_ = std::make_unique<Initiator>(sc_core::sc_gen_unique_name("host_memory_initiator"));
  initiator_->socket().bind(target_->socket());
}

// The initiator is declared after the target, so it (and its binding to the target) goes first.
HostMemory::~HostMemory() = default;
HostMemory::HostMemory(HostMemory&&) noexcept = default;

HostMemory& HostMemory::operator=(HostMemory&& o) noexcept {
  if (this != &o) {
    // Unbind before the target goes, as in the destructor; member-wise assignment would do it the other way.
    initiator_.reset();
    target_.reset();
    timing_ = o.timing_;
    clock_mhz_ = o.clock_mhz_;
    link_free_ = o.link_free_;
    link_free_before_last_ = o.link_free_before_last_;
    target_ = std::move(o.target_);
    initiator_ = std::move(o.initiator_);
    slots_ = std::move(o.slots_);
    reads_pending_ = std::move(o.reads_pending_);
    any_accept_ = o.any_accept_;
    any_response_ = o.any_response_;
    any_read_ = o.any_read_;
    last_accept_ = o.last_accept_;
    last_response_ = o.last_response_;
    last_read_beat_ = o.last_read_beat_;
    reads_ = o.reads_;
    writes_ = o.writes_;
    read_bytes_ = o.read_bytes_;
    write_bytes_ = o.write_bytes_;
    log_ = std::move(o.log_);
  }
  return *this;
}

size_t HostMemory::Outstanding(uint64_t cycle) const {
  // Only requests from earlier cycles count, so the answer is the same before and after this cycle's Accept.
  return static_cast<size_t>(
      std::count_if(slots_.begin(), slots_.end(), [&](const Slot& s) { return s.accept < cycle && s.retire > cycle; }));
}

bool HostMemory::Ready(uint64_t cycle) const {
  if (timing_.model == HostMemoryTiming::Model::kSlots) return Outstanding(cycle) < timing_.max_outstanding;
  // Only requests from earlier cycles count, as in Outstanding.
  uint32_t reads = 0, writes = 0, data_credits = 0;
  for (const Slot& s : slots_) {
    if (s.accept >= cycle || s.retire <= cycle) continue;
    if (s.write) {
      ++writes;
      data_credits += s.data_credits;
    } else {
      ++reads;
    }
  }
  const double link_free = any_accept_ && cycle <= last_accept_ ? link_free_before_last_ : link_free_;
  return reads < timing_.max_outstanding && writes < timing_.posted_header_credits &&
         data_credits + kDmaBeatBytes / 16 <= timing_.posted_data_credits &&
         link_free <= static_cast<double>(cycle) + 1;
}

void HostMemory::Retire(uint64_t cycle) {
  slots_.erase(std::remove_if(slots_.begin(), slots_.end(), [&](const Slot& s) { return s.retire <= cycle; }),
               slots_.end());
}

uint64_t HostMemory::Transport(bool write, uint64_t addr, uint8_t* data, uint32_t len) {
  tlm::tlm_generic_payload t;
  t.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  t.set_address(addr);
  t.set_data_ptr(data);
  t.set_data_length(len);
  t.set_streaming_width(len);
  t.set_byte_enable_ptr(nullptr);
  t.set_dmi_allowed(false);
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  initiator_->socket()->b_transport(t, delay);
  if (t.is_response_error()) {
    // Requests are validated before they get here, so this is a bug in this file.
    throw std::logic_error("HostMemory: b_transport " + std::string(write ? "write" : "read") + " at " + Hex(addr) +
                           " failed: " + t.get_response_string());
  }
  return target_->Cycles(delay);
}

void HostMemory::Accept(uint64_t cycle, const DmaRequest& r) {
  const std::string where = " (cycle " + std::to_string(cycle) + ", addr " + Hex(r.addr) + ")";
  if (!r.valid) throw std::invalid_argument("HostMemory: Accept of a request that is not valid" + where);
  uint32_t beats = 0;
  if (r.write) {
    if (r.len < 1 || r.len > kDmaBeatBytes) {
      throw std::invalid_argument("HostMemory: DMA write len " + std::to_string(r.len) + " is outside 1.." +
                                  std::to_string(kDmaBeatBytes) + where);
    }
    if (r.off + r.len > kDmaBeatBytes) {
      throw std::invalid_argument("HostMemory: DMA write off " + std::to_string(r.off) + " + len " +
                                  std::to_string(r.len) + " runs past the " + std::to_string(kDmaBeatBytes) +
                                  "-byte beat" + where);
    }
    if (Wraps(r.addr, r.len)) throw std::invalid_argument("HostMemory: DMA write wraps past 2^64" + where);
  } else {
    if (r.len < 1 || r.len > kMaxReadLen) {
      throw std::invalid_argument("HostMemory: DMA read len " + std::to_string(r.len) + " is outside 1.." +
                                  std::to_string(kMaxReadLen) + where);
    }
    beats = (r.len + kDmaBeatBytes - 1) / kDmaBeatBytes;
    if (Wraps(r.addr, uint64_t{beats} * kDmaBeatBytes)) {
      throw std::invalid_argument("HostMemory: DMA read beats wrap past 2^64" + where);
    }
  }
  if (any_accept_ && cycle <= last_accept_) {
    throw std::logic_error("HostMemory: Accept cycles must increase; previous was " + std::to_string(last_accept_) +
                           where);
  }
  if (any_response_ && cycle < last_response_) {
    throw std::logic_error("HostMemory: Accept after Response of the later cycle " + std::to_string(last_response_) +
                           where);
  }
  if (!Ready(cycle)) {
    throw std::logic_error("HostMemory: request accepted while not Ready (" + std::to_string(Outstanding(cycle)) +
                           " outstanding, max " + std::to_string(timing_.max_outstanding) + ")" + where);
  }
  any_accept_ = true;
  last_accept_ = cycle;
  Retire(cycle);

  if (r.write) {
    std::array<uint8_t, kDmaBeatBytes> data = r.data;  // TLM wants a mutable buffer
    const uint64_t latency = Transport(true, r.addr, data.data() + r.off, r.len);
    if (timing_.model == HostMemoryTiming::Model::kSlots) {
      slots_.push_back({cycle, cycle + latency, true, 0});
    } else {
      // Posted: the write crosses the link after the writes before it; its credits come back `latency`
      // cycles after that.
      link_free_before_last_ = link_free_;
      link_free_ = std::max(link_free_, static_cast<double>(cycle)) + r.len / timing_.link_bytes_per_cycle;
      const uint64_t crossed = static_cast<uint64_t>(std::ceil(link_free_));
      slots_.push_back({cycle, std::max(crossed, cycle + 1) + latency, true, (r.len + 15u) / 16u});
    }
    ++writes_;
    write_bytes_ += r.len;
  } else {
    PendingRead pr;
    pr.beats = beats;
    // Whole beats: beat j carries host bytes [addr + 64 j, addr + 64 j + 64), also past len on the last one.
    pr.data.resize(static_cast<size_t>(beats) * kDmaBeatBytes);
    const uint64_t latency = Transport(false, r.addr, pr.data.data(), beats * kDmaBeatBytes);
    // Completions come back in request order: never overtake the previous read's last beat.
    pr.first_cycle = cycle + latency;
    if (any_read_) pr.first_cycle = std::max(pr.first_cycle, last_read_beat_ + 1);
    any_read_ = true;
    last_read_beat_ = pr.first_cycle + beats - 1;
    slots_.push_back({cycle, last_read_beat_ + 1});
    link_free_before_last_ = link_free_;
    reads_pending_.push_back(std::move(pr));
    ++reads_;
    read_bytes_ += r.len;
  }
  log_.emplace_back(cycle, r);
}

DmaResponse HostMemory::Response(uint64_t cycle) {
  if (any_response_ && cycle <= last_response_) {
    throw std::logic_error("HostMemory: Response cycles must increase; got " + std::to_string(cycle) + " after " +
                           std::to_string(last_response_));
  }
  any_response_ = true;
  last_response_ = cycle;
  Retire(cycle);
  DmaResponse out;
  if (reads_pending_.empty()) return out;
  PendingRead& pr = reads_pending_.front();
  const uint64_t due = pr.first_cycle + pr.next;
  if (due > cycle) return out;
  if (due < cycle) {
    throw std::logic_error("HostMemory: a read-response beat due in cycle " + std::to_string(due) +
                           " was never collected (Response must be called every cycle)");
  }
  out.valid = true;
  std::memcpy(out.data.data(), pr.data.data() + static_cast<size_t>(pr.next) * kDmaBeatBytes, kDmaBeatBytes);
  ++pr.next;
  out.last = pr.next == pr.beats;
  if (out.last) reads_pending_.pop_front();
  return out;
}

void HostMemory::Write(uint64_t addr, const uint8_t* p, size_t n) {
  if (Wraps(addr, n))
    throw std::invalid_argument("HostMemory::Write: [" + Hex(addr) + ", +" + std::to_string(n) + ") wraps past 2^64");
  target_->Store(addr, p, n);
}

void HostMemory::Read(uint64_t addr, uint8_t* p, size_t n) const {
  if (Wraps(addr, n))
    throw std::invalid_argument("HostMemory::Read: [" + Hex(addr) + ", +" + std::to_string(n) + ") wraps past 2^64");
  target_->Load(addr, p, n);
}

}  // namespace nettwin::tb
