// The CLI's replay line must paste back into a shell as the same argv. The shell itself is the reference:
// every quoted word goes through `sh -c 'printf ...'` and must come back unchanged.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <memory>
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
