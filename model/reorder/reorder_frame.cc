#include "model/reorder/reorder_frame.h"

#include "model/common/bytes.h"
#include "model/common/checksum.h"
#include "model/rdma/rdma_packet.h"

namespace nettwin::reorder {

namespace {

constexpr int kEthHdr = 14, kIp4Hdr = 20, kIp6Hdr = 40, kUdpHdr = 8, kBthLen = 12, kCwLen = 4, kIcrc = 4;

// The IPv4 header checksum field for a 20-byte header (its own field read as zero).
uint16_t Ip4Checksum(const uint8_t* ip) {
  uint16_t s = 0;
  for (int i = 0; i < kIp4Hdr; i += 2) {
    if (i == 10) continue;
    s = OnesAdd(s, Load16(ip + i));
  }
  return static_cast<uint16_t>(~s);
}

}  // namespace

CwMeta ParseCw(const uint8_t* w, int known_len, bool p4) {
  CwMeta m;
  const int len = known_len < 0 ? kWindowBytes + 1 : known_len;
  const uint16_t et = Load16(w + 12);
  int udp = 0;
  if (et == 0x0800) {
    m.v6 = false;
    udp = kEthHdr + kIp4Hdr;
    // No options, UDP, not a fragment (RoCEv2 is never fragmented; DF may be set).
    if (w[14] != 0x45 || w[23] != 17 || ((w[20] & 0x3F) | w[21]) != 0) return m;
    m.ip_len = Load16(w + 16);
    m.ce = (w[15] & 3) == 3;
  } else if (et == 0x86DD) {
    m.v6 = true;
    udp = kEthHdr + kIp6Hdr;
    if ((w[14] >> 4) != 6 || w[20] != 17) return m;
    m.ip_len = Load16(w + 18);
    m.ce = ((w[15] >> 4) & 3) == 3;
  } else {
    return m;
  }
  const int bth = udp + kUdpHdr;
  m.cw_off = static_cast<uint16_t>(bth + kBthLen);
  if (len < m.cw_off + kCwLen + kIcrc) return m;
  if (Load16(w + udp + 2) != params::kReorderUdpPort) return m;
  const uint8_t b8 = w[bth + 8];
  m.path_id = w[bth + 4];
  if (p4) {
    // DATA (1) only: ask_reply without tail asks for an RTT_REPLY; 0 (no CW header), REPLY, NOTIFY: 7.
    const bool data = ((b8 >> 5) & 3) == 1, ask = (b8 >> 1) & 1, tail = b8 & 1;
    m.op = !data ? 7 : (ask && !tail) ? kCwRttRequest : kCwNormal;
    m.epoch = static_cast<uint8_t>((((b8 >> 2) & 3) + ((b8 >> 4) & 1)) & 3);
    m.rerouted = (b8 >> 4) & 1;
  } else {
    m.op = (b8 >> 4) & 7;
    m.epoch = (b8 >> 2) & 3;
    m.rerouted = (b8 >> 1) & 1;
  }
  m.tail = b8 & 1;
  m.tx_ts = Load16(w + m.cw_off);
  m.tail_tx_ts = Load16(w + m.cw_off + 2);
  if (m.op != kCwNormal && m.op != kCwRttRequest) return m;
  // Key: family, source, destination (IPv4 in the first 4 of 16 bytes), destination QP.
  m.key[0] = m.v6 ? 1 : 0;
  const int ipn = m.v6 ? 16 : 4;
  const int src = m.v6 ? 22 : 26;
  for (int i = 0; i < ipn; ++i) {
    m.key[1 + i] = w[src + i];
    m.key[17 + i] = w[src + ipn + i];
  }
  for (int i = 0; i < 3; ++i) m.key[33 + i] = w[bth + 5 + i];
  // Restored fields: lengths - 4, IPv4 checksum by RFC 1624 (a corrupted header keeps its residue).
  m.nic_ip_len = static_cast<uint16_t>(m.ip_len - kCwLen);
  m.nic_udp_len = static_cast<uint16_t>(Load16(w + udp + 4) - kCwLen);
  m.nic_b8 = b8 & 0x80;
  if (p4) {
    // The lengths and the IPv4 checksum are the NIC's already; ip_len: the datagram the frame holds.
    m.nic_ip_len = m.ip_len;
    m.nic_udp_len = Load16(w + udp + 4);
    m.nic_csum = Load16(w + 24);
    m.ip_len = static_cast<uint16_t>(m.ip_len + kCwLen);
  } else if (!m.v6) {
    ChecksumDelta d;
    d.Replace(m.ip_len, m.nic_ip_len);
    m.nic_csum = d.Apply(Load16(w + 24));
  }
  for (int i = 0; i < kHdrBytes; ++i) m.hdr[i] = w[i];
  m.ok = true;
  return m;
}

uint16_t Crc16CcittFalse(const uint8_t* data, size_t n) {
  uint16_t crc = 0xFFFF;
  for (size_t k = 0; k < n; ++k) {
    crc ^= static_cast<uint16_t>(data[k] << 8);
    for (int i = 0; i < 8; ++i) crc = static_cast<uint16_t>((crc & 0x8000) ? (crc << 1) ^ 0x1021 : crc << 1);
  }
  return crc;
}

uint16_t FlowHash(const std::array<uint8_t, kKeyBytes>& key) { return Crc16CcittFalse(key.data(), key.size()); }

Beat StripBeat(const Beat& cur, const Beat& next, int k, const CwMeta& m, int out_bytes, bool last) {
  Beat b;
  const int base = k * kBeatBytes;
  for (int j = 0; j < out_bytes; ++j) {
    const int p = base + j;
    const int src = p < m.cw_off ? p : p + kCwLen;
    b.data[j] = src < base + kBeatBytes ? cur.data[src - base] : next.data[src - base - kBeatBytes];
  }
  auto patch = [&](int pos, uint8_t v) {
    if (pos >= base && pos < base + out_bytes) b.data[pos - base] = v;
  };
  const int udp = m.v6 ? kEthHdr + kIp6Hdr : kEthHdr + kIp4Hdr;
  const int bth = udp + kUdpHdr;
  const int ip_len_pos = m.v6 ? 18 : 16;
  patch(ip_len_pos, static_cast<uint8_t>(m.nic_ip_len >> 8));
  patch(ip_len_pos + 1, static_cast<uint8_t>(m.nic_ip_len));
  if (!m.v6) {
    patch(24, static_cast<uint8_t>(m.nic_csum >> 8));
    patch(25, static_cast<uint8_t>(m.nic_csum));
  }
  patch(udp + 4, static_cast<uint8_t>(m.nic_udp_len >> 8));
  patch(udp + 5, static_cast<uint8_t>(m.nic_udp_len));
  patch(bth + 4, 0);
  patch(bth + 8, m.nic_b8);
  b.keep = KeepMask(out_bytes);
  b.last = last;
  return b;
}

CtrlFrame BuildControl(const std::array<uint8_t, kHdrBytes>& hdr, bool v6, uint8_t op, uint8_t epoch, bool p4) {
  CtrlFrame f;
  const int udp = v6 ? kEthHdr + kIp6Hdr : kEthHdr + kIp4Hdr;
  const int bth = udp + kUdpHdr;
  const int cw_end = bth + kBthLen + kCwLen;
  f.len = cw_end + kIcrc;
  uint8_t* b = f.bytes.data();
  for (int i = 0; i < cw_end; ++i) b[i] = hdr[i];
  for (int i = 0; i < 6; ++i) {
    b[i] = hdr[6 + i];
    b[6 + i] = hdr[i];
  }
  const int ipn = v6 ? 16 : 4;
  const int src = v6 ? 22 : 26;
  for (int i = 0; i < ipn; ++i) {
    b[src + i] = hdr[src + ipn + i];
    b[src + ipn + i] = hdr[src + i];
  }
  if (v6) {
    b[21] = 64;
    Store16(b + 18, static_cast<uint16_t>(f.len - udp));
  } else {
    b[22] = 64;
    Store16(b + 16, static_cast<uint16_t>(f.len - kEthHdr));
  }
  Store16(b + udp + 4, static_cast<uint16_t>(f.len - udp));
  const uint8_t ack = hdr[bth + 8] & 0x80;
  if (!p4) {
    b[bth + 8] = static_cast<uint8_t>(ack | ((op & 7) << 4) | ((epoch & 3) << 2));
  } else if (op == kCwNotify) {
    b[bth + 8] = static_cast<uint8_t>(ack | (3 << 5) | (hdr[bth + 8] & 0x10) | ((epoch & 3) << 2));
  } else if (op == kCwClear) {
    b[bth + 8] = static_cast<uint8_t>(ack | (2 << 5) | 0x10 | (((epoch - 1) & 3) << 2));
  } else {
    b[bth + 8] = static_cast<uint8_t>(ack | (2 << 5) | ((epoch & 3) << 2));
  }
  if (!v6) Store16(b + 24, Ip4Checksum(b + kEthHdr));
  uint32_t crc = rdma::IcrcSeed();
  crc = rdma::IcrcBeat(crc, b, 0, kEthHdr, cw_end, v6);
  crc = rdma::IcrcBeat(crc, b + kBeatBytes, kBeatBytes, kEthHdr, cw_end, v6);
  crc = ~crc;
  for (int j = 0; j < 4; ++j) b[cw_end + j] = static_cast<uint8_t>(crc >> (8 * j));
  return f;
}

}  // namespace nettwin::reorder
