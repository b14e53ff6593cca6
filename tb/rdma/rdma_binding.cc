#include "tb/rdma/rdma_binding.h"

namespace nettwin::rdma {

// For the harness's end-of-run test a request is "out" once it has been processed and the back end is idle
// again: while it is busy, the request in hand is not counted, and frames waiting in the receive ring are
// counted in but not out, so in != out + dropped until all are done.
tb::Accounting ResponderAccounting(const RdmaCounters& c, bool busy) {
  tb::Accounting a;
  a.in = c.packets_in;
  a.out = !busy || c.processed == 0 ? c.processed : c.processed - 1;
  for (uint32_t d : c.drops) a.dropped += d;
  return a;
}

tb::Accounting RdmaBinding::Account(const Out& o) { return ResponderAccounting(o.counters, o.busy); }

}  // namespace nettwin::rdma
