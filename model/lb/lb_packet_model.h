// Packet-at-a-time load balancer: the same parse, lookups and rewrite as the cycle model, back to back,
// for golden outputs at full speed. A test proves it produces what the cycle model produces.
#pragma once

#include <cstdint>
#include <vector>

#include "model/lb/lb_rewrite.h"
#include "model/lb/lb_tables.h"

namespace nettwin::lb {

struct Verdict {
  Rewrite rewrite;                // rewrite.forward / rewrite.reason say what happened
  std::vector<uint8_t> out;       // the forwarded frame (empty when dropped)
};

// Parse + all lookups; the result's reason is kNone if the packet is to be forwarded.
Rewrite Decide(const LbTables& tables, const uint8_t* frame, int len);
Verdict ProcessPacket(const LbTables& tables, const std::vector<uint8_t>& frame);

}  // namespace nettwin::lb
