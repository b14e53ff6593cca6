#include "tb/rdma/rdma_binding.h"

#include <string>

namespace nettwin::rdma {
namespace {

using tb::HexValue;

std::string Dma(const DmaRequest& d) {
  if (!d.valid) return "idle";
  std::string s =
      std::string(d.write ? "write" : "read") + " addr " + HexValue(d.addr) + " len " + std::to_string(d.len);
  if (d.write) s += " off " + std::to_string(d.off);
  return s;
}

}  // namespace

std::optional<tb::SignalDiff> RdmaBinding::Compare(const Out& r, const Out& m) {
  auto diff = [](std::string sig, uint64_t a, uint64_t b) {
    return tb::SignalDiff{std::move(sig), HexValue(a), HexValue(b)};
  };
  if (r.s_ready != m.s_ready) return diff("s_ready_o", r.s_ready, m.s_ready);
  if (r.busy != m.busy) return diff("busy_o", r.busy, m.busy);
  if (!(r.m == m.m)) return tb::DiffStream("m", r.m, m.m);  // tb/common/compare.h: the one message format
  if (!(r.dma_req == m.dma_req)) {
    std::string sig = "dma_req_*";
    if (r.dma_req.valid && m.dma_req.valid && r.dma_req.write && Dma(r.dma_req) == Dma(m.dma_req)) {
      for (int i = 0; i < kDmaBeatBytes; ++i) {
        if (r.dma_req.data[i] != m.dma_req.data[i]) {
          return diff("dma_req_data_o byte " + std::to_string(i) + " of " + Dma(r.dma_req), r.dma_req.data[i],
                      m.dma_req.data[i]);
        }
      }
    }
    return tb::SignalDiff{sig, Dma(r.dma_req), Dma(m.dma_req)};
  }
  const RdmaCounters &a = r.counters, &b = m.counters;
  if (a.packets_in != b.packets_in) return diff("cnt_packets_in_o", a.packets_in, b.packets_in);
  if (a.processed != b.processed) return diff("cnt_processed_o", a.processed, b.processed);
  if (a.responses != b.responses) return diff("cnt_responses_o", a.responses, b.responses);
  for (int i = 0; i < kNumDrops; ++i) {
    if (a.drops[i] != b.drops[i]) return diff(std::string("cnt_drops_o[") + DropName(i) + "]", a.drops[i], b.drops[i]);
  }
  if (a.acks != b.acks) return diff("cnt_acks_o", a.acks, b.acks);
  if (a.naks != b.naks) return diff("cnt_naks_o", a.naks, b.naks);
  if (a.atomics != b.atomics) return diff("cnt_atomics_o", a.atomics, b.atomics);
  if (a.atomic_replays != b.atomic_replays) return diff("cnt_replays_o", a.atomic_replays, b.atomic_replays);
  if (a.dma_reads != b.dma_reads) return diff("cnt_dma_reads_o", a.dma_reads, b.dma_reads);
  if (a.dma_writes != b.dma_writes) return diff("cnt_dma_writes_o", a.dma_writes, b.dma_writes);
  if (a.cqes != b.cqes) return diff("cnt_cqes_o", a.cqes, b.cqes);
  return CompareCqe(r.cqe, m.cqe);
}

std::optional<tb::SignalDiff> CompareCqe(const CqeEvent& r, const CqeEvent& m) {
  if (r == m) return std::nullopt;
  auto show = [](const CqeEvent& c) {
    if (!c.valid) return std::string("none");
    return "wr_id " + HexValue(c.wr_id) + " len " + std::to_string(c.len) + " imm " + HexValue(c.imm) + " qpn " +
           HexValue(c.qpn) + " opcode " + std::to_string(c.opcode) + " psn " + HexValue(c.psn);
  };
  return tb::SignalDiff{"cqe_valid_o/cqe_o", show(r), show(m)};
}

// For the harness's end-of-run test a request is "out" once it has been processed and the back end is idle
// again: while it is busy, the request in hand is not counted, and frames waiting in the receive ring are
// counted in but not out, so in != out + dropped until all are done.
tb::Accounting RdmaBinding::Account(const Out& o) {
  tb::Accounting a;
  a.in = o.counters.packets_in;
  a.out = !o.busy || o.counters.processed == 0 ? o.counters.processed : o.counters.processed - 1;
  for (uint32_t d : o.counters.drops) a.dropped += d;
  return a;
}

}  // namespace nettwin::rdma
