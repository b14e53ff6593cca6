// The run sequence every block shares (docs/ARCHITECTURE.md "The generic runner"): the engines a run uses,
// one run through the lockstep harness, and on a divergence (or an RTL assertion) the divergence report
// with a replay of the identical seeded run traced only around it. A block's X_run.cc keeps only what is its
// own: how to make its RTL, its model and its side channel, its configuration and its conservation equation.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/common/packet.h"
#include "tb/common/harness.h"

namespace nettwin::tb {

// How a block is run. kFast is a packet-at-a-time model without cycles (lb and udplb only; `re --engine
// fast` is its golden model); the cycle engines are the cycle model, the RTL, or both compared every cycle.
enum class Engine { kModel, kFast, kRtl, kLockstep };

// The CLI spelling of an engine ("model", "fast", "rtl", "lockstep"), and back.
inline const char* EngineName(Engine e) {
  switch (e) {
    case Engine::kModel: return "model";
    case Engine::kFast: return "fast";
    case Engine::kRtl: return "rtl";
    case Engine::kLockstep: return "lockstep";
  }
  return "?";
}
inline std::optional<Engine> ParseEngineName(const std::string& s) {
  for (Engine e : {Engine::kModel, Engine::kFast, Engine::kRtl, Engine::kLockstep}) {
    if (s == EngineName(e)) return e;
  }
  return std::nullopt;
}
inline bool UsesRtl(Engine e) { return e == Engine::kRtl || e == Engine::kLockstep; }
inline bool UsesCycleModel(Engine e) { return e == Engine::kModel || e == Engine::kLockstep; }

// What a divergence report says and where its waveform goes.
struct ReplaySpec {
  const char* in_noun = "input packet";    // the block's input frames in the report ("request", "segment")
  const char* out_noun = "output packet";  // and its output frames
  std::string mismatch_trace;              // FST of the cycles around a divergence (empty: none)
  uint64_t window = 64;                    // cycles before the divergence kept in it
  // After "waveform of cycles A..B": what the FST shows, e.g. " (RTL; model_* signals = the model's outputs)".
  const char* waveform_note = "";
};

// A block's run: the harness's result, the block's outputs after it (counters), the run's side channel (what
// it recorded: control frames, completion events, ports) and, on a divergence, the report's text.
template <class Binding, class Side>
struct BlockRun {
  RunResult run;
  typename Binding::Out last{};
  std::unique_ptr<Side> side;
  std::string mismatch_text;  // empty when RTL and model agreed
};

// The first lines of a divergence report (MismatchReport), then the waveform: the whole run's when
// opt.trace_path is set, else a replay of the same seeded run traced into spec.mismatch_trace for the
// spec.window cycles before the divergence. `replay(options)` reruns the block with fresh engines and side
// channel (RunBlock's; blocks with their own run loop, like lb's fast engine, call this directly).
template <class Replay>
std::string DivergenceText(const Mismatch& m, const RunOptions& opt, const ReplaySpec& spec, Replay&& replay) {
  std::string s = MismatchReport(m, spec.in_noun, spec.out_noun);
  if (!opt.trace_path.empty()) {
    s += "  waveform of the whole run up to it: " + opt.trace_path + "\n";
  } else if (!spec.mismatch_trace.empty()) {
    const RunOptions o = ReplayAround(opt, m, spec.mismatch_trace, spec.window);
    replay(o);
    s += "  waveform of cycles " + std::to_string(o.trace_from) + ".." + std::to_string(m.cycle) +
         spec.waveform_note + ": " + spec.mismatch_trace + "\n";
  }
  return s;
}

// Runs `packets` through the block on `engine` (a cycle engine) and, on a divergence, replays around it.
// make_rtl() and make_model() give a fresh RTL and cycle model (std::unique_ptr to the block's classes; only
// the ones the engine uses are made); make_side(replay) a fresh side channel (std::unique_ptr<Side>), `replay`
// true for the replay, whose side channel and records are thrown away.
template <class Binding, class Side, class MakeRtl, class MakeModel, class MakeSide>
BlockRun<Binding, Side> RunBlock(Engine engine, const MakeRtl& make_rtl, const MakeModel& make_model,
                                 const MakeSide& make_side, const std::vector<Packet>& packets,
                                 const RunOptions& opt, const ReplaySpec& spec) {
  using In = typename Binding::In;
  using Out = typename Binding::Out;
  BlockRun<Binding, Side> b;
  auto run_once = [&](const RunOptions& o, Side* side, Out* last) {
    std::unique_ptr<RtlBlock<In, Out>> rtl;
    std::unique_ptr<ClockedBlock<In, Out>> model;
    if (UsesRtl(engine)) rtl = make_rtl();
    if (UsesCycleModel(engine)) model = make_model();
    Harness<Binding> h(rtl.get(), model.get());
    RunResult r = h.Run(packets, side, o);
    if (last != nullptr) *last = h.last_out();
    return r;
  };
  b.side = make_side(false);
  b.run = run_once(opt, b.side.get(), &b.last);
  if (b.run.mismatch) {
    b.mismatch_text = DivergenceText(*b.run.mismatch, opt, spec, [&](const RunOptions& o) {
      std::unique_ptr<Side> side = make_side(true);
      run_once(o, side.get(), nullptr);
    });
  }
  return b;
}

}  // namespace nettwin::tb
