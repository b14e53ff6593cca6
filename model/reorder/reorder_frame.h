// Frame-level pieces of the reorder block, written the way the RTL computes them: the header parse of a
// fabric frame's first 128 bytes, the per-beat removal of the ConWeave fields, the flow hash and the
// control-packet builder. docs/reorder.md "Exact formats" defines every byte.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "model/common/stream.h"
#include "model/reorder/reorder_types.h"

namespace nettwin::reorder {

constexpr int kWindowBytes = 2 * kBeatBytes;

// What the first beat (with its successor) says about a fabric frame.
struct CwMeta {
  bool ok = false;  // a well-formed ConWeave data frame, as far as the headers show
  bool v6 = false;
  uint16_t cw_off = 0;  // frame offset of the 4-byte CW header (= end of the BTH)
  uint16_t ip_len = 0;  // IPv4 total length / IPv6 payload length as received
  uint8_t path_id = 0, op = 0, epoch = 0;
  bool rerouted = false, tail = false, ce = false;
  uint16_t tx_ts = 0, tail_tx_ts = 0;
  std::array<uint8_t, kKeyBytes> key{};
  uint16_t hash = 0;
  // Restored NIC fields, written over the fabric bytes while the CW header is cut out.
  uint16_t nic_ip_len = 0, nic_csum = 0, nic_udp_len = 0;
  uint8_t nic_b8 = 0;
  std::array<uint8_t, kHdrBytes> hdr{};  // fabric header, mirrored into control packets
};

// `win` = the first two beats (zero beyond the frame); `known_len` = the frame length if it ends within
// the window, otherwise -1. The hash is left 0 (the RTL computes it a stage later, see FlowHash).
// p4: conweave-p4's wire format (docs/reorder.md "Two wire formats"): BTH byte 8 = AckReq | opcode(2) |
// phase | epoch(2) | ask_reply | tail, the IP/UDP lengths not grown for the CW header. Its fields are
// mapped to the seed's (op, epoch = epoch + phase, REROUTED = phase, TAIL), so nothing after the parse
// depends on the format.
CwMeta ParseCw(const uint8_t* win, int known_len, bool p4 = false);

// CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor).
uint16_t Crc16CcittFalse(const uint8_t* data, size_t n);
// The flow key's CRC-16: the flow-table index and the queue ways come from it.
uint16_t FlowHash(const std::array<uint8_t, kKeyBytes>& key);

// Beat k of the NIC frame: fabric beat k (`cur`) with the 4 bytes from `cw_off` cut out, pulled in from
// `next` (the successor fabric beat), the restored fields written, bytes beyond `out_bytes` zero.
Beat StripBeat(const Beat& cur, const Beat& next, int k, const CwMeta& m, int out_bytes, bool last);

// A control packet (docs/reorder.md): the mirrored header with MACs and IPs swapped, TTL/hop limit 64,
// truncated after the CW header, the CW opcode `op` and epoch `epoch`, REROUTED = TAIL = 0, ICRC.
struct CtrlFrame {
  std::array<uint8_t, kWindowBytes> bytes{};
  int len = 0;
};
// p4: byte 8 in conweave-p4's format: RTT_REPLY = REPLY phase 0 (epoch as received), NOTIFY = NOTIFY (phase
// and epoch as received), CLEAR = REPLY phase 1 with epoch - 1 (the TAIL's conweave-p4 epoch).
CtrlFrame BuildControl(const std::array<uint8_t, kHdrBytes>& hdr, bool v6, uint8_t op, uint8_t epoch,
                       bool p4 = false);

}  // namespace nettwin::reorder
