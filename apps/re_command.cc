// `nettwin re`: the EJFAT reassembly engine's golden model on a pcap of LB output for one compute node.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "apps/commands.h"
#include "model/common/pcap.h"
#include "model/re/re_model.h"

namespace nettwin::re {
namespace {

constexpr const char* kHelp =
    "usage: nettwin re --config re.txt --in segments.pcap --out events.pcap [--report report.json]\n"
    "  --config  `contexts N`, `buffer_bytes N`, `timeout_us T` lines (defaults 16, 65536, 1000)\n"
    "  --in      the LB's output for one compute node (UDP + RE header segments, any order)\n"
    "  --out     one frame per completed event (EtherType 0x88B5, 12-byte header, the event's bytes)\n"
    "  --report  JSON: counters, drops by reason, every completed and every incomplete event\n"
    "The engine is the packet-at-a-time golden model; the RTL is not written yet (docs/re.md).\n";

std::string Report(const ReModel& m) {
  std::ostringstream j;
  const ReCounters& c = m.counters();
  j << "{\n  \"engine\": \"fast\",\n  \"segments_in\": " << c.segments_in
    << ",\n  \"segments_used\": " << c.segments_used << ",\n  \"events_completed\": " << c.events_completed
    << ",\n  \"events_timed_out\": " << c.events_timed_out << ",\n  \"drops\": {";
  for (int d = 0; d < kNumDrops; ++d) j << (d ? ", " : "") << "\"" << DropName(d) << "\": " << c.drops[d];
  j << "},\n  \"events\": [";
  for (size_t i = 0; i < m.events().size(); ++i) {
    const ReEvent& e = m.events()[i];
    j << (i ? ",\n    " : "\n    ") << "{\"tick16\": " << e.tick16 << ", \"data_id\": " << e.data_id
      << ", \"length\": " << e.data.size() << ", \"segments\": " << e.segments << "}";
  }
  j << "],\n  \"incomplete\": [";
  for (size_t i = 0; i < m.timeouts().size(); ++i) {
    const ReTimeout& t = m.timeouts()[i];
    j << (i ? ",\n    " : "\n    ") << "{\"tick16\": " << t.tick16 << ", \"data_id\": " << t.data_id
      << ", \"received_bytes\": " << t.received_bytes << ", \"segments\": " << t.segments
      << ", \"length\": " << (t.end_known ? std::to_string(t.length) : "null")
      << ", \"at_end_of_input\": " << (t.at_end_of_input ? "true" : "false") << "}";
  }
  j << "]\n}\n";
  return j.str();
}

}  // namespace
}  // namespace nettwin::re

int ReCommand(int argc, char** argv) {
  using namespace nettwin;
  using namespace nettwin::re;
  std::string config, in, out, report;
  ReConfig cfg;
  std::vector<Packet> segs;
  try {
    const bool run = ForEachOption(argc, argv, kHelp, [&](const std::string& o, const auto& val) {
      if (o == "--config")
        config = val();
      else if (o == "--in")
        in = val();
      else if (o == "--out")
        out = val();
      else if (o == "--report")
        report = val();
      else
        throw std::invalid_argument("unknown option '" + o + "'");
    });
    if (!run) return 0;
    if (in.empty() || out.empty()) throw std::invalid_argument("--in and --out are required");
  } catch (const std::invalid_argument& e) {
    std::cerr << "nettwin re: " << e.what() << "\n" << kHelp;
    return 2;
  }
  try {
    if (!config.empty()) {
      std::ifstream f(config);
      if (!f) throw std::runtime_error(config + ": cannot open");
      std::stringstream ss;
      ss << f.rdbuf();
      cfg = ParseReConfig(ss.str(), config);
    }
    segs = ReadPcap(in);
  } catch (const std::exception& e) {
    std::cerr << "nettwin re: " << e.what() << "\n";
    return 2;
  }
  ReModel m(cfg);
  for (const Packet& p : segs) m.Push(p);
  m.Finish();
  std::vector<Packet> events;
  for (const ReEvent& e : m.events()) events.push_back(EventFrame(e));
  try {
    WritePcap(out, events);
    if (!report.empty()) {
      std::ofstream r(report);
      r << Report(m);
      if (!r) throw std::runtime_error(report + ": write failed");
    }
  } catch (const std::exception& e) {
    std::cerr << "nettwin re: " << e.what() << "\n";
    return 2;
  }
  const ReCounters& c = m.counters();
  uint64_t dropped = 0;
  for (uint64_t d : c.drops) dropped += d;
  std::printf("re fast: %llu segments in, %llu used, %llu dropped; %llu events completed, %llu incomplete\n",
              static_cast<unsigned long long>(c.segments_in), static_cast<unsigned long long>(c.segments_used),
              static_cast<unsigned long long>(dropped), static_cast<unsigned long long>(c.events_completed),
              static_cast<unsigned long long>(c.events_timed_out));
  if (c.segments_in != c.segments_used + dropped) {
    std::cerr << "nettwin re: CONSERVATION FAILED\n";
    return 1;
  }
  return 0;
}
