#include "tb/naa/naa_run.h"

#include <sstream>

#include "model/naa/naa_model.h"
#include "tb/naa/naa_binding.h"
#include "tb/naa/naa_rtl.h"

namespace nettwin::naa {
namespace {

std::unique_ptr<tb::HostMemory> MakeMemory(const NaaConfig& config, const NaaRunConfig& cfg) {
  auto mem = std::make_unique<tb::HostMemory>(cfg.MemTiming(), cfg.opt.clock_mhz);
  for (const rdma::MemInit& m : config.rdma.memory) mem->Write(m.pa, m.bytes.data(), m.bytes.size());
  return mem;
}

}  // namespace

NaaRunReport RunNaa(const NaaConfig& config, const std::vector<Packet>& packets, const NaaRunConfig& cfg,
                    const Gates& gates) {
  NaaRunReport rep;
  rep.memory = MakeMemory(config, cfg);
  std::unique_ptr<tb::RtlBlock<NaaIn, NaaOut>> rtl;
  std::unique_ptr<NaaModel> model;
  if (cfg.engine != Engine::kModel) rtl = MakeNaaRtl();
  if (cfg.engine != Engine::kRtl) model = std::make_unique<NaaModel>();
  tb::Harness<NaaBinding> h(rtl.get(), model.get());
  NaaSide side(config.Writes(), rep.memory.get(), gates);
  rep.run = h.Run(packets, &side, cfg.opt);
  rep.last = h.last_out();
  if (rep.run.mismatch) {
    const tb::Mismatch& m = *rep.run.mismatch;
    std::ostringstream os;
    os << tb::MismatchReport(m, "client frame", "endpoint frame");
    if (!cfg.mismatch_trace.empty() && cfg.opt.trace_path.empty()) {
      auto rtl2 = MakeNaaRtl();
      NaaModel model2;
      tb::Harness<NaaBinding> replay(rtl2.get(), &model2);
      auto mem2 = MakeMemory(config, cfg);
      NaaSide side2(config.Writes(), mem2.get(), gates);
      const tb::RunOptions o = tb::ReplayAround(cfg.opt, m, cfg.mismatch_trace);
      replay.Run(packets, &side2, o);
      os << "  waveform of cycles " << o.trace_from << ".." << m.cycle << ": " << cfg.mismatch_trace << "\n";
    }
    rep.mismatch_text = os.str();
  }
  const tb::Accounting acc = NaaBinding::Account(rep.last);
  rep.conservation_ok = !rep.run.hang && !rep.run.mismatch && acc.in == packets.size() && acc.Drained() &&
                        rep.last.rdma.responses + rep.last.cm.responses + rep.last.req[params::kNaaReqCntSent] ==
                             rep.run.out.size() &&
                        rep.last.ctl.Balanced();
  return rep;
}

}  // namespace nettwin::naa
