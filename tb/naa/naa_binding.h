// How naa plugs into the generic harness: the responder's ports and comparison plus the CM's counters; the
// side channel is the responder's (configuration writes, SystemC host memory).
#pragma once

#include <optional>

#include "model/naa/naa_types.h"
#include "tb/common/harness.h"
#include "tb/rdma/rdma_binding.h"

namespace nettwin::naa {

struct NaaBinding {
  using In = NaaIn;
  using Out = NaaOut;
  static StreamPort* Source(In* in) { return &in->s; }
  static bool SourceReady(const Out& o) { return o.s_ready; }
  static void SetSinkReady(In* in, bool r) { in->m_ready = r; }
  static bool SinkReady(const In& in) { return in.m_ready; }
  static const StreamPort& Sink(const Out& o) { return o.m; }
  static std::optional<tb::SignalDiff> Compare(const Out& rtl, const Out& model);
  static tb::Accounting Account(const Out& o);
};

using NaaSide = rdma::HostSide<NaaOut>;

}  // namespace nettwin::naa
