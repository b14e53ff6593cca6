// The reassembly engine's RTL and cycle model in lockstep (tb/common harness), each run also compared with
// the golden packet-at-a-time model: events byte for byte, incomplete reports, counters, drops by reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <random>

#include "model/re/re_packet_model.h"
#include "tb/re/re_frames.h"
#include "tb/re/re_run.h"

namespace nettwin::re {
namespace {

struct Case {
  ReStatic cfg;
  double gaps = 0, backpressure = 0;
  uint64_t seed = 1;
  uint32_t host_write_latency = 100, host_max_outstanding = 128;  // `buffer host`
};

// Runs lockstep, requires no divergence and conservation, and the golden model's results.
ReRunReport CheckOne(const std::vector<Packet>& segs, const Case& c) {
  ReRunConfig rc;
  rc.cfg = c.cfg;
  rc.opt.gaps = c.gaps;
  rc.opt.backpressure = c.backpressure;
  rc.opt.seed = c.seed;
  rc.host_write_latency = c.host_write_latency;
  rc.host_max_outstanding = c.host_max_outstanding;
  ReRunReport rep = RunRe(segs, rc);
  EXPECT_FALSE(rep.run.mismatch) << rep.mismatch_text;
  EXPECT_FALSE(rep.run.hang);
  EXPECT_TRUE(rep.conservation_ok);
  ReConfig gc;
  gc.contexts = static_cast<int>(c.cfg.contexts);
  gc.buffer_bytes = c.cfg.buffer_bytes;
  gc.timeout_us = static_cast<double>(c.cfg.timeout_ns) / 1000.0;
  gc.format = c.cfg.format;
  gc.version = c.cfg.version;
  gc.lb_header = c.cfg.lb_header;
  gc.buffer = c.cfg.buffer;
  gc.host_base = c.cfg.host_base;
  RePacketModel g(gc);
  for (const Packet& p : segs) g.Push(p);
  g.Finish();
  const ReCounters& gcnt = g.counters();
  EXPECT_EQ(rep.counters.in, gcnt.segments_in);
  EXPECT_EQ(rep.counters.used, gcnt.segments_used);
  EXPECT_EQ(rep.counters.completed, gcnt.events_completed);
  EXPECT_EQ(rep.counters.timed_out, gcnt.events_timed_out);
  for (int d = 0; d < kNumDrops; ++d)
    EXPECT_EQ(rep.counters.drops[static_cast<size_t>(d + 1)], gcnt.drops[static_cast<size_t>(d)]) << DropName(d);
  EXPECT_EQ(rep.run.out.size(), g.events().size());
  const bool host = c.cfg.buffer == BufferMode::kHost;
  if (host) {
    EXPECT_EQ(rep.host_events.size(), rep.run.out.size());
  }
  for (size_t i = 0; i < std::min(rep.run.out.size(), g.events().size()); ++i) {
    const ReEvent& e = g.events()[i];
    if (!host) {
      EXPECT_EQ(rep.run.out[i].bytes, EventFrame(e, c.cfg.format).bytes) << "event " << i;
      continue;
    }
    // `buffer host`: the record is the event's header and its slot's address; the bytes are in host memory.
    const std::vector<uint8_t>& rec = rep.run.out[i].bytes;
    const Packet want = EventRecord(e, static_cast<uint32_t>(e.data.size()), 0, c.cfg.format);
    EXPECT_EQ(rec.size(), want.bytes.size()) << "event " << i;
    if (rec.size() != want.bytes.size()) continue;
    EXPECT_TRUE(std::equal(rec.begin(), rec.end() - kReRecordAddrBytes, want.bytes.begin())) << "event " << i;
    uint64_t addr = 0;
    for (size_t k = rec.size() - kReRecordAddrBytes; k < rec.size(); ++k) addr = (addr << 8) | rec[k];
    const uint64_t slot = HostSlotBytes(c.cfg.buffer_bytes);
    EXPECT_EQ((addr - c.cfg.host_base) % slot, 0u) << "event " << i;
    EXPECT_LT((addr - c.cfg.host_base) / slot, c.cfg.contexts) << "event " << i;
    if (i < rep.host_events.size()) {
      EXPECT_TRUE(rep.host_events[i] == e.data) << "event " << i << " bytes";
    }
  }
  EXPECT_EQ(rep.reports.size(), g.timeouts().size());
  for (size_t i = 0; i < std::min(rep.reports.size(), g.timeouts().size()); ++i) {
    const ReReport& r = rep.reports[i];
    const ReTimeout& t = g.timeouts()[i];
    EXPECT_EQ(static_cast<uint16_t>(r.event_num), t.tick16) << i;
    EXPECT_EQ(r.event_num, t.event_num) << i;
    EXPECT_EQ(r.data_id, t.data_id) << i;
    EXPECT_EQ(r.received, t.received_bytes) << i;
    EXPECT_EQ(r.segments, t.segments) << i;
    EXPECT_EQ(r.end_known, t.end_known) << i;
    if (t.end_known) EXPECT_EQ(r.length, t.length) << i;
    EXPECT_EQ(r.at_end, t.at_end_of_input) << i;
  }
  return rep;
}

// CheckOne; an on-chip case runs a second time with `buffer host` (event bytes to host memory by DMA, the same
// decisions; the events compared in host memory), so every test also covers the DMA write stage. Returns the
// first run's report.
ReRunReport Check(const std::vector<Packet>& segs, const Case& c = {}) {
  ReRunReport rep = CheckOne(segs, c);
  if (c.cfg.buffer == BufferMode::kOnChip) {
    SCOPED_TRACE("the same case with buffer host");
    Case h = c;
    h.cfg.buffer = BufferMode::kHost;
    CheckOne(segs, h);
  }
  return rep;
}

// An event's segments: cuts of `seg` bytes, in order.
std::vector<Packet> Cut(uint16_t tick, uint16_t id, const std::vector<uint8_t>& d, int seg, double t_us = 0,
                        SegOpts o = {}) {
  std::vector<Packet> v;
  const int n = static_cast<int>(d.size());
  for (int a = 0; a < n || (n == 0 && v.empty()); a += seg) {
    const int b = std::min(n, a + seg);
    v.push_back(Seg(tick, id, static_cast<uint32_t>(a), Slice(d, a, b), b == n, t_us, o));
  }
  return v;
}

void Append(std::vector<Packet>* to, const std::vector<Packet>& v) { to->insert(to->end(), v.begin(), v.end()); }

TEST(ReLockstep, InOrderEventsOfEverySizeIpv4Ipv6AndIpOptions) {
  std::vector<Packet> segs;
  const int sizes[] = {0, 1, 25, 38, 39, 63, 64, 65, 127, 1000, 1400, 4097, 9000};
  uint16_t tick = 1;
  for (int s : sizes) {
    Append(&segs, Cut(tick, 7, Bytes(s, tick), 1400));
    Append(&segs, Cut(tick, 8, Bytes(s, tick + 1), 333, 0, SegOpts{true, 5}));
    Append(&segs, Cut(tick, 9, Bytes(s, tick + 2), 64, 0, SegOpts{false, 15}));
    ++tick;
  }
  Case c;
  c.cfg.contexts = 64;  // every event's context is held until the timeout
  const auto rep = Check(segs, c);
  EXPECT_EQ(rep.counters.completed, 3 * std::size(sizes));
}

TEST(ReLockstep, ReversedAndShuffledInterleavedEvents) {
  std::mt19937 rng(3);
  std::vector<Packet> segs;
  for (uint16_t e = 0; e < 12; ++e) {
    auto v = Cut(static_cast<uint16_t>(100 + e), e, Bytes(500 + 731 * e, e), 1 + static_cast<int>(rng() % 900));
    if (e % 2) std::reverse(v.begin(), v.end());
    Append(&segs, v);
  }
  std::shuffle(segs.begin() + 40, segs.end(), rng);  // the rest interleaved across events
  Check(segs);
}

TEST(ReLockstep, DuplicatesOverlapsAndInconsistentEnds) {
  const auto d = Bytes(3000);
  std::vector<Packet> segs = Cut(1, 1, d, 700);
  segs.insert(segs.begin() + 2, segs[0]);                                       // duplicate
  segs.insert(segs.begin() + 3, Seg(1, 1, 1350, Slice(d, 1350, 1500), false));  // overlap
  segs.insert(segs.begin() + 1, Seg(1, 1, 100, {}, true));                      // an end below received data
  segs.push_back(segs.back());                                                  // after completion: duplicate
  segs.push_back(Seg(2, 2, 0, Slice(d, 0, 100), false));
  segs.push_back(Seg(2, 2, 50, {}, true));  // end below received data
  segs.push_back(Seg(2, 2, 100, Slice(d, 100, 200), true));
  segs.push_back(Seg(2, 2, 150, Slice(d, 150, 250), false));  // past the known end
  segs.push_back(Seg(2, 2, 200, {}, true));                   // a second, different end
  segs.push_back(Seg(2, 2, 200, {}, true));
  const auto rep = Check(segs);
  EXPECT_GT(rep.counters.drops[params::kReDropDuplicate], 1u);
  EXPECT_EQ(rep.counters.drops[params::kReDropOverlap], 1u);
  EXPECT_GT(rep.counters.drops[params::kReDropInconsistent], 1u);
}

TEST(ReLockstep, LossesTimeOutAndTheRestIsReportedAtTheEnd) {
  Case c;
  c.cfg.timeout_ns = 50000;  // 50 us
  std::vector<Packet> segs;
  for (uint16_t e = 0; e < 10; ++e) {
    auto v = Cut(e, 3, Bytes(2000, e), 300, 20.0 * e);
    if (e % 3 == 0) v.erase(v.begin() + 1);  // lost
    Append(&segs, v);
  }
  // late segment of a completed event (a duplicate while held), then of a timed-out one (a new context)
  segs.push_back(Seg(1, 3, 0, Slice(Bytes(2000, 1), 0, 300), false, 60));
  segs.push_back(Seg(0, 3, 300, Slice(Bytes(2000, 0), 300, 600), false, 400));
  const auto rep = Check(segs, c);
  EXPECT_GE(rep.counters.timed_out, 4u);
}

TEST(ReLockstep, ContextExhaustionAndZeroLengthEvents) {
  Case c;
  c.cfg.contexts = 3;
  std::vector<Packet> segs;
  for (uint16_t e = 0; e < 8; ++e) {
    segs.push_back(Seg(e, 0, 0, Bytes(100), false));
    segs.push_back(Seg(e, 1, 0, {}, true));  // zero-length event: completes at once, context held
  }
  const auto rep = Check(segs, c);
  EXPECT_GT(rep.counters.drops[params::kReDropNoContext], 0u);
}

TEST(ReLockstep, BackpressureAndGapsKeepEveryEvent) {
  std::mt19937 rng(5);
  std::vector<Packet> segs;
  for (uint16_t e = 0; e < 20; ++e)
    Append(&segs, Cut(e, e, Bytes(100 + 450 * e, e), 1 + static_cast<int>(rng() % 1400)));
  std::shuffle(segs.begin(), segs.end(), rng);
  Case c;
  c.cfg.contexts = 64;
  c.gaps = 0.3;
  c.backpressure = 0.8;
  const auto rep = Check(segs, c);
  EXPECT_EQ(rep.counters.completed + rep.counters.timed_out, 20u);
  EXPECT_GT(rep.counters.completed, 15u);
}

TEST(ReLockstep, ExpiryWaitsForTheEventStillBeingSent) {
  // One context: event 1 completes and is sent slowly (90% output backpressure); event 2's segment arrives
  // (pcap time) after event 1's timeout, a few cycles later. The golden model frees event 1's context, so
  // the RTL must wait for the output to finish with it rather than drop event 2 for no context.
  Case c;
  c.cfg.contexts = 1;
  c.cfg.timeout_ns = 1000;
  c.backpressure = 0.9;
  std::vector<Packet> segs = Cut(1, 1, Bytes(9000), 1400, 0);
  Append(&segs, Cut(2, 2, Bytes(3000, 2), 1400, 10));
  const auto rep = Check(segs, c);
  EXPECT_EQ(rep.counters.completed, 2u);
  EXPECT_EQ(rep.counters.drops[params::kReDropNoContext], 0u);
}

TEST(ReLockstep, MalformedFramesAndTooBigAreCountedDrops) {
  Case c;
  c.cfg.buffer_bytes = 4000;
  std::vector<Packet> segs;
  segs.push_back(Packet{std::vector<uint8_t>(10, 0), 0});  // runt
  segs.push_back(Packet{{}, 0});                           // empty frame
  auto t = Seg(1, 1, 0, Bytes(10), true);
  t.bytes.resize(40);  // truncated
  segs.push_back(t);
  auto u = Seg(1, 1, 0, Bytes(10), true);
  u.bytes[23] = 6;  // not UDP
  segs.push_back(u);
  auto f = Seg(1, 1, 0, Bytes(10), true);
  f.bytes[20] = 0x20;  // IPv4 fragment
  segs.push_back(f);
  auto v = Seg(1, 1, 0, Bytes(10), true);
  v.bytes[12] = 0x12;  // not IP
  segs.push_back(v);
  auto w = Seg(1, 1, 0, Bytes(10), true);
  w.bytes[14] = 0x44;  // IHL 4
  segs.push_back(w);
  segs.push_back(Seg(1, 1, 5, {}, false));                   // empty
  segs.push_back(Seg(1, 1, 3990, Bytes(11), true));          // too big
  segs.push_back(Seg(1, 1, 0xFFFFFFF0u, Bytes(100), true));  // offset wraps 32 bits: too big
  auto pad = Seg(1, 1, 0, Bytes(10), true);
  pad.bytes.resize(pad.bytes.size() + 30, 0xEE);  // Ethernet padding is not data
  segs.push_back(pad);
  std::vector<uint8_t> jumbo(20000, 1);  // longer than the FIFO keeps per frame
  segs.push_back(Packet{jumbo, 0});
  const auto rep = Check(segs, c);
  EXPECT_EQ(rep.counters.completed, 1u);
}

TEST(ReLockstep, RangeTableFullIsACountedDrop) {
  const auto d = Bytes(200);
  std::vector<Packet> segs;
  for (uint32_t k = 0; k <= params::kReRanges + 2; ++k)
    segs.push_back(Seg(1, 1, 2 * k, Slice(d, 2 * k, 2 * k + 1), false));
  segs.push_back(Seg(1, 1, 1, Slice(d, 1, 2), false));
  segs.push_back(Seg(1, 1, 2 * params::kReRanges, Slice(d, 2 * params::kReRanges, 2 * params::kReRanges + 1), false));
  const auto rep = Check(segs);
  EXPECT_EQ(rep.counters.drops[params::kReDropNoRange], 3u);
}

TEST(ReLockstep, RandomizedMixtures) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    std::mt19937 rng(static_cast<uint32_t>(seed));
    std::vector<Packet> segs;
    for (uint16_t e = 0; e < 25; ++e) {
      const int size = static_cast<int>(rng() % 6000);
      auto v =
          Cut(static_cast<uint16_t>(rng()), static_cast<uint16_t>(rng() % 4), Bytes(size, e),
              1 + static_cast<int>(rng() % 1500), 3.0 * e, SegOpts{rng() % 3 == 0, 5 + static_cast<int>(rng() % 3)});
      if (rng() % 5 == 0 && v.size() > 1) v.erase(v.begin() + static_cast<long>(rng() % v.size()));
      if (rng() % 4 == 0) v.push_back(v[rng() % v.size()]);
      Append(&segs, v);
    }
    std::shuffle(segs.begin(), segs.end(), rng);
    std::sort(segs.begin(), segs.end(), [](const Packet& a, const Packet& b) { return a.time_ns < b.time_ns; });
    Case c;
    c.cfg.contexts = 8;
    c.cfg.buffer_bytes = 5000;
    c.cfg.timeout_ns = 40000;
    c.backpressure = seed % 2 ? 0.5 : 0;
    c.seed = seed;
    SCOPED_TRACE(seed);
    Check(segs, c);
  }
}

// Every header check of docs/re.md "Drops" for IPv6 as well as IPv4 (the malformed test above is IPv4 only),
// at each length boundary: the drop reason of each frame, RTL = cycle model = golden model.
TEST(ReLockstep, HeaderChecksOfBothFamiliesAtEveryBoundary) {
  std::vector<Packet> segs;
  auto frame = [&](bool v6, const std::function<void(std::vector<uint8_t>*)>& edit) {
    Packet p = Seg(1, 1, 0, Bytes(40), true, 0, SegOpts{v6, 5});
    edit(&p.bytes);
    segs.push_back(p);
  };
  // IPv4 cut inside its header; IPv6 cut inside its header, the UDP header and the RE header
  for (size_t n : {14u, 20u, 33u}) frame(false, [n](auto* b) { b->resize(n); });
  for (size_t n : {14u, 40u, 53u, 60u, 69u}) frame(true, [n](auto* b) { b->resize(n); });
  // IPv6 EtherType with version 4; IPv6 next header TCP; hop-by-hop options (not UDP here)
  frame(true, [](auto* b) { (*b)[14] = 0x40; });
  frame(true, [](auto* b) { (*b)[20] = 6; });
  frame(true, [](auto* b) { (*b)[20] = 0; });
  // UDP length below the UDP + RE headers, past the frame end, and exactly them with no last flag (empty)
  for (bool v6 : {false, true}) {
    const size_t l4 = v6 ? 54 : 34;
    frame(v6, [l4](auto* b) { (*b)[l4 + 4] = 0, (*b)[l4 + 5] = 15; });
    frame(v6, [l4](auto* b) { (*b)[l4 + 4] = 0, (*b)[l4 + 5] = 100; });
    frame(v6, [l4](auto* b) { (*b)[l4 + 4] = 0, (*b)[l4 + 5] = 16, (*b)[l4 + 9] = 0; });
  }
  frame(true, [](auto* b) { b->resize(b->size() + 7, 0); });  // padded IPv6 segment: accepted
  const auto rep = Check(segs);
  EXPECT_EQ(rep.counters.completed, 1u);
  EXPECT_EQ(rep.counters.drops[params::kReDropTruncated], 12u);
  EXPECT_EQ(rep.counters.drops[params::kReDropNotIp], 1u);
  EXPECT_EQ(rep.counters.drops[params::kReDropNotUdp], 2u);
  EXPECT_EQ(rep.counters.drops[params::kReDropEmpty], 2u);
}

// A zero-length last segment that closes an event whose data came before it (a sender that sends the end
// of an event as its own segment): accepted, completes the event with the length of its data.
TEST(ReLockstep, ZeroLengthLastSegmentClosesAnOpenEvent) {
  const auto d = Bytes(1000, 4);
  std::vector<Packet> segs = {Seg(3, 3, 0, Slice(d, 0, 600), false),
                              Seg(3, 3, 600, Slice(d, 600, 1000), false),
                              Seg(3, 3, 1000, {}, true),
                              Seg(4, 4, 500, Slice(d, 500, 1000), false),
                              Seg(4, 4, 1000, {}, true),
                              Seg(4, 4, 0, Slice(d, 0, 500), false)};
  const auto rep = Check(segs);
  ASSERT_EQ(rep.counters.completed, 2u);
  EXPECT_EQ(rep.counters.used, 6u);
  EXPECT_EQ(rep.run.out[0].bytes.size(), params::kReOutHdrBytes + 1000);
}

// A valid segment followed by more than 4095 beats (262 KB) of Ethernet padding: the ingress beat index
// saturates (frames that long only ever fail checks or carry padding), the beats past the first ReSegBeats
// are not stored, and the segment is used like any other.
TEST(ReLockstep, PaddingBeyondTheBeatIndexRange) {
  Packet p = Seg(5, 5, 0, Bytes(300, 5), true);
  p.bytes.resize(64 * 4100, 0xA5);
  const auto rep = Check({p, Seg(6, 6, 0, Bytes(64, 6), true)});
  EXPECT_EQ(rep.counters.completed, 2u);
}

// E2SAR's 20-byte header (config `header e2sar`): events keyed by (event number, data_id) whatever the UDP source
// port (E2SAR sends each segment from any of its sockets), the event's length from every segment, a 64-bit
// event number in the output header; events whose numbers agree in the low 16 bits are distinct.
std::vector<Packet> E2sarCut(uint64_t ev, uint16_t id, const std::vector<uint8_t>& d, int seg, double t_us = 0,
                             SegOpts o = {}) {
  std::vector<Packet> v;
  const int n = static_cast<int>(d.size());
  for (int a = 0; a < n; a += seg) {
    const int b = std::min(n, a + seg);
    o.sport = static_cast<uint16_t>(40000 + (a / seg) * 7 % 5);  // a different socket per segment
    v.push_back(E2sarSeg(ev, id, static_cast<uint32_t>(a), static_cast<uint32_t>(n), Slice(d, a, b), t_us, o));
  }
  return v;
}

Case E2sarCase() {
  Case c;
  c.cfg.format = HeaderFormat::kE2sar;
  c.cfg.version = 1;
  c.cfg.contexts = 64;
  return c;
}

TEST(ReLockstep, E2sarEventsKeyedByEventNumberAndDataIdAcrossChangingSourcePorts) {
  std::mt19937 rng(11);
  std::vector<Packet> segs;
  const uint64_t evs[] = {0x0123456789ABCDEFull, 0x0000000000001234ull, 0x0000000100001234ull, 5};
  int k = 0;
  for (uint64_t ev : evs) {
    for (uint16_t id : {uint16_t{7}, uint16_t{8}}) {
      const int size = 1 + 977 * k % 9000;
      Append(&segs, E2sarCut(ev, id, Bytes(size, k), 1 + static_cast<int>(rng() % 1400), 0,
                             SegOpts{k % 3 == 0, k % 2 ? 15 : 5}));
      ++k;
    }
  }
  std::shuffle(segs.begin(), segs.end(), rng);
  const auto rep = Check(segs, E2sarCase());
  EXPECT_EQ(rep.counters.completed, 8u);
  EXPECT_EQ(rep.counters.used, segs.size());
  for (const Packet& f : rep.run.out) {
    uint64_t ev = 0;
    for (int i = 0; i < 8; ++i) ev = (ev << 8) | f.bytes[14 + static_cast<size_t>(i)];
    EXPECT_TRUE(std::find(std::begin(evs), std::end(evs), ev) != std::end(evs)) << ev;
  }
}

TEST(ReLockstep, E2sarWrongVersionOrReservedIsABadVersionDropNeverData) {
  const auto d = Bytes(300, 2);
  std::vector<Packet> segs;
  for (int v : {0, 2, 4, 15}) {
    SegOpts o;
    o.re_version = v;
    segs.push_back(E2sarSeg(9, 9, 0, 300, d, 0, o));
  }
  Packet r = E2sarSeg(9, 9, 0, 300, d);
  r.bytes[34 + 8 + 1] = 0x01;  // reserved byte not zero (E2SAR's REHdr::validate() rejects it)
  segs.push_back(r);
  segs.push_back(E2sarSeg(9, 9, 0, 300, d));  // the right version: the event
  const auto rep = Check(segs, E2sarCase());
  EXPECT_EQ(rep.counters.completed, 1u);
  EXPECT_EQ(rep.counters.drops[params::kReDropBadVersion], 5u);
  ASSERT_EQ(rep.run.out.size(), 1u);
  EXPECT_EQ(rep.run.out[0].bytes.size(), params::kReOutHdrBytesE2sar + 300);
}

// The seed's header: the version nibble must be the configured one (default 0); a segment of another version
// is a counted drop, never data. A configuration `version 1` takes version-1 frames and drops version 0.
TEST(ReLockstep, Evio6VersionIsChecked) {
  const auto d = Bytes(200, 3);
  std::vector<Packet> segs = Cut(1, 1, d, 64);
  for (Packet& p : segs) p.bytes[42] = 0x10;  // version 1
  Append(&segs, Cut(2, 2, d, 64));            // version 0
  const auto rep0 = Check(segs);
  EXPECT_EQ(rep0.counters.completed, 1u);
  EXPECT_EQ(rep0.counters.drops[params::kReDropBadVersion], 4u);
  Case c;
  c.cfg.version = 1;
  const auto rep1 = Check(segs, c);
  EXPECT_EQ(rep1.counters.completed, 1u);
  EXPECT_EQ(rep1.counters.drops[params::kReDropBadVersion], 4u);
}

// A frame that still carries the LB header (an LB configured to keep it, as udplb's test-1 member 1): skipped
// (default) for LB versions 1 (12 bytes), 2 and 3 (16 bytes), in both formats; `lb_header drop` drops them;
// an LB header of another version has no known length: dropped as lb_header either way.
TEST(ReLockstep, LbHeaderInFrontIsSkippedOrDropped) {
  for (bool drop : {false, true}) {
    std::vector<Packet> segs;
    int k = 0;
    for (int lbv : {1, 2, 3}) {
      for (bool v6 : {false, true}) {
        SegOpts o;
        o.lb_version = lbv;
        o.v6 = v6;
        o.ihl = v6 ? 5 : 15;
        Append(&segs, E2sarCut(static_cast<uint64_t>(100 + k), 1, Bytes(700 + 100 * k, k), 250, 0, o));
        ++k;
      }
    }
    SegOpts o7;
    o7.lb_version = 2;
    Packet odd = E2sarSeg(77, 1, 0, 10, Bytes(10), 0, o7);
    odd.bytes[34 + 8 + 2] = 7;  // LB version 7
    segs.push_back(odd);
    Case c = E2sarCase();
    c.cfg.lb_header = drop ? LbHeaderMode::kDrop : LbHeaderMode::kSkip;
    const auto rep = Check(segs, c);
    EXPECT_EQ(rep.counters.completed, drop ? 0u : 6u);
    EXPECT_EQ(rep.counters.drops[params::kReDropLbHeader], drop ? segs.size() : 1u);
  }
  // The seed's 8-byte header behind an LB v2 header (udplb's kept-header output): skipped, then reassembled.
  std::vector<Packet> segs = Cut(50000, 0xABC, Bytes(1050, 9), 100);
  for (Packet& p : segs) {
    const uint8_t lb[16] = {'L', 'B', 2, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 10};
    p.bytes.insert(p.bytes.begin() + 42, lb, lb + 16);
    const size_t ulen = (static_cast<size_t>(p.bytes[38]) << 8 | p.bytes[39]) + 16;
    p.bytes[38] = static_cast<uint8_t>(ulen >> 8), p.bytes[39] = static_cast<uint8_t>(ulen);
  }
  const auto rep = Check(segs);
  EXPECT_EQ(rep.counters.completed, 1u);
  ASSERT_EQ(rep.run.out.size(), 1u);
  EXPECT_EQ(std::vector<uint8_t>(rep.run.out[0].bytes.begin() + params::kReOutHdrBytes, rep.run.out[0].bytes.end()),
            Bytes(1050, 9));
}

// E2SAR's length field: segments that disagree on the event's length, data past it, a length beyond the
// buffer, a zero-length segment of a non-empty event (empty) and of an empty event (the empty event).
TEST(ReLockstep, E2sarLengthChecks) {
  const auto d = Bytes(1000, 5);
  std::vector<Packet> segs = {E2sarSeg(1, 1, 0, 1000, Slice(d, 0, 400)),
                              E2sarSeg(1, 1, 400, 999, Slice(d, 400, 800)),    // another length
                              E2sarSeg(1, 1, 800, 900, Slice(d, 800, 1000)),   // data past its length
                              E2sarSeg(1, 1, 400, 1000, {}),                   // empty
                              E2sarSeg(2, 1, 0, 20000, Slice(d, 0, 100)),      // beyond buffer_bytes
                              E2sarSeg(3, 1, 0, 0, {}),                        // an empty event
                              E2sarSeg(1, 1, 800, 1000, Slice(d, 800, 1000)),
                              E2sarSeg(1, 1, 400, 1000, Slice(d, 400, 800))};
  const auto rep = Check(segs, E2sarCase());
  EXPECT_EQ(rep.counters.completed, 2u);
  EXPECT_EQ(rep.counters.drops[params::kReDropInconsistent], 2u);
  EXPECT_EQ(rep.counters.drops[params::kReDropEmpty], 1u);
  EXPECT_EQ(rep.counters.drops[params::kReDropTooBig], 1u);
}

// 40 E2SAR events of 0..5999 bytes (data(size, e)), 3 us apart, cut at 1..1500 bytes, IPv4/IPv6, LB v0..v3,
// some with a duplicate or a loss, in arrival order (shuffled first: equal times in any order).
std::vector<Packet> E2sarMixture(uint64_t seed, const std::function<std::vector<uint8_t>(int, int)>& data) {
  std::mt19937_64 rng(seed);
  std::vector<Packet> segs;
  for (int e = 0; e < 40; ++e) {
    const int size = static_cast<int>(rng() % 6000);
    SegOpts o;
    o.v6 = rng() % 2;
    o.lb_version = static_cast<int>(rng() % 4);
    auto v = E2sarCut(rng(), static_cast<uint16_t>(rng()), data(size, e), 1 + static_cast<int>(rng() % 1500),
                      static_cast<double>(e) * 3, o);
    if (rng() % 4 == 0 && !v.empty()) v.push_back(v[rng() % v.size()]);  // a duplicate
    if (rng() % 5 == 0 && v.size() > 1) v.erase(v.begin());              // a loss
    Append(&segs, v);
  }
  std::shuffle(segs.begin(), segs.end(), rng);
  std::sort(segs.begin(), segs.end(), [](const Packet& a, const Packet& b) { return a.time_ns < b.time_ns; });
  return segs;
}

// E2SAR frames at line rate: back-to-back frames of interleaved events, shuffled, with output backpressure,
// in lockstep; the randomized mix of the seed's test run over E2SAR's header.
TEST(ReLockstep, E2sarRandomizedMixtures) {
  for (uint64_t seed : {21u, 22u}) {
    const std::vector<Packet> segs = E2sarMixture(seed, [](int size, int e) { return Bytes(size, e); });
    Case c = E2sarCase();
    c.cfg.timeout_ns = 50000;
    c.backpressure = seed == 22 ? 0.5 : 0;
    c.seed = seed;
    Check(segs, c);
  }
}

// ---- `buffer host`: event bytes placed in host memory by DMA, completion records out (issue 24 item 3) ----

std::vector<uint8_t> RandomBytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint8_t> v(n);
  for (uint8_t& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

Case HostCase(uint32_t buffer_bytes = kReHostBufBytes) {
  Case c = E2sarCase();
  c.cfg.buffer = BufferMode::kHost;
  c.cfg.buffer_bytes = buffer_bytes;
  c.cfg.contexts = 8;
  c.cfg.timeout_ns = 1'000'000'000;
  return c;
}

// A 4 MiB event of 8000-byte (jumbo) segments, shuffled in windows, between small events of 0..5000 bytes over IPv4 and
// IPv6 behind kept LB headers; every byte in host memory at the record's address, line rate (no input stall).
TEST(ReLockstep, HostBufferLargeEventShuffledAmongSmallOnes) {
  std::mt19937_64 rng(31);
  std::vector<Packet> segs;
  SegOpts o;
  for (int e = 0; e < 6; ++e) {
    o.v6 = e % 2;
    o.lb_version = e % 4;
    Append(&segs, E2sarCut(100 + e, 3, RandomBytes(static_cast<size_t>(e * 1000), e), 1 + e * 300, 0, o));
  }
  // Shuffled in windows of 12 segments: at most 11 holes at once, within the range table's 16 (a whole-event
  // shuffle of 525 segments would be `no_range` drops, docs/re.md).
  auto big = E2sarCut(7, 1, RandomBytes(4u << 20, 7), 8000);
  for (size_t w = 0; w < big.size(); w += 12) {
    std::shuffle(big.begin() + static_cast<std::ptrdiff_t>(w),
                 big.begin() + static_cast<std::ptrdiff_t>(std::min(big.size(), w + 12)), rng);
  }
  Append(&segs, big);
  Append(&segs, E2sarCut(8, 1, RandomBytes(1, 8), 1));
  const auto rep = Check(segs, HostCase());
  ASSERT_EQ(rep.run.out.size(), 7u);
  EXPECT_EQ(rep.host_events[5].size(), 4u << 20);
  EXPECT_EQ(rep.run.input_stall_cycles, 0u);
  EXPECT_EQ(rep.dma_write_bytes, 4u * 1024 * 1024 + 1 + (1 + 2 + 3 + 4 + 5) * 1000);
}

// A host slower than line rate (fewer posted-write credits than its latency): the input stalls, nothing is
// dropped or lost; with duplicates, losses, overlaps, output backpressure and small slots (contexts reused).
TEST(ReLockstep, HostBufferSlowHostStallsNeverDrops) {
  for (uint64_t seed : {41u, 42u}) {
    const std::vector<Packet> segs = E2sarMixture(seed, [seed](int size, int e) {
      return RandomBytes(static_cast<size_t>(size), seed * 100 + static_cast<uint64_t>(e));
    });
    Case c = HostCase(6000);
    c.cfg.contexts = 4;
    c.cfg.timeout_ns = 50000;
    c.backpressure = seed == 42 ? 0.5 : 0;
    c.host_write_latency = 200;
    c.host_max_outstanding = seed == 41 ? 2 : 50;
    c.seed = seed;
    const auto rep = Check(segs, c);
    EXPECT_GT(rep.run.input_stall_cycles, 0u) << seed;
  }
}

// With `buffer host` a segment whose data ends past the beats the input FIFO keeps (ReSegBeats x 64 bytes of
// frame) is too_big even when the event fits the slot; on chip buffer_bytes already bounds it.
TEST(ReLockstep, HostBufferFrameLongerThanTheFifoKeepsIsTooBig) {
  const size_t keep = params::kReSegBeats * kBeatBytes;
  std::vector<Packet> segs = {E2sarSeg(1, 1, 0, 20000, RandomBytes(20000, 1)),
                              E2sarSeg(2, 1, 0, static_cast<uint32_t>(keep - 62), RandomBytes(keep - 62, 2)),
                              E2sarSeg(3, 1, 0, static_cast<uint32_t>(keep - 61), RandomBytes(keep - 61, 3))};
  const auto rep = Check(segs, HostCase(65536));
  EXPECT_EQ(rep.counters.drops[static_cast<size_t>(Drop::kTooBig) + 1], 2u);
  EXPECT_EQ(rep.run.out.size(), 1u);
}

}  // namespace
}  // namespace nettwin::re
