// The CLI's replay line must paste back into a shell as the same argv. The shell itself is the reference:
// every quoted word goes through `sh -c 'printf ...'` and must come back unchanged.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/commands.h"

namespace {

// What /bin/sh makes of `words` (each already quoted), one word per NUL-terminated record.
std::vector<std::string> ThroughShell(const std::vector<std::string>& words) {
  std::string line = "printf '%s\\0'";
  for (const auto& w : words) line += " " + w;
  std::string cmd = "sh -c " + ShellQuote(line);
  std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), pclose);
  EXPECT_NE(p, nullptr);
  std::string out;
  std::array<char, 256> buf;
  for (size_t n; p && (n = fread(buf.data(), 1, buf.size(), p.get())) > 0;) out.append(buf.data(), n);
  std::vector<std::string> got;
  for (size_t b = 0, e; (e = out.find('\0', b)) != std::string::npos; b = e + 1) got.push_back(out.substr(b, e - b));
  return got;
}

TEST(CliArgs, PlainArgumentsAreLeftAsTheyAre) {
  for (const char* a : {"lb", "--in", "vectors/lb/spec_in.pcap", "--backpressure", "0.3", "a=b,c:d@e%f+g"}) {
    EXPECT_EQ(ShellQuote(a), a);
  }
}

TEST(CliArgs, EveryOtherArgumentSurvivesTheShell) {
  const std::vector<std::string> args = {"",         "two words", "it's",     "'",       "\"q\"", "$HOME",
                                         "`id`",     "a;b|c&d",   "*.pcap",   "~",       "x\ny",  "tab\there",
                                         "back\\sl", "!event",    "#comment", "(paren)", "{a,b}", "trail "};
  std::vector<std::string> quoted;
  for (const auto& a : args) quoted.push_back(ShellQuote(a));
  EXPECT_EQ(ThroughShell(quoted), args);
}

}  // namespace

namespace {

// CommonOptions::Parse over argv-like words: every option it takes, or the first it does not.
std::string ParseAll(CommonOptions* c, std::vector<std::string> words) {
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string o = words[i];
    if (!c->Parse(o, [&]() -> std::string { return words.at(++i); })) return o;
  }
  return "";
}

TEST(CommonOptions, TakesOnlyTheOptionsOfItsMask) {
  CommonOptions c(kOptIn | kOptOut | kOptEngine | kOptSeed);
  EXPECT_EQ(ParseAll(&c, {"--in", "a.pcap", "--out", "b.pcap", "--engine", "rtl", "--seed", "9", "--gaps", "0.5"}),
            "--gaps");
  EXPECT_EQ(c.in, "a.pcap");
  EXPECT_EQ(c.out, "b.pcap");
  EXPECT_EQ(c.engine, nettwin::tb::Engine::kRtl);
  EXPECT_STREQ(c.engine_name(), "rtl");
  EXPECT_EQ(c.opt.seed, 9u);
  EXPECT_EQ(c.opt.gaps, 0.0);
}

TEST(CommonOptions, FastOnlyWhereTheBlockHasIt) {
  CommonOptions cycle(kOptEngine);
  try {
    ParseAll(&cycle, {"--engine", "fast"});
    ADD_FAILURE() << "fast taken without kOptFastEngine";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "--engine must be model, rtl or lockstep, got 'fast'");
  }
  CommonOptions lb(kOptEngine | kOptFastEngine);
  EXPECT_EQ(ParseAll(&lb, {"--engine", "fast"}), "");
  EXPECT_EQ(lb.engine, nettwin::tb::Engine::kFast);
  EXPECT_THROW(ParseAll(&lb, {"--engine", "Lockstep"}), std::invalid_argument);
}

TEST(CommonOptions, RangesAndCombinations) {
  CommonOptions c(kOptGaps | kOptBackpressure | kOptClockMhz | kOptTrace | kOptEngine | kOptInjectDivergence |
                  kOptOut | kOptOutFormat);
  EXPECT_THROW(ParseAll(&c, {"--gaps", "1"}), std::invalid_argument);
  EXPECT_THROW(ParseAll(&c, {"--backpressure", "-0.1"}), std::invalid_argument);
  EXPECT_THROW(ParseAll(&c, {"--clock-mhz", "0"}), std::invalid_argument);
  EXPECT_THROW(ParseAll(&c, {"--out-format", "erf"}), std::invalid_argument);
  EXPECT_EQ(ParseAll(&c, {"--out", "o.pcap", "--engine", "model", "--trace", "w.fst"}), "");
  EXPECT_THROW(c.Check(), std::invalid_argument);  // --trace needs the RTL
  c.trace.clear();
  ParseAll(&c, {"--inject-divergence", "40"});
  EXPECT_THROW(c.Check(), std::invalid_argument);  // needs lockstep
  ParseAll(&c, {"--engine", "lockstep"});
  EXPECT_NO_THROW(c.Check());
  nettwin::tb::RunOptions o;
  std::string mismatch_fst;
  c.SetTracing(&o, &mismatch_fst);
  EXPECT_EQ(o.trace_path, "");
  EXPECT_EQ(mismatch_fst, "o.pcap.mismatch.fst");
  c.trace = "w.fst";
  c.SetTracing(&o, &mismatch_fst);
  EXPECT_EQ(o.trace_path, "w.fst");
  EXPECT_EQ(mismatch_fst, "");
}

}  // namespace
