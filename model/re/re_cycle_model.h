// Cycle-accurate model of rtl/re/re_top.sv (docs/re-microarchitecture.md): same ports (ReIn/ReOut), same
// ready/valid behaviour, latency and counters. The decisions are those of the golden RePacketModel (re_packet_model.h),
// restated per context slot as the RTL makes them; tests compare the two on every vector.
//
//   ingress   stores each frame's first ReSegBeats beats in the input FIFO, parses the header (ParseSegment)
//             at the last beat; the descriptor reaches the decide stage kParseDelay cycles later (the RTL's
//             header checks run in stages); a frame dropped by its header keeps its beats in the FIFO until
//             the write stage releases them, as for any dropped frame
//   decide    one descriptor per cycle, decided the cycle after the lookup stage takes it from the FIFO's
//             head: first the contexts its time expires (one per cycle, oldest first), then the key lookup,
//             the range checks and the context update
//   write     writes an accepted segment's beats into its context's buffer (one beat per cycle) or skips a
//             dropped one (one cycle); at the end of a completing segment it queues the event
//   output    sends each completed event as a frame (26-byte header + data; 32 with E2SAR's header), one beat
//             per cycle
// With `buffer host` (cfg_host) the write stage sends each accepted beat's data bytes to the context's slot in
// host memory as one DMA write (waiting while the host is not ready), and the output stage sends a one-beat
// completion record (header + the slot's host address) instead of the event's bytes.
// The RTL's input FIFO and event buffer have registered (block RAM) reads with the address prefetched one
// cycle ahead, so every beat keeps the cycle a combinational read gave it: the model has no memory ports to
// follow (docs/re-microarchitecture.md "Registered reads").
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "model/common/clocked_block.h"
#include "model/common/dma.h"
#include "model/common/stream.h"
#include "model/re/re_segment.h"
#include "nt_params.h"

namespace nettwin::re {

constexpr int kReDropCodes = static_cast<int>(params::kReDropReasons);  // code = Drop + 1; 0 unused

// An incomplete event the engine gave up on (one per cycle on the report port rep_valid_o + rep_*_o; the
// fields count while valid). Its tick16 is event_num[15:0].
struct ReReport {
  bool valid = false;
  uint64_t event_num = 0;
  uint16_t data_id = 0;
  uint32_t received = 0, segments = 0, length = 0;
  bool end_known = false, at_end = false;
  bool operator==(const ReReport& o) const {
    return valid == o.valid &&
           (!valid || (data_id == o.data_id && event_num == o.event_num && received == o.received &&
                       segments == o.segments && length == o.length && end_known == o.end_known && at_end == o.at_end));
  }
};

}  // namespace nettwin::re

// ReIn, ReOut (same ports as re_top) and ReCycleCounters, generated from rtl/re/data/re.json (docs/blockgen.md).
#include "re_ports.h"  // NOLINT(build/include_order,build/include_subdir)

namespace nettwin::re {

// The header checks' configuration from the cfg_* inputs.
inline ParseConfig ParseConfigOf(const ReIn& in) {
  return ParseConfig{in.cfg_buffer_bytes, in.cfg_format, in.cfg_version, in.cfg_lb_header,
                     in.cfg_host ? params::kReSegBeats * kBeatBytes : 0};
}

class ReCycleModel : public ClockedBlock<ReIn, ReOut> {
 public:
  void Reset() override;
  const ReOut& Eval(const ReIn& in) override;
  void Tick() override;

 private:
  struct Context {
    bool valid = false, done = false, out_pending = false, end_known = false;
    std::pair<uint64_t, uint16_t> key;  // (event_num, data_id)
    uint64_t mac_dst = 0, mac_src = 0, first_ns = 0;
    uint32_t segments = 0, received = 0, length = 0, max_end = 0;
    std::array<bool, params::kReRanges> rv{};
    std::array<uint32_t, params::kReRanges> rb{}, re{};
    std::vector<uint8_t> data;  // the context's buffer (written when the segment is decided)
  };
  struct Desc {
    Segment seg;
    std::vector<uint8_t> frame;
    uint64_t time_ns = 0;
    uint32_t stored = 0;  // beats in the input FIFO
  };
  struct WriteJob {
    bool valid = false, skip = false, completes = false;
    int ctx = 0;
    uint32_t beats = 0, beat = 0;
    uint32_t offset = 0, len = 0, data_at = 0;  // `buffer host`: where the beats' data bytes go
    std::vector<uint8_t> frame;                 // `buffer host`: the frame (the input FIFO's beats)
  };
  DmaRequest HostWrite() const;  // the write stage's DMA request this cycle (`buffer host`)
  // Combinational decisions of the cycle, applied by Tick().
  struct Step {
    bool pop = false, flush_done = false;
    ReReport report;
    WriteJob job;  // to the write stage
  };
  Step Decide(bool job_slot_free);
  bool Expired(const Context& c, uint64_t now) const;
  int Oldest(bool flush, uint64_t now) const;
  int Place(const Desc& d, int* slot, bool* completes);  // returns the drop code (0: used)

  // The RTL's header-check stages (re_ingress P1..P6, registers after P1..P5): a frame's descriptor is queued
  // (visible to the decide stage) kParseDelay + 1 edges after its last beat, instead of 1
  // (docs/re-microarchitecture.md "Header checks in stages").
  static constexpr size_t kParseDelay = 5;
  bool ParseIdle() const {
    return std::none_of(parse_.begin(), parse_.end(), [](const std::optional<Desc>& d) { return d.has_value(); });
  }
  size_t ParseCount() const {
    return static_cast<size_t>(
        std::count_if(parse_.begin(), parse_.end(), [](const std::optional<Desc>& d) { return d.has_value(); }));
  }

  ReIn in_;
  ReOut out_;
  std::array<Context, params::kReContexts> ctx_{};
  // ingress
  uint32_t beat_idx_ = 0, stored_ = 0, fifo_used_ = 0;
  uint64_t time_ = 0;
  std::vector<uint8_t> cur_;
  std::array<std::optional<Desc>, kParseDelay> parse_{};  // [0] = the frame whose last beat was the last cycle's
  std::deque<Desc> desc_;
  // the RTL's lookup stage (re_decide's L): the frame the decide stage decides, taken from the FIFO's head one
  // cycle before at the earliest (docs/re-microarchitecture.md "Decide in two stages")
  std::optional<Desc> look_;
  // write stage: the job in progress and the next one
  WriteJob cur_job_, next_job_;
  // output
  std::deque<int> done_q_;
  bool o_active_ = false;
  int o_ctx_ = 0;
  uint32_t o_beat_ = 0;
  std::vector<uint8_t> o_frame_;
  bool flush_pending_ = false;
  ReReport report_;
  ReCycleCounters cnt_;
};

}  // namespace nettwin::re
