// The endpoint's requester (naa_req) on the RTL with the model in lockstep: one config-posted RDMA WRITE of
// `--bytes` (default 64 KiB) per path MTU x host read latency. The client connects (REQ, then the RTU after
// the REP) and ACKs every 16th packet once it has arrived (the packets that carry AckReq), through gates.
// Prints a Markdown table for docs/PERF.md:
//   first packet: cycles from the RTU's last beat in to the first request beat out (connection, command
//                 intake, the payload's DMA read at latency R, then the frame)
//   beats/cycle:  request beats out / cycles from the first request beat to the last one
//   build/naa_req_bench [--bytes N]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "model/naa/naa_config.h"
#include "tb/naa/naa_run.h"
#include "tb/tests/naa_frames.h"

namespace nettwin::naa {
namespace {

using namespace test;  // NOLINT: the client frames of the tests

constexpr uint32_t kStart = 0x100;

std::vector<uint8_t> Ack(uint32_t psn) { return AckFrame(psn); }

void Row(uint32_t bytes, uint8_t mtu_code, uint32_t read_cycles) {
  const uint32_t mtu = 128u << mtu_code, n = (bytes + mtu - 1) / mtu;
  char text[512];
  std::snprintf(text, sizeof text,
                "responder mac 02:00:00:00:00:01 ip 10.0.0.1\nqp 0x11 mtu 4096 max_rd_atomic 16 aq 0x10000\n"
                "mr 0x100 va 0x1000 len 4096 pa 0x200000 access rw\ncm port 7471 psn 0x%x comm_id 0x1000\n"
                "req timeout 100000\npost write laddr 0x1000000 len %u raddr 0x7000000000 rkey 0x55\n",
                kStart, bytes);
  const NaaConfig config = ParseNaaConfig(text, "bench");
  std::vector<Packet> ps;
  auto add = [&ps](std::vector<uint8_t> f) { ps.push_back(Packet{std::move(f)}); };
  add(ReqFrame(kClientComm, 7471, 0, mtu_code));
  add(SealAt(ClientMad(attr::kRtu, kClientComm, kCommBase), kCmIcrcAt));
  Gates g;
  g.after[1] = 1;
  for (uint32_t k = 16; k < n + 16; k += 16) {
    const uint32_t last = k < n ? k : n;
    g.after[ps.size()] = 1 + last;
    add(Ack(kStart + last - 1));
  }
  NaaRunConfig rc;
  rc.mem.read_latency = read_cycles;
  rc.mem.max_outstanding = 64;
  const NaaRunReport r = RunNaa(config, ps, rc, g);
  if (!r.mismatch_text.empty() || !r.conservation_ok || r.run.out.size() != 1 + n) {
    std::printf("| %u | %u | FAILED %s |\n", mtu, read_cycles, r.mismatch_text.c_str());
    return;
  }
  const uint64_t first = r.run.out_first_cycle[1] - r.run.in_last_cycle[1];
  uint64_t beats = 0;
  for (size_t i = 1; i < r.run.out.size(); ++i) beats += (r.run.out[i].bytes.size() + 63) / 64;
  const uint64_t last_beat = r.run.out_first_cycle.back() + (r.run.out.back().bytes.size() + 63) / 64;
  const double bpc = static_cast<double>(beats) / static_cast<double>(last_beat - r.run.out_first_cycle[1]);
  std::printf("| %u | %u | %u | %llu | %.3f | %.1f |\n", mtu, read_cycles, n, static_cast<unsigned long long>(first),
              bpc, static_cast<double>(bytes) / static_cast<double>(last_beat - r.run.out_first_cycle[1]));
}

}  // namespace
}  // namespace nettwin::naa

int main(int argc, char** argv) {
  uint32_t bytes = 65536;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--bytes") == 0) bytes = static_cast<uint32_t>(std::strtoul(argv[i + 1], nullptr, 0));
  }
  std::printf("one WRITE of %u bytes; host read latency R cycles\n\n", bytes);
  std::printf("| MTU | R | packets | first packet (cycles) | request beats/cycle | payload bytes/cycle |\n");
  std::printf("|---|---|---|---|---|---|\n");
  for (uint8_t m : {1, 3, 5}) {
    for (uint32_t r : {20u, 50u, 900u}) nettwin::naa::Row(bytes, m, r);
  }
  return 0;
}
