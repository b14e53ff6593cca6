// nettwin: one CLI, one subcommand per block.
#include <cstdio>
#include <cstring>
#include <string>

#include "apps/commands.h"
#include "nt_version.h"

namespace {

void Usage() {
  std::fprintf(stderr,
               "usage: nettwin <command> [options]     (nettwin --version: the build's commit)\n"
               "commands:\n"
               "  lb    EJFAT load balancer: --tables runsim.txt --in packets_in.pcap --out packets_out.pcap\n"
               "        (nettwin lb --help for all options)\n"
               "  lb-plan  EJFAT epoch planner: --tables current.txt --members members.txt --boundary TICK\n"
               "        --out switch.txt --cleanup-out cleanup.txt (nettwin lb-plan --help; udplb program:\n"
               "        --program udplb --lb-id N, nettwin lb-plan --program udplb --help)\n"
               "  rdma  RoCEv2 responder: --config responder.txt --in requests.pcap --out responses.pcap\n"
               "  rdma-latency  the atomic retransmit latency scenario (--clock-mhz 900 --json)\n"
               "  reorder  ConWeave destination-ToR reorder queue: --config reorder.txt --in arrivals.pcap\n"
               "        --out delivered.pcap --ctrl-out control.pcap (nettwin reorder --help for all options)\n"
               "  reroute  ConWeave source-ToR rerouting module: --in hosts.pcap [--ctrl-in control.pcap]\n"
               "        --out fabric.pcap (nettwin reroute --help for all options)\n"
               "  cwloop  ConWeave closed loop: hosts -> source ToR -> fabric -> destination ToR -> hosts,\n"
               "        control back through the fabric: --out-dir DIR (nettwin cwloop --help; the old name cw-loop\n"
               "        is still accepted)\n"
               "  re    EJFAT reassembly engine (RTL and cycle model in lockstep; --engine fast: the golden\n"
               "        model): --config re.txt --in segments.pcap --out events.pcap --report report.json\n"
               "        (nettwin re --help)\n"
               "  vnic  OPA VNIC Ethernet over 16B: --config vnic.txt --direction encap|decap --in X.pcap\n"
               "        --out Y.pcap (nettwin vnic --help for all options)\n"
               "  naa   NAAICE accelerator endpoint (CM + RoCEv2 responder): --config naa.txt --in client.pcap\n"
               "        --out server.pcap (nettwin naa --help for all options)\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    Usage();
    return argc < 2 ? 2 : 0;
  }
  SetProgramPath(argv[0]);
  const std::string cmd = argv[1];
  if (cmd == "--version" || cmd == "-V" || cmd == "version") {
    std::printf("nettwin %s\n", NT_VERSION);
    return 0;
  }
  if (cmd == "lb") return nettwin::lb::LbCommand(argc - 1, argv + 1);
  if (cmd == "lb-plan") return nettwin::lb::LbPlanCommand(argc - 1, argv + 1);
  if (cmd == "rdma") return nettwin::rdma::RdmaCommand(argc - 1, argv + 1);
  if (cmd == "rdma-latency") return nettwin::rdma::RdmaLatencyCommand(argc - 1, argv + 1);
  if (cmd == "reorder") return nettwin::reorder::ReorderCommand(argc - 1, argv + 1);
  if (cmd == "reroute") return nettwin::reroute::RerouteCommand(argc - 1, argv + 1);
  // cw-loop: the old name of cwloop.
  if (cmd == "cwloop" || cmd == "cw-loop") return nettwin::reroute::CwloopCommand(argc - 1, argv + 1);
  if (cmd == "re") return nettwin::re::ReCommand(argc - 1, argv + 1);
  if (cmd == "vnic") return nettwin::vnic::VnicCommand(argc - 1, argv + 1);
  if (cmd == "naa") return nettwin::naa::NaaCommand(argc - 1, argv + 1);
  std::fprintf(stderr, "nettwin: unknown command '%s'\n", cmd.c_str());
  Usage();
  return 2;
}
