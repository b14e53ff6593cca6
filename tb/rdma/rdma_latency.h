// The paper's atomic retransmit scenario (section 5), measured in cycles on the RTL with the model in
// lockstep: one Fetch-and-Add after 255 earlier atomics (so the AQ holds four groups), its ACK lost, the same
// request sent again right away (answered from the on-chip store of recent results), then, after
// RdmaRecent further atomics have pushed it out of that store, sent once more (answered from the AQ).
#pragma once

#include <cstdint>
#include <string>

namespace nettwin::rdma {

// The paper's values: va 0x1_0001_f270, add 0x0363_28fe_883a_1230, memory 0x7776_7574_7372_7170.
constexpr uint64_t kVa = 0x10001f270ull, kAdd = 0x036328fe883a1230ull, kMem = 0x7776757473727170ull;

struct LatencyResult {
  // Cycles from the request's last beat in to the response's first beat out, and host reads in between.
  // retransmit_*: the retransmission old enough to miss the on-chip store; recent_*: right after the lost ACK.
  uint64_t first_cycles = 0, retransmit_cycles = 0, first_reads = 0, retransmit_reads = 0;
  uint64_t recent_cycles = 0, recent_reads = 0;
  uint64_t orig_first = 0, orig_retransmit = 0, orig_recent = 0, final_value = 0;
  std::string error;  // non-empty if the run failed (lockstep mismatch, conservation)
};

struct RdmaRunConfig;

// The host memory's timing from `host` (its mem_* fields; the rest is ignored).
LatencyResult MeasureLatency(double clock_mhz, const RdmaRunConfig& host, bool linear);
// The same with the old host model (kSlots, 16 outstanding) and the given read and write cycles.
LatencyResult MeasureLatency(double clock_mhz, uint32_t read_cycles, uint32_t write_cycles, bool linear);

}  // namespace nettwin::rdma
