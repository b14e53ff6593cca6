// `nettwin vnic`: OPA VNIC encapsulation (Ethernet pcap -> 16B pcap on DLT_USER0) or decapsulation (16B pcap
// -> Ethernet pcap), with the RTL, the cycle model, or both in lockstep.
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "apps/commands.h"
#include "model/common/file_io.h"
#include "model/common/pcap.h"
#include "model/common/text_lines.h"
#include "model/vnic/vnic_config.h"
#include "tb/vnic/vnic_run.h"
#include "vnic_counter_stats.h"  // NOLINT(build/include_subdir): generated

namespace nettwin::vnic {
namespace {

constexpr const char* kHelp =
    "usage: nettwin vnic --config vnic.txt --direction encap|decap --in X.pcap --out Y.pcap\n"
    "                    [--engine model|rtl|lockstep] [--stats stats.json] [--trace wave.fst]\n"
    "                    [--port N | --ports in_ports.txt] [--ports-out out_ports.txt]\n"
    "                    [--gaps P] [--backpressure P] [--seed N] [--clock-mhz 250]\n"
    "  --config FILE   the VNIC's configuration (docs/vnic.md); --direction encap or decap (required).\n"
    "  --engine E      model, rtl or lockstep (default lockstep: both, compared every cycle).\n"
    "  --stats FILE    counters as JSON; --trace FILE: FST of the RTL (rtl, lockstep; default none).\n"
    "  --gaps P, --backpressure P  input idle / output not ready in a random fraction P of cycles\n"
    "                  (0..0.99, default 0); --seed N: their seed (default 1); --clock-mhz F (default 250).\n"
    "  encap: --in is Ethernet (link type 1), --out is OPA 16B packets on DLT_USER0 (147); each frame's VNIC\n"
    "         port is --port (default 0) or the matching line of --ports (one port number per frame).\n"
    "  decap: --in is DLT_USER0 16B packets, --out Ethernet; --ports-out gets each delivered frame's port.\n"
    "  Exit status: 0 ok, 1 lockstep mismatch / hang / accounting failure, 2 bad usage or input.\n";

std::vector<uint8_t> LoadPorts(const std::string& path, size_t frames) {
  const std::string text = ReadTextFile<std::runtime_error>(path);
  std::vector<uint8_t> ports;
  TextLines lines(text);
  while (lines.Next()) {
    const std::vector<std::string>& w = lines.words();
    if (w.empty()) continue;
    const int n = lines.number();
    if (w.size() > 1) throw std::runtime_error(TokenMessage(path, n, w[1], "one port per line"));
    const std::string& tok = w[0];
    if (tok.find_first_not_of("0123456789") != std::string::npos || tok.size() > 3 || std::stoi(tok) >= kPorts) {
      throw std::runtime_error(TokenMessage(path, n, tok, "port must be 0.." + std::to_string(kPorts - 1)));
    }
    ports.push_back(static_cast<uint8_t>(std::stoi(tok)));
  }
  if (ports.size() != frames) {
    throw std::runtime_error(path + ": " + std::to_string(ports.size()) + " ports for " + std::to_string(frames) +
                             " frames");
  }
  return ports;
}

std::string StatsJson(const VnicRunReport& r, Direction dir, const char* engine) {
  const Counters& c = r.counters;
  return RunStatsJson(engine, r, [&](std::ostream& j) {
    j << "  \"direction\": \"" << (dir == Direction::kEncap ? "encap" : "decap") << "\",\n";
    WriteVnicCounterStats(j, c, dir);  // generated from rtl/vnic/data/vnic.json
  });
}

}  // namespace

int VnicCommand(int argc, char** argv) {
  std::string config_path, ports_in, ports_out, direction;
  int port = -1;
  CommonOptions common(kOptBlockRun | kOptGaps);
  VnicRunConfig rc;
  Tables tables;
  std::vector<Packet> packets;
  std::vector<uint8_t> in_ports;
  const std::string help = std::string(kHelp) + kInjectHelp;
  try {
    const bool run = ForEachOption(argc, argv, help.c_str(), [&](const std::string& o, const auto& val) {
      if (common.Parse(o, val)) return;
      if (o == "--config") config_path = val();
      else if (o == "--direction") direction = val();
      else if (o == "--ports") ports_in = val();
      else if (o == "--ports-out") ports_out = val();
      else if (o == "--port") port = static_cast<int>(ParseNumber(o, val(), 0, kPorts - 1));
      else throw std::invalid_argument("unknown option '" + o + "'");
    });
    if (!run) return 0;
    common.Check();
    RequireOptions(
        {{"--config", &config_path}, {"--direction", &direction}, {"--in", &common.in}, {"--out", &common.out}});
    if (direction == "encap") rc.dir = Direction::kEncap;
    else if (direction == "decap") rc.dir = Direction::kDecap;
    else throw std::invalid_argument("--direction must be encap or decap, got '" + direction + "'");
    if (rc.dir == Direction::kDecap && (port >= 0 || !ports_in.empty())) {
      throw std::invalid_argument("--port and --ports are for encap (decap takes the port from the veswid)");
    }
    if (port >= 0 && !ports_in.empty()) throw std::invalid_argument("--port and --ports exclude each other");
    tables = LoadConfig(config_path);
    packets = ReadPcap(common.in, nullptr, rc.dir == Direction::kEncap ? kLinkEthernet : kLinkUser0);
    if (!ports_in.empty()) in_ports = LoadPorts(ports_in, packets.size());
    else in_ports.assign(packets.size(), static_cast<uint8_t>(port < 0 ? 0 : port));
  } catch (const std::exception& e) {
    return InputError("vnic", e, help);
  }
  common.Configure(&rc);
  const VnicRunReport r = RunVnic(tables, packets, in_ports, rc);
  try {
    CaptureFormat fmt;
    fmt.link_type = rc.dir == Direction::kEncap ? kLinkUser0 : kLinkEthernet;
    WritePcap(common.out, r.run.out, fmt);
    if (!ports_out.empty()) {
      std::string text;
      for (uint8_t v : r.out_ports) text += std::to_string(v) + "\n";
      WriteTextFile<std::runtime_error>(ports_out, text);
    }
    if (!common.stats.empty()) {
      WriteTextFile<std::runtime_error>(common.stats, StatsJson(r, rc.dir, common.engine_name()));
    }
  } catch (const std::exception& e) {
    return InputError("vnic", e, "");
  }
  const Counters& c = r.counters;
  std::printf("vnic %s: %zu in, %u out, %llu dropped", direction.c_str(), packets.size(), c.out,
              static_cast<unsigned long long>(VnicDropped(c)));
  for (int i = 0; i < kNumReasons; ++i) {
    const char* name = VnicReasonName(rc.dir, i);  // null: not a drop reason of this direction
    if (name != nullptr && c.drops[static_cast<size_t>(i)]) std::printf(" %s=%u", name, c.drops[static_cast<size_t>(i)]);
  }
  std::printf(", %llu cycles\n", static_cast<unsigned long long>(r.run.cycles));
  return RunExit("vnic", r.mismatch_text, rc.opt, r.run, r.conservation_ok,
                 "in " + std::to_string(c.in) + ", out " + std::to_string(c.out) + ", dropped " +
                     std::to_string(VnicDropped(c)),
                 argc, argv);
}

}  // namespace nettwin::vnic
