// RoCEv2 responder throughput on the RTL (model in lockstep): 200 back-to-back requests of one kind on one
// QP, per opcode x path MTU x host read latency, against the line-rate bound. Prints a Markdown table for
// docs/PERF.md.
//   build/rdma_bench [--requests N] [--engine rtl|lockstep]
// Host memory: read latency R = 50 or 900 cycles, writes accepted after 8 cycles (posted: the link takes
// them), 64 requests outstanding, so the memory is never the bound for writes.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "model/common/bytes.h"
#include "tb/rdma/rdma_requests.h"
#include "tb/rdma/rdma_run.h"

namespace nettwin::rdma {
namespace {

constexpr uint64_t kMrVa = 0x7000000000ull, kMrPa = 0x1000000ull, kRqPa = 0x4000000ull, kBufPa = 0x8000000ull;
constexpr uint32_t kMrLen = 0x400000;

enum class Kind { kWrite, kRead, kSend, kFaa };
const char* Name(Kind k) {
  switch (k) {
    case Kind::kWrite: return "WRITE only";
    case Kind::kRead: return "READ (1 response)";
    case Kind::kSend: return "SEND only";
    case Kind::kFaa: return "FAA, distinct words";
  }
  return "?";
}

struct Result {
  double in_bpc = 0, out_bpc = 0, cycles_per_req = 0;
  bool ok = false;
  std::string error;
};

Result Run(Kind kind, uint32_t mtu, uint32_t read_cycles, size_t n, Engine engine) {
  RdmaConfig c = ParseConfig(
      "responder mac 02:00:00:00:00:01 ip 10.0.0.1\n"
      "qp 0x11 dest_qp 0x22 epsn 0 mtu " +
          std::to_string(mtu) + " max_rd_atomic 16 aq 0x200000000 rq " + std::to_string(kRqPa) +
          " rq_entries 1024 rq_posted " + std::to_string(n) +
          " cq 0x300000000 cq_entries 1024\n"
          "mr 0x1234 va 0x7000000000 len " +
          std::to_string(kMrLen) + " pa " + std::to_string(kMrPa) + " access rwa\n",
      "rdma_bench");
  if (kind == Kind::kSend) {  // one posted receive WQE of one MTU per SEND
    for (size_t i = 0; i < n; ++i) {
      std::vector<uint8_t> wqe(16, 0);
      StoreLe64(wqe.data(), kBufPa + i * mtu);
      for (int b = 0; b < 4; ++b) wqe[8 + b] = static_cast<uint8_t>(mtu >> (8 * b));
      c.memory.push_back(MemInit{kRqPa + 16 * i, wqe});
    }
  }
  std::vector<Packet> pkts;
  for (size_t i = 0; i < n; ++i) {
    RequestSpec s;
    s.psn = static_cast<uint32_t>(i);
    s.rkey = 0x1234;
    s.ackreq = false;  // WRITE/SEND only are ACKed anyway (last packet of the message)
    switch (kind) {
      case Kind::kWrite:
        s.opcode = op::kWriteOnly;
        s.va = kMrVa + (i * mtu) % (kMrLen - mtu);
        s.dmalen = mtu;
        s.payload.assign(mtu, static_cast<uint8_t>(i));
        break;
      case Kind::kSend:
        s.opcode = op::kSendOnly;
        s.payload.assign(mtu, static_cast<uint8_t>(i));
        break;
      case Kind::kRead:
        s.opcode = op::kReadRequest;
        s.va = kMrVa + (i * mtu) % (kMrLen - mtu);
        s.dmalen = mtu;
        break;
      case Kind::kFaa:
        s.opcode = op::kFetchAdd;
        s.va = kMrVa + 8 * i;
        s.swap = 1;
        break;
    }
    pkts.push_back(Packet{BuildRequest(s), 0});
  }
  RdmaRunConfig cfg;
  cfg.engine = engine;
  cfg.mem_read_cycles = read_cycles;
  cfg.mem_write_cycles = 8;
  cfg.mem_outstanding = 64;
  const RdmaRunReport r = RunRdma(c, pkts, cfg);
  Result out;
  if (!r.mismatch_text.empty() || !r.conservation_ok || r.run.out.size() != n) {
    out.error = r.mismatch_text.empty() ? "run failed (conservation or response count)" : r.mismatch_text;
    return out;
  }
  // From the first request beat in to the last response beat out.
  const double span = static_cast<double>(r.run.cycles - r.run.in_first_cycle.front());
  out.in_bpc = static_cast<double>(r.run.in_beats) / span;
  out.out_bpc = static_cast<double>(r.run.out_beats) / span;
  out.cycles_per_req = span / static_cast<double>(n);
  out.ok = true;
  return out;
}

int Main(int argc, char** argv) {
  size_t n = 200;
  Engine engine = Engine::kRtl;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--requests") && i + 1 < argc)
      n = std::stoul(argv[++i]);
    else if (!std::strcmp(argv[i], "--engine") && i + 1 < argc)
      engine = std::strcmp(argv[++i], "rtl") ? Engine::kLockstep : Engine::kRtl;
    else {
      std::fprintf(stderr, "usage: rdma_bench [--requests N] [--engine rtl|lockstep]\n");
      return 2;
    }
  }
  std::printf(
      "%zu back-to-back requests, one QP, engine %s; beats/cycle over the first request beat in to the "
      "last response beat out; line rate = 1 beat/cycle on the loaded direction\n\n",
      n, engine == Engine::kRtl ? "rtl" : "lockstep");
  std::printf(
      "| request | MTU | R | input beats/cycle | output beats/cycle | cycles/request | bound (cycles/request) |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  int failures = 0;
  for (Kind k : {Kind::kWrite, Kind::kRead, Kind::kSend, Kind::kFaa}) {
    for (uint32_t mtu : {256u, 512u, 1024u, 2048u, 4096u}) {
      if (k == Kind::kFaa && mtu != 4096) continue;  // an atomic does not depend on the MTU
      for (uint32_t rd : {50u, 900u}) {
        const Result r = Run(k, mtu, rd, n, engine);
        if (!r.ok) {
          std::printf("| %s | %u | %u | FAILED: %s |\n", Name(k), mtu, rd, r.error.c_str());
          ++failures;
          continue;
        }
        // Line-rate bound: the frame's beats on the loaded direction (request for WRITE/SEND/FAA, response
        // for READ) at one beat per cycle.
        const int hdr = k == Kind::kRead ? 14 + 20 + 8 + 12 + 4 : 14 + 20 + 8 + 12 + (k == Kind::kSend ? 0 : 16);
        const int frame = k == Kind::kFaa ? 14 + 20 + 8 + 12 + 28 + 4 : hdr + static_cast<int>(mtu) + 4;
        const int bound = (frame + kBeatBytes - 1) / kBeatBytes;
        std::printf("| %s | %u | %u | %.3f | %.3f | %.1f | %d |\n", Name(k), mtu, rd, r.in_bpc, r.out_bpc,
                    r.cycles_per_req, bound);
        std::fflush(stdout);
      }
    }
  }
  return failures ? 1 : 0;
}

}  // namespace
}  // namespace nettwin::rdma

int main(int argc, char** argv) { return nettwin::rdma::Main(argc, argv); }
