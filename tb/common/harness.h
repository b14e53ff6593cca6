// The generic lockstep harness. A block plugs in through a Binding (which fields of its port structs are
// the stream ports, how to compare outputs, how to read its packet accounting) and a SideChannel (its
// table writes, DMA, timers). The harness drives the RTL and the model with identical inputs every cycle,
// compares every output every cycle, and stops at the first divergence.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "model/common/clocked_block.h"
#include "model/common/packet.h"
#include "tb/common/compare.h"
#include "tb/common/stream_sink.h"
#include "tb/common/stream_source.h"

namespace nettwin::tb {

// A Verilated block: a ClockedBlock that can also dump an FST and show the model's outputs beside its own.
template <class In, class Out>
class RtlBlock : public ClockedBlock<In, Out> {
 public:
  virtual void OpenTrace(const std::string& path) = 0;
  virtual void SetTracing(bool on) = 0;
  virtual void ShowModel(const Out& model_out) = 0;
  // The first RTL assertion (rtl/common/nt_assert.svh) that failed at the last clock edge, if any; taking it
  // clears it. Verilated blocks report them; a block without assertions has none.
  virtual std::optional<std::string> TakeAssertion() { return std::nullopt; }
};

struct Accounting {
  uint64_t in = 0, out = 0, dropped = 0;
  bool Drained() const { return in == out + dropped; }
};

// Block-specific inputs other than the stream (table writes, host memory, ...).
template <class In, class Out>
class SideChannel {
 public:
  virtual ~SideChannel() = default;
  // Fills this cycle's side inputs. `next_packet` is the index of the frame the source offers next (or is
  // offering); `acc` is the block's packet accounting as of the previous cycle. Returns whether the source
  // may start that frame.
  virtual bool Drive(uint64_t cycle, size_t next_packet, const Accounting& acc, In* in) = 0;
  // Sees the cycle's inputs and the outputs they produced (e.g. to accept a DMA request), before the edge.
  virtual void Observe(uint64_t /*cycle*/, const In& /*in*/, const Out& /*out*/) {}
  virtual bool Busy() const = 0;
};

struct Mismatch {
  uint64_t cycle = 0;
  SignalDiff diff;
  size_t in_packet = 0;   // frame the source was offering (or about to offer)
  size_t out_packet = 0;  // frame the sink was receiving
  size_t out_beat = 0;    // beat within that frame
  // Non-empty: the run stopped because this RTL assertion failed at `cycle` (its hierarchical name). `diff`
  // is then empty, or the lockstep divergence seen in the same cycle.
  std::string assertion;
};

struct RunOptions {
  double gaps = 0, backpressure = 0;
  uint64_t seed = 1;
  bool timed = false;
  double clock_mhz = 250;
  std::string trace_path;  // FST file; empty: no trace
  uint64_t trace_from = 0, trace_to = std::numeric_limits<uint64_t>::max();
  uint64_t stop_after = std::numeric_limits<uint64_t>::max();  // cycle count at which to stop (replays)
  uint64_t idle_limit = 200000;                                 // cycles without progress = hang
  // A self-test of the comparison and of the divergence report (`--inject-divergence`): the first output
  // beat the model gives at or after this cycle reaches the comparison with bit 0 of its byte 0 flipped.
  // Only the compared copy is changed, not the model, so a replay with the same options diverges again.
  uint64_t inject_divergence_at = kNever;
  static constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
};

struct RunResult {
  std::vector<Packet> out;              // departure time = cycle of the first beat
  std::vector<uint64_t> out_first_cycle;
  std::vector<uint64_t> in_first_cycle, in_last_cycle;
  uint64_t cycles = 0, in_beats = 0, out_beats = 0, input_stall_cycles = 0;
  std::optional<Mismatch> mismatch;
  bool hang = false;
  Accounting accounting;
  std::optional<uint64_t> injected_at;  // the cycle RunOptions::inject_divergence_at flipped a bit in
};

// The first lines of a divergence report; `in_name` / `out_name` say what the block's frames are.
inline std::string MismatchReport(const Mismatch& m, const std::string& in_name, const std::string& out_name) {
  if (!m.assertion.empty()) {
    std::string s = "RTL ASSERTION FAILED at cycle " + std::to_string(m.cycle) + ": " + m.assertion + "\n";
    if (!m.diff.signal.empty()) {
      s += "  lockstep diverges in the same cycle: signal " + m.diff.signal + " rtl = " + m.diff.rtl +
           ", model = " + m.diff.model + "\n";
    }
    return s + "  " + in_name + " #" + std::to_string(m.in_packet) + " being offered; " + out_name + " #" +
           std::to_string(m.out_packet) + ", beat " + std::to_string(m.out_beat) + "\n";
  }
  return "LOCKSTEP MISMATCH at cycle " + std::to_string(m.cycle) + ": signal " + m.diff.signal + "\n" +
         "  rtl   = " + m.diff.rtl + "\n" + "  model = " + m.diff.model + "\n" + "  " + in_name + " #" +
         std::to_string(m.in_packet) + " being offered; " + out_name + " #" + std::to_string(m.out_packet) +
         ", beat " + std::to_string(m.out_beat) + "\n";
}

// The same seeded run again, traced into `fst` only for the `window` cycles before the divergence, so the
// waveform stays small however long the run was.
inline RunOptions ReplayAround(RunOptions o, const Mismatch& m, const std::string& fst, uint64_t window = 64) {
  o.trace_path = fst;
  o.trace_from = m.cycle > window ? m.cycle - window : 0;
  o.trace_to = m.cycle + 1;
  o.stop_after = m.cycle + 2;
  return o;
}

template <class Binding>
class Harness {
 public:
  using In = typename Binding::In;
  using Out = typename Binding::Out;

  // Either engine may be null (model-only or RTL-only runs); with both, they run in lockstep.
  Harness(RtlBlock<In, Out>* rtl, ClockedBlock<In, Out>* model) : rtl_(rtl), model_(model) {}

  RunResult Run(const std::vector<Packet>& packets, SideChannel<In, Out>* side, const RunOptions& opt) {
    RunResult r;
    StreamSource source(&packets, opt.gaps, opt.seed * 2 + 1, opt.timed, opt.clock_mhz);
    StreamSink sink(opt.backpressure, opt.seed * 2 + 2);
    ClockedBlock<In, Out>* primary = rtl_ ? static_cast<ClockedBlock<In, Out>*>(rtl_) : model_;
    if (rtl_) rtl_->Reset();
    if (model_) model_->Reset();
    const bool tracing = rtl_ && !opt.trace_path.empty();
    if (tracing) rtl_->OpenTrace(opt.trace_path);
    uint64_t last_progress = 0;
    Accounting prev{};
    Out injected{};  // the model's outputs of the cycle RunOptions::inject_divergence_at flips a bit in
    for (uint64_t cycle = 0; cycle < opt.stop_after; ++cycle) {
      if (tracing) rtl_->SetTracing(cycle >= opt.trace_from && cycle <= opt.trace_to);
      In in{};
      const bool may_start = side == nullptr || side->Drive(cycle, source.current(), prev, &in);
      source.Drive(cycle, may_start, Binding::Source(&in));
      Binding::SetSinkReady(&in, sink.Ready());
      const Out& out = primary->Eval(in);  // last_out_ is set once, after the loop (not copied per cycle)
      if (rtl_ && model_) {
        const Out* mout = &model_->Eval(in);
        if (!r.injected_at && cycle >= opt.inject_divergence_at && Binding::Sink(*mout).valid) {
          injected = *mout;
          // Binding::Sink gives a const view of the port; `injected` is the harness's own (non-const) copy.
          const_cast<StreamPort&>(Binding::Sink(injected)).beat.data[0] ^= 1;
          mout = &injected;
          r.injected_at = cycle;
        }
        // The model's outputs only matter in a waveform: setting them costs a second RTL evaluation.
        if (tracing && cycle >= opt.trace_from && cycle <= opt.trace_to) rtl_->ShowModel(*mout);
        if (auto d = Binding::Compare(out, *mout)) {
          r.mismatch = Mismatch{cycle, *d, source.current(), sink.frames_done(), sink.beat_in_frame(), {}};
          primary->Tick();  // so the wave shows the diverging cycle
          // An assertion that fails at this same edge is the report: it names the cause, not the symptom.
          if (auto a = rtl_->TakeAssertion()) r.mismatch->assertion = std::move(*a);
          r.cycles = cycle + 1;
          break;
        }
      }
      const Accounting acc = Binding::Account(out);
      const bool handshake = (Binding::Source(&in)->valid && Binding::SourceReady(out)) ||
                             (Binding::Sink(out).valid && Binding::SinkReady(in));
      if (handshake || acc.out != prev.out || acc.dropped != prev.dropped) last_progress = cycle;
      prev = acc;
      if (side != nullptr) side->Observe(cycle, in, out);
      source.Observe(cycle, Binding::SourceReady(out));
      sink.Observe(cycle, Binding::Sink(out));
      primary->Tick();
      if (rtl_ && model_) model_->Tick();
      r.cycles = cycle + 1;
      if (rtl_) {
        if (auto a = rtl_->TakeAssertion()) {  // an RTL assertion failed at this edge: stop like a divergence
          r.mismatch = Mismatch{cycle, {}, source.current(), sink.frames_done(), sink.beat_in_frame(), std::move(*a)};
          r.accounting = acc;
          break;
        }
      }
      r.accounting = acc;
      const bool quiet = source.Done() && (side == nullptr || !side->Busy());
      if (quiet && acc.in == packets.size() && acc.in == acc.out + acc.dropped && !Binding::Sink(out).valid) break;
      if (!source.Done() && packets.size() > 0 && opt.timed &&
          source.ArrivalCycle(source.current()) > cycle) {
        last_progress = cycle;  // waiting for an arrival time is not a hang
      }
      if (cycle - last_progress > opt.idle_limit) {
        r.hang = true;
        break;
      }
    }
    if (tracing) rtl_->SetTracing(false);
    r.out = std::move(sink.frames());
    r.out_first_cycle = sink.first_beat_cycles();
    r.in_first_cycle = source.first_beat_cycles();
    r.in_last_cycle = source.last_beat_cycles();
    for (size_t i = 0; i < r.out.size(); ++i) {
      r.out[i].time_ns = static_cast<uint64_t>(static_cast<double>(r.out_first_cycle[i]) * 1000.0 / opt.clock_mhz);
    }
    if (opt.timed && !packets.empty()) {
      for (auto& p : r.out) p.time_ns += packets[0].time_ns;
    }
    last_out_ = primary->Eval(In{});  // settle the final register state (counters) for the report
    r.in_beats = source.in_beats();
    r.out_beats = sink.out_beats();
    r.input_stall_cycles = source.stall_cycles();
    return r;
  }

 private:
  RtlBlock<In, Out>* rtl_;
  ClockedBlock<In, Out>* model_;
  Out last_out_{};

 public:
  // Outputs of the last cycle run (counters etc.).
  const Out& last_out() const { return last_out_; }
};

}  // namespace nettwin::tb
