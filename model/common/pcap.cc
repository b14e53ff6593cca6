#include "model/common/pcap.h"

#include <algorithm>
#include <cstring>

#include "model/common/file_io.h"

namespace nettwin {
namespace {

constexpr uint32_t kMagicMicros = 0xA1B2C3D4;
constexpr uint32_t kMagicNanos = 0xA1B23C4D;
std::string LinkName(uint32_t t) {
  return std::string(t == kLinkEthernet ? "Ethernet" : t == kLinkUser0 ? "DLT_USER0" : "the expected") + " (" +
         std::to_string(t) + ")";
}
// Larger than any jumbo frame we model; a bigger record length means a corrupt file.
constexpr uint32_t kMaxRecord = 256 * 1024;

// pcapng (draft-ietf-opsawg-pcapng).
constexpr uint32_t kShb = 0x0A0D0D0A;  // the same in both byte orders
constexpr uint32_t kByteOrderMagic = 0x1A2B3C4D;
constexpr uint32_t kIdb = 1, kOpb = 2, kSpb = 3, kEpb = 6;
constexpr uint16_t kOptEnd = 0, kOptTsresol = 9, kOptTsoffset = 14;
// A block holds at most one frame plus its options; anything larger is a corrupt length.
constexpr uint32_t kMaxBlock = 16 * 1024 * 1024;
constexpr size_t kIoBuffer = 1 << 20;

uint32_t Load32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint16_t Load16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

const char* BlockName(uint32_t type) {
  switch (type) {
    case kShb: return "Section Header Block";
    case kIdb: return "Interface Description Block";
    case kOpb: return "Packet Block";
    case kSpb: return "Simple Packet Block";
    case 4: return "Name Resolution Block";
    case 5: return "Interface Statistics Block";
    case kEpb: return "Enhanced Packet Block";
    default: return "unknown block type";
  }
}

uint32_t Pad4(uint32_t n) { return (n + 3) & ~3u; }

}  // namespace

std::optional<PcapFormat> ParsePcapFormat(const std::string& s) {
  if (s == "pcap") return PcapFormat::kPcap;
  if (s == "pcapng") return PcapFormat::kPcapng;
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------- reading

PcapReader::PcapReader(const std::string& path, uint32_t link_type) : name_(path) {
  format_.link_type = link_type;
  f_ = OpenForReading(path);
  if (f_ == nullptr) throw PcapError(CannotOpen(path));
  owned_ = true;
  buffer_ = std::make_unique<char[]>(kIoBuffer);
  std::setvbuf(f_, buffer_.get(), _IOFBF, kIoBuffer);
  try {
    Open();
  } catch (...) {
    std::fclose(f_);
    throw;
  }
}

PcapReader::PcapReader(std::FILE* f, std::string name, uint32_t link_type) : f_(f), name_(std::move(name)) {
  format_.link_type = link_type;
  Open();
}

PcapReader::~PcapReader() {
  if (owned_) std::fclose(f_);
}

size_t PcapReader::Read(void* dst, size_t n) {
#ifdef __GLIBC__
  const size_t got = fread_unlocked(dst, 1, n, f_);
#else
  const size_t got = std::fread(dst, 1, n, f_);
#endif
  return got;
}

// Reads n bytes into *v, growing it as they arrive (64 KB at a time) instead of sizing it from the length
// field first: a corrupt length then costs the bytes that are there, not up to 16 MB of zeroed memory (that
// zeroing was a third of the pcap fuzz target's time, docs/PERF.md "Fuzzing"). Returns the bytes read; *v
// holds exactly those.
size_t PcapReader::ReadInto(std::vector<uint8_t>* v, size_t n) {
  constexpr size_t kStep = 64 * 1024;
  v->clear();
  while (v->size() < n) {
    const size_t have = v->size(), step = std::min(n - have, kStep);
    v->resize(have + step);
    const size_t got = Read(v->data() + have, step);
    if (got != step) {
      v->resize(have + got);
      break;
    }
  }
  return v->size();
}

void PcapReader::Fail(const std::string& where, const std::string& what) const {
  throw PcapError(name_ + ": " + where + (where.empty() ? "" : ": ") + what);
}

void PcapReader::Open() {
  uint8_t hdr[24];
  size_t got = Read(hdr, 4);
  if (got == 4 && Load32(hdr) == kShb) {
    format_.container = PcapFormat::kPcapng;
    format_.nanos = false;  // pcapng's default resolution is 1 us; the first interface may say otherwise
    ReadSectionHeader(hdr, 4, 0);
    return;
  }
  if (got == 4) got += Read(hdr + 4, 20);
  if (got != sizeof hdr) {
    Fail("", "truncated pcap file header (" + std::to_string(got) + " of 24 bytes)");
  }
  const uint32_t magic = Load32(hdr);
  if (magic == kMagicMicros || magic == kMagicNanos) {
    swapped_ = false;
  } else if (__builtin_bswap32(magic) == kMagicMicros || __builtin_bswap32(magic) == kMagicNanos) {
    swapped_ = true;
  } else {
    Fail("", "not a pcap file (bad magic) nor a pcapng file");
  }
  format_.container = PcapFormat::kPcap;
  format_.nanos = Fix32(magic) == kMagicNanos;
  const uint32_t link = Fix32(Load32(hdr + 20)) & 0x0FFFFFFF;
  if (link != format_.link_type) {
    Fail("", "link type " + std::to_string(link) + " is not " + LinkName(format_.link_type));
  }
  offset_ = 24;
}

std::optional<Packet> PcapReader::Next() {
  Packet p;
  if (!Next(&p)) return std::nullopt;
  return p;
}

bool PcapReader::Next(Packet* p) {
  return format_.container == PcapFormat::kPcap ? NextPcap(p) : NextPcapng(p);
}

bool PcapReader::NextPcap(Packet* p) {
  uint8_t rec[16];
  const size_t got = Read(rec, sizeof rec);
  if (got == 0) return false;
  auto where = [&] { return "packet " + std::to_string(index_ + 1); };
  if (got != sizeof rec) Fail(where(), "truncated record header");
  const uint32_t sec = Fix32(Load32(rec)), frac = Fix32(Load32(rec + 4));
  const uint32_t incl = Fix32(Load32(rec + 8)), orig = Fix32(Load32(rec + 12));
  if (incl > kMaxRecord) Fail(where(), "record length " + std::to_string(incl) + " is corrupt");
  if (incl < orig) {
    Fail(where(), "captured " + std::to_string(incl) + " of " + std::to_string(orig) +
                      " bytes (snaplen-truncated capture; the frame is incomplete)");
  }
  const size_t data = ReadInto(&p->bytes, incl);
  if (data != incl) {
    Fail(where(), "truncated packet data (" + std::to_string(data) + " of " + std::to_string(incl) + " bytes)");
  }
  p->time_ns = uint64_t{sec} * 1000000000ull + (format_.nanos ? frac : uint64_t{frac} * 1000ull);
  offset_ += sizeof rec + incl;
  ++index_;
  return true;
}

void PcapReader::ReadSectionHeader(const uint8_t* first, size_t have, uint64_t offset) {
  ++block_;
  const std::string where = "block " + std::to_string(block_) + " at byte " + std::to_string(offset) + " (" +
                            BlockName(kShb) + ")";
  uint8_t hdr[24];  // type, length, byte-order magic, version, section length; then options and the trailer
  std::memcpy(hdr, first, have);
  const size_t got = have + Read(hdr + have, sizeof hdr - have);
  if (got < 12) Fail(where, "truncated block header (" + std::to_string(got) + " of 12 bytes)");
  const uint32_t magic = Load32(hdr + 8);
  if (magic == kByteOrderMagic) {
    swapped_ = false;
  } else if (__builtin_bswap32(magic) == kByteOrderMagic) {
    swapped_ = true;
  } else {
    Fail(where, "bad byte-order magic (not a pcapng file)");
  }
  const uint32_t len = Fix32(Load32(hdr + 4));
  if (len < 28 || len % 4 != 0 || len > kMaxBlock) {
    Fail(where, "block length " + std::to_string(len) + " is corrupt (a multiple of 4, 28 to " +
                    std::to_string(kMaxBlock) + ")");
  }
  if (got < 24) Fail(where, "truncated block (" + std::to_string(got) + " of " + std::to_string(len) + " bytes)");
  const uint16_t major = Fix16(Load16(hdr + 12)), minor = Fix16(Load16(hdr + 14));
  if (major != 1) {
    Fail(where, "pcapng version " + std::to_string(major) + "." + std::to_string(minor) + " is not supported (1.x)");
  }
  const size_t rest = ReadInto(&body_, len - 24);
  if (rest != len - 24) {
    Fail(where, "truncated block (" + std::to_string(got + rest) + " of " + std::to_string(len) + " bytes)");
  }
  const uint32_t trailer = Fix32(Load32(body_.data() + body_.size() - 4));
  if (trailer != len) {
    Fail(where, "trailing block length " + std::to_string(trailer) + " differs from the leading " +
                    std::to_string(len));
  }
  ifaces_.clear();  // interface ids are per section
  offset_ = offset + len;
}

void PcapReader::ParseInterface(const std::vector<uint8_t>& body, const std::string& where) {
  // body: the block after its type and length, including the trailing length.
  if (body.size() < 8 + 4) Fail(where, "too short for an Interface Description Block");
  Interface i;
  i.link_type = Fix16(Load16(body.data()));
  const size_t end = body.size() - 4;
  for (size_t pos = 8; pos + 4 <= end;) {
    const uint16_t code = Fix16(Load16(&body[pos])), olen = Fix16(Load16(&body[pos + 2]));
    if (code == kOptEnd) break;
    if (pos + 4 + olen > end) Fail(where, "option " + std::to_string(code) + " overruns the block");
    const uint8_t* v = &body[pos + 4];
    if (code == kOptTsresol && olen >= 1) {
      i.pow2 = (v[0] & 0x80) != 0;
      i.exp = v[0] & 0x7F;
      if ((!i.pow2 && i.exp > 18) || (i.pow2 && i.exp > 63)) {
        Fail(where, "if_tsresol 0x" + std::to_string(v[0]) + " is not supported");
      }
    } else if (code == kOptTsoffset && olen == 8) {
      uint64_t raw;
      std::memcpy(&raw, v, 8);
      if (swapped_) raw = __builtin_bswap64(raw);
      i.offset_s = static_cast<int64_t>(raw);
    }
    pos += 4 + Pad4(olen);
  }
  if (!seen_interface_) {
    format_.nanos = i.pow2 ? i.exp > 19 : i.exp > 6;  // finer than a microsecond
    seen_interface_ = true;
  }
  ifaces_.push_back(i);
}

uint64_t PcapReader::ToNanos(const Interface& i, uint64_t ts) const {
  unsigned __int128 ns;
  if (i.pow2) {
    ns = (static_cast<unsigned __int128>(ts) * 1000000000u) >> i.exp;
  } else if (i.exp <= 9) {
    uint64_t mul = 1;
    for (int k = i.exp; k < 9; ++k) mul *= 10;
    ns = static_cast<unsigned __int128>(ts) * mul;
  } else {
    uint64_t div = 1;
    for (int k = 9; k < i.exp; ++k) div *= 10;
    ns = ts / div;
  }
  const __int128 t = static_cast<__int128>(ns) + static_cast<__int128>(i.offset_s) * 1000000000;
  if (t < 0) return 0;
  return t > static_cast<__int128>(UINT64_MAX) ? UINT64_MAX : static_cast<uint64_t>(t);
}

bool PcapReader::NextPcapng(Packet* p) {
  for (;;) {
    uint8_t hdr[8];
    const uint64_t offset = offset_;
    const size_t got = Read(hdr, sizeof hdr);
    if (got == 0) return false;
    const uint32_t raw_type = got >= 4 ? Load32(hdr) : 0;
    if (got >= 4 && raw_type == kShb) {
      ReadSectionHeader(hdr, got, offset);
      continue;
    }
    ++block_;
    const uint32_t type = Fix32(raw_type);
    const bool is_packet = type == kEpb || type == kOpb || type == kSpb;
    auto where = [&] {
      std::string w = "block " + std::to_string(block_) + " at byte " + std::to_string(offset) + " (" +
                      (got >= 4 ? BlockName(type) : "?");
      if (got >= 4 && std::strcmp(BlockName(type), "unknown block type") == 0) w += " " + std::to_string(type);
      if (is_packet) w += ", packet " + std::to_string(index_ + 1);
      return w + ")";
    };
    if (got != sizeof hdr) Fail(where(), "truncated block header (" + std::to_string(got) + " of 8 bytes)");
    const uint32_t len = Fix32(Load32(hdr + 4));
    if (len < 12 || len % 4 != 0 || len > kMaxBlock) {
      Fail(where(), "block length " + std::to_string(len) + " is corrupt (a multiple of 4, 12 to " +
                        std::to_string(kMaxBlock) + ")");
    }
    auto truncated = [&](size_t have) {
      Fail(where(), "truncated block (" + std::to_string(have) + " of " + std::to_string(len) + " bytes)");
    };
    // Packet blocks: the fixed fields first, then the frame straight into the caller's buffer.
    const size_t fixed = type == kSpb ? 4 : (type == kEpb || type == kOpb) ? 20 : 0;
    if (fixed > len - 12) Fail(where(), "block length " + std::to_string(len) + " is too short for its type");
    uint8_t f[20];
    const size_t fixed_got = fixed > 0 ? Read(f, fixed) : 0;
    if (fixed_got != fixed) truncated(8 + fixed_got);
    size_t have = 8 + fixed;
    uint32_t caplen = 0, orig = 0, iface = 0;
    uint64_t ts = 0;
    if (is_packet) {
      if (type == kSpb) {
        orig = Fix32(Load32(f));
        caplen = std::min<uint32_t>(orig, len - 16);
      } else {
        iface = type == kEpb ? Fix32(Load32(f)) : Fix16(Load16(f));
        ts = (uint64_t{Fix32(Load32(f + 4))} << 32) | Fix32(Load32(f + 8));
        caplen = Fix32(Load32(f + 12));
        orig = Fix32(Load32(f + 16));
      }
      if (iface >= ifaces_.size()) {
        Fail(where(), "interface " + std::to_string(iface) + " is not described (the section has " +
                          std::to_string(ifaces_.size()) + " interfaces)");
      }
      if (caplen > len - 12 - fixed) {
        Fail(where(), "captured length " + std::to_string(caplen) + " overruns the block");
      }
      if (caplen > kMaxRecord) Fail(where(), "captured length " + std::to_string(caplen) + " is corrupt");
      if (caplen < orig) {
        Fail(where(), "captured " + std::to_string(caplen) + " of " + std::to_string(orig) +
                          " bytes (snaplen-truncated capture; the frame is incomplete)");
      }
      const Interface& i = ifaces_[iface];
      if (i.link_type != format_.link_type) {
        Fail(where(), "interface " + std::to_string(iface) + " has link type " + std::to_string(i.link_type) +
                          ", not " + LinkName(format_.link_type));
      }
      const size_t data = ReadInto(&p->bytes, caplen);
      have += data;
      if (data != caplen) truncated(have);
      // An SPB has no timestamp: it keeps the previous packet's time so arrival order stays monotonic.
      p->time_ns = type == kSpb ? last_time_ns_ : ToNanos(i, ts);
      last_time_ns_ = p->time_ns;
    }
    // The rest: options, padding and the trailing length (the whole body for other block types).
    const size_t rest = len - have;
    const size_t r = ReadInto(&body_, rest);
    if (r != rest) truncated(have + r);
    const uint32_t trailer = Fix32(Load32(body_.data() + body_.size() - 4));
    if (trailer != len) {
      Fail(where(), "trailing block length " + std::to_string(trailer) + " differs from the leading " +
                        std::to_string(len));
    }
    offset_ = offset + len;
    if (type == kIdb) ParseInterface(body_, where());
    if (is_packet) {
      ++index_;
      return true;
    }
  }
}

// ---------------------------------------------------------------------------------------------- writing

PcapWriter::PcapWriter(const std::string& path, CaptureFormat format) : path_(path), format_(format) {
  f_ = OpenForWriting(path);
  if (f_ == nullptr) throw PcapError(CannotCreate(path));
  buffer_ = std::make_unique<char[]>(kIoBuffer);
  std::setvbuf(f_, buffer_.get(), _IOFBF, kIoBuffer);
  if (format_.container == PcapFormat::kPcap) {
    const uint32_t hdr[6] = {format_.nanos ? kMagicNanos : kMagicMicros, 0x00040002u, 0, 0, 65535u * 4,
                             format_.link_type};
    Put(hdr, sizeof hdr);
  } else {
    const uint32_t shb[7] = {kShb, 28, kByteOrderMagic, 0x00000001u, 0xFFFFFFFFu, 0xFFFFFFFFu, 28};
    Put(shb, sizeof shb);
    // One Ethernet interface; if_tsresol says micro- or nanoseconds.
    const uint32_t idb[8] = {kIdb, 32, format_.link_type, kMaxRecord,
                             uint32_t{kOptTsresol} | (1u << 16), format_.nanos ? 9u : 6u, kOptEnd, 32};
    Put(idb, sizeof idb);
  }
}

PcapWriter::~PcapWriter() {
  if (f_ != nullptr) std::fclose(f_);
}

void PcapWriter::Put(const void* p, size_t n) {
#ifdef __GLIBC__
  if (fwrite_unlocked(p, 1, n, f_) != n) failed_ = true;
#else
  if (std::fwrite(p, 1, n, f_) != n) failed_ = true;
#endif
}

void PcapWriter::Write(uint64_t time_ns, const uint8_t* head, size_t head_len, const uint8_t* tail,
                       size_t tail_len) {
  if (f_ == nullptr) throw PcapError(path_ + ": write after close");
  const uint32_t n = static_cast<uint32_t>(head_len + tail_len);
  const uint64_t ticks = format_.nanos ? time_ns : time_ns / 1000;
  if (format_.container == PcapFormat::kPcap) {
    const uint64_t per_s = format_.nanos ? 1000000000ull : 1000000ull;
    const uint32_t rec[4] = {static_cast<uint32_t>(ticks / per_s), static_cast<uint32_t>(ticks % per_s), n, n};
    Put(rec, sizeof rec);
    Put(head, head_len);
    if (tail_len > 0) Put(tail, tail_len);
  } else {
    const uint32_t len = 32 + Pad4(n);
    const uint32_t epb[7] = {kEpb, len, 0, static_cast<uint32_t>(ticks >> 32), static_cast<uint32_t>(ticks), n, n};
    Put(epb, sizeof epb);
    Put(head, head_len);
    if (tail_len > 0) Put(tail, tail_len);
    const uint8_t pad[4] = {0, 0, 0, 0};
    Put(pad, Pad4(n) - n);
    Put(&len, 4);
  }
  if (failed_) throw PcapError(path_ + ": write failed");
}

void PcapWriter::Close() {
  if (f_ == nullptr) return;
  const bool bad = std::fclose(f_) != 0 || failed_;
  f_ = nullptr;
  if (bad) throw PcapError(path_ + ": write failed");
}

std::vector<Packet> ReadPcap(const std::string& path, CaptureFormat* format, uint32_t link_type) {
  PcapReader r(path, link_type);
  std::vector<Packet> v;
  while (auto p = r.Next()) v.push_back(std::move(*p));
  if (format != nullptr) *format = r.format();
  return v;
}

void WritePcap(const std::string& path, const std::vector<Packet>& packets, CaptureFormat format) {
  PcapWriter w(path, format);
  for (const auto& p : packets) w.Write(p);
  w.Close();
}

}  // namespace nettwin
