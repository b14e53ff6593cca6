// End-to-end RPC latency of the NAA endpoint (naa_top with the controller, the model in lockstep beside the
// RTL): the client connects, grants three regions by MRSP, WRITEs the kernel's inputs (the last packet a
// WRITE_WITH_IMM carrying the function code) and waits for the result. Per kernel x region size x host read
// latency R, the cycles from the WRITE_WITH_IMM's last beat in to the first beat and to the last beat of the
// result message out (WRITE(s), the last with immediate 0; no output backpressure, so the last beat of a
// packet leaves `beats - 1` cycles after its first). Prints a Markdown table for docs/PERF.md.
//   build/naa_rpc_bench [--sizes 256,4096,65536] [--latencies 20,200]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "model/naa/naa_config.h"
#include "model/naa/naa_kernel.h"
#include "tb/naa/naa_run.h"
#include "tb/tests/naa_rpc_client.h"

namespace nettwin::naa {
namespace {

using namespace test;  // NOLINT: the RPC client of the tests

std::vector<uint32_t> List(const char* s) {
  std::vector<uint32_t> v;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) v.push_back(static_cast<uint32_t>(std::strtoul(item.c_str(), nullptr, 0)));
  return v;
}

void Row(uint32_t fn, uint32_t bytes, uint32_t read_cycles) {
  static const char* const kNames[] = {"", "add (1)", "crc32 (2)", "copy (3)"};
  const auto es = Regions({bytes, bytes, bytes});
  Client cl(5);  // path MTU 4096
  Mrsp(&cl, es, 4 + 16 * 3);
  std::vector<std::vector<uint8_t>> ins = {Pattern(bytes, 1)};
  if (fn == rpc::kAdd) ins.push_back(Pattern(bytes, 2));
  const uint32_t result = fn == rpc::kCrc ? 4 : bytes;
  // The frames before the RPC's last WRITE packet, and the endpoint frames before its result.
  for (size_t i = 0; i < ins.size(); ++i) {
    const bool last = i + 1 == ins.size();
    cl.Message(rdma::op::kWriteFirst, es[i].fpga, kRkeyBase + static_cast<uint32_t>(i), ins[i], last, fn);
  }
  const size_t imm_frame = cl.frames().size() - 1;
  const uint64_t first_out = cl.expected_out();
  cl.ExpectEndpointMessage(result);
  const uint64_t last_out = cl.expected_out() - 1;
  NaaRunConfig rc;
  rc.mem.read_latency = read_cycles;
  rc.mem.write_latency = 8;
  rc.mem.max_outstanding = 64;
  std::vector<Packet> ps;
  for (const auto& f : cl.frames()) ps.push_back(Packet{f});
  const NaaRunReport r = RunNaa(ParseNaaConfig(RpcConfig(), "bench"), ps, rc, cl.gates());
  if (!r.mismatch_text.empty() || !r.conservation_ok || r.run.out.size() != cl.expected_out() ||
      r.last.ctl.rpc_errors != 0) {
    std::printf("| %s | %u | %u | FAILED %s |\n", kNames[fn], bytes, read_cycles, r.mismatch_text.c_str());
    return;
  }
  const uint64_t in_last = r.run.in_last_cycle[imm_frame];
  const uint64_t first = r.run.out_first_cycle[first_out] - in_last;
  const uint64_t last = r.run.out_first_cycle[last_out] + (r.run.out[last_out].bytes.size() + 63) / 64 - 1 - in_last;
  std::printf("| %s | %u | %u | %llu | %llu | %llu | %.1f |\n", kNames[fn], bytes, read_cycles,
              static_cast<unsigned long long>(last_out - first_out + 1), static_cast<unsigned long long>(first),
              static_cast<unsigned long long>(last), static_cast<double>(bytes) / static_cast<double>(last));
}

}  // namespace
}  // namespace nettwin::naa

int main(int argc, char** argv) {
  std::vector<uint32_t> sizes = {256, 4096, 65536}, lats = {20, 200};
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--sizes") == 0) sizes = nettwin::naa::List(argv[i + 1]);
    if (std::strcmp(argv[i], "--latencies") == 0) lats = nettwin::naa::List(argv[i + 1]);
  }
  std::printf("RPC latency, naa_top (RTL, model in lockstep), path MTU 4096, host read latency R cycles\n\n");
  std::printf(
      "| kernel | region bytes | R | result packets | first result beat (cycles) | last result beat "
      "(cycles) | input bytes/cycle |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (uint32_t fn : {nettwin::naa::rpc::kAdd, nettwin::naa::rpc::kCrc, nettwin::naa::rpc::kCopy}) {
    for (uint32_t n : sizes) {
      for (uint32_t r : lats) nettwin::naa::Row(fn, n, r);
    }
  }
  return 0;
}
