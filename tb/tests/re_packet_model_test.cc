// The reassembly engine's golden model (docs/re.md): order, duplicates, overlaps, ends, contexts, timeouts.
#include "model/re/re_packet_model.h"

#include <gtest/gtest.h>

#include "tb/re/re_frames.h"
#include "tb/tests/error_message.h"

namespace nettwin::re {
namespace {

TEST(RePacketModel, AnyOrderDuplicatesAfterCompletionAreNotASecondEvent) {
  RePacketModel m(ReConfig{});
  const auto d = Bytes(300);
  m.Push(Seg(5, 9, 200, Slice(d, 200, 300), true));
  m.Push(Seg(5, 9, 0, Slice(d, 0, 100), false));
  m.Push(Seg(5, 9, 0, Slice(d, 0, 100), false));  // duplicate
  m.Push(Seg(5, 9, 100, Slice(d, 100, 200), false));
  m.Push(Seg(5, 9, 100, Slice(d, 100, 200), false));  // after completion
  m.Finish();
  ASSERT_EQ(m.events().size(), 1u);
  EXPECT_EQ(m.events()[0].data, d);
  EXPECT_EQ(m.events()[0].segments, 3u);
  EXPECT_EQ(m.counters().drops[static_cast<int>(Drop::kDuplicate)], 2u);
  EXPECT_TRUE(m.timeouts().empty());
}

TEST(RePacketModel, OverlapInconsistentEndTooBigAndEmpty) {
  ReConfig cfg;
  cfg.buffer_bytes = 1000;
  RePacketModel m(cfg);
  const auto d = Bytes(400);
  m.Push(Seg(1, 1, 0, Slice(d, 0, 200), false));
  m.Push(Seg(1, 1, 100, Slice(d, 100, 300), false));  // overlaps [100, 200)
  m.Push(Seg(1, 1, 100, Slice(d, 150, 150), true));   // an end (100) below received data
  m.Push(Seg(1, 1, 900, Bytes(101), false));          // past the buffer
  m.Push(Seg(1, 1, 200, {}, false));                  // empty, not last
  const auto& c = m.counters().drops;
  EXPECT_EQ(c[static_cast<int>(Drop::kOverlap)], 1u);
  EXPECT_EQ(c[static_cast<int>(Drop::kInconsistent)], 1u);
  EXPECT_EQ(c[static_cast<int>(Drop::kTooBig)], 1u);
  EXPECT_EQ(c[static_cast<int>(Drop::kEmpty)], 1u);
  m.Push(Seg(1, 1, 200, Slice(d, 200, 400), true));
  ASSERT_EQ(m.events().size(), 1u);
  EXPECT_EQ(m.events()[0].data, d);
  EXPECT_EQ(m.counters().segments_in, m.counters().segments_used + 4);
}

TEST(RePacketModel, ZeroLengthEventNoContextAndTimeout) {
  ReConfig cfg;
  cfg.contexts = 2;
  cfg.timeout_us = 100;
  RePacketModel m(cfg);
  m.Push(Seg(1, 0, 0, {}, true, 0));  // a zero-length event completes at once (its context is held)
  ASSERT_EQ(m.events().size(), 1u);
  EXPECT_TRUE(m.events()[0].data.empty());
  m.Push(Seg(2, 0, 0, Bytes(10), false, 1));
  m.Push(Seg(3, 0, 0, Bytes(10), false, 2));  // both contexts busy
  EXPECT_EQ(m.counters().drops[static_cast<int>(Drop::kNoContext)], 1u);
  m.Push(Seg(3, 0, 0, Bytes(10), false, 150));  // event 1's hold and event 2 expired: 2 is incomplete
  ASSERT_EQ(m.timeouts().size(), 1u);
  EXPECT_EQ(m.timeouts()[0].tick16, 2);
  EXPECT_EQ(m.timeouts()[0].received_bytes, 10u);
  EXPECT_FALSE(m.timeouts()[0].end_known);
  m.Finish();
  ASSERT_EQ(m.timeouts().size(), 2u);
  EXPECT_TRUE(m.timeouts()[1].at_end_of_input);
}

TEST(RePacketModel, MalformedFramesAreCountedDrops) {
  RePacketModel m(ReConfig{});
  m.Push(Packet{std::vector<uint8_t>(10, 0), 0});
  auto s = Seg(1, 1, 0, Bytes(10), true);
  s.bytes.resize(40);
  m.Push(s);
  auto t = Seg(1, 1, 0, Bytes(10), true);
  t.bytes[23] = 6;
  m.Push(t);
  auto u = Seg(1, 1, 0, Bytes(10), true);
  u.bytes[12] = 0x12;
  m.Push(u);
  const auto& c = m.counters().drops;
  EXPECT_EQ(c[static_cast<int>(Drop::kRunt)], 1u);
  EXPECT_EQ(c[static_cast<int>(Drop::kTruncated)], 1u);
  EXPECT_EQ(c[static_cast<int>(Drop::kNotUdp)], 1u);
  EXPECT_EQ(c[static_cast<int>(Drop::kNotIp)], 1u);
}

TEST(RePacketModel, RangeTableFullIsACountedDrop) {
  RePacketModel m(ReConfig{});
  const auto d = Bytes(200);
  // Every other byte: each segment is a range of its own until the table (ReRanges) is full.
  for (uint32_t k = 0; k <= params::kReRanges; ++k) m.Push(Seg(1, 1, 2 * k, Slice(d, 2 * k, 2 * k + 1), false));
  EXPECT_EQ(m.counters().drops[static_cast<int>(Drop::kNoRange)], 1u);
  m.Push(Seg(1, 1, 1, Slice(d, 1, 2), false));  // joins two ranges: frees an entry
  m.Push(Seg(1, 1, 2 * params::kReRanges, Slice(d, 2 * params::kReRanges, 2 * params::kReRanges + 1), false));
  EXPECT_EQ(m.counters().drops[static_cast<int>(Drop::kNoRange)], 1u);
  EXPECT_EQ(m.counters().segments_used, params::kReRanges + 2);
}

TEST(RePacketModel, ConfigErrorsNameFileLineToken) {
  auto err = [](const std::string& text) {
    return ErrorMessage<std::runtime_error>([&] { ParseReConfig(text, "re.txt"); });
  };
  EXPECT_EQ(ParseReConfig("contexts 4 # few\nbuffer_bytes 9000\ntimeout_us 2.5\n", "re.txt").contexts, 4);
  EXPECT_EQ(err("contexts 0\n"), "re.txt:1: token '0': contexts must be an integer in 1..4096");
  EXPECT_EQ(err("\nbuffers 5\n"),
            "re.txt:2: token 'buffers': unknown setting (contexts, buffer_bytes, timeout_us, header, version, lb_header, "
            "buffer, host_base)");
  // `buffer host` (events in host memory by DMA) and its slot base
  EXPECT_EQ(err("\nbuffer 5\n"),
            "re.txt:2: token '5': buffer must be onchip (the engine's buffers) or host (DMA to host memory)");
  EXPECT_EQ(err("host_base 100\n"), "re.txt:1: token '100': host_base must be a multiple of 4096 below 2^48");
  EXPECT_EQ(err("host_base -4096\n"), "re.txt:1: token '-4096': host_base must be a multiple of 4096 below 2^48");
  const ReConfig h = ParseReConfig("buffer host\nhost_base 0x2000\nbuffer_bytes 16777216\n", "re.txt");
  EXPECT_EQ(h.buffer, BufferMode::kHost);
  EXPECT_EQ(h.host_base, 0x2000u);
  EXPECT_EQ(h.Parse().max_frame_data, params::kReSegBeats * 64);
  EXPECT_EQ(ReConfig{}.Parse().max_frame_data, 0u);
  const ReConfig e = ParseReConfig("header e2sar\nlb_header drop\n", "re.txt");
  EXPECT_EQ(e.format, HeaderFormat::kE2sar);
  EXPECT_EQ(e.Version(), 1);  // E2SAR's rehdrVersion
  EXPECT_EQ(e.lb_header, LbHeaderMode::kDrop);
  EXPECT_EQ(ReConfig{}.Version(), 0);  // the seed's generator and udplb's test write version 0
  EXPECT_EQ(ParseReConfig("version 3\n", "re.txt").Version(), 3);
  EXPECT_EQ(err("header e2sar2\n"),
            "re.txt:1: token 'e2sar2': header must be evio6 (the seed's 8-byte header) or e2sar (E2SAR's 20-byte REHdr)");
  EXPECT_EQ(err("version 16\n"), "re.txt:1: token '16': version must be an integer in 0..15");
  EXPECT_EQ(err("lb_header keep\n"), "re.txt:1: token 'keep': lb_header must be skip or drop");
  EXPECT_EQ(err("timeout_us x\n"), "re.txt:1: token 'x': not a number");
}

// E2SAR's header: the key is (event number, data_id), never the UDP source port; the event's length comes
// with every segment; the 64-bit event number is in the output header.
TEST(RePacketModel, E2sarKeyIsEventNumberAndDataIdNotTheSourcePort) {
  ReConfig cfg;
  cfg.format = HeaderFormat::kE2sar;
  RePacketModel m(cfg);
  const auto d = Bytes(500, 3);
  SegOpts a, b;
  a.sport = 1000, b.sport = 2000;
  m.Push(E2sarSeg(0xFEDCBA9876543210ull, 4, 250, 500, Slice(d, 250, 500), 0, a));
  m.Push(E2sarSeg(0x0000000000003210ull, 4, 0, 500, Slice(d, 0, 250), 0, b));  // same low 16 bits: another event
  m.Push(E2sarSeg(0xFEDCBA9876543210ull, 5, 0, 500, Slice(d, 0, 250), 0, b));  // another data_id
  EXPECT_TRUE(m.events().empty());
  m.Push(E2sarSeg(0xFEDCBA9876543210ull, 4, 0, 500, Slice(d, 0, 250), 0, b));  // another port, same event
  ASSERT_EQ(m.events().size(), 1u);
  EXPECT_EQ(m.events()[0].event_num, 0xFEDCBA9876543210ull);
  EXPECT_EQ(m.events()[0].data, d);
  const Packet f = EventFrame(m.events()[0], HeaderFormat::kE2sar);
  ASSERT_EQ(f.bytes.size(), params::kReOutHdrBytesE2sar + 500);
  EXPECT_EQ(f.bytes[14], 0xFE);
  EXPECT_EQ(f.bytes[21], 0x10);
  EXPECT_EQ(f.bytes[23], 4);  // data_id
  m.Finish();
  EXPECT_EQ(m.timeouts().size(), 2u);
}

}  // namespace
}  // namespace nettwin::re
