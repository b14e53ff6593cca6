#include "tb/rdma/rdma_run.h"

#include <sstream>

#include "model/rdma/rdma_model.h"
#include "tb/rdma/rdma_binding.h"
#include "tb/rdma/rdma_rtl.h"

namespace nettwin::rdma {
namespace {

std::unique_ptr<tb::HostMemory> MakeMemory(const RdmaConfig& config, const RdmaRunConfig& cfg) {
  auto mem = std::make_unique<tb::HostMemory>(cfg.MemTiming(), cfg.opt.clock_mhz);
  for (const MemInit& m : config.memory) mem->Write(m.pa, m.bytes.data(), m.bytes.size());
  return mem;
}

std::vector<CfgWrite> Writes(RdmaConfig config, const RdmaRunConfig& cfg) {
  if (cfg.aq_linear) config.responder.aq_linear = true;
  return config.Writes();
}

// The host side, also recording the completion events.
class RecordingSide : public RdmaSide {
 public:
  RecordingSide(std::vector<CfgWrite> writes, tb::HostMemory* memory, std::vector<CqeEvent>* cqes)
      : RdmaSide(std::move(writes), memory), cqes_(cqes) {}
  void Observe(uint64_t cycle, const RdmaIn& in, const RdmaOut& out) override {
    RdmaSide::Observe(cycle, in, out);
    if (out.cqe.valid) cqes_->push_back(out.cqe);
  }

 private:
  std::vector<CqeEvent>* cqes_;
};

}  // namespace

RdmaRunReport RunRdma(const RdmaConfig& config, const std::vector<Packet>& packets, const RdmaRunConfig& cfg) {
  RdmaRunReport rep;
  rep.memory = MakeMemory(config, cfg);
  std::unique_ptr<RdmaRtl> rtl;
  std::unique_ptr<RdmaModel> model;
  if (cfg.engine != Engine::kModel) rtl = std::make_unique<RdmaRtl>();
  if (cfg.engine != Engine::kRtl) model = std::make_unique<RdmaModel>();
  tb::Harness<RdmaBinding> h(rtl.get(), model.get());
  RecordingSide side(Writes(config, cfg), rep.memory.get(), &rep.cqes);
  rep.run = h.Run(packets, &side, cfg.opt);
  rep.counters = h.last_out().counters;
  if (rep.run.mismatch) {
    const tb::Mismatch& m = *rep.run.mismatch;
    std::ostringstream os;
    os << tb::MismatchReport(m, "request", "response");
    if (!cfg.mismatch_trace.empty() && cfg.opt.trace_path.empty()) {
      RdmaRtl rtl2;
      RdmaModel model2;
      tb::Harness<RdmaBinding> replay(&rtl2, &model2);
      auto mem2 = MakeMemory(config, cfg);
      RdmaSide side2(Writes(config, cfg), mem2.get());
      const tb::RunOptions o = tb::ReplayAround(cfg.opt, m, cfg.mismatch_trace);
      replay.Run(packets, &side2, o);
      os << "  waveform of cycles " << o.trace_from << ".." << m.cycle << ": " << cfg.mismatch_trace << "\n";
    }
    rep.mismatch_text = os.str();
  }
  uint64_t dropped = 0;
  for (uint32_t d : rep.counters.drops) dropped += d;
  rep.conservation_ok = !rep.run.hang && !rep.run.mismatch && rep.counters.packets_in == packets.size() &&
                        rep.counters.packets_in == rep.counters.processed + dropped &&
                        rep.counters.responses == rep.run.out.size();
  return rep;
}

}  // namespace nettwin::rdma
