#include "tb/vnic/vnic_run.h"

#include <memory>

#include "model/vnic/vnic_config.h"
#include "model/vnic/vnic_cycle_model.h"
#include "tb/vnic/vnic_binding.h"
#include "tb/vnic/vnic_rtl.h"

namespace nettwin::vnic {

VnicRunReport RunVnic(const Tables& tables, const std::vector<Packet>& packets, const std::vector<uint8_t>& in_ports,
                      const VnicRunConfig& rc) {
  const bool enc = rc.dir == Direction::kEncap;
  const tb::ReplaySpec spec{enc ? "Ethernet frame" : "16B packet", enc ? "16B packet" : "frame",
                            rc.mismatch_trace};
  auto b = tb::RunBlock<VnicBinding, VnicSide>(
      rc.engine, [&] { return MakeVnicRtl(rc.dir); }, [&] { return std::make_unique<VnicCycleModel>(rc.dir); },
      [&](bool) { return std::make_unique<VnicSide>(ConfigWrites(tables), in_ports); }, packets, rc.opt, spec);
  VnicRunReport rep;
  rep.run = std::move(b.run);
  rep.counters = b.last.cnt;
  rep.out_ports = b.side->out_ports();
  rep.mismatch_text = std::move(b.mismatch_text);
  const tb::Accounting acc{rep.counters.in, rep.counters.out, VnicDropped(rep.counters)};
  rep.conservation_ok = !rep.run.mismatch && !rep.run.hang && acc.in == packets.size() && acc.Drained() &&
                        rep.run.out.size() == rep.counters.out;
  return rep;
}

}  // namespace nettwin::vnic
