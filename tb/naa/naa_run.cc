#include "tb/naa/naa_run.h"

#include "model/naa/naa_cycle_model.h"
#include "tb/naa/naa_binding.h"
#include "tb/naa/naa_rtl.h"

namespace nettwin::naa {
namespace {

std::unique_ptr<tb::HostMemory> MakeMemory(const NaaConfig& config, const NaaRunConfig& cfg) {
  auto mem = std::make_unique<tb::HostMemory>(cfg.mem, cfg.opt.clock_mhz);
  for (const rdma::MemInit& m : config.rdma.memory) mem->Write(m.pa, m.bytes.data(), m.bytes.size());
  return mem;
}

}  // namespace

NaaRunReport RunNaa(const NaaConfig& config, const std::vector<Packet>& packets, const NaaRunConfig& cfg,
                    const Gates& gates) {
  NaaRunReport rep;
  std::unique_ptr<tb::HostMemory> replay_memory;
  auto make_side = [&](bool replay) {
    std::unique_ptr<tb::HostMemory>& mem = replay ? replay_memory : rep.memory;
    mem = MakeMemory(config, cfg);
    return std::make_unique<NaaSide>(config.Writes(), mem.get(), gates);
  };
  const tb::ReplaySpec spec{"client frame", "endpoint frame", cfg.mismatch_trace};
  auto b = tb::RunBlock<NaaBinding, NaaSide>(
      cfg.engine, [] { return MakeNaaRtl(); }, [] { return std::make_unique<NaaCycleModel>(); }, make_side, packets,
      cfg.opt, spec);
  rep.run = std::move(b.run);
  rep.last = b.last;
  rep.mismatch_text = std::move(b.mismatch_text);
  const tb::Accounting acc = NaaBinding::Account(rep.last);
  rep.conservation_ok = !rep.run.hang && !rep.run.mismatch && acc.in == packets.size() && acc.Drained() &&
                        rep.last.rdma.responses + rep.last.cm.responses + rep.last.req.cnt[params::kNaaReqCntSent] ==
                             rep.run.out.size() &&
                        CtlBalanced(rep.last.ctl);
  return rep;
}

}  // namespace nettwin::naa
