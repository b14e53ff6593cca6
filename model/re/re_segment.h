// The header checks of one RE input frame (docs/re.md "Drops", the rows that need no context), shared by the
// golden model and the cycle model: both see the same frame bytes and must agree on the same reason.
#pragma once

#include <cstdint>
#include <vector>

namespace nettwin::re {

// Why a segment was not used. The RTL's reason code (nt_pkg ReDrop*) is this value + 1. The first eleven are
// in the order of the checks; bad_version and lb_header (added with E2SAR's header) are checked right after
// `truncated` (docs/re.md "Drops" gives the whole order) but keep codes 12 and 13 so older codes stay.
enum class Drop : uint8_t {
  kRunt,          // shorter than Ethernet
  kNotIp,         // EtherType not IPv4/IPv6
  kTruncated,     // ends inside a header, or before the UDP length says
  kNotUdp,        // IP protocol / next header not UDP, or an IPv4 fragment
  kEmpty,         // no data and not the segment that ends the event
  kTooBig,        // offset + length (or E2SAR's event length) beyond the context buffer
  kInconsistent,  // a second, different end of the event, or data past its end
  kDuplicate,     // every byte already received, or the event already completed
  kOverlap,       // some bytes already received
  kNoContext,     // every context busy with another event
  kNoRange,       // the context already tracks ReRanges disjoint byte ranges and this one joins none
  kBadVersion,    // the RE header's version (E2SAR: version byte and reserved byte) is not the configured one
  kLbHeader,      // the UDP payload starts with an LB header the configuration does not skip (or of unknown size)
};
constexpr int kNumDrops = 13;
const char* DropName(int d);

// Which reassembly header follows UDP (config `header`).
enum class HeaderFormat : uint8_t {
  kEvio6,  // the seed's 8 bytes: version:4 rsvd:10 first:1 last:1 data_id:16 offset:32; key (UDP source port, data_id)
  kE2sar,  // JeffersonLab/E2SAR REHdr, 20 bytes: version:4 rsvd:12 data_id:16 offset:32 length:32 event_num:64
};
// Where an event's bytes go (config `buffer`): the on-chip per-context buffer (ReBufBytes each, the default) or
// a slot per context in host memory, written by DMA (docs/re-microarchitecture.md "Event data in host memory").
enum class BufferMode : uint8_t { kOnChip, kHost };
// The largest event with `buffer host` (re_pkg ReHostBufBytes; E2SAR's BufferLength is 32 bits, the issue asks
// for 16 MiB).
constexpr uint32_t kReHostBufBytes = 1u << 24;

// What to do with a UDP payload that still starts with an LB header ("LB", version 1: 12 bytes, 2 or 3: 16).
enum class LbHeaderMode : uint8_t { kSkip, kDrop };

struct ParseConfig {
  uint32_t buffer_bytes = 16384;
  HeaderFormat format = HeaderFormat::kEvio6;
  uint8_t version = 0;  // the RE header version accepted
  LbHeaderMode lb_header = LbHeaderMode::kSkip;
  // `buffer host`: the frame bytes the input FIFO keeps (ReSegBeats x 64); a segment whose data ends past them
  // is `too_big` (0: no such bound; on chip, buffer_bytes <= ReBufBytes already bounds it).
  uint32_t max_frame_data = 0;
};

struct Segment {
  bool ok = false;
  Drop drop = Drop::kRunt;  // when !ok
  uint64_t event_num = 0;   // evio6: the UDP source port (tick[15:0]); e2sar: the header's event number
  uint16_t data_id = 0;
  uint64_t mac_dst = 0, mac_src = 0;
  bool last = false;        // the segment declares the event's end (evio6: the Last flag; e2sar: always)
  uint32_t offset = 0, len = 0;
  uint64_t event_end = 0;   // the end it declares: evio6 offset + len, e2sar the header's event length
  uint32_t data_at = 0;     // frame byte where the segment's data starts
  uint64_t End() const { return uint64_t{offset} + len; }
  uint16_t Tick16() const { return static_cast<uint16_t>(event_num); }
};

// The checks up to and including `too_big` (those that need no context).
Segment ParseSegment(const std::vector<uint8_t>& frame, const ParseConfig& cfg);

}  // namespace nettwin::re
