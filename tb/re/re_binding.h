// How the reassembly engine plugs into the generic harness: its stream ports, the comparison of every
// output and its segment accounting (in = used + dropped; both generated from rtl/re/data/re.json), and the
// side channel that drives each frame's arrival time and the configuration, collects the report port and
// raises flush once every frame is in; with `buffer host` it is also the host memory the engine writes events to
// (tb/common/host_memory.h), and it reads each event from its slot when the completion record arrives.
#pragma once

#include <string>
#include <vector>

#include "model/common/packet.h"
#include "model/re/re_cycle_model.h"
#include "model/re/re_packet_model.h"
#include "tb/common/harness.h"
#include "tb/common/host_memory.h"
#include "re_compare.h"  // NOLINT(build/include_subdir): generated from rtl/re/data/re.json

namespace nettwin::re {

using ReBinding = ReBindingPorts;  // generated: streams s -> m, Compare, accounting (in = used + dropped)

// The configuration inputs. The RTL's limits are its parameters: contexts <= ReContexts, buffer_bytes <=
// ReBufBytes on chip, ReHostBufBytes (16 MiB) with `buffer host` (the golden model allows more contexts;
// ReStaticError says why a configuration does not fit).
struct ReStatic {
  uint32_t contexts = 16, buffer_bytes = params::kReBufBytes;
  uint64_t timeout_ns = 1000000;
  HeaderFormat format = HeaderFormat::kEvio6;
  uint8_t version = 0;
  LbHeaderMode lb_header = LbHeaderMode::kSkip;
  BufferMode buffer = BufferMode::kOnChip;
  uint64_t host_base = kReDefaultHostBase;
};
std::string ReStaticError(const ReStatic& s);

class ReSide : public tb::SideChannel<ReIn, ReOut> {
 public:
  // `memory`: the host memory of `buffer host` (null on chip).
  ReSide(const std::vector<Packet>* packets, ReStatic cfg, tb::HostMemory* memory = nullptr)
      : packets_(packets), cfg_(cfg), mem_(memory) {}
  bool Drive(uint64_t cycle, size_t next_packet, const tb::Accounting& acc, ReIn* in) override;
  void Observe(uint64_t cycle, const ReIn& in, const ReOut& out) override;
  bool Busy() const override { return !flushed_ || busy_; }
  const std::vector<ReReport>& reports() const { return reports_; }
  // `buffer host`: per completion record, in order, the bytes at its address when its last beat was taken
  // (the host consumes the event then; the slot is reused only after that, docs/re-microarchitecture.md).
  const std::vector<std::vector<uint8_t>>& host_events() const { return host_events_; }

 private:
  const std::vector<Packet>* packets_;
  ReStatic cfg_;
  tb::HostMemory* mem_;
  bool flushed_ = false, busy_ = true;
  std::vector<ReReport> reports_;
  std::vector<uint8_t> record_;  // the completion record's bytes so far
  std::vector<std::vector<uint8_t>> host_events_;
};

}  // namespace nettwin::re
