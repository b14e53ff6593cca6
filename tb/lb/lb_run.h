// Runs the load balancer on a script and a list of frames with a chosen engine; shared by the CLI, the
// tests and the benchmarks.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/common/packet.h"
#include "model/common/pcap.h"
#include "model/lb/lb_script.h"
#include "model/lb/lb_types.h"
#include "tb/common/harness.h"
#include "tb/common/run_block.h"

namespace nettwin::lb {

using tb::Engine;  // lb and udplb also have kFast: the packet-at-a-time model
using tb::EngineName;

struct LbRunConfig {
  Engine engine = Engine::kLockstep;
  tb::RunOptions opt;
  std::string mismatch_trace = "lb_mismatch.fst";  // FST written around a divergence
  uint64_t trace_window = 64;                      // cycles before the divergence kept in it
};

struct LbRunReport {
  tb::RunResult run;
  LbCounters counters;
  std::vector<int> out_reason;  // fast engine: per input frame, 0 = forwarded, else the drop reason
  std::string mismatch_text;    // empty when RTL and model agreed
  std::string fast_mismatch;    // non-empty if the packet-at-a-time model disagrees with the cycle engine
  bool conservation_ok = false;
  // Cycle engines: cycles from each forwarded frame's first beat in to its first beat out.
  uint64_t latency_min = 0, latency_max = 0;
  double latency_mean = 0;
  // Frames per latency in cycles; bounded by the latency range, not by the capture (the regression plots it).
  std::map<uint64_t, uint64_t> latency_histogram;
};

// Fills a cycle engine's latency figures (latency_min, _max, _mean, _histogram) of `rep` (an LbRunReport or
// udplb's report): cycles from each sent frame's first beat in to its first beat out. `fate` is the packet
// engine's per input frame, 0 = sent; frames leave in input order, so the k-th output is the k-th sent
// input. Leaves the figures alone when the counts disagree.
template <class Report>
void FillLatency(const std::vector<int>& fate, Report* rep) {
  std::vector<size_t> sent;
  for (size_t i = 0; i < fate.size(); ++i) {
    if (fate[i] == 0) sent.push_back(i);
  }
  if (sent.size() != rep->run.out_first_cycle.size()) return;
  double sum = 0;
  for (size_t k = 0; k < sent.size(); ++k) {
    const uint64_t l = rep->run.out_first_cycle[k] - rep->run.in_first_cycle[sent[k]];
    rep->latency_min = k == 0 ? l : std::min(rep->latency_min, l);
    rep->latency_max = std::max(rep->latency_max, l);
    ++rep->latency_histogram[l];
    sum += static_cast<double>(l);
  }
  rep->latency_mean = sent.empty() ? 0 : sum / static_cast<double>(sent.size());
}

// How the packet engine's output frames (`fast`) differ from the cycle engine's (`cycle`): their number
// ("NAME SENDS n frames, cycle engine m") or the first frame k for which same(k) is false ("output frame #k
// differs between NAME and cycle engine"); "" when they agree. lb's and udplb's cross-check.
template <class Same>
std::string FrameDifference(const std::vector<Packet>& fast, const std::vector<Packet>& cycle, const std::string& name,
                            const std::string& sends, const Same& same) {
  if (fast.size() != cycle.size()) {
    return name + " " + sends + " " + std::to_string(fast.size()) + " frames, cycle engine " +
           std::to_string(cycle.size());
  }
  for (size_t k = 0; k < fast.size(); ++k) {
    if (!same(k)) return "output frame #" + std::to_string(k) + " differs between " + name + " and cycle engine";
  }
  return "";
}

LbRunReport RunLb(const std::vector<Segment>& script, const std::vector<Packet>& packets, const LbRunConfig& cfg);

// The fast engine on a capture of any size: reads, decides and writes one frame at a time, so memory does not
// grow with the capture. Fills counters, in/out beats and conservation_ok (no cycle figures, no out frames).
// Throws PcapError on a bad input record or a failed write.
LbRunReport RunLbStream(const std::vector<Segment>& script, PcapReader* in, PcapWriter* out);

}  // namespace nettwin::lb
