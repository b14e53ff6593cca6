// Subcommands of the nettwin CLI. Each returns the process exit status: 0 ok, 1 the run failed (mismatch,
// hang, conservation), 2 bad usage or bad input.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "model/common/pcap.h"
#include "tb/common/harness.h"
#include "tb/common/run_block.h"

// The value of a numeric option: a decimal number in [lo, hi], else std::invalid_argument naming the option.
double ParseNumber(const std::string& opt, const std::string& v, double lo, double hi);

// Walks argv[1..]: --help or -h prints `help` to stdout and returns false; every other argument is an option
// passed to on(option, value), where value() takes the next argument (std::invalid_argument if none is left).
bool ForEachOption(int argc, char** argv, const char* help,
                   const std::function<void(const std::string&, const std::function<std::string()>&)>& on);

// --engine for blocks with an engine enum of their own (cwloop's LoopEngine, reroute's): "model", "rtl" or
// "lockstep" into the enum (which has those three members), and the chosen name into *name when given; else
// std::invalid_argument. The block runners' engine is tb::Engine, parsed by CommonOptions.
template <class Engine>
Engine ParseEngine(const std::string& opt, const std::string& v, const char** name = nullptr) {
  static constexpr const char* kNames[] = {"model", "rtl", "lockstep"};
  static constexpr Engine kEngines[] = {Engine::kModel, Engine::kRtl, Engine::kLockstep};
  for (int i = 0; i < 3; ++i) {
    if (v == kNames[i]) {
      if (name) *name = kNames[i];
      return kEngines[i];
    }
  }
  throw std::invalid_argument(opt + " must be model, rtl or lockstep, got '" + v + "'");
}

// The options the block commands share, each parsed (and range-checked) the same way in every command
// that has it: which ones a command has is its CommonOptions' mask (the help texts stay the command's own).
enum CommonOption : unsigned {
  kOptIn = 1u << 0,                // --in FILE
  kOptOut = 1u << 1,               // --out FILE
  kOptStats = 1u << 2,             // --stats FILE
  kOptTrace = 1u << 3,             // --trace FILE (needs an RTL engine)
  kOptEngine = 1u << 4,            // --engine model|rtl|lockstep
  kOptFastEngine = 1u << 5,        // --engine also takes fast (lb, re)
  kOptGaps = 1u << 6,              // --gaps P, 0..0.99
  kOptBackpressure = 1u << 7,      // --backpressure P, 0..0.99
  kOptSeed = 1u << 8,              // --seed N
  kOptClockMhz = 1u << 9,          // --clock-mhz F, 1..100000
  kOptInjectDivergence = 1u << 10,  // --inject-divergence CYCLE (needs --engine lockstep)
  kOptOutFormat = 1u << 11,        // --out-format pcap|pcapng
};
// What every block command that runs a cycle engine on captures has (lb, rdma, reorder, reroute, vnic, naa).
constexpr unsigned kOptBlockRun = kOptIn | kOptOut | kOptStats | kOptTrace | kOptEngine | kOptBackpressure | kOptSeed |
                                  kOptClockMhz | kOptInjectDivergence;

// Throws std::invalid_argument "A, B and C are required" (every name, in order) when any of the options'
// values is empty.
void RequireOptions(std::initializer_list<std::pair<const char*, const std::string*>> options);

struct CommonOptions {
  explicit CommonOptions(unsigned which_options) : which(which_options) {}
  // If `o` is one of the common options this command has, takes its value (value(): the next argument) into
  // the fields below and returns true; else false (the command's own option, or unknown). A bad value is
  // std::invalid_argument naming the option.
  bool Parse(const std::string& o, const std::function<std::string()>& value);
  // After parsing: the combinations no command accepts (--inject-divergence without lockstep, --trace
  // without the RTL), as std::invalid_argument.
  void Check() const;
  // Before the run: --trace into opt.trace_path, and the divergence waveform's path (OUT.mismatch.fst when
  // there is no --trace; empty with one, which already holds the whole run).
  void SetTracing(nettwin::tb::RunOptions* o, std::string* mismatch_trace) const;
  // Before the run: the engine, the run options and SetTracing's paths into a block's run configuration
  // (its engine, opt and mismatch_trace).
  template <class RunConfig>
  void Configure(RunConfig* rc) const {
    rc->engine = engine;
    rc->opt = opt;
    SetTracing(&rc->opt, &rc->mismatch_trace);
  }
  const char* engine_name() const { return nettwin::tb::EngineName(engine); }
  // Reads --in (pcap or pcapng) and keeps its format in in_format for WriteCapture.
  std::vector<nettwin::Packet> ReadInput();
  // Writes `packets` to `path` as --out-format (pcap when the command has no such option) at the input's
  // timestamp resolution (OutputFormat): every block command's output captures.
  void WriteCapture(const std::string& path, const std::vector<nettwin::Packet>& packets) const;

  unsigned which;
  std::string in, out, stats, trace;
  nettwin::tb::Engine engine = nettwin::tb::Engine::kLockstep;
  nettwin::tb::RunOptions opt;  // gaps, backpressure, seed, clock_mhz, inject_divergence_at
  nettwin::PcapFormat out_format = nettwin::PcapFormat::kPcap;
  nettwin::CaptureFormat in_format;  // of --in, once ReadInput has read it
};

// The end of a block command, the same in every one: prints "nettwin COMMAND: what" on stderr for an
// exception while reading the inputs, with the help after a usage error (std::invalid_argument); the exit
// status 2.
int InputError(const char* command, const std::exception& e, const std::string& help);
// After the run: the divergence report and replay line (DivergenceExit), else when !conservation_ok
// "nettwin COMMAND: HANG" or "CONSERVATION FAILED", then ": " + accounting when given; the exit status
// (0 ok, 1 failed).
int RunExit(const char* command, const std::string& mismatch_text, const nettwin::tb::RunOptions& opt,
            const nettwin::tb::RunResult& run, bool conservation_ok, const std::string& accounting, int argc,
            char** argv);

// `arg` as one word for a POSIX shell: as is when it holds only characters no shell treats specially,
// else in single quotes (an embedded quote as '\''), so a printed replay line can be pasted back.
std::string ShellQuote(const std::string& arg);

// The exit status 1 when a lockstep run diverged (the report, then the command line that replays the run:
// the program as it was started, see SetProgramPath, then argv, whose argv[0] is the subcommand, on stderr),
// or when `opt` asked for --inject-divergence and no divergence came of it (why, on stderr); else nothing.
std::optional<int> DivergenceExit(const char* command, const std::string& mismatch_text,
                                  const nettwin::tb::RunOptions& opt, const nettwin::tb::RunResult& run, int argc,
                                  char** argv);
// The program path the replay line starts with (main's argv[0]; "nettwin" until set).
void SetProgramPath(const std::string& argv0);

// --inject-divergence CYCLE, in every lockstep command: a self-test of the comparison, the divergence report,
// its waveform and its replay line on the user's own inputs (tb::RunOptions::inject_divergence_at).
constexpr const char* kInjectHelp =
    "  --inject-divergence CYCLE  self-test (lockstep engine only): the first output beat the model gives at\n"
    "                or after CYCLE is compared with one bit flipped; the run must stop there with the\n"
    "                divergence report, the waveform and a replay line, and exit 1.\n";
// The option's value (std::invalid_argument if not a cycle number); CheckInjectEngine refuses it unless
// the run is in lockstep (CommonOptions::Check does both for the block commands).
uint64_t ParseInjectDivergence(const std::string& opt, const std::string& v);
void CheckInjectEngine(const nettwin::tb::RunOptions& opt, bool lockstep);

// --out-format: "pcap" (default) or "pcapng", else std::invalid_argument.
nettwin::PcapFormat ParseOutFormat(const std::string& opt, const std::string& v);
// How a command writes its captures: the chosen container, with the input's timestamp resolution.
inline nettwin::CaptureFormat OutputFormat(nettwin::PcapFormat container, const nettwin::CaptureFormat& input) {
  return {container, input.nanos};
}
constexpr const char* kOutFormatHelp =
    "  --out-format  pcap (default) or pcapng; either keeps the input's timestamp resolution (us or ns).\n"
    "                Input may be pcap (us/ns, either byte order) or pcapng (Ethernet interfaces).\n";

// The end of a cycle-engine command's stats JSON (reorder, vnic): cycles, beats, input stalls, the lockstep
// verdict and conservation, then the closing brace. `r` is the block's run result (its `run`, a
// tb::RunResult, plus `mismatch_text` and `conservation_ok`).
template <class RunOutcome>
void AppendRunStatsTail(std::ostream& j, const RunOutcome& r) {
  j << "  \"cycles\": " << r.run.cycles << ",\n  \"in_beats\": " << r.run.in_beats << ",\n  \"out_beats\": "
    << r.run.out_beats << ",\n  \"input_stall_cycles\": " << r.run.input_stall_cycles
    << ",\n  \"mismatches\": " << (r.mismatch_text.empty() ? 0 : 1)
    << ",\n  \"conservation_ok\": " << (r.conservation_ok ? "true" : "false") << "\n}\n";
}

// A block command's whole --stats JSON (naa, reorder, vnic): {"engine": ENGINE, then what body(j) writes (the
// block's own members, each line ending in ",\n"), then AppendRunStatsTail.
template <class RunOutcome, class Body>
std::string RunStatsJson(const char* engine, const RunOutcome& r, const Body& body) {
  std::ostringstream j;
  j << "{\n  \"engine\": \"" << engine << "\",\n";
  body(j);
  AppendRunStatsTail(j, r);
  return j.str();
}

// The subcommands, each in its block's namespace (apps/X_command.cc; apps/nettwin.cc dispatches).
namespace nettwin::lb {
int LbCommand(int argc, char** argv);
int LbPlanCommand(int argc, char** argv);
namespace udplb {
int LbPlanUdplbCommand(int argc, char** argv);  // lb-plan --program udplb
}  // namespace udplb
}  // namespace nettwin::lb
namespace nettwin::re {
int ReCommand(int argc, char** argv);
}  // namespace nettwin::re
namespace nettwin::rdma {
int RdmaCommand(int argc, char** argv);
int RdmaLatencyCommand(int argc, char** argv);
}  // namespace nettwin::rdma
namespace nettwin::vnic {
int VnicCommand(int argc, char** argv);
}  // namespace nettwin::vnic
namespace nettwin::reroute {
int RerouteCommand(int argc, char** argv);
int CwloopCommand(int argc, char** argv);  // cwloop: the ConWeave closed loop (docs/cwloop.md)
}  // namespace nettwin::reroute
namespace nettwin::naa {
int NaaCommand(int argc, char** argv);
}  // namespace nettwin::naa
namespace nettwin::reorder {
int ReorderCommand(int argc, char** argv);
}  // namespace nettwin::reorder
