#include "tb/rdma/rdma_binding.h"

#include "rdma_compare.h"

namespace nettwin::rdma {

// Every output in rdma.json's order (generated, docs/blockgen.md).
std::optional<tb::SignalDiff> RdmaBinding::Compare(const Out& r, const Out& m) { return CompareRdmaOut(r, m); }

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
