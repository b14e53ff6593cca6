// `nettwin naa`: the NAAICE network-attached accelerator endpoint (server side). Client frames in (CM MADs on
// QP1, RDMA requests, MRSP SENDs and RPC WRITE_WITH_IMMs), the endpoint's frames out (REP/REJ/DREP, ACKs, READ
// responses, the controller's MRSP answers and RPC results), with the RTL, the
// cycle model, or both in lockstep against the SystemC host memory.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "apps/host_memory_options.h"
#include "model/common/file_io.h"
#include "model/common/pcap.h"
#include "naa_counter_stats.h"  // NOLINT(build/include_subdir): generated
#include "tb/naa/naa_run.h"

namespace nettwin::naa {
namespace {

constexpr const char* kHelp =
    "usage: nettwin naa --config naa.txt --in client.pcap --out server.pcap [options]\n"
    "  The config holds the responder's directives (responder, one qp, mr, mem; docs/rdma.md) and one\n"
    "  'cm port <tcp port>' line, optionally a 'ctl' line (MRSP and RPC; docs/naa.md). An optional\n"
    "  sidecar client.pcap.gates holds lines '<frame index> after <n>': that client frame waits until the\n"
    "  endpoint has sent n frames. Exit status: 0 ok, 1 lockstep mismatch / hang / accounting failure (frames,\n"
    "  or controller events that are neither handled nor dropped), 2 bad usage or input.\n"
    "  --config FILE   the endpoint's configuration (above).\n"
    "  --in FILE       client frames (pcap or pcapng, Ethernet); FILE.gates beside it if present.\n"
    "  --out FILE      the endpoint's frames, in the order they left.\n"
    "  --engine E      model, rtl or lockstep (default lockstep: both, compared every cycle).\n"
    "  --stats FILE    counters as JSON (cm, rdma, req, ctl, cycles, conservation).\n"
    "  --trace FILE    FST waveform of the RTL (rtl or lockstep; default none). Without it a lockstep\n"
    "                  mismatch writes the cycles around it to OUT.mismatch.fst.\n"
    "  --clock-mhz F   clock in MHz (default 250): frame timestamps, the default link bandwidth.\n"
    "  --gaps P        probability 0..0.99 that the input offers no beat in a cycle (default 0).\n"
    "  --backpressure P  probability 0..0.99 that the output is not ready in a cycle (default 0).\n"
    "  --seed N        seed of the gap and backpressure patterns (default 1).\n";

std::string StatsJson(const NaaRunReport& r, const char* engine) {
  return RunStatsJson(engine, r, [&r](std::ostream& j) {
    const NaaOut& o = r.last;
    // The endpoint's accounting (tb/naa/naa_binding.cc): the responder's, the CM's and the requester's frames.
    j << "  \"packets_in\": " << o.rdma.packets_in + o.cm.packets_in + o.req.packets_in
      << ",\n  \"packets_out\": " << o.rdma.responses + o.cm.responses + o.req.cnt[params::kNaaReqCntSent] << ",\n";
    WriteNaaCounterStats(j, o);  // generated from rtl/naa/data/naa.json: "cm", "rdma", "req", "ctl"
  });
}

}  // namespace

int NaaCommand(int argc, char** argv) {
  std::string config_path;
  CommonOptions common(kOptBlockRun | kOptGaps | kOptOutFormat);
  NaaRunConfig rc;
  NaaConfig config;
  std::vector<Packet> packets;
  Gates gates;
  const std::string help = std::string(kHelp) + kOutFormatHelp + kInjectHelp + kHostMemoryHelp;
  try {
    const bool go = ForEachOption(argc, argv, help.c_str(), [&](const std::string& o, const auto& val) {
      if (common.Parse(o, val) || ParseHostMemoryOption(o, val, &rc)) return;
      if (o == "--config") config_path = val();
      else throw std::invalid_argument("unknown option '" + o + "'");
    });
    if (!go) return 0;
    common.Check();
    RequireOptions({{"--config", &config_path}, {"--in", &common.in}, {"--out", &common.out}});
    config = LoadNaaConfig(config_path);
    packets = common.ReadInput();
    gates = LoadGatesFor(common.in, packets.size());
  } catch (const std::exception& e) {
    return InputError("naa", e, help);
  }
  common.Configure(&rc);
  const NaaRunReport r = RunNaa(config, packets, rc, gates);
  try {
    common.WriteCapture(common.out, r.run.out);
    if (!common.stats.empty()) {
      nettwin::WriteTextFile<std::runtime_error>(common.stats, StatsJson(r, common.engine_name()));
    }
  } catch (const std::exception& e) {
    return InputError("naa", e, "");
  }
  const CmCounters& c = r.last.cm;
  std::printf(
      "naa: %zu client frames, %zu endpoint frames (%u CM, %u responder, %u requester), CM %u connects, %u rejects, "
      "%u disconnects, state %s, requester %u completed ok / %u failed, controller %u events (%u MRSP, %u RPC, "
      "%llu dropped), %llu cycles\n",
      packets.size(), r.run.out.size(), c.responses, r.last.rdma.responses, r.last.req.cnt[params::kNaaReqCntSent],
      c.connects, c.rejects, c.disconnects, ConnName(c.conn), r.last.req.cnt[params::kNaaReqCntCplOk],
      r.last.req.cnt[params::kNaaReqCntCplRetry] + r.last.req.cnt[params::kNaaReqCntCplRemote] +
          r.last.req.cnt[params::kNaaReqCntCplFlushed],
      r.last.ctl.events, r.last.ctl.requests, r.last.ctl.rpcs,
      static_cast<unsigned long long>(NaaDropped(r.last.ctl)),
      static_cast<unsigned long long>(r.run.cycles));
  std::ostringstream acc;
  acc << "frames in " << r.run.accounting.in << ", out " << r.run.accounting.out << ", dropped "
      << r.run.accounting.dropped << "; controller events " << r.last.ctl.events << " = " << r.last.ctl.requests
      << " MRSP + " << r.last.ctl.rpcs << " RPC + " << NaaDropped(r.last.ctl) << " dropped"
      << (CtlBalanced(r.last.ctl) ? "" : " (does not add up)");
  return RunExit("naa", r.mismatch_text, rc.opt, r.run, r.conservation_ok, acc.str(), argc, argv);
}

}  // namespace nettwin::naa
