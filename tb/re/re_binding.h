// How the reassembly engine plugs into the generic harness: its stream ports, the comparison of every
// output (stream, report port, busy, every counter), its segment accounting (in = used + dropped), and the
// side channel that drives each frame's arrival time and the configuration, collects the report port and
// raises flush once every frame is in.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/common/packet.h"
#include "model/re/re_cycle_model.h"
#include "tb/common/harness.h"

namespace nettwin::re {

struct ReBinding {
  using In = ReIn;
  using Out = ReOut;
  static StreamPort* Source(In* in) { return &in->s; }
  static bool SourceReady(const Out& o) { return o.s_ready; }
  static void SetSinkReady(In* in, bool r) { in->m_ready = r; }
  static bool SinkReady(const In& in) { return in.m_ready; }
  static const StreamPort& Sink(const Out& o) { return o.m; }
  static std::optional<tb::SignalDiff> Compare(const Out& rtl, const Out& model);
  static tb::Accounting Account(const Out& o) { return tb::Accounting{o.cnt.in, o.cnt.used, o.cnt.Dropped()}; }
};

// The configuration inputs. The RTL's limits are its parameters: contexts <= ReContexts, buffer_bytes <=
// ReBufBytes (the golden model allows more; ReStaticError says why a configuration does not fit).
struct ReStatic {
  uint32_t contexts = 16, buffer_bytes = params::kReBufBytes;
  uint64_t timeout_ns = 1000000;
  HeaderFormat format = HeaderFormat::kEvio6;
  uint8_t version = 0;
  LbHeaderMode lb_header = LbHeaderMode::kSkip;
};
std::string ReStaticError(const ReStatic& s);

class ReSide : public tb::SideChannel<ReIn, ReOut> {
 public:
  ReSide(const std::vector<Packet>* packets, ReStatic cfg) : packets_(packets), cfg_(cfg) {}
  bool Drive(uint64_t cycle, size_t next_packet, const tb::Accounting& acc, ReIn* in) override;
  void Observe(uint64_t cycle, const ReIn& in, const ReOut& out) override;
  bool Busy() const override { return !flushed_ || busy_; }
  const std::vector<ReReport>& reports() const { return reports_; }

 private:
  const std::vector<Packet>* packets_;
  ReStatic cfg_;
  bool flushed_ = false, busy_ = true;
  std::vector<ReReport> reports_;
};

}  // namespace nettwin::re
