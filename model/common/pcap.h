// Classic libpcap file I/O (Ethernet link type, or another expected one such as DLT_USER0 for OPA 16B
// packets), micro- and nanosecond, either byte order.
// Written by hand rather than via libpcap so that a truncated or corrupt file yields a precise error.
#pragma once

#include <cstdint>
#include <fstream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/common/packet.h"

namespace nettwin {

constexpr uint32_t kLinkEthernet = 1;
constexpr uint32_t kLinkUser0 = 147;  // DLT_USER0: nettwin writes OPA 16B VNIC packets with it

class PcapError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class PcapReader {
 public:
  explicit PcapReader(const std::string& path, uint32_t link_type = kLinkEthernet);
  // Next packet, or nullopt at a clean end of file. Throws PcapError on truncation or corruption.
  std::optional<Packet> Next();
  uint32_t link_type() const { return link_type_; }

 private:
  uint32_t Fix32(uint32_t v) const;
  std::ifstream in_;
  std::string path_;
  bool swapped_ = false;
  bool nanos_ = false;
  uint32_t link_type_ = 0;
  uint64_t index_ = 0;
};

class PcapWriter {
 public:
  explicit PcapWriter(const std::string& path, bool nanos = true, uint32_t link_type = kLinkEthernet);
  void Write(const Packet& p);

 private:
  std::ofstream out_;
  std::string path_;
  bool nanos_;
};

// Reads a whole file; throws PcapError if its link type is not `link_type` or it is malformed.
std::vector<Packet> ReadPcap(const std::string& path, uint32_t link_type = kLinkEthernet);
void WritePcap(const std::string& path, const std::vector<Packet>& packets, uint32_t link_type = kLinkEthernet);

}  // namespace nettwin
