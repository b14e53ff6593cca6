#include <cstdlib>
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

nettwin::PcapFormat ParseOutFormat(const std::string& opt, const std::string& v) {
  const auto f = nettwin::ParsePcapFormat(v);
  if (!f) throw std::invalid_argument(opt + " must be pcap or pcapng, got '" + v + "'");
  return *f;
}
