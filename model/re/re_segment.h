// The header checks of one RE input frame (docs/re.md "Drops", first six rows), shared by the golden model
// and the cycle model: both see the same frame bytes and must agree on the same reason.
#pragma once

#include <cstdint>
#include <vector>

namespace nettwin::re {

// Why a segment was not used; the order is the order of the checks (docs/re.md). The RTL's reason code
// (nt_pkg ReDrop*) is this value + 1.
enum class Drop : uint8_t {
  kRunt,          // shorter than Ethernet
  kNotIp,         // EtherType not IPv4/IPv6
  kTruncated,     // ends inside a header, or before the UDP length says
  kNotUdp,        // IP protocol / next header not UDP, or an IPv4 fragment
  kEmpty,         // no data and not a last segment
  kTooBig,        // offset + length beyond the context buffer
  kInconsistent,  // a second, different end of the event, or data past its end
  kDuplicate,     // every byte already received, or the event already completed
  kOverlap,       // some bytes already received
  kNoContext,     // every context busy with another event
  kNoRange,       // the context already tracks ReRanges disjoint byte ranges and this one joins none
};
constexpr int kNumDrops = 11;
const char* DropName(int d);

struct Segment {
  bool ok = false;
  Drop drop = Drop::kRunt;  // when !ok
  uint16_t tick16 = 0, data_id = 0;
  uint64_t mac_dst = 0, mac_src = 0;
  bool last = false;
  uint32_t offset = 0, len = 0;
  uint32_t data_at = 0;  // frame byte where the segment's data starts (UDP header + 16)
  uint64_t End() const { return uint64_t{offset} + len; }
};

// The checks up to and including `too_big` (those that need no context).
Segment ParseSegment(const std::vector<uint8_t>& frame, uint32_t buffer_bytes);

}  // namespace nettwin::re
