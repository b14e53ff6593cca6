// Subcommands of the nettwin CLI. Each returns the process exit status: 0 ok, 1 the run failed (mismatch,
// hang, conservation), 2 bad usage or bad input.
#pragma once

#include <string>

#include "model/common/pcap.h"

// The value of a numeric option: a decimal number in [lo, hi], else std::invalid_argument naming the option.
double ParseNumber(const std::string& opt, const std::string& v, double lo, double hi);

// --out-format: "pcap" (default) or "pcapng", else std::invalid_argument.
nettwin::PcapFormat ParseOutFormat(const std::string& opt, const std::string& v);
// How a command writes its captures: the chosen container, with the input's timestamp resolution.
inline nettwin::CaptureFormat OutputFormat(nettwin::PcapFormat container, const nettwin::CaptureFormat& input) {
  return {container, input.nanos};
}
constexpr const char* kOutFormatHelp =
    "  --out-format  pcap (default) or pcapng; either keeps the input's timestamp resolution (us or ns).\n"
    "                Input may be pcap (us/ns, either byte order) or pcapng (Ethernet interfaces).\n";

int LbCommand(int argc, char** argv);
int RdmaCommand(int argc, char** argv);
int RdmaLatencyCommand(int argc, char** argv);
int ReorderCommand(int argc, char** argv);
