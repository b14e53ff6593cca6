// The host-memory options shared by `nettwin rdma`, `nettwin naa` and `nettwin rdma-latency`: one parser and
// one help text, so the commands cannot drift apart (tb/common/host_memory.h; docs/rdma.md "Host memory and
// DMA" has the model and the sources of the defaults).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "apps/commands.h"
#include "tb/common/host_memory.h"
#include "tb/rdma/rdma_run.h"

// The help lines of the host-memory options, defaults included.
constexpr const char* kHostMemoryHelp =
    "  Host memory (SystemC; both engines see the same one; docs/rdma.md \"Host memory and DMA\"):\n"
    "  --mem-model pcie|slots  pcie (default): PCIe as on an Alveo U280 (Gen3 x16): posted writes limited by\n"
    "                posted credits and link bandwidth, reads by tags and latency. slots: the old model, every\n"
    "                request holds one of --mem-outstanding slots, a write for --mem-write-cycles.\n"
    "  --mem-read-cycles N   host read latency: cycles from a read's acceptance to its first 64-byte beat\n"
    "                (default 200 = 800 ns at 250 MHz; later beats one per cycle, in request order).\n"
    "  --mem-write-cycles N  pcie: cycles from a write crossing the link until its posted credits come back;\n"
    "                slots: cycles a write holds its slot (default 100). Writes land in memory at once.\n"
    "  --mem-outstanding N   pcie: read tags, i.e. reads outstanding at once; slots: requests of either kind\n"
    "                outstanding at once (default 64).\n"
    "  --mem-posted-credits N  pcie: posted data credits, 16-byte units (default 1456 = 23,296 bytes).\n"
    "  --mem-posted-headers N  pcie: posted header credits, one per write (default 784).\n"
    "  --mem-link-bytes-per-cycle B  pcie: write bytes the link carries per cycle (default 15750 MB/s, PCIe\n"
    "                Gen3 x16 after 128b/130b, at --clock-mhz: 63 at 250 MHz).\n";

// Takes option `o` if it is a host-memory option (its value from val()) into `cfg` and returns true; else
// false. A bad value is a std::invalid_argument naming the option.
inline bool ParseHostMemoryOption(const std::string& o, const std::function<std::string()>& val,
                                  nettwin::rdma::RdmaRunConfig* cfg) {
  if (o == "--mem-model") cfg->mem.model = nettwin::tb::ParseHostModel(val());
  else if (o == "--mem-read-cycles") cfg->mem.read_latency = static_cast<uint32_t>(ParseNumber(o, val(), 1, 1e7));
  else if (o == "--mem-write-cycles") cfg->mem.write_latency = static_cast<uint32_t>(ParseNumber(o, val(), 0, 1e7));
  else if (o == "--mem-outstanding") cfg->mem.max_outstanding = static_cast<uint32_t>(ParseNumber(o, val(), 1, 1024));
  else if (o == "--mem-posted-credits")
    cfg->mem.posted_data_credits = static_cast<uint32_t>(ParseNumber(o, val(), 4, 1e6));
  else if (o == "--mem-posted-headers")
    cfg->mem.posted_header_credits = static_cast<uint32_t>(ParseNumber(o, val(), 1, 1e6));
  else if (o == "--mem-link-bytes-per-cycle") cfg->mem.link_bytes_per_cycle = ParseNumber(o, val(), 0.01, 1e6);
  else return false;
  return true;
}
