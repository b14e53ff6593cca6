#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>

#include "apps/commands.h"

double ParseNumber(const std::string& opt, const std::string& v, double lo, double hi) {
  char* end = nullptr;
  const double d = std::strtod(v.c_str(), &end);
  if (v.empty() || *end != '\0' || !(d >= lo && d <= hi)) {
    throw std::invalid_argument(opt + " wants a number in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                                "], got '" + v + "'");
  }
  return d;
}

bool ForEachOption(int argc, char** argv, const char* help,
                   const std::function<void(const std::string&, const std::function<std::string()>&)>& on) {
  for (int i = 1; i < argc; ++i) {
    const std::string o = argv[i];
    if (o == "--help" || o == "-h") {
      std::cout << help;
      return false;
    }
    on(o, [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(o + " needs a value");
      return argv[++i];
    });
  }
  return true;
}

nettwin::PcapFormat ParseOutFormat(const std::string& opt, const std::string& v) {
  const auto f = nettwin::ParsePcapFormat(v);
  if (!f) throw std::invalid_argument(opt + " must be pcap or pcapng, got '" + v + "'");
  return *f;
}

std::string ShellQuote(const std::string& arg) {
  static constexpr char kPlain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-";
  if (!arg.empty() && arg.find_first_not_of(kPlain) == std::string::npos) return arg;
  std::string q = "'";
  for (const char c : arg) {
    if (c == '\'')
      q += "'\\''";
    else
      q += c;
  }
  return q + "'";
}

namespace {
std::string& ProgramPath() {
  static std::string path = "nettwin";
  return path;
}
}  // namespace

void SetProgramPath(const std::string& argv0) { ProgramPath() = argv0; }

std::optional<int> DivergenceExit(const char* command, const std::string& mismatch_text,
                                  const nettwin::tb::RunOptions& opt, const nettwin::tb::RunResult& run, int argc,
                                  char** argv) {
  if (!mismatch_text.empty()) {
    std::cerr << mismatch_text << "  replay: " << ShellQuote(ProgramPath());
    for (int i = 0; i < argc; ++i) std::cerr << " " << ShellQuote(argv[i]);
    std::cerr << "\n";
    return 1;
  }
  if (opt.inject_divergence_at == nettwin::tb::RunOptions::kNever) return std::nullopt;
  std::cerr << "nettwin " << command << ": --inject-divergence " << opt.inject_divergence_at << ": "
            << (run.injected_at ? "a bit was flipped but the comparison did not report it (a harness or binding bug)"
                                : "the model gave no output beat at or after that cycle; nothing was injected")
            << "\n";
  return 1;
}

uint64_t ParseInjectDivergence(const std::string& opt, const std::string& v) {
  return static_cast<uint64_t>(ParseNumber(opt, v, 0, 1e15));
}

void CheckInjectEngine(const nettwin::tb::RunOptions& opt, bool lockstep) {
  if (opt.inject_divergence_at != nettwin::tb::RunOptions::kNever && !lockstep) {
    throw std::invalid_argument("--inject-divergence needs --engine lockstep (only lockstep compares)");
  }
}

namespace {

// Each common option and its flag (scripts/tests/test_cli_help.py reads this table: `{kOptX, "--x"}`).
struct CommonOptionName {
  CommonOption flag;
  const char* name;
};
constexpr CommonOptionName kCommonOptionNames[] = {
    {kOptIn, "--in"},
    {kOptOut, "--out"},
    {kOptStats, "--stats"},
    {kOptTrace, "--trace"},
    {kOptEngine, "--engine"},
    {kOptGaps, "--gaps"},
    {kOptBackpressure, "--backpressure"},
    {kOptSeed, "--seed"},
    {kOptClockMhz, "--clock-mhz"},
    {kOptInjectDivergence, "--inject-divergence"},
    {kOptOutFormat, "--out-format"},
};

}  // namespace

bool CommonOptions::Parse(const std::string& o, const std::function<std::string()>& value) {
  using nettwin::tb::Engine;
  unsigned flag = 0;
  for (const CommonOptionName& n : kCommonOptionNames) {
    if (o == n.name) flag = n.flag;
  }
  if ((which & flag) == 0) return false;
  switch (flag) {
    case kOptIn: in = value(); break;
    case kOptOut: out = value(); break;
    case kOptStats: stats = value(); break;
    case kOptTrace: trace = value(); break;
    case kOptEngine: {
      const std::string v = value();
      const std::optional<Engine> e = nettwin::tb::ParseEngineName(v);
      const bool fast = (which & kOptFastEngine) != 0;
      if (!e || (*e == Engine::kFast && !fast)) {
        throw std::invalid_argument(o + (fast ? " must be model, fast, rtl or lockstep" : " must be model, rtl or lockstep") +
                                    ", got '" + v + "'");
      }
      engine = *e;
      break;
    }
    case kOptGaps: opt.gaps = ParseNumber(o, value(), 0, 0.99); break;
    case kOptBackpressure: opt.backpressure = ParseNumber(o, value(), 0, 0.99); break;
    case kOptSeed: opt.seed = static_cast<uint64_t>(ParseNumber(o, value(), 0, 1e18)); break;
    case kOptClockMhz: opt.clock_mhz = ParseNumber(o, value(), 1, 100000); break;
    case kOptInjectDivergence: opt.inject_divergence_at = ParseInjectDivergence(o, value()); break;
    case kOptOutFormat: out_format = ParseOutFormat(o, value()); break;
    default: return false;
  }
  return true;
}

void CommonOptions::Check() const {
  CheckInjectEngine(opt, engine == nettwin::tb::Engine::kLockstep);
  if (!trace.empty() && !nettwin::tb::UsesRtl(engine)) {
    throw std::invalid_argument("--trace needs the RTL (--engine rtl or lockstep)");
  }
}

std::vector<nettwin::Packet> CommonOptions::ReadInput() { return nettwin::ReadPcap(in, &in_format); }

void CommonOptions::WriteCapture(const std::string& path, const std::vector<nettwin::Packet>& packets) const {
  nettwin::WritePcap(path, packets, OutputFormat(out_format, in_format));
}

void CommonOptions::SetTracing(nettwin::tb::RunOptions* o, std::string* mismatch_trace) const {
  o->trace_path = trace;
  *mismatch_trace = trace.empty() ? out + ".mismatch.fst" : "";
}

void RequireOptions(std::initializer_list<std::pair<const char*, const std::string*>> options) {
  bool missing = false;
  std::string names;
  size_t i = 0;
  for (const auto& [name, value] : options) {
    missing = missing || value->empty();
    names += (i == 0 ? "" : i + 1 == options.size() ? " and " : ", ") + std::string(name);
    ++i;
  }
  if (missing) throw std::invalid_argument(names + " are required");
}

int InputError(const char* command, const std::exception& e, const std::string& help) {
  std::cerr << "nettwin " << command << ": " << e.what() << "\n";
  if (dynamic_cast<const std::invalid_argument*>(&e)) std::cerr << help;
  return 2;
}

int RunExit(const char* command, const std::string& mismatch_text, const nettwin::tb::RunOptions& opt,
            const nettwin::tb::RunResult& run, bool conservation_ok, const std::string& accounting, int argc,
            char** argv) {
  if (auto exit = DivergenceExit(command, mismatch_text, opt, run, argc, argv)) return *exit;
  if (conservation_ok) return 0;
  std::cerr << "nettwin " << command << ": " << (run.hang ? "HANG" : "CONSERVATION FAILED")
            << (accounting.empty() ? "" : ": " + accounting) << "\n";
  return 1;
}
