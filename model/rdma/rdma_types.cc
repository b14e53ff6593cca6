#include "model/rdma/rdma_types.h"

namespace nettwin::rdma {

// Programming-port layouts (docs/rdma-microarchitecture.md).
CfgData Encode(const ResponderCfg& c) {
  CfgData d;
  d.SetBit(0, c.has_ip4);
  d.SetBit(1, c.has_ip6);
  d.SetBit(2, c.aq_linear);
  d.Set(3, 48, c.mac);
  d.Set(51, 32, c.ip4);
  d.Set128(83, c.ip6);
  return d;
}
ResponderCfg DecodeResponder(const CfgData& d) {
  ResponderCfg c;
  c.has_ip4 = d.Bit(0);
  c.has_ip6 = d.Bit(1);
  c.aq_linear = d.Bit(2);
  c.mac = d.Get(3, 48);
  c.ip4 = static_cast<uint32_t>(d.Get(51, 32));
  c.ip6 = d.Get128(83);
  return c;
}
CfgData Encode(const QpCfg& c) {
  CfgData d;
  d.SetBit(0, c.valid);
  d.Set(1, 24, c.qpn);
  d.Set(25, 24, c.dest_qp);
  d.Set(49, 24, c.epsn);
  d.Set(73, 4, c.mtu_log2);
  d.Set(77, 16, c.max_rd_atomic);
  d.Set(93, 64, c.aq);
  d.Set(157, 4, c.aq_groups);
  return d;
}
QpCfg DecodeQp(const CfgData& d) {
  QpCfg c;
  c.valid = d.Bit(0);
  c.qpn = static_cast<uint32_t>(d.Get(1, 24));
  c.dest_qp = static_cast<uint32_t>(d.Get(25, 24));
  c.epsn = static_cast<uint32_t>(d.Get(49, 24));
  c.mtu_log2 = static_cast<uint8_t>(d.Get(73, 4));
  c.max_rd_atomic = static_cast<uint16_t>(d.Get(77, 16));
  c.aq = d.Get(93, 64);
  c.aq_groups = static_cast<uint8_t>(d.Get(157, 4));
  return c;
}
CfgData Encode(const MrCfg& c) {
  CfgData d;
  d.SetBit(0, c.valid);
  d.Set(1, 32, c.rkey);
  d.Set(33, 64, c.va);
  d.Set(97, 40, c.len);
  d.Set(137, 64, c.pa);
  d.SetBit(201, c.r);
  d.SetBit(202, c.w);
  d.SetBit(203, c.a);
  return d;
}
MrCfg DecodeMr(const CfgData& d) {
  MrCfg c;
  c.valid = d.Bit(0);
  c.rkey = static_cast<uint32_t>(d.Get(1, 32));
  c.va = d.Get(33, 64);
  c.len = d.Get(97, 40);
  c.pa = d.Get(137, 64);
  c.r = d.Bit(201);
  c.w = d.Bit(202);
  c.a = d.Bit(203);
  return c;
}

CfgData Encode(const QpQueuesCfg& c) {
  CfgData d;
  d.SetBit(0, c.valid);
  d.Set(1, 64, c.rq);
  d.Set(65, 16, c.rq_entries);
  d.Set(81, 16, c.rq_posted);
  d.Set(97, 64, c.cq);
  d.Set(161, 16, c.cq_entries);
  d.Set(177, 5, c.rnr_timer);
  return d;
}
QpQueuesCfg DecodeQpQueues(const CfgData& d) {
  QpQueuesCfg c;
  c.valid = d.Bit(0);
  c.rq = d.Get(1, 64);
  c.rq_entries = static_cast<uint16_t>(d.Get(65, 16));
  c.rq_posted = static_cast<uint16_t>(d.Get(81, 16));
  c.cq = d.Get(97, 64);
  c.cq_entries = static_cast<uint16_t>(d.Get(161, 16));
  c.rnr_timer = static_cast<uint8_t>(d.Get(177, 5));
  return c;
}

}  // namespace nettwin::rdma
