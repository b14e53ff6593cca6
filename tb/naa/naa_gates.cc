#include "tb/naa/naa_gates.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "model/common/text_lines.h"
#include "model/rdma/rdma_config.h"

namespace nettwin::naa {
namespace {

[[noreturn]] void Fail(const std::string& file, int line, const std::string& tok, const std::string& msg) {
  throw rdma::ConfigError(file + ":" + std::to_string(line) + ": token '" + tok + "': " + msg);
}

uint64_t Count(const std::string& file, int line, const std::string& s) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (s.empty() || *end != '\0' || errno == ERANGE || s[0] < '0' || s[0] > '9') {
    Fail(file, line, s, "not a decimal number");
  }
  return v;
}

}  // namespace

Gates ParseGates(const std::string& text, const std::string& file_name, uint64_t frames) {
  Gates g;
  TextLines lines(text);
  while (lines.Next()) {
    const int n = lines.number();
    const std::vector<std::string>& w = lines.words();
    if (w.empty()) continue;
    if (w.size() != 3) Fail(file_name, n, w.back(), "expected '<frame index> after <endpoint frames>'");
    const uint64_t i = Count(file_name, n, w[0]);
    if (w[1] != "after") Fail(file_name, n, w[1], "expected 'after'");
    const uint64_t k = Count(file_name, n, w[2]);
    if (i >= frames) Fail(file_name, n, w[0], "no such frame (the pcap has " + std::to_string(frames) + ")");
    if (g.after.count(i)) Fail(file_name, n, w[0], "frame gated twice");
    g.after[i] = k;
  }
  return g;
}

Gates LoadGatesFor(const std::string& pcap_path, uint64_t frames) {
  const std::string path = pcap_path + ".gates";
  std::ifstream f(path);
  if (!f) return Gates{};
  std::ostringstream s;
  s << f.rdbuf();
  return ParseGates(s.str(), path, frames);
}

}  // namespace nettwin::naa
