// RoCEv2 packet layer of the responder: request parse, ICRC masking, response composition.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "model/rdma/rdma_types.h"

namespace nettwin::rdma {

constexpr int kHdrWindow = 128;  // every request header ends by byte 102 (IPv6 + AtomicETH)

struct Request {
  Drop drop = Drop::kNone;  // runt, malformed or not_for_us
  bool v6 = false;
  uint64_t src_mac = 0;
  uint32_t src_ip4 = 0;
  U128 src_ip6;
  uint16_t sport = 0;
  uint8_t opcode = 0, pad = 0;
  bool ackreq = false;
  uint32_t dqpn = 0, psn = 0;
  uint64_t va = 0, swap = 0, compare = 0;
  uint32_t rkey = 0, dmalen = 0;
  uint32_t imm = 0;  // ImmDt, as the 4 wire bytes read big-endian
  uint16_t hdr_len = 0;  // frame offset of the payload
  uint16_t end = 0;      // frame offset just past the ICRC
  int32_t plen = 0;      // payload bytes (pad excluded)
};

// `hdr` = the first kHdrWindow bytes of the frame (zero beyond frame_len).
Request ParseRequest(const uint8_t* hdr, int frame_len, const ResponderCfg& r);

// ICRC: the byte at frame offset `pos` as it enters the CRC (masked fields read as ones).
uint8_t IcrcMasked(int pos, uint8_t b, bool v6);
// Feeds bytes [max(from, lo), min(to, hi)) of a beat whose first byte is frame offset `base`.
uint32_t IcrcBeat(uint32_t crc, const uint8_t* beat, int base, int lo, int hi, bool v6);
// The CRC register after the 8 bytes of ones that stand for the LRH.
uint32_t IcrcSeed();
// The ICRC of a whole frame whose ICRC field starts at byte `end`: bytes [14, end) fed beat by beat as the
// RTL does (bytes past f's size read as zero), complemented. The wire carries it least significant byte first.
uint32_t FrameIcrc(const std::vector<uint8_t>& f, int end, bool v6 = false);

// Everything a response packet needs; its payload (READ responses) comes from the response buffer.
struct ResponseDesc {
  bool v6 = false;
  uint64_t dst_mac = 0, src_mac = 0;
  uint32_t dst_ip4 = 0, src_ip4 = 0;
  U128 dst_ip6, src_ip6;
  uint16_t sport = 0;
  uint8_t opcode = 0;
  uint32_t dqpn = 0, psn = 0;
  uint8_t syndrome = 0;
  uint32_t msn = 0;
  uint64_t atomic_value = 0;
  uint16_t plen = 0;  // payload bytes in the response buffer
};

struct ResponseShape {
  std::array<uint8_t, kHdrWindow> hdr{};  // header bytes [0, hdr_len)
  int hdr_len = 0;
  int pad = 0;
  int len = 0;  // whole frame: header + payload + pad + ICRC
};
ResponseShape Compose(const ResponseDesc& d);

}  // namespace nettwin::rdma
