// The reassembly engine's golden model (docs/re.md): order, duplicates, overlaps, ends, contexts, timeouts.
#include "model/re/re_model.h"

#include <gtest/gtest.h>

namespace nettwin::re {
namespace {

// An IPv4/UDP segment as the LB delivers it: sport = tick[15:0], RE header, data.
Packet Seg(uint16_t tick16, uint16_t data_id, uint32_t offset, const std::vector<uint8_t>& data, bool last,
           double t_us = 0) {
  std::vector<uint8_t> f(14 + 20 + 8 + 8, 0);
  f[12] = 0x08;
  f[14] = 0x45;
  f[23] = 17;
  const size_t l4 = 34, udp_len = 16 + data.size();
  f[l4] = tick16 >> 8, f[l4 + 1] = tick16 & 0xFF;
  f[l4 + 4] = udp_len >> 8, f[l4 + 5] = udp_len & 0xFF;
  f[l4 + 8] = 0x10;  // version 1: not looked at
  f[l4 + 9] = (offset == 0 ? 2 : 0) | (last ? 1 : 0);
  f[l4 + 10] = data_id >> 8, f[l4 + 11] = data_id & 0xFF;
  for (int i = 0; i < 4; ++i) f[l4 + 12 + i] = static_cast<uint8_t>(offset >> (24 - 8 * i));
  f.insert(f.end(), data.begin(), data.end());
  return Packet{f, static_cast<uint64_t>(t_us * 1000)};
}

std::vector<uint8_t> Bytes(int n, int seed = 1) {
  std::vector<uint8_t> v(n);
  for (int i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i * 7 + seed);
  return v;
}

std::vector<uint8_t> Slice(const std::vector<uint8_t>& v, int a, int b) { return {v.begin() + a, v.begin() + b}; }

TEST(ReModel, AnyOrderDuplicatesAfterCompletionAreNotASecondEvent) {
  ReModel m(ReConfig{});
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

TEST(ReModel, OverlapInconsistentEndTooBigAndEmpty) {
  ReConfig cfg;
  cfg.buffer_bytes = 1000;
  ReModel m(cfg);
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

TEST(ReModel, ZeroLengthEventNoContextAndTimeout) {
  ReConfig cfg;
  cfg.contexts = 2;
  cfg.timeout_us = 100;
  ReModel m(cfg);
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

TEST(ReModel, MalformedFramesAreCountedDrops) {
  ReModel m(ReConfig{});
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

TEST(ReModel, ConfigErrorsNameFileLineToken) {
  auto err = [](const std::string& text) {
    try {
      ParseReConfig(text, "re.txt");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(ParseReConfig("contexts 4 # few\nbuffer_bytes 9000\ntimeout_us 2.5\n", "re.txt").contexts, 4);
  EXPECT_EQ(err("contexts 0\n"), "re.txt:1: token '0': contexts must be an integer in 1..4096");
  EXPECT_EQ(err("\nbuffer 5\n"), "re.txt:2: token 'buffer': unknown setting (contexts, buffer_bytes, timeout_us)");
  EXPECT_EQ(err("timeout_us x\n"), "re.txt:1: token 'x': not a number");
}

}  // namespace
}  // namespace nettwin::re
