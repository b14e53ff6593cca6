// The OPA 16B VNIC packet, packet at a time: header fields, the ICRC, encapsulation of an Ethernet frame and
// the receive checks of decapsulation. The cycle model builds its frames with these functions; the RTL
// computes the same bytes beat by beat (lockstep keeps them equal) and scripts/nettwin/vnic/ has an
// independent Python version written from the spec's field table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/vnic/vnic_types.h"

namespace nettwin::vnic {

// Fields of quadwords 0..2 (spec table; quadwords are little-endian on the wire, docs/vnic.md).
struct Header16B {
  uint32_t slid = 0, dlid = 0;  // 24 bits each
  uint16_t length_qw = 0;       // 11 bits: whole packet in quadwords
  bool becn = false, fecn = false;
  uint8_t sc = 0, rc = 0, l2 = 2, lt = 1;
  uint8_t l4 = kL4Eth;
  uint16_t pkey = 0, entropy = 0, veswid = 0;
};

void PackHeader(const Header16B& h, uint8_t* out20);
Header16B UnpackHeader(const uint8_t* in20);

// CRC-32 (IEEE, reflected, init and final inversion) over bytes [0, n) with the variant fields of QW0
// (BECN, SC, FECN) read as ones when params::kVnicIcrcMaskVariant is set.
uint32_t Icrc(const uint8_t* pkt, size_t n);

// Pad bytes so that header + frame + pad + ICRC + tail is a whole number of quadwords.
inline int PadBytes(size_t eth_len) { return static_cast<int>((8 - (eth_len + kHdrBytes + kTrailerBytes) % 8) % 8); }

struct EncapResult {
  int drop = 0;  // 0 or an encapsulation drop reason
  std::vector<uint8_t> pkt;
};
EncapResult Encapsulate(const std::vector<uint8_t>& frame, uint8_t port, const Tables& t);

struct DecapResult {
  int drop = 0;  // 0 or a decapsulation drop reason (the first failing check)
  uint8_t port = 0;
  std::vector<uint8_t> frame;
};
DecapResult Decapsulate(const std::vector<uint8_t>& pkt, const Tables& t);

// The IBTA partition-key match: equal low 15 bits, at least one full member, and not the invalid key 0.
bool PkeyMatch(uint16_t a, uint16_t b);

}  // namespace nettwin::vnic
