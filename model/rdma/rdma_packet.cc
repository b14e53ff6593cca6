#include "model/rdma/rdma_packet.h"

#include <algorithm>

#include "model/common/bytes.h"
#include "model/common/checksum.h"
#include "model/common/crc32.h"

namespace nettwin::rdma {

const char* DropName(int d) {
  static const char* kNames[] = {"none",        "runt",        "malformed",        "not_for_us", "bad_icrc",
                                 "unknown_qp",  "not_request", "psn_ahead_silent", "overflow",
                                 "cnp"};
  return d >= 0 && d < kNumDrops ? kNames[d] : "unknown";
}

namespace {

int ExtLen(uint8_t opcode) {
  switch (opcode) {
    case op::kWriteFirst:
    case op::kWriteOnly:
    case op::kReadRequest: return 16;
    case op::kWriteOnlyImm: return 20;
    case 0x03:  // SEND last with immediate
    case op::kSendOnlyImm:
    case op::kWriteLastImm: return 4;
    case op::kCompareSwap:
    case op::kFetchAdd: return 28;
    case op::kReadRspFirst:
    case op::kReadRspLast:
    case op::kReadRspOnly:
    case op::kAck: return 4;
    case op::kAtomicAck: return 12;
    default: return 0;
  }
}

}  // namespace

Request ParseRequest(const uint8_t* h, int frame_len, const ResponderCfg& r) {
  Request q;
  auto fail = [&q](Drop d) {
    q.drop = d;
    return q;
  };
  // Structure first (runt / malformed), then whether it is addressed to this responder.
  if (frame_len < 14) return fail(Drop::kRunt);
  const uint16_t et = Load16(h + 12);
  const uint8_t* ip = h + 14;
  int l4;
  if (et == 0x0800) {
    if (frame_len < 34) return fail(Drop::kRunt);
    if (ip[0] != 0x45) return fail(Drop::kMalformed);  // IPv4 without options
    const int tot = Load16(ip + 2);
    if (frame_len < 14 + tot) return fail(Drop::kRunt);
    if (tot < 20 + 8 + 12 + 4 || (Load16(ip + 6) & 0x3FFF) != 0 || ip[9] != 17) return fail(Drop::kMalformed);
    l4 = 34;
    q.end = static_cast<uint16_t>(14 + tot);
  } else if (et == 0x86DD) {
    q.v6 = true;
    if (frame_len < 54) return fail(Drop::kRunt);
    if ((ip[0] >> 4) != 6) return fail(Drop::kMalformed);
    const int plen = Load16(ip + 4);
    if (frame_len < 54 + plen) return fail(Drop::kRunt);
    if (ip[6] != 17 || plen < 8 + 12 + 4) return fail(Drop::kMalformed);
    l4 = 54;
    q.end = static_cast<uint16_t>(54 + plen);
  } else {
    return fail(Drop::kMalformed);
  }
  const uint8_t* udp = h + l4;
  const uint8_t* bth = udp + 8;
  if (Load16(udp + 2) != params::kRdmaUdpPort || Load16(udp + 4) != q.end - l4) return fail(Drop::kMalformed);
  if ((bth[1] & 0x0F) != 0) return fail(Drop::kMalformed);  // transport version 0 only
  q.opcode = bth[0];
  // not an RC opcode; a CNP (0x81) passes here and is counted as `cnp` after its ICRC (RdmaCycleModel::Check)
  if (q.opcode > op::kFetchAdd && q.opcode != op::kCnp) return fail(Drop::kMalformed);
  q.pad = (bth[1] >> 4) & 3;
  q.hdr_len = static_cast<uint16_t>(l4 + 8 + 12 + ExtLen(q.opcode));
  const int data_len = q.end - 4 - q.hdr_len;
  if (data_len < 0 || q.pad > data_len) return fail(Drop::kMalformed);
  q.plen = data_len - q.pad;
  if (LoadBe(h, 6) != r.mac) return fail(Drop::kNotForUs);
  if (q.v6 ? (!r.has_ip6 || !(U128{Load64(ip + 24), Load64(ip + 32)} == r.ip6))
           : (!r.has_ip4 || Load32(ip + 16) != r.ip4)) {
    return fail(Drop::kNotForUs);
  }
  q.src_mac = LoadBe(h + 6, 6);
  q.src_ip4 = q.v6 ? 0 : Load32(ip + 12);
  q.src_ip6 = q.v6 ? U128{Load64(ip + 8), Load64(ip + 16)} : U128{};
  q.sport = Load16(udp);
  q.dqpn = Load32(bth + 4) & kPsnMask;
  q.ackreq = bth[8] >> 7;
  q.psn = Load32(bth + 8) & kPsnMask;
  const uint8_t* ext = bth + 12;
  switch (q.opcode) {
    case op::kWriteFirst:
    case op::kWriteOnly:
    case op::kWriteOnlyImm:
    case op::kReadRequest:
      q.va = Load64(ext);
      q.rkey = Load32(ext + 8);
      q.dmalen = Load32(ext + 12);
      break;
    case op::kCompareSwap:
    case op::kFetchAdd:
      q.va = Load64(ext);
      q.rkey = Load32(ext + 8);
      q.swap = Load64(ext + 12);
      q.compare = Load64(ext + 20);
      q.dmalen = 8;
      break;
    default:
      break;
  }
  if (q.opcode == op::kSendLastImm || q.opcode == op::kSendOnlyImm || q.opcode == op::kWriteLastImm) q.imm = Load32(ext);
  if (q.opcode == op::kWriteOnlyImm) q.imm = Load32(ext + 16);
  return q;
}

uint8_t IcrcMasked(int pos, uint8_t b, bool v6) {
  if (!v6) {
    if (pos == 15 || pos == 22 || pos == 24 || pos == 25 || pos == 40 || pos == 41 || pos == 46) return 0xFF;
  } else {
    if (pos == 14) return b | 0x0F;
    if ((pos >= 15 && pos <= 17) || pos == 21 || pos == 60 || pos == 61 || pos == 66) return 0xFF;
  }
  return b;
}

uint32_t IcrcBeat(uint32_t crc, const uint8_t* beat, int base, int lo, int hi, bool v6) {
  const int from = std::max(base, lo), to = std::min(base + kBeatBytes, hi);
  for (int pos = from; pos < to; ++pos) crc = Crc32Byte(crc, IcrcMasked(pos, beat[pos - base], v6));
  return crc;
}

uint32_t IcrcSeed() {
  uint32_t crc = 0xFFFFFFFFu;
  for (int i = 0; i < 8; ++i) crc = Crc32Byte(crc, 0xFF);
  return crc;
}

uint32_t FrameIcrc(const std::vector<uint8_t>& f, int end, bool v6) {
  uint32_t crc = IcrcSeed();
  for (int b = 0; b * kBeatBytes < end; ++b) {
    uint8_t beat[kBeatBytes] = {};
    for (int i = 0; i < kBeatBytes && b * kBeatBytes + i < static_cast<int>(f.size()); ++i) beat[i] = f[b * kBeatBytes + i];
    crc = IcrcBeat(crc, beat, b * kBeatBytes, 14, end, v6);
  }
  return ~crc;
}

ResponseShape Compose(const ResponseDesc& d) {
  ResponseShape s;
  uint8_t* h = s.hdr.data();
  const bool aeth = d.opcode != op::kReadRspMiddle;
  const bool atomic = d.opcode == op::kAtomicAck;
  const int ip_len = d.v6 ? 40 : 20;
  const int bth_off = 14 + ip_len + 8;
  s.hdr_len = bth_off + 12 + (aeth ? 4 : 0) + (atomic ? 8 : 0);
  s.pad = (4 - d.plen % 4) % 4;
  s.len = s.hdr_len + d.plen + s.pad + 4;
  StoreBe(h, 6, d.dst_mac);
  StoreBe(h + 6, 6, d.src_mac);
  Store16(h + 12, d.v6 ? 0x86DD : 0x0800);
  uint8_t* ip = h + 14;
  const int udp_len = s.len - 14 - ip_len;
  if (!d.v6) {
    ip[0] = 0x45;
    Store16(ip + 2, static_cast<uint16_t>(20 + udp_len));
    Store16(ip + 6, 0x4000);
    ip[8] = 64;
    ip[9] = 17;
    Store32(ip + 12, d.src_ip4);
    Store32(ip + 16, d.dst_ip4);
    Store16(ip + 10, static_cast<uint16_t>(~OnesSum(ip, 20)));
  } else {
    ip[0] = 0x60;
    Store16(ip + 4, static_cast<uint16_t>(udp_len));
    ip[6] = 17;
    ip[7] = 64;
    StoreBe(ip + 8, 8, d.src_ip6.hi);
    StoreBe(ip + 16, 8, d.src_ip6.lo);
    StoreBe(ip + 24, 8, d.dst_ip6.hi);
    StoreBe(ip + 32, 8, d.dst_ip6.lo);
  }
  uint8_t* udp = ip + ip_len;
  Store16(udp, d.sport);
  Store16(udp + 2, static_cast<uint16_t>(params::kRdmaUdpPort));
  Store16(udp + 4, static_cast<uint16_t>(udp_len));
  uint8_t* bth = udp + 8;
  bth[0] = d.opcode;
  bth[1] = static_cast<uint8_t>(s.pad << 4);
  Store16(bth + 2, 0xFFFF);
  Store32(bth + 4, d.dqpn & kPsnMask);
  Store32(bth + 8, d.psn & kPsnMask);
  if (aeth) Store32(bth + 12, (uint32_t{d.syndrome} << 24) | (d.msn & kPsnMask));
  if (atomic) StoreBe(bth + 16, 8, d.atomic_value);
  return s;
}

}  // namespace nettwin::rdma
