// Parameters and configuration of the ConWeave reorder block (rtl/reorder/reorder_top.sv). Its port structs
// (ReorderIn, ReorderOut, ReorderCounters) are generated from rtl/reorder/data/reorder.json into
// reorder_ports.h (docs/blockgen.md), shared by its cycle model and its Verilated adapter. See
// docs/reorder.md for the behaviour and docs/reorder-microarchitecture.md for the stages.
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

// Quasi-static configuration inputs (docs/reorder.md "Configuration"), held constant during a run.
struct ReorderCfg {
  uint16_t flows_mask = kFlows - 1;  // flows - 1 (flows a power of two)
  uint8_t queues = kQueues;          // 4, 8, 16 or 32
  uint16_t buffer_cells = 4096;      // limit on cells held in reorder queues
  uint16_t margin_us = 16;
  uint16_t default_hold_us = 200;
  uint16_t flow_idle_us = 2000;
  bool any_queue = false;  // take the first free queue of the pool instead of the spec's 4-way lookup
  bool p4_format = false;  // conweave-p4's wire format (docs/reorder.md "Two wire formats")
};

}  // namespace nettwin::reorder

// Generated from rtl/reorder/data/reorder.json: ReorderIn, ReorderOut, ReorderCounters (needs ReorderCfg).
#include "reorder_ports.h"  // NOLINT(build/include_order)
