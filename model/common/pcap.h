// Classic libpcap file I/O (Ethernet link type), micro- and nanosecond, either byte order.
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

class PcapError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class PcapReader {
 public:
  explicit PcapReader(const std::string& path);
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
  explicit PcapWriter(const std::string& path, bool nanos = true);
  void Write(const Packet& p);

 private:
  std::ofstream out_;
  std::string path_;
  bool nanos_;
};

// Reads a whole file; throws PcapError if it is not Ethernet or is malformed.
std::vector<Packet> ReadPcap(const std::string& path);
void WritePcap(const std::string& path, const std::vector<Packet>& packets);

}  // namespace nettwin
