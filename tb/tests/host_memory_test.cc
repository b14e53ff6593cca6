#include "tb/common/host_memory.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tb/tests/error_message.h"

namespace nettwin::tb {
namespace {

DmaRequest ReadReq(uint64_t addr, uint16_t len) {
  DmaRequest r;
  r.valid = true;
  r.addr = addr;
  r.len = len;
  return r;
}

// Bytes go to data[off, off + size).
DmaRequest WriteReq(uint64_t addr, const std::vector<uint8_t>& bytes, uint8_t off = 0) {
  DmaRequest r;
  r.valid = true;
  r.write = true;
  r.addr = addr;
  r.len = static_cast<uint16_t>(bytes.size());
  r.off = off;
  for (size_t i = 0; i < bytes.size() && off + i < r.data.size(); ++i) r.data[off + i] = bytes[i];
  return r;
}

std::vector<uint8_t> Pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 7);
  return v;
}

std::vector<uint8_t> HostBytes(const HostMemory& m, uint64_t addr, size_t n) {
  std::vector<uint8_t> v(n);
  m.Read(addr, v.data(), n);
  return v;
}

struct Beat {
  uint64_t cycle;
  DmaResponse r;
};

// Steps cycles [0, cycles) in the harness's order (responses are driven before the block's request is seen)
// and returns the beats offered.
std::vector<Beat> Step(HostMemory& m, const std::map<uint64_t, DmaRequest>& requests, uint64_t cycles) {
  std::vector<Beat> beats;
  for (uint64_t c = 0; c < cycles; ++c) {
    const bool ready = m.Ready(c);
    DmaResponse r = m.Response(c);
    if (r.valid) beats.push_back({c, r});
    const auto it = requests.find(c);
    if (it != requests.end()) {
      EXPECT_TRUE(ready) << "cycle " << c;
      m.Accept(c, it->second);
    }
  }
  return beats;
}

std::vector<uint8_t> BeatBytes(const DmaResponse& r) { return std::vector<uint8_t>(r.data.begin(), r.data.end()); }

template <class Fn>
std::string InvalidArgumentMessage(Fn fn) {
  return ErrorMessage<std::invalid_argument>(fn, "(no std::invalid_argument thrown)");
}

TEST(HostMemory, FirstBeatComesReadLatencyCyclesAfterAccept) {
  for (double mhz : {250.0, 156.25, 300.0, 322.265625}) {
    HostMemory m(/*read_latency=*/7, /*write_latency=*/3, /*max_outstanding=*/4, mhz);
    const auto beats = Step(m, {{10, ReadReq(0x1000, 64)}}, 40);
    ASSERT_EQ(beats.size(), 1u) << mhz;
    EXPECT_EQ(beats[0].cycle, 17u) << mhz;
    EXPECT_TRUE(beats[0].r.last);
  }
}

TEST(HostMemory, MultiBeatReadStreamsOneBeatPerCycle) {
  HostMemory m(5, 1, 4);
  const auto bytes = Pattern(256, 3);
  m.Write(0x4000, bytes.data(), bytes.size());
  const auto beats = Step(m, {{2, ReadReq(0x4000, 200)}}, 30);  // ceil(200 / 64) = 4 beats
  ASSERT_EQ(beats.size(), 4u);
  for (size_t j = 0; j < 4; ++j) {
    EXPECT_EQ(beats[j].cycle, 7 + j);
    EXPECT_EQ(beats[j].r.last, j == 3);
    EXPECT_EQ(BeatBytes(beats[j].r), std::vector<uint8_t>(bytes.begin() + 64 * j, bytes.begin() + 64 * j + 64));
  }
}

TEST(HostMemory, BackToBackReadsRespondInOrder) {
  HostMemory m(4, 1, 8);
  for (uint8_t k = 0; k < 3; ++k) {
    const auto bytes = std::vector<uint8_t>(256, static_cast<uint8_t>(0xA0 + k));
    m.Write(0x10000 * (k + 1), bytes.data(), bytes.size());
  }
  // Read 0: 4 beats in 4..7. Read 1 would be due at 5 but waits for 8. Read 2 (due 6) waits for 9.
  const auto beats = Step(m, {{0, ReadReq(0x10000, 200)}, {1, ReadReq(0x20000, 64)}, {2, ReadReq(0x30000, 1)}}, 30);
  ASSERT_EQ(beats.size(), 6u);
  const std::vector<uint64_t> cycles = {4, 5, 6, 7, 8, 9};
  const std::vector<uint8_t> fill = {0xA0, 0xA0, 0xA0, 0xA0, 0xA1, 0xA2};
  const std::vector<bool> last = {false, false, false, true, true, true};
  for (size_t i = 0; i < beats.size(); ++i) {
    EXPECT_EQ(beats[i].cycle, cycles[i]) << i;
    EXPECT_EQ(beats[i].r.data[0], fill[i]) << i;
    EXPECT_EQ(beats[i].r.last, last[i]) << i;
  }
}

TEST(HostMemory, LaterReadWithShortQueueStillWaitsItsLatency) {
  HostMemory m(10, 1, 8);
  // Read 0 ends at 10; read 1 accepted at 5 is due at 15, well after read 0, so it is not pulled forward.
  const auto beats = Step(m, {{0, ReadReq(0, 1)}, {5, ReadReq(64, 1)}}, 30);
  ASSERT_EQ(beats.size(), 2u);
  EXPECT_EQ(beats[0].cycle, 10u);
  EXPECT_EQ(beats[1].cycle, 15u);
}

TEST(HostMemory, OutstandingLimitHoldsReadyLow) {
  HostMemory m(3, 5, 2);
  EXPECT_TRUE(m.Ready(0));
  m.Response(0);
  m.Accept(0, ReadReq(0, 64));  // beat at 3: outstanding in 0..3
  // A request counts from the cycle after its Accept, so Ready(0) doesn't change under the caller.
  EXPECT_TRUE(m.Ready(0));
  EXPECT_EQ(m.Outstanding(0), 0u);
  EXPECT_EQ(m.Outstanding(1), 1u);
  EXPECT_TRUE(m.Ready(1));
  m.Response(1);
  m.Accept(1, ReadReq(64, 128));  // beats at 4, 5: outstanding in 1..5
  EXPECT_FALSE(m.Ready(2));
  m.Response(2);
  EXPECT_THROW(m.Accept(2, ReadReq(0, 1)), std::logic_error);
  EXPECT_FALSE(m.Ready(3));
  EXPECT_TRUE(m.Response(3).last);
  EXPECT_TRUE(m.Ready(4));  // the first read's last beat went out in 3
  m.Response(4);
  m.Accept(4, WriteReq(0, {1, 2, 3}));  // outstanding in 4..8
  EXPECT_FALSE(m.Ready(5));
  EXPECT_TRUE(m.Response(5).last);
  EXPECT_EQ(m.Outstanding(6), 1u);
  EXPECT_TRUE(m.Ready(6));
  m.Response(6);
  m.Accept(6, WriteReq(8, {4}));  // outstanding in 6..10
  for (uint64_t c = 7; c < 9; ++c) {
    EXPECT_FALSE(m.Ready(c)) << c;
    m.Response(c);
  }
  EXPECT_TRUE(m.Ready(9));  // the first write retired at 4 + 5
  EXPECT_EQ(m.Outstanding(11), 0u);
}

TEST(HostMemory, SingleOutstandingWriteWithLatencyOneIssuesEveryCycle) {
  HostMemory m(1, 1, 1);
  std::map<uint64_t, DmaRequest> reqs;
  for (uint64_t c = 0; c < 10; ++c) reqs[c] = WriteReq(c * 64, {static_cast<uint8_t>(c)});
  Step(m, reqs, 12);  // Run expects Ready in every one of those cycles
  EXPECT_EQ(m.writes(), 10u);
}

// ---- The PCIe model (the default) ----

HostMemoryTiming Pcie(uint32_t read_latency, uint32_t write_latency, uint32_t tags, double link_bytes_per_cycle,
                      uint32_t data_credits = 1456, uint32_t header_credits = 784) {
  HostMemoryTiming t;
  t.read_latency = read_latency;
  t.write_latency = write_latency;
  t.max_outstanding = tags;
  t.link_bytes_per_cycle = link_bytes_per_cycle;
  t.posted_data_credits = data_credits;
  t.posted_header_credits = header_credits;
  return t;
}

// Cycles in [0, cycles) in which a 64-byte write was accepted when the block offers one in every cycle.
std::vector<uint64_t> GreedyWrites(HostMemory& m, uint64_t cycles) {
  std::vector<uint64_t> accepted;
  for (uint64_t c = 0; c < cycles; ++c) {
    const bool ready = m.Ready(c);
    m.Response(c);
    if (ready) {
      m.Accept(c, WriteReq(c * 64, std::vector<uint8_t>(64, static_cast<uint8_t>(c))));
      accepted.push_back(c);
    }
  }
  return accepted;
}

TEST(HostMemoryPcie, DefaultsAreThePcieModel) {
  const HostMemoryTiming t;
  EXPECT_EQ(t.model, HostMemoryTiming::Model::kPcie);
  HostMemory m(t);  // 250 MHz
  EXPECT_DOUBLE_EQ(m.timing().link_bytes_per_cycle, 63.0);
  EXPECT_EQ(m.max_outstanding(), 64u);
  EXPECT_DOUBLE_EQ(HostMemory(t, 900).timing().link_bytes_per_cycle, 17.5);
  EXPECT_EQ(ParseHostModel("slots"), HostMemoryTiming::Model::kSlots);
  EXPECT_EQ(std::string(HostModelName(ParseHostModel("pcie"))), "pcie");
  EXPECT_THROW(ParseHostModel("pci"), std::invalid_argument);
}

TEST(HostMemoryPcie, PostedWritesNeedNoSlotAndRunAtLinkRate) {
  // A write "completing" after 100 cycles holds only credits: 64-byte writes go every cycle on a 64 B/cycle
  // link, where the slots model with 16 slots takes 16 per 100 cycles.
  HostMemory fast(Pcie(200, 100, 16, 64));
  EXPECT_EQ(GreedyWrites(fast, 1000).size(), 1000u);
  HostMemory slots(200, 100, 16);
  EXPECT_EQ(GreedyWrites(slots, 1000).size(), 160u);
  // Half the bandwidth: every other cycle.
  HostMemory half(Pcie(200, 0, 16, 32));
  const auto w = GreedyWrites(half, 100);
  EXPECT_NEAR(static_cast<double>(w.size()), 50, 1);
  // The default 63 B/cycle: 63 of every 64 cycles.
  HostMemory u280(Pcie(200, 100, 64, 63));
  EXPECT_NEAR(static_cast<double>(GreedyWrites(u280, 6400).size()), 6300, 3);
}

TEST(HostMemoryPcie, PostedCreditsBoundWritesInFlight) {
  // 8 data credits = two 64-byte writes; each holds its credits until 20 cycles after crossing the link.
  HostMemory m(Pcie(5, 20, 4, 64, /*data_credits=*/8));
  const auto w = GreedyWrites(m, 100);
  // Writes at 0 and 1 (crossed by 1 and 2, credits usable again in 21 and 22), then 21 and 22, ...
  ASSERT_GE(w.size(), 4u);
  EXPECT_EQ(w[0], 0u);
  EXPECT_EQ(w[1], 1u);
  EXPECT_EQ(w[2], 21u);
  EXPECT_EQ(w[3], 22u);
  // Header credits bound them the same way: one header = one write in flight.
  HostMemory h(Pcie(5, 20, 4, 64, 1456, /*header_credits=*/1));
  const auto wh = GreedyWrites(h, 50);
  ASSERT_GE(wh.size(), 2u);
  EXPECT_EQ(wh[1], 21u);
}

TEST(HostMemoryPcie, ReadTagsBoundReadsAndHoldTheOneRequestChannel) {
  HostMemory m(Pcie(10, 100, /*tags=*/2, 64));
  std::map<uint64_t, DmaRequest> reqs = {{0, ReadReq(0, 64)}, {1, ReadReq(64, 64)}};
  for (uint64_t c = 0; c < 2; ++c) {
    EXPECT_TRUE(m.Ready(c));
    m.Response(c);
    m.Accept(c, reqs[c]);
  }
  // Both tags held until the reads' beats (10 and 11): no request of any kind (one request channel).
  for (uint64_t c = 2; c < 11; ++c) {
    EXPECT_FALSE(m.Ready(c)) << c;
    m.Response(c);
  }
  EXPECT_TRUE(m.Response(11).valid);
  EXPECT_TRUE(m.Ready(11));  // the first read's beat went out in 10
  // Reads keep their latency and order; writes land at once (a later read sees them).
  m.Accept(11, WriteReq(0, {0x55}));
  EXPECT_EQ(HostBytes(m, 0, 1)[0], 0x55);
  EXPECT_EQ(m.Outstanding(12), 1u);  // read 1's tag was freed by its beat in 11; the write holds credits
}

TEST(HostMemoryPcie, RejectsTimingThatCannotWork) {
  EXPECT_THROW(HostMemory(Pcie(10, 1, 4, 64, /*data_credits=*/3)), std::invalid_argument);
  EXPECT_THROW(HostMemory(Pcie(10, 1, 4, 64, 1456, /*header_credits=*/0)), std::invalid_argument);
  EXPECT_THROW(HostMemory(Pcie(10, 1, 4, -1)), std::invalid_argument);
  EXPECT_THROW(HostMemory(Pcie(0, 1, 4, 64)), std::invalid_argument);
  EXPECT_THROW(HostMemory(Pcie(10, 1, 0, 64)), std::invalid_argument);
}

TEST(HostMemory, ReadsSeeEarlierWritesEvenBeforeTheyComplete) {
  HostMemory m(2, /*write_latency=*/50, 4);
  const auto bytes = Pattern(64, 9);
  const auto old = Pattern(64, 100);
  m.Write(0x2000, old.data(), old.size());
  // The read at 0 snapshots the old bytes; the write at 1 lands at once; the read at 2 sees it, although the
  // write is still outstanding.
  const auto beats = Step(m, {{0, ReadReq(0x2000, 64)}, {1, WriteReq(0x2000, bytes)}, {2, ReadReq(0x2000, 64)}}, 10);
  ASSERT_EQ(beats.size(), 2u);
  EXPECT_EQ(BeatBytes(beats[0].r), old);
  EXPECT_EQ(BeatBytes(beats[1].r), bytes);
  EXPECT_EQ(HostBytes(m, 0x2000, 64), bytes);
  EXPECT_EQ(m.Outstanding(10), 1u);  // the write, till 51
}

TEST(HostMemory, WriteTakesBytesFromOffsetOnly) {
  HostMemory m(1, 1, 4);
  const auto before = Pattern(64, 1);
  m.Write(0x100, before.data(), before.size());
  DmaRequest w = WriteReq(0x110, {0xEE, 0xEF, 0xF0}, /*off=*/20);
  for (size_t i = 0; i < w.data.size(); ++i) {
    if (i < 20 || i >= 23) w.data[i] = 0x55;  // bytes outside [off, off + len) must be ignored
  }
  m.Response(0);
  m.Accept(0, w);
  auto expect = before;
  expect[0x10] = 0xEE;
  expect[0x11] = 0xEF;
  expect[0x12] = 0xF0;
  EXPECT_EQ(HostBytes(m, 0x100, 64), expect);
}

TEST(HostMemory, AccessesAcrossPageBoundaries) {
  HostMemory m(3, 2, 4);
  const auto big = Pattern(10000, 17);
  m.Write(0x7F00, big.data(), big.size());  // spans pages 7..9
  EXPECT_EQ(HostBytes(m, 0x7F00, big.size()), big);
  // Byte by byte against the block access, so both can't share one mistake in page arithmetic.
  for (size_t i = 0; i < big.size(); i += 61) EXPECT_EQ(HostBytes(m, 0x7F00 + i, 1)[0], big[i]) << i;
  std::vector<uint8_t> bytewise(9000);
  for (size_t i = 0; i < bytewise.size(); ++i) {
    bytewise[i] = static_cast<uint8_t>(i * 13 + i / 256);
    m.Write(0x30F00 + i, &bytewise[i], 1);
  }
  EXPECT_EQ(HostBytes(m, 0x30F00, bytewise.size()), bytewise);

  const auto w = Pattern(64, 200);
  const uint64_t kCross = 0x20000 - 30;  // a DMA write straddling a page boundary
  const auto beats = Step(m, {{0, WriteReq(kCross, w)}, {1, ReadReq(0x7F80, 4096)}}, 80);
  EXPECT_EQ(HostBytes(m, kCross, 64), w);
  ASSERT_EQ(beats.size(), 64u);
  for (size_t j = 0; j < beats.size(); ++j) {
    EXPECT_EQ(beats[j].cycle, 4 + j);
    EXPECT_EQ(BeatBytes(beats[j].r), std::vector<uint8_t>(big.begin() + 0x80 + 64 * j, big.begin() + 0xC0 + 64 * j))
        << j;
  }
  EXPECT_TRUE(beats.back().r.last);
}

TEST(HostMemory, UnwrittenBytesReadAsZero) {
  HostMemory m(2, 1, 4);
  EXPECT_EQ(HostBytes(m, 0, 100), std::vector<uint8_t>(100, 0));
  EXPECT_EQ(HostBytes(m, 0xFFFFFFFFFFFFF000, 4096), std::vector<uint8_t>(4096, 0));
  const uint8_t one = 0x42;
  m.Write(0x5005, &one, 1);
  auto expect = std::vector<uint8_t>(128, 0);
  expect[5] = 0x42;
  EXPECT_EQ(HostBytes(m, 0x5000, 128), expect);
  // A 10-byte read still gets the whole beat from host memory.
  const auto beats = Step(m, {{0, ReadReq(0x5000, 10)}, {1, ReadReq(0xFFFFFFFFFFFFFFC0, 64)}}, 10);
  ASSERT_EQ(beats.size(), 2u);
  EXPECT_EQ(BeatBytes(beats[0].r), std::vector<uint8_t>(expect.begin(), expect.begin() + 64));
  EXPECT_EQ(BeatBytes(beats[1].r), std::vector<uint8_t>(64, 0));
}

TEST(HostMemory, InvalidRequestsThrowWithAClearMessage) {
  HostMemory m(2, 1, 4);
  auto accept = [&](const DmaRequest& r) { return InvalidArgumentMessage([&] { m.Accept(5, r); }); };
  EXPECT_NE(accept(ReadReq(0, 0)).find("read len 0 is outside 1..4096"), std::string::npos) << accept(ReadReq(0, 0));
  EXPECT_NE(accept(ReadReq(0, 4097)).find("read len 4097"), std::string::npos);
  EXPECT_NE(accept(WriteReq(0, {})).find("write len 0 is outside 1..64"), std::string::npos);
  EXPECT_NE(accept(WriteReq(0, Pattern(65, 0))).find("write len 65"), std::string::npos);
  EXPECT_NE(accept(WriteReq(0, Pattern(60, 0), 10)).find("off 10 + len 60"), std::string::npos);
  EXPECT_NE(accept(WriteReq(0xFFFFFFFFFFFFFFF0, Pattern(17, 0))).find("wraps"), std::string::npos);
  EXPECT_NE(accept(ReadReq(0xFFFFFFFFFFFFFFC1, 1)).find("wrap"), std::string::npos);
  EXPECT_NE(accept(DmaRequest{}).find("not valid"), std::string::npos);
  EXPECT_NE(accept(ReadReq(0xABC, 0)).find("0xabc"), std::string::npos);
  // Nothing was accepted, counted or logged.
  EXPECT_EQ(m.reads() + m.writes(), 0u);
  EXPECT_TRUE(m.log().empty());
  EXPECT_EQ(m.Outstanding(6), 0u);

  EXPECT_THROW(HostMemory(0, 1, 4), std::invalid_argument);
  EXPECT_THROW(HostMemory(1, 1, 0), std::invalid_argument);
  EXPECT_THROW(HostMemory(1, 1, 1, 0), std::invalid_argument);
  EXPECT_THROW(HostMemory(1, 1, 1, -5), std::invalid_argument);
  EXPECT_THROW(HostMemory(1, 1, 1, 1e9), std::invalid_argument);
  uint8_t b = 0;
  EXPECT_THROW(m.Write(0xFFFFFFFFFFFFFFFF, &b, 2), std::invalid_argument);
}

TEST(HostMemory, ProtocolMisuseIsALogicError) {
  HostMemory m(2, 1, 4);
  m.Response(0);
  m.Accept(0, ReadReq(0, 64));
  EXPECT_THROW(m.Accept(0, ReadReq(0, 64)), std::logic_error);  // one request per cycle
  EXPECT_THROW(m.Response(0), std::logic_error);                // one response per cycle
  // The beat was due in 2; skipping that cycle loses it.
  EXPECT_THROW(m.Response(3), std::logic_error);
  EXPECT_THROW(m.Accept(1, ReadReq(0, 64)), std::logic_error);  // cycle 3's response was already driven
}

TEST(HostMemory, CountsAndLogsAcceptedRequests) {
  HostMemory m(2, 1, 4);
  const uint8_t host = 1;
  m.Write(0, &host, 1);  // host-side access is neither counted nor logged
  const DmaRequest w = WriteReq(0x40, Pattern(48, 5), 16);
  const DmaRequest r = ReadReq(0x40, 100);
  Step(m, {{3, w}, {4, r}, {6, ReadReq(0, 1)}}, 12);
  EXPECT_EQ(m.writes(), 1u);
  EXPECT_EQ(m.write_bytes(), 48u);
  EXPECT_EQ(m.reads(), 2u);
  EXPECT_EQ(m.read_bytes(), 101u);
  ASSERT_EQ(m.log().size(), 3u);
  EXPECT_EQ(m.log()[0].first, 3u);
  EXPECT_EQ(m.log()[0].second, w);
  EXPECT_EQ(m.log()[1].first, 4u);
  EXPECT_EQ(m.log()[1].second, r);
  EXPECT_EQ(m.log()[2].first, 6u);
}

TEST(HostMemory, TwoInstancesAreIndependent) {
  HostMemory a(2, 1, 4);
  HostMemory b(9, 1, 4, 100);
  const uint8_t va = 0xAA, vb = 0xBB;
  a.Write(0x10, &va, 1);
  b.Write(0x10, &vb, 1);
  EXPECT_EQ(HostBytes(a, 0x10, 1)[0], 0xAA);
  EXPECT_EQ(HostBytes(b, 0x10, 1)[0], 0xBB);
  const auto ba = Step(a, {{0, ReadReq(0x10, 1)}}, 20);
  const auto bb = Step(b, {{0, ReadReq(0x10, 1)}}, 20);
  ASSERT_EQ(ba.size(), 1u);
  ASSERT_EQ(bb.size(), 1u);
  EXPECT_EQ(ba[0].cycle, 2u);
  EXPECT_EQ(bb[0].cycle, 9u);
  EXPECT_EQ(ba[0].r.data[0], 0xAA);
  EXPECT_EQ(bb[0].r.data[0], 0xBB);
}

TEST(HostMemory, ManyInstancesComeAndGo) {
  // SystemC objects are global: creating and destroying modules over and over must neither clash on names
  // nor break the sockets of those still alive.
  HostMemory keep(3, 1, 2);
  for (int i = 0; i < 200; ++i) {
    auto m = std::make_unique<HostMemory>(1 + i % 5, 1, 2);
    const auto beats = Step(*m, {{0, ReadReq(0, 64)}}, 10);
    ASSERT_EQ(beats.size(), 1u);
    EXPECT_EQ(beats[0].cycle, static_cast<uint64_t>(1 + i % 5));
  }
  HostMemory moved(std::move(keep));
  const auto beats = Step(moved, {{0, ReadReq(0, 64)}}, 10);
  ASSERT_EQ(beats.size(), 1u);
  EXPECT_EQ(beats[0].cycle, 3u);
  HostMemory other(4, 1, 2);
  other = std::move(moved);
  EXPECT_EQ(other.read_latency(), 3u);
  EXPECT_EQ(other.reads(), 1u);
}

}  // namespace
}  // namespace nettwin::tb

// libsystemc.so exports a main() of its own; a main() in this file wins over it whatever the link order
// (gtest_main, being a static library, loses to it when placed after -lsystemc).
int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
