#include "tb/naa/naa_binding.h"

namespace nettwin::naa {

// The responder's accounting (a request in its back end is not yet out) plus the CM's: a CM frame is out
// once it is processed (its response sent, its QP writes done) or counted as a drop; and the requester's.
tb::Accounting NaaBinding::Account(const Out& o) {
  tb::Accounting a = rdma::ResponderAccounting(o.rdma, o.busy);
  a.in += o.cm.packets_in;
  a.out += o.cm.processed;
  for (uint32_t d : o.cm.drops) a.dropped += d;
  // The requester's ACK/NAK frames: processed or dropped once taken in.
  a.in += o.req.packets_in;
  a.out += o.req.processed;
  for (uint32_t d : o.req.drops) a.dropped += d;
  return a;
}

}  // namespace nettwin::naa
