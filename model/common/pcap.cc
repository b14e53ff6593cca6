#include "model/common/pcap.h"

#include <cstring>

namespace nettwin {
namespace {

constexpr uint32_t kMagicMicros = 0xA1B2C3D4;
constexpr uint32_t kMagicNanos = 0xA1B23C4D;
// Larger than any jumbo frame we model; a bigger record length means a corrupt file.
constexpr uint32_t kMaxRecord = 256 * 1024;

uint32_t Swap32(uint32_t v) { return __builtin_bswap32(v); }

}  // namespace

PcapReader::PcapReader(const std::string& path, uint32_t link_type) : in_(path, std::ios::binary), path_(path) {
  if (!in_) throw PcapError(path + ": cannot open");
  uint8_t hdr[24];
  if (!in_.read(reinterpret_cast<char*>(hdr), sizeof hdr)) {
    throw PcapError(path + ": truncated pcap file header (" + std::to_string(in_.gcount()) +
                    " of 24 bytes)");
  }
  uint32_t magic;
  std::memcpy(&magic, hdr, 4);
  if (magic == kMagicMicros || magic == kMagicNanos) {
    swapped_ = false;
  } else if (Swap32(magic) == kMagicMicros || Swap32(magic) == kMagicNanos) {
    swapped_ = true;
  } else {
    throw PcapError(path + ": not a pcap file (bad magic; pcapng is not supported)");
  }
  nanos_ = Fix32(magic) == kMagicNanos;
  uint32_t lt;
  std::memcpy(&lt, hdr + 20, 4);
  link_type_ = Fix32(lt) & 0x0FFFFFFF;
  if (link_type_ != link_type) {
    throw PcapError(path + ": link type " + std::to_string(link_type_) + " is not " +
                    (link_type == kLinkEthernet ? "Ethernet" : link_type == kLinkUser0 ? "DLT_USER0" : "expected") +
                    " (" + std::to_string(link_type) + ")");
  }
}

uint32_t PcapReader::Fix32(uint32_t v) const { return swapped_ ? Swap32(v) : v; }

std::optional<Packet> PcapReader::Next() {
  uint8_t rec[16];
  in_.read(reinterpret_cast<char*>(rec), sizeof rec);
  if (in_.gcount() == 0) return std::nullopt;
  const std::string where = path_ + ": packet " + std::to_string(index_ + 1);
  if (in_.gcount() != sizeof rec) throw PcapError(where + ": truncated record header");
  uint32_t f[4];
  std::memcpy(f, rec, sizeof f);
  const uint32_t sec = Fix32(f[0]), frac = Fix32(f[1]), incl = Fix32(f[2]), orig = Fix32(f[3]);
  if (incl > kMaxRecord) throw PcapError(where + ": record length " + std::to_string(incl) + " is corrupt");
  if (incl < orig) {
    throw PcapError(where + ": captured " + std::to_string(incl) + " of " + std::to_string(orig) +
                    " bytes (snaplen-truncated capture; the frame is incomplete)");
  }
  Packet p;
  p.bytes.resize(incl);
  if (!in_.read(reinterpret_cast<char*>(p.bytes.data()), incl)) {
    throw PcapError(where + ": truncated packet data (" + std::to_string(in_.gcount()) + " of " +
                    std::to_string(incl) + " bytes)");
  }
  p.time_ns = uint64_t{sec} * 1000000000ull + (nanos_ ? frac : uint64_t{frac} * 1000ull);
  ++index_;
  return p;
}

PcapWriter::PcapWriter(const std::string& path, bool nanos, uint32_t link_type)
    : out_(path, std::ios::binary | std::ios::trunc), path_(path), nanos_(nanos) {
  if (!out_) throw PcapError(path + ": cannot create");
  const uint32_t hdr[6] = {nanos ? kMagicNanos : kMagicMicros, 0x00040002u, 0, 0, 65535u * 4,
                           link_type};
  out_.write(reinterpret_cast<const char*>(hdr), sizeof hdr);
}

void PcapWriter::Write(const Packet& p) {
  const uint64_t sec = p.time_ns / 1000000000ull, ns = p.time_ns % 1000000000ull;
  const uint32_t rec[4] = {static_cast<uint32_t>(sec), static_cast<uint32_t>(nanos_ ? ns : ns / 1000),
                           static_cast<uint32_t>(p.bytes.size()), static_cast<uint32_t>(p.bytes.size())};
  out_.write(reinterpret_cast<const char*>(rec), sizeof rec);
  out_.write(reinterpret_cast<const char*>(p.bytes.data()), static_cast<std::streamsize>(p.bytes.size()));
  if (!out_) throw PcapError(path_ + ": write failed");
}

std::vector<Packet> ReadPcap(const std::string& path, uint32_t link_type) {
  PcapReader r(path, link_type);
  std::vector<Packet> v;
  while (auto p = r.Next()) v.push_back(std::move(*p));
  return v;
}

void WritePcap(const std::string& path, const std::vector<Packet>& packets, uint32_t link_type) {
  PcapWriter w(path, true, link_type);
  for (const auto& p : packets) w.Write(p);
}

}  // namespace nettwin
