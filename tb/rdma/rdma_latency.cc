#include "tb/rdma/rdma_latency.h"

#include "model/common/bytes.h"
#include "tb/rdma/rdma_requests.h"
#include "tb/rdma/rdma_run.h"

namespace nettwin::rdma {

namespace {
constexpr uint64_t kMrVa = 0x10001f000ull, kMrPa = 0x5188000000000000ull;
constexpr uint32_t kRkey = 0x1234;
}  // namespace

LatencyResult MeasureLatency(double clock_mhz, uint32_t read_cycles, uint32_t write_cycles, bool linear) {
  RdmaRunConfig host;
  host.mem.model = tb::HostMemoryTiming::Model::kSlots;
  host.mem.max_outstanding = 16;
  host.mem.read_latency = read_cycles;
  host.mem.write_latency = write_cycles;
  return MeasureLatency(clock_mhz, host, linear);
}

LatencyResult MeasureLatency(double clock_mhz, const RdmaRunConfig& host, bool linear) {
  const uint32_t read_cycles = host.mem.read_latency;
  RdmaConfig c = ParseConfig(
      "responder mac 02:00:00:00:00:01 ip 10.0.0.1\n"
      "qp 0x11 dest_qp 0x22 epsn 0 mtu 1024 max_rd_atomic 256 aq 0x200000000\n"
      "mr 0x1234 va 0x10001f000 len 0x1000 pa 0x5188000000000000 access rwa\n",
      "rdma-latency");
  uint8_t init[8];
  StoreLe64(init, kMem);
  c.memory.push_back(MemInit{kMrPa + (kVa - kMrVa), std::vector<uint8_t>(init, init + 8)});
  std::vector<Packet> pkts;
  RequestSpec s;
  s.rkey = kRkey;
  // 255 earlier atomics on another word fill AQ groups 0..3, so the lookup has real history to search.
  for (uint32_t psn = 0; psn < 255; ++psn) {
    s.psn = psn;
    s.va = kMrVa + 8 * (psn % 16);
    s.swap = 1;
    pkts.push_back(Packet{BuildRequest(s), 0});
  }
  RdmaRunConfig cfg = host;
  cfg.engine = Engine::kModel;
  cfg.opt = tb::RunOptions{};
  cfg.opt.clock_mhz = clock_mhz;
  cfg.aq_linear = linear;
  cfg.mismatch_trace.clear();
  // The receive ring takes the next request while one is processed, so a request sent back to back would
  // include the wait for the ones before it. Latency is measured on an idle responder: the measured FAA
  // arrives once the history is done (found by a model-only run), and its retransmission comes after the
  // FAA's ACK would have been out, as a requester's timeout would make it.
  const uint64_t history_cycles = RunRdma(c, pkts, cfg).run.cycles;
  auto at_cycle = [&](uint64_t cycle) {
    return static_cast<uint64_t>(static_cast<double>(cycle) * 1000.0 / clock_mhz) + 1;
  };
  const uint64_t first_at = history_cycles + 16, recent_at = first_at + 2 * uint64_t{read_cycles} + 256;
  s.psn = 255;
  s.va = kVa;
  s.swap = kAdd;
  const std::vector<uint8_t> measured = BuildRequest(s);
  pkts.push_back(Packet{measured, at_cycle(first_at)});
  pkts.push_back(Packet{measured, at_cycle(recent_at)});  // its ACK was lost: sent again
  // kRecent further atomics (other words) push it out of the on-chip store; then it is sent once more.
  const uint64_t fill_at = recent_at + 64;
  for (uint32_t i = 0; i < static_cast<uint32_t>(kRecent); ++i) {
    s.psn = 256 + i;
    s.va = kMrVa + 8 * (i % 16);
    s.swap = 1;
    pkts.push_back(Packet{BuildRequest(s), at_cycle(fill_at)});
  }
  const size_t old = pkts.size();
  pkts.push_back(Packet{measured, at_cycle(fill_at + 3 * uint64_t{read_cycles} + 64 * kRecent)});
  cfg.engine = Engine::kLockstep;
  cfg.opt.timed = true;
  const RdmaRunReport r = RunRdma(c, pkts, cfg);
  LatencyResult out;
  if (!r.mismatch_text.empty() || !r.conservation_ok || r.run.out.size() != pkts.size()) {
    out.error = r.mismatch_text.empty() ? "run failed (conservation or response count)" : r.mismatch_text;
    return out;
  }
  auto latency = [&](size_t i) { return r.run.out_first_cycle[i] - r.run.in_last_cycle[i]; };
  auto reads = [&](size_t i) {
    uint64_t n = 0;
    for (const auto& [cycle, req] : r.memory->log()) {
      if (!req.write && cycle >= r.run.in_last_cycle[i] && cycle <= r.run.out_first_cycle[i]) ++n;
    }
    return n;
  };
  out.first_cycles = latency(255);
  out.recent_cycles = latency(256);
  out.retransmit_cycles = latency(old);
  out.first_reads = reads(255);
  out.recent_reads = reads(256);
  out.retransmit_reads = reads(old);
  out.orig_first = Load64(&r.run.out[255].bytes[58]);
  out.orig_recent = Load64(&r.run.out[256].bytes[58]);
  out.orig_retransmit = Load64(&r.run.out[old].bytes[58]);
  uint8_t fin[8];
  r.memory->Read(kMrPa + (kVa - kMrVa), fin, 8);
  out.final_value = LoadLe64(fin);
  return out;
}


}  // namespace nettwin::rdma
