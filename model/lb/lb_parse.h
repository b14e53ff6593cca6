// Header parse of the LB pipeline: everything the lookups and the rewrite need, from the first bytes of a
// frame (at most two beats; every header the LB reads ends by byte 94).
#pragma once

#include <array>
#include <cstdint>

#include "model/lb/lb_tables.h"
#include "model/lb/lb_types.h"

namespace nettwin::lb {

// The parser never needs more than this many leading bytes of a frame.
constexpr int kParseWindow = 2 * kBeatBytes;

struct ParseInfo {
  DropReason reason = DropReason::kNone;
  bool is_v6 = false;
  FilterKey key;        // MAC DA, EtherType, normalised IP destination, UDP destination port
  uint64_t tick = 0;
  uint8_t l4_off = 0;   // offset of the UDP header; the LB header follows at l4_off + 8
  uint16_t ip_len = 0;  // IPv4 total length or IPv6 payload length
  uint16_t ip_csum = 0;
  uint16_t udp_len = 0;
  uint16_t udp_csum = 0;
  std::array<uint16_t, 6> lb_words{};  // the LB header as six 16-bit words, removed from the UDP sum
};

// `window` holds the first `len` bytes of the frame (len may be the whole frame if shorter than
// kParseWindow; a longer frame is passed as kParseWindow bytes).
ParseInfo Parse(const uint8_t* window, int len);

}  // namespace nettwin::lb
