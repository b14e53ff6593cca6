// EJFAT reassembly engine (RE), packet-at-a-time golden model (docs/re.md). It takes the LB's output for one
// compute node and rebuilds each event from segments that arrive in any order, duplicated or lost. The key is
// (tick[15:0] from the UDP source port, data_id) with the seed's header, (event number, data_id) with E2SAR's. It is the reference the cycle model (re_cycle_model.h) and the RTL
// are compared with (docs/re-microarchitecture.md).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model/common/packet.h"
#include "model/re/re_segment.h"
#include "nt_params.h"

namespace nettwin::re {

constexpr uint64_t kReDefaultHostBase = uint64_t{1} << 32;

// `buffer host`: each context's slot in host memory is buffer_bytes rounded up to 4 KiB.
inline uint64_t HostSlotBytes(uint32_t buffer_bytes) { return (uint64_t{buffer_bytes} + 4095) / 4096 * 4096; }

struct ReConfig {
  int contexts = 16;                            // events reassembled at once
  uint32_t buffer_bytes = params::kReBufBytes;  // largest event (the RTL's buffer per context)
  double timeout_us = 1000;  // an event still incomplete this long after its first segment is dropped
  HeaderFormat format = HeaderFormat::kEvio6;   // `header evio6|e2sar`
  int version = -1;                             // `version N`; -1: the format's (evio6 0, e2sar 1)
  LbHeaderMode lb_header = LbHeaderMode::kSkip;  // `lb_header skip|drop`
  BufferMode buffer = BufferMode::kOnChip;       // `buffer onchip|host`
  uint64_t host_base = kReDefaultHostBase;       // `host_base N`: context k's slot is host_base + k x slot bytes
  int Version() const { return version >= 0 ? version : format == HeaderFormat::kE2sar ? 1 : 0; }
  ParseConfig Parse() const {
    return ParseConfig{buffer_bytes, format, static_cast<uint8_t>(Version()), lb_header,
                       buffer == BufferMode::kHost ? params::kReSegBeats * 64 : 0};
  }
};

// Parses `name value` lines (contexts, buffer_bytes, timeout_us, header, version, lb_header); throws
// std::runtime_error("file:line: ...").
ReConfig ParseReConfig(const std::string& text, const std::string& file_name);

struct ReEvent {
  uint16_t tick16 = 0, data_id = 0;  // tick16: the low 16 bits of event_num
  uint64_t event_num = 0;            // evio6: the UDP source port; e2sar: the header's event number
  uint64_t mac_dst = 0, mac_src = 0;  // of the segment that opened the event
  uint32_t segments = 0;
  uint64_t first_ns = 0, done_ns = 0;  // arrival times (pcap timestamps)
  std::vector<uint8_t> data;
};

struct ReTimeout {
  uint16_t tick16 = 0, data_id = 0;
  uint64_t event_num = 0;
  uint32_t received_bytes = 0, segments = 0;
  bool end_known = false;
  uint32_t length = 0;  // when end_known
  bool at_end_of_input = false;
};

struct ReCounters {
  uint64_t segments_in = 0, segments_used = 0, events_completed = 0, events_timed_out = 0;
  std::array<uint64_t, kNumDrops> drops{};
};

class RePacketModel {
 public:
  explicit RePacketModel(const ReConfig& cfg) : cfg_(cfg) {}
  // One segment at its pcap time: expires old contexts first, then places the segment.
  void Push(const Packet& p);
  // End of input: every open context is reported as incomplete.
  void Finish();

  const std::vector<ReEvent>& events() const { return events_; }
  const std::vector<ReTimeout>& timeouts() const { return timeouts_; }
  const ReCounters& counters() const { return counters_; }

 private:
  using Key = std::pair<uint64_t, uint16_t>;  // (event_num, data_id)
  struct Context {
    uint64_t event_num = 0;
    uint16_t data_id = 0;
    uint64_t mac_dst = 0, mac_src = 0;
    uint64_t first_ns = 0;
    uint32_t segments = 0, received = 0;
    bool end_known = false;
    bool done = false;  // completed: kept until its timeout so late duplicates are not a second event
    uint32_t length = 0;
    std::map<uint32_t, uint32_t> ranges;  // received [begin, end), disjoint
    std::vector<uint8_t> data;
  };
  void Expire(uint64_t now_ns);
  void CountDrop(Drop d) { ++counters_.drops[static_cast<int>(d)]; }

  ReConfig cfg_;
  std::map<Key, Context> open_;
  std::vector<ReEvent> events_;
  std::vector<ReTimeout> timeouts_;
  ReCounters counters_;
};

// The output stream record of an event: an Ethernet frame to the opening segment's MAC addresses with
// EtherType 0x88B5 (local experimental), a header (evio6: tick16, data_id, length, segments, 12 bytes; e2sar:
// event_num (8), data_id, length, segments, 18 bytes; big endian) and the event's bytes; its time is the
// completion time.
Packet EventFrame(const ReEvent& e, HeaderFormat format = HeaderFormat::kEvio6);
// The bytes before the event's data in its frame (nt_pkg ReOutHdrBytes / ReOutHdrBytesE2sar).
uint32_t EventHeaderBytes(HeaderFormat format);
// `buffer host`: the completion record the engine sends instead of the event frame: the event frame's header
// (its length field = the event's length) followed by the 8-byte host address of the event's first byte (big
// endian); the bytes themselves are in host memory at that address.
Packet EventRecord(const ReEvent& e, uint32_t length, uint64_t host_addr, HeaderFormat format);
constexpr uint32_t kReRecordAddrBytes = 8;

}  // namespace nettwin::re
