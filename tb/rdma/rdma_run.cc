#include "tb/rdma/rdma_run.h"

#include "model/rdma/rdma_cycle_model.h"
#include "tb/rdma/rdma_binding.h"
#include "tb/rdma/rdma_rtl.h"

namespace nettwin::rdma {
namespace {

std::unique_ptr<tb::HostMemory> MakeMemory(const RdmaConfig& config, const RdmaRunConfig& cfg) {
  auto mem = std::make_unique<tb::HostMemory>(cfg.mem, cfg.opt.clock_mhz);
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
  RecordingSide(std::vector<CfgWrite> writes, tb::HostMemory* memory) : RdmaSide(std::move(writes), memory) {}
  void Observe(uint64_t cycle, const RdmaIn& in, const RdmaOut& out) override {
    RdmaSide::Observe(cycle, in, out);
    if (out.cqe.valid) cqes_.push_back(out.cqe);
  }
  std::vector<CqeEvent>& cqes() { return cqes_; }

 private:
  std::vector<CqeEvent> cqes_;
};

}  // namespace

RdmaRunReport RunRdma(const RdmaConfig& config, const std::vector<Packet>& packets, const RdmaRunConfig& cfg) {
  RdmaRunReport rep;
  std::unique_ptr<tb::HostMemory> replay_memory;
  auto make_side = [&](bool replay) {
    std::unique_ptr<tb::HostMemory>& mem = replay ? replay_memory : rep.memory;
    mem = MakeMemory(config, cfg);
    return std::make_unique<RecordingSide>(Writes(config, cfg), mem.get());
  };
  const tb::ReplaySpec spec{"request", "response", cfg.mismatch_trace};
  auto b = tb::RunBlock<RdmaBinding, RecordingSide>(
      cfg.engine, [] { return std::make_unique<RdmaRtl>(); }, [] { return std::make_unique<RdmaCycleModel>(); },
      make_side, packets, cfg.opt, spec);
  rep.run = std::move(b.run);
  rep.counters = b.last.counters;
  rep.cqes = std::move(b.side->cqes());
  rep.mismatch_text = std::move(b.mismatch_text);
  uint64_t dropped = 0;
  for (uint32_t d : rep.counters.drops) dropped += d;
  rep.conservation_ok = !rep.run.hang && !rep.run.mismatch && rep.counters.packets_in == packets.size() &&
                        rep.counters.packets_in == rep.counters.processed + dropped &&
                        rep.counters.responses == rep.run.out.size();
  return rep;
}

}  // namespace nettwin::rdma
