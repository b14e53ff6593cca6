// Cycle model of rtl/naa/naa_dma_arb.sv: kMasters DMA masters share the host-memory port. One request per
// cycle is granted round robin, starting after the master granted last; a request offered and not taken
// keeps the grant until it is taken; read ids wait in a FIFO so the
// in-order response beats go back to the master that asked (popped on the last beat); a read waits while
// the FIFO is full.
#pragma once

#include <array>
#include <cstdint>

#include "model/common/dma.h"
#include "nt_params.h"

namespace nettwin::naa {

class DmaArb {
 public:
  static constexpr int kMasters = static_cast<int>(params::kNaaDmaMasters);
  static constexpr int kDepth = static_cast<int>(params::kNaaDmaIdDepth);

  // This cycle's decision from the masters' requests (their valid does not depend on their ready).
  void Eval(const std::array<DmaRequest, kMasters>& req, bool mem_ready, const DmaResponse& mem_rsp);
  void Tick();
  const DmaRequest& MemRequest() const { return out_; }
  bool Ready(int master) const { return ready_[master]; }
  // The memory's response beat as master `master` sees it (valid only for the master at the FIFO's head;
  // from the state alone, so a master may take it before the arbiter's Eval).
  DmaResponse Response(int master, const DmaResponse& mem_rsp) const;

 private:
  int last_ = 0;
  std::array<uint8_t, kDepth> ids_{};
  uint32_t wr_ = 0, rd_ = 0;
  int grant_ = 0;
  // A request offered and not taken keeps the grant until it is taken (the port is a valid/ready stream).
  bool locked_ = false;
  DmaRequest out_;
  bool mem_ready_ = false;
  DmaResponse rsp_;
  std::array<bool, kMasters> ready_{};
};

}  // namespace nettwin::naa
