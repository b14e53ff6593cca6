// Port structs of the ConWeave reorder block (rtl/reorder/reorder_top.sv), shared by its cycle model and
// its Verilated adapter so lockstep compares the same fields. See docs/conweave.md for the behaviour and
// docs/reorder-microarchitecture.md for the stages.
#pragma once

#include <cstdint>

#include "model/common/stream.h"
#include "nt_params.h"

namespace nettwin::reorder {

constexpr int kFlows = static_cast<int>(params::kReorderFlows);
constexpr int kQueues = static_cast<int>(params::kReorderQueues);
constexpr int kWays = static_cast<int>(params::kReorderWays);
constexpr int kCells = static_cast<int>(params::kReorderCells);
constexpr int kMaxCells = static_cast<int>(params::kReorderMaxCells);
constexpr int kOutFifo = static_cast<int>(params::kReorderOutFifo);
constexpr int kCtrlFifo = static_cast<int>(params::kReorderCtrlFifo);
constexpr int kHdrBytes = static_cast<int>(params::kReorderHdrBytes);
constexpr int kKeyBytes = static_cast<int>(params::kReorderKeyBytes);

// CW opcodes (BTH byte 8 bits 6..4).
constexpr uint8_t kCwNormal = 0, kCwRttRequest = 1, kCwRttReply = 2, kCwClear = 3, kCwNotify = 4;

// Quasi-static configuration inputs (docs/conweave.md "Configuration"), held constant during a run.
struct ReorderCfg {
  uint16_t flows_mask = kFlows - 1;  // flows - 1 (flows a power of two)
  uint8_t queues = kQueues;          // 4, 8, 16 or 32
  uint16_t buffer_cells = 4096;      // limit on cells held in reorder queues
  uint16_t margin_us = 16;
  uint16_t default_hold_us = 200;
  uint16_t flow_idle_us = 2000;
  bool any_queue = false;  // take the first free queue of the pool instead of the spec's 4-way lookup
  bool p4_format = false;  // conweave-p4's wire format (docs/conweave.md "Two wire formats")
};

struct ReorderIn {
  StreamPort s;          // fabric side
  bool m_ready = false;  // host side
  bool c_ready = false;  // control port toward the source ToR
  uint16_t now_us = 0;   // free-running microsecond clock, the clock of TX_TSTAMP
  ReorderCfg cfg;
};

// Counters; every field is an output port of reorder_top and is compared every cycle.
struct ReorderCounters {
  uint32_t in = 0, delivered = 0, ctrl_out = 0;
  uint32_t drop_malformed = 0, drop_buffer_full = 0;
  uint32_t held = 0, released_by_tail = 0, released_by_timeout = 0;
  uint32_t fallback_unordered = 0, fallback_collision = 0, epoch_jump = 0;
  uint32_t held_now = 0, queues_now = 0, peak_queues = 0;
  uint32_t held_cells = 0, peak_held_cells = 0, cells_used = 0, peak_cells_used = 0;
  bool operator==(const ReorderCounters& o) const;
};

struct ReorderOut {
  bool s_ready = false;
  StreamPort m;            // to the host: the NIC's frames
  bool m_held = false;     // with m: this packet waited in a reorder queue ...
  uint16_t m_hold_us = 0;  // ... for this long (us, from its decision to its first beat leaving)
  StreamPort c;            // control packets: RTT_REPLY, CLEAR, NOTIFY
  bool idle = false;       // nothing in flight except packets held in reorder queues
  ReorderCounters cnt;
};

}  // namespace nettwin::reorder
