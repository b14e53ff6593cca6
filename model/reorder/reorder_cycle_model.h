// Cycle-accurate model of rtl/reorder/reorder_top.sv (docs/reorder-microarchitecture.md). Same ports
// (ReorderIn/ReorderOut), same stages, same ready/valid behaviour; lockstep compares every output every
// cycle. Stages:
//   I  ingress: a one-beat lookahead register; a beat leaves it with the 4 bytes of its successor that
//      the CW-header removal pulls in, and a first beat with the 128-byte window the parser needs; the
//      NIC frame is written, one 64-byte cell per beat, into the shared buffer (cells linked in a list)
//   D  decision, once per complete packet, over two cycles: D1 takes the packet (and its flow entry) into
//      the D2 register; D2: flow table, epoch compare, hold / forward / release, queue allocation (4-way),
//      buffer limit, control requests
//   T  resume timer: one queue's deadline compared per cycle, round robin
//   R  reader: walks the cells of the packet or released queue at the head of the output FIFO
//   C  control generator: builds RTT_REPLY / NOTIFY / CLEAR from a mirrored header
// Each stage reads only the state registered at the last edge (Decide, Read, Control, Ingest compute what
// D, R, C and I do this cycle); Tick() then applies all updates at once, in the order the RTL's counters
// document.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "model/common/clocked_block.h"
#include "model/reorder/reorder_frame.h"
#include "model/reorder/reorder_types.h"

namespace nettwin::reorder {

class ReorderCycleModel : public ClockedBlock<ReorderIn, ReorderOut> {
 public:
  ReorderCycleModel();
  void Reset() override;
  const ReorderOut& Eval(const ReorderIn& in) override;
  void Tick() override;

 private:
  enum class QState : uint8_t { kFree, kHolding, kReleased };
  struct Flow {
    bool valid = false;
    std::array<uint8_t, kKeyBytes> key{};
    uint8_t epoch = 0;
    bool tail_seen = true;   // the TAIL of epoch - 1 has arrived: this epoch's rerouted packets need not wait
    bool tail_next = false;  // the TAIL of epoch itself has arrived (before any packet of epoch + 1)
    bool hq_valid = false;
    uint8_t hq = 0;
    bool owd_cur_valid = false, owd_old_valid = false;
    uint16_t owd_cur = 0, owd_old = 0;
    uint16_t last_us = 0;
  };
  struct Queue {
    QState state = QState::kFree;
    uint16_t owner = 0;  // flow-table index
    uint16_t head = 0, tail = 0;
    uint16_t count = 0;  // packets in the queue
    uint16_t cells = 0;  // cells of held packets (the buffer limit counts these)
    uint16_t deadline = 0;
    bool v6 = false;
    uint8_t clear_epoch = 0;
    std::array<uint8_t, kHdrBytes> hdr{};
  };
  struct Pending {  // a complete packet waiting for the decision
    bool valid = false;
    bool bad = false;  // malformed (headers, length or size)
    CwMeta meta;
    uint16_t head = 0, tail = 0, cells = 0;
    uint16_t len = 0;  // fabric frame length
  };
  struct OutEntry {
    bool queue = false;    // a released queue (else one packet)
    bool discard = false;  // a dropped packet: free its cells, send nothing
    uint16_t ref = 0;      // queue number or head cell
  };
  struct CtrlReq {
    std::array<uint8_t, kHdrBytes> hdr{};
    bool v6 = false;
    uint8_t mask = 0;  // bit 0 RTT_REPLY, bit 1 NOTIFY, bit 2 CLEAR
    uint8_t clear_epoch = 0;
  };
  struct Info {
    bool held = false;
    uint16_t t_us = 0;  // decision time
  };
  template <class T, int N>
  struct Fifo {
    std::array<T, N> mem{};
    int rd = 0, count = 0;
    bool Full() const { return count == N; }
    int Free() const { return N - count; }
    const T& Front() const { return mem[rd]; }
  };
  // What the decision stage does this cycle.
  struct Decision {
    bool fire = false;
    bool flow_write = false;
    uint16_t flow_idx = 0;
    Flow flow;
    enum class QOp { kNone, kAlloc, kAppend, kTailRelease } qop = QOp::kNone;
    uint8_t q = 0;
    bool held = false;  // the packet is held (alloc / append to a holding queue)
    bool collision = false, fallback = false, epoch_jump = false;
    bool push = false;
    OutEntry entry;
    bool ctrl = false;
    CtrlReq req;
    uint16_t deadline = 0;
  };

  // What the reader (R) does this cycle, and its next registers.
  struct ReaderStep {
    bool adv = false;  // the host port's register takes a new value
    bool emit = false, free = false, pop = false, qpop = false, qdone = false;
    Beat beat;
    bool held = false;
    uint16_t hold = 0, free_cell = 0;
    bool busy = false, queue = false, discard = false, first = false;
    uint16_t cell = 0;
    uint8_t q = 0;
  };
  // What the control generator (C) does this cycle.
  struct CtrlStep {
    bool adv = false, pop_a = false, pop_b = false;
    StreamPort c;  // the control port's next value (when adv)
    bool busy = false;
    CtrlReq req;
    uint8_t beat = 0;
    CtrlFrame frame;
  };
  // What the ingress (I) does this cycle.
  struct IngressStep {
    bool go = false;  // the lookahead beat is processed
    bool write = false, from_fifo = false, link = false, pend = false;
    uint16_t cell = 0;
    Beat beat;
    Pending pend_rec;
    bool skip = false;
    CwMeta meta;
    uint16_t head = 0, prev = 0, cells = 0;
  };

  // D is two cycles (docs/reorder-microarchitecture.md "Decision in two cycles"): D1 takes the pending
  // packet into the D2 register (with the clock of that cycle, which the whole decision uses); D2 decides.
  struct DStage {
    bool valid = false;
    Pending p;
    uint16_t now = 0;
  };
  bool D2Fire() const;
  bool D1Take(bool d2_fire) const;
  Decision Decide() const;
  ReaderStep Read(const Decision& d) const;
  CtrlStep Control() const;
  IngressStep Ingest(bool dec_fire) const;

  ReorderIn in_;
  ReorderOut out_;
  // I
  bool h_valid_ = false;
  Beat h_beat_;
  uint8_t h_idx_ = 0, in_idx_ = 0;
  bool skip_ = false;  // the rest of this packet writes nothing
  CwMeta meta_;
  uint16_t ip_head_ = 0, ip_prev_ = 0, ip_cells_ = 0;
  Pending pend_;
  DStage d2_;
  // buffer
  std::vector<Beat> cell_;
  std::vector<uint16_t> next_;
  std::vector<Info> info_;
  uint16_t fresh_ = 0;
  std::vector<uint16_t> free_;
  int free_rd_ = 0, free_count_ = 0;
  // D / T
  std::vector<Flow> flow_;
  std::array<Queue, kQueues> q_{};
  Fifo<OutEntry, kOutFifo> of_;
  uint8_t scan_q_ = 0;
  // R
  bool rd_busy_ = false, rd_queue_ = false, rd_discard_ = false, rd_first_ = false;
  uint16_t rd_cell_ = 0;
  uint8_t rd_q_ = 0;
  bool rd_held_ = false;
  uint16_t rd_hold_ = 0;
  StreamPort m_;
  bool m_held_ = false;
  uint16_t m_hold_ = 0;
  // C
  Fifo<CtrlReq, kCtrlFifo> ca_;  // from the decision
  Fifo<CtrlReq, kQueues> cb_;    // CLEARs of drained queues
  bool cg_busy_ = false;
  CtrlReq cg_req_;
  uint8_t cg_beat_ = 0;
  CtrlFrame cg_frame_;
  StreamPort c_;
  ReorderCounters cnt_;
};

}  // namespace nettwin::reorder
