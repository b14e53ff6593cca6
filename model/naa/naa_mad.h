// The CM MADs on QP1 over RoCEv2 (IBA chapter 12, docs/naa.md "CM messages, byte for byte"): what the CM
// reads out of a received frame and how it composes its REP, REJ and DREP frames.
#pragma once

#include <array>
#include <cstdint>

#include "model/naa/naa_types.h"

namespace nettwin::naa {

constexpr int kCmBufBytes = kCmBufBeats * kBeatBytes;
using CmFrameBytes = std::array<uint8_t, kCmBufBytes>;

// The fields of a received CM frame. `comm0` / `comm1` are the first two 32-bit words of the CM message: the
// sender's Local and Remote Communication IDs in every message this endpoint reads (REQ has no remote one).
struct CmMsg {
  CmDrop drop = CmDrop::kNone;  // malformed, not_for_us, bad_icrc or bad_mad
  uint64_t src_mac = 0;
  uint32_t src_ip = 0;
  uint16_t sport = 0;
  uint16_t attr = 0;
  uint64_t tid = 0;
  uint32_t comm0 = 0, comm1 = 0;
  // REQ only.
  uint64_t service_id = 0;
  uint32_t qpn = 0, psn = 0;
  uint8_t resp_res = 0, init_depth = 0, transport = 0, mtu = 0;
};

// `f`: the buffered frame (zero past its end); `len` its length in bytes; `overflow` it had more than
// kCmBufBeats beats; `crc` the ICRC register over [14, kCmIcrcAt) as received.
CmMsg ParseCm(const CmFrameBytes& f, int len, bool overflow, uint32_t crc, const rdma::ResponderCfg& r);

// Everything a CM response frame needs.
struct CmDesc {
  uint16_t attr = 0;  // REP, REJ or DREP
  uint64_t tid = 0;
  uint32_t local_comm = 0, remote_comm = 0;
  uint16_t reason = 0;  // REJ
  uint64_t dst_mac = 0;
  uint32_t dst_ip = 0;
  uint16_t sport = 0;
  uint32_t psn = 0;  // BTH PSN of this endpoint's QP1
  // REP.
  uint32_t qpn = 0, start_psn = 0;
  uint8_t resp_res = 0, init_depth = 0, rnr_retry = 0, ack_delay = 0;
  uint64_t guid = 0;
};

// Bytes [0, kCmIcrcAt) of the response frame; the ICRC is appended while it is sent.
CmFrameBytes ComposeCm(const CmDesc& d, const rdma::ResponderCfg& r);

}  // namespace nettwin::naa
