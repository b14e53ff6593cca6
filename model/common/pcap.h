// Capture file I/O shared by every command: classic pcap (micro- or nanosecond, either byte order) and pcapng
// (any number of sections and interfaces, either byte order), of one expected link type: Ethernet by default,
// DLT_USER0 for the OPA 16B packets of `nettwin vnic`.
//
// Written by hand rather than on libpcap so that a truncated or corrupt file yields a precise error naming the
// file, the packet (counted from 1) and, for pcapng, the block and its byte offset. Both readers stream: one
// record at a time from a buffered FILE*, so memory does not grow with the capture.
//
// Fuzzing / in-memory input: PcapReader(FILE*, name) reads any stream, e.g. one made by
// fmemopen(data, size, "rb") over a fuzzer's buffer; every malformed input ends in PcapError, never in a crash.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
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

enum class PcapFormat { kPcap, kPcapng };

constexpr uint32_t kLinkEthernet = 1;
constexpr uint32_t kLinkUser0 = 147;  // DLT_USER0: nettwin writes OPA 16B VNIC packets with it

// What a capture was read as, and how an output capture is written. `nanos`: timestamps with nanosecond
// resolution (pcap magic a1b23c4d, pcapng if_tsresol 9); otherwise microseconds.
struct CaptureFormat {
  PcapFormat container = PcapFormat::kPcap;
  bool nanos = true;
  uint32_t link_type = kLinkEthernet;  // read: the one expected (another is an error); write: the one written
};

// "pcap" or "pcapng"; nullopt otherwise.
std::optional<PcapFormat> ParsePcapFormat(const std::string& s);

class PcapReader {
 public:
  // Opens `path`; throws PcapError if it cannot be opened or its file header is bad.
  explicit PcapReader(const std::string& path, uint32_t link_type = kLinkEthernet);
  // Reads from `f` (not closed by the reader); `name` stands for the file in error messages.
  PcapReader(std::FILE* f, std::string name, uint32_t link_type = kLinkEthernet);
  ~PcapReader();
  PcapReader(const PcapReader&) = delete;
  PcapReader& operator=(const PcapReader&) = delete;

  // Next packet, or nullopt at a clean end of file. Throws PcapError on truncation or corruption.
  std::optional<Packet> Next();
  // Same, into `p` (its buffer is reused, so a loop over a capture does not allocate). False at the end.
  bool Next(Packet* p);

  // Format and timestamp resolution of the input (pcapng: of the first interface).
  CaptureFormat format() const { return format_; }
  uint64_t packets_read() const { return index_; }

 private:
  struct Interface {
    uint16_t link_type = 0;
    bool pow2 = false;    // if_tsresol: units of 2^-exp seconds, else 10^-exp
    uint8_t exp = 6;
    int64_t offset_s = 0;  // if_tsoffset
  };
  void Open();
  size_t Read(void* dst, size_t n);
  size_t ReadInto(std::vector<uint8_t>* v, size_t n);
  uint16_t Fix16(uint16_t v) const { return swapped_ ? __builtin_bswap16(v) : v; }
  uint32_t Fix32(uint32_t v) const { return swapped_ ? __builtin_bswap32(v) : v; }
  bool NextPcap(Packet* p);
  bool NextPcapng(Packet* p);
  void ReadSectionHeader(const uint8_t* first, size_t have, uint64_t offset);  // `have` bytes already read
  void ParseInterface(const std::vector<uint8_t>& body, const std::string& where);
  uint64_t ToNanos(const Interface& i, uint64_t ts) const;
  [[noreturn]] void Fail(const std::string& where, const std::string& what) const;

  std::FILE* f_ = nullptr;
  bool owned_ = false;
  std::unique_ptr<char[]> buffer_;  // glibc ignores setvbuf's size without a caller's buffer
  std::string name_;
  CaptureFormat format_;
  bool swapped_ = false;
  uint64_t index_ = 0;      // packets returned so far
  uint64_t block_ = 0;      // pcapng blocks read so far
  uint64_t offset_ = 0;     // byte offset of the next record / block
  bool seen_interface_ = false;
  uint64_t last_time_ns_ = 0;  // a Simple Packet Block (no timestamp) keeps it
  std::vector<Interface> ifaces_;  // of the current pcapng section
  std::vector<uint8_t> body_;      // pcapng block body scratch
};

class PcapWriter {
 public:
  explicit PcapWriter(const std::string& path, CaptureFormat format = {});
  ~PcapWriter();  // closes; errors are only reported by Close()
  PcapWriter(const PcapWriter&) = delete;
  PcapWriter& operator=(const PcapWriter&) = delete;

  void Write(const Packet& p) { Write(p.time_ns, p.bytes.data(), p.bytes.size()); }
  // One frame made of `head` followed by `tail` (lets a caller drop bytes from the middle without a copy).
  void Write(uint64_t time_ns, const uint8_t* head, size_t head_len, const uint8_t* tail = nullptr,
             size_t tail_len = 0);
  // Flushes and closes; throws PcapError if anything could not be written.
  void Close();

 private:
  void Put(const void* p, size_t n);
  std::FILE* f_ = nullptr;
  std::unique_ptr<char[]> buffer_;
  std::string path_;
  CaptureFormat format_;
  bool failed_ = false;
};

// Reads a whole file (the cycle-accurate engines keep the frames they offer); `format` receives the input's
// format so an output can keep its timestamp resolution.
std::vector<Packet> ReadPcap(const std::string& path, CaptureFormat* format = nullptr,
                             uint32_t link_type = kLinkEthernet);
void WritePcap(const std::string& path, const std::vector<Packet>& packets, CaptureFormat format = {});

}  // namespace nettwin
