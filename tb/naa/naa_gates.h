// Client frames gated on the endpoint's output (docs/naa.md "Gates"): a pcap is static, but a client reacts
// (it ACKs the endpoint's requests, it sends RTU after the REP). `client.pcap.gates` holds one line per gated
// frame, `<frame index> after <n>`: frame i is not offered before the endpoint has sent n frames.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace nettwin::naa {

struct Gates {
  std::map<uint64_t, uint64_t> after;  // frame index -> endpoint frames it waits for
  // The endpoint frames frame `i` waits for (0: none).
  uint64_t For(uint64_t i) const {
    auto it = after.find(i);
    return it == after.end() ? 0 : it->second;
  }
};

// Throws rdma::ConfigError("file:line: token 'x': message"); `frames` is the pcap's frame count (an index
// past it is an error).
Gates ParseGates(const std::string& text, const std::string& file_name, uint64_t frames);
// The sidecar `<pcap>.gates` if it exists, else no gates.
Gates LoadGatesFor(const std::string& pcap_path, uint64_t frames);

}  // namespace nettwin::naa
