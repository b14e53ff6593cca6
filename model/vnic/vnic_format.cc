#include "model/vnic/vnic_format.h"

#include <algorithm>
#include <array>

#include "model/common/crc32.h"

namespace nettwin::vnic {
namespace {

uint64_t LoadLe(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
void StoreLe(uint8_t* p, int n, uint64_t v) {
  for (int i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

// Byte-at-a-time table for the reflected CRC-32 (same results as Crc32Byte, 8x fewer steps: the model's
// throughput is bound by the ICRC).
const std::array<uint32_t, 256>& CrcTable() {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t i = 0; i < 256; ++i) t[i] = Crc32Byte(i, 0) ;
    return t;
  }();
  return table;
}

// The destination LID (docs/vnic.md "DLID"). A MAC entry with DLID 0 counts as absent (as in Linux's
// opa_vnic_get_dlid). Profile linux: the MAC table, a group MAC's mcast_dlid, a locally administered MAC's
// bytes 5, 4, 3, the default unicast DLID; default profile: a group MAC's mcast_dlid, the table, the default.
uint32_t DlidFor(const std::vector<uint8_t>& frame, uint8_t port, const Tables& t) {
  const PortCfg& p = t.ports[port];
  const bool group = frame[0] & 1;  // group bit: broadcast or multicast
  uint64_t dmac = 0;
  for (int i = 0; i < 6; ++i) dmac = (dmac << 8) | frame[static_cast<size_t>(i)];
  uint32_t table = 0;
  for (const MacEntry& m : t.macs) {
    if (m.valid && m.port == port && m.mac == dmac && m.dlid != 0) {
      table = m.dlid;
      break;
    }
  }
  if (!p.linux_profile) return group ? p.mcast_dlid : table != 0 ? table : p.ucast_dlid;
  if (table != 0) return table;
  if (group) return p.mcast_dlid;
  if (frame[0] & 2) return uint32_t{frame[5]} << 16 | uint32_t{frame[4]} << 8 | frame[3];  // locally administered
  return p.ucast_dlid;
}

uint16_t Be16(const std::vector<uint8_t>& f, size_t at) { return static_cast<uint16_t>(f[at] << 8 | f[at + 1]); }
bool IsVlanType(uint16_t t) { return t == 0x8100 || t == 0x88A8; }

// Profile linux's SC (opa_vnic_get_sc): by the first tag's PCP if the frame is 802.1Q / 802.1ad tagged.
uint8_t LinuxSc(const std::vector<uint8_t>& f, const PortCfg& p) {
  const bool group = f[0] & 1;
  if (f.size() >= 16 && IsVlanType(Be16(f, 12))) {
    const size_t pcp = f[14] >> 5;
    return group ? p.pcp_sc_mc[pcp] : p.pcp_sc_uc[pcp];
  }
  return group ? p.sc_mc : p.sc;
}

// Profile linux's RC (opa_vnic_get_rc): the 3-bit field of rc_word for the frame's protocol class, found
// behind up to 8 VLAN tags (vlan_get_protocol); a protocol byte beyond the frame counts as neither TCP nor UDP.
uint8_t LinuxRc(const std::vector<uint8_t>& f, const PortCfg& p) {
  size_t off = 12;
  uint16_t type = Be16(f, 12);
  for (int depth = 8; IsVlanType(type); --depth) {
    if (depth == 0 || off + 6 > f.size()) {
      type = 0;
      break;
    }
    type = Be16(f, off + 4);
    off += 4;
  }
  const size_t l3 = off + 2;
  int shift = 0;  // DEFAULT
  if (type == 0x86DD) {
    const int proto = l3 + 6 < f.size() ? f[l3 + 6] : -1;
    shift = proto == 6 ? 20 : proto == 17 ? 24 : 16;
  } else if (type == 0x0800) {
    const int proto = l3 + 9 < f.size() ? f[l3 + 9] : -1;
    shift = proto == 6 ? 12 : proto == 17 ? 8 : 4;
  }
  return static_cast<uint8_t>((p.rc_word >> shift) & 7);
}

// Profile linux's entropy (opa_vnic_calc_entropy): the XOR of the four bytes of a flow hash, here CRC-32 of
// the Ethernet header (Linux's skb_get_hash is seeded at random per boot; docs/vnic.md).
uint16_t LinuxEntropy(const std::vector<uint8_t>& f) {
  uint32_t h = 0xFFFFFFFFu;
  for (size_t i = 0; i < static_cast<size_t>(kEthHdrBytes); ++i) h = Crc32Byte(h, f[i]);
  h = ~h;
  h ^= h >> 8;
  h ^= h >> 16;
  return static_cast<uint16_t>(h & 0xFF);
}

}  // namespace

void PackHeader(const Header16B& h, uint8_t* out) {
  const uint64_t qw0 = (uint64_t{h.slid} & 0xFFFFF) | (uint64_t{h.length_qw} & 0x7FF) << 20 |
                       uint64_t{h.becn} << 31 | (uint64_t{h.dlid} & 0xFFFFF) << 32 | uint64_t{h.sc & 0x1Fu} << 52 |
                       uint64_t{h.rc & 7u} << 57 | uint64_t{h.fecn} << 60 | uint64_t{h.l2 & 3u} << 61 |
                       uint64_t{h.lt & 1u} << 63;
  const uint64_t qw1 = uint64_t{h.l4} | uint64_t{(h.slid >> 20) & 0xF} << 8 | uint64_t{(h.dlid >> 20) & 0xF} << 12 |
                       uint64_t{h.pkey} << 16 | uint64_t{h.entropy} << 32;
  StoreLe(out, 8, qw0);
  StoreLe(out + 8, 8, qw1);
  StoreLe(out + 16, 4, uint64_t{h.veswid} << 16);
}

Header16B UnpackHeader(const uint8_t* in) {
  const uint64_t qw0 = LoadLe(in, 8), qw1 = LoadLe(in + 8, 8), qw2 = LoadLe(in + 16, 4);
  Header16B h;
  h.slid = static_cast<uint32_t>((qw0 & 0xFFFFF) | ((qw1 >> 8) & 0xF) << 20);
  h.length_qw = static_cast<uint16_t>((qw0 >> 20) & 0x7FF);
  h.becn = (qw0 >> 31) & 1;
  h.dlid = static_cast<uint32_t>(((qw0 >> 32) & 0xFFFFF) | ((qw1 >> 12) & 0xF) << 20);
  h.sc = static_cast<uint8_t>((qw0 >> 52) & 0x1F);
  h.rc = static_cast<uint8_t>((qw0 >> 57) & 7);
  h.fecn = (qw0 >> 60) & 1;
  h.l2 = static_cast<uint8_t>((qw0 >> 61) & 3);
  h.lt = static_cast<uint8_t>(qw0 >> 63);
  h.l4 = static_cast<uint8_t>(qw1);
  h.pkey = static_cast<uint16_t>(qw1 >> 16);
  h.entropy = static_cast<uint16_t>(qw1 >> 32);
  h.veswid = static_cast<uint16_t>(qw2 >> 16);
  return h;
}

uint32_t Icrc(const uint8_t* pkt, size_t n) {
  const std::array<uint32_t, 256>& table = CrcTable();
  uint32_t crc = 0xFFFFFFFFu;
  // The variant masks bits of the first 8 bytes only; the rest is a plain table loop (a per-byte test of
  // the position was most of vnic_frame's fuzzing time, docs/PERF.md "Fuzzing").
  size_t i = 0;
  for (; i < n && i < 8; ++i) {
    uint8_t b = pkt[i];
    if (params::kVnicIcrcMaskVariant) {
      if (i == 3) b |= 0x80;  // BECN
      if (i == 6) b |= 0xF0;  // SC[3:0]
      if (i == 7) b |= 0x11;  // FECN, SC[4]
    }
    crc = (crc >> 8) ^ table[(crc ^ b) & 0xFF];
  }
  for (; i < n; ++i) crc = (crc >> 8) ^ table[(crc ^ pkt[i]) & 0xFF];
  return ~crc;
}

bool PkeyMatch(uint16_t a, uint16_t b) {
  return (a & 0x7FFF) != 0 && (a & 0x7FFF) == (b & 0x7FFF) && ((a | b) & 0x8000) != 0;
}

EncapResult Encapsulate(const std::vector<uint8_t>& frame, uint8_t port, const Tables& t) {
  EncapResult r;
  const size_t len = frame.size();
  if (len < static_cast<size_t>(kEthHdrBytes)) return {static_cast<int>(params::kVnicEncDropRunt), {}};
  if (len > static_cast<size_t>(kMaxEthBytes)) return {static_cast<int>(params::kVnicEncDropTooLong), {}};
  const PortCfg& p = t.ports[port % kPorts];
  if (!p.valid || p.veswid == 0 || p.slid == 0) return {static_cast<int>(params::kVnicEncDropPortDisabled), {}};
  const uint32_t dlid = DlidFor(frame, port % kPorts, t);
  if (dlid == 0) return {static_cast<int>(params::kVnicEncDropDlidZero), {}};  // Linux: tx_dlid_zero
  const int pad = PadBytes(len);
  const size_t total = kHdrBytes + len + static_cast<size_t>(pad) + kTrailerBytes;
  Header16B h;
  h.slid = p.slid;
  h.dlid = dlid;
  h.length_qw = static_cast<uint16_t>(total / 8);
  h.sc = p.linux_profile ? LinuxSc(frame, p) : p.sc;
  h.rc = p.linux_profile ? LinuxRc(frame, p) : p.rc;
  h.pkey = p.pkey;
  h.entropy = p.linux_profile ? LinuxEntropy(frame) : p.entropy;
  h.veswid = p.veswid;
  r.pkt.assign(total, 0);
  PackHeader(h, r.pkt.data());
  std::copy(frame.begin(), frame.end(), r.pkt.begin() + kHdrBytes);
  StoreLe(&r.pkt[total - 5], 4, Icrc(r.pkt.data(), total - 5));
  // LT = 01 (tail flit), Tail = pad byte count; profile linux: the pad count alone (hfi1_vnic_update_pad)
  r.pkt[total - 1] = static_cast<uint8_t>((p.linux_profile ? 0x00 : 0x40) | pad);
  return r;
}

DecapResult Decapsulate(const std::vector<uint8_t>& pkt, const Tables& t) {
  DecapResult r;
  const size_t n = pkt.size();
  auto drop = [&](uint32_t reason) {
    r.drop = static_cast<int>(reason);
    return r;
  };
  if (n < static_cast<size_t>(kMinPktBytes)) return drop(params::kVnicDecDropRunt);
  const Header16B h = UnpackHeader(pkt.data());
  if (h.l2 != 2 || h.lt != 1) return drop(params::kVnicDecDropBadL2);
  if (h.l4 != kL4Eth) return drop(params::kVnicDecDropBadL4);
  if (n != size_t{h.length_qw} * 8) return drop(params::kVnicDecDropLength);
  if (Icrc(pkt.data(), n - 5) != LoadLe(&pkt[n - 5], 4)) return drop(params::kVnicDecDropIcrc);
  const uint8_t tail = pkt[n - 1];
  const size_t pad = tail & 0x3F;
  // LT 0b01 (the spec's tail flit) or 0b00 (Linux hfi1 writes the pad count alone, docs/vnic.md "Tail byte").
  if ((tail >> 6) > 1 || pad > 7 || pad > n - (kHdrBytes + kEthHdrBytes + kTrailerBytes)) {
    return drop(params::kVnicDecDropPad);
  }
  int port = -1;
  for (int i = kPorts - 1; i >= 0; --i) {
    if (t.ports[i].valid && t.ports[i].veswid != 0 && t.ports[i].veswid == h.veswid) port = i;
  }
  if (port < 0) return drop(params::kVnicDecDropVeswid);
  if (!PkeyMatch(h.pkey, t.ports[port].pkey)) return drop(params::kVnicDecDropPkey);
  r.port = static_cast<uint8_t>(port);
  r.frame.assign(pkt.begin() + kHdrBytes, pkt.end() - kTrailerBytes - static_cast<std::ptrdiff_t>(pad));
  return r;
}

}  // namespace nettwin::vnic
