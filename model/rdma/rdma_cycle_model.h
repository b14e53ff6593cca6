// Cycle-accurate model of rtl/rdma/rdma_top.sv (docs/rdma-microarchitecture.md). Requests are received
// at one beat per cycle into a ring of kRxFrames frame buffers, the ICRC computed as the beats arrive. A
// front end takes one request at a time from the ring, checks it and issues its host reads and payload
// writes; every response goes through an in-flight queue of kInflight entries, which a back end answers in
// PSN order, each as soon as its read data is back:
//   front: Rx (parse) -> Lookup -> Check -> { WrDma | RdIssue | AtRead | AqIssue/AqWait } -> Rx, or from
//          WrDma / RdIssue / AtRead straight to Lookup with the next frame parsed ahead (ParseAhead)
//   atomic executor: Idle (computes the oldest queued atomic not yet executed) -> [AtWrite] -> AqWrite -> Idle
//   back:  Idle -> Send (one beat per cycle) -> Idle
// Receive WQEs are prefetched per QP into a ring of kWqeRing entries on chip (issue 25 item 2), by reads
// issued whenever the host-memory port is free; an atomic on the word of the youngest queued atomic takes
// that one's new value on chip instead of reading host memory (issue 25 item 3).
#pragma once

#include <array>
#include <cstdint>

#include "model/common/clocked_block.h"
#include "model/rdma/rdma_packet.h"
#include "model/rdma/rdma_types.h"

namespace nettwin::rdma {

// kLookup is Check's first cycle (the RTL registers its QP and MR lookups there), kCheck its second.
enum class State : uint8_t { kRx, kCheck, kWrDma, kRdIssue, kAtRead, kAqIssue, kAqWait, kLookup };
enum class BackState : uint8_t { kIdle, kSend };
enum class ExState : uint8_t { kIdle, kAtWrite, kAqWrite };

// Per-QP state the responder keeps (configuration plus what the traffic changes).
struct QpState {
  QpCfg cfg;
  QpQueuesCfg queues;
  uint32_t epsn = 0, msn = 0;
  bool nak_sent = false;
  bool w_open = false;
  uint64_t w_pa = 0;
  uint32_t w_remaining = 0;
  uint16_t aq_wr = 0;      // next AQ entry
  bool aq_lapped = false;  // the AQ wrapped since the QP entry was written
  std::array<uint32_t, kAqMaxGroups> grp_psn{};
  std::array<bool, kAqMaxGroups> grp_valid{};
  uint16_t rq_head = 0, cq_tail = 0;  // WQEs consumed, CQEs written
  uint16_t pf_iss = 0, pf_fill = 0;   // WQE prefetch: next WQE to read, next to arrive (rq_head <= fill <= iss)
  bool s_open = false;                // a multi-packet SEND is being received
  uint64_t s_addr = 0;                // where its next byte goes
  uint32_t w_dmalen = 0;              // DMA length of the open WRITE (its CQE byte count)
  uint32_t s_room = 0, s_total = 0, s_wr_id = 0;
};

// The most recent atomic results of a QP, on chip (issue 10 part A): a duplicate found here is answered
// without reading the AQ. Written with the AQE, in the same order; cleared when the QP is configured.
struct RecentAtomics {
  std::array<uint32_t, kRecent> psn{};
  std::array<uint64_t, kRecent> value{};
  std::array<bool, kRecent> valid{};
  int wr = 0;
  int Find(uint32_t p) const {
    for (int i = 0; i < kRecent; ++i) {
      if (valid[i] && psn[i] == p) return i;
    }
    return -1;
  }
};

// What Check decided for the buffered request.
// kWait: the request consumes a receive WQE that is posted but not prefetched yet; it waits in Check.
enum class JobKind : uint8_t { kDrop, kRespond, kNone, kWrite, kRead, kAtomic, kAtomicDup, kWait };
struct Job {
  JobKind kind = JobKind::kDrop;
  Drop drop = Drop::kNone;
  int qp = 0;
  bool ack = false;  // a WRITE answered with an ACK after its DMA
  uint64_t pa = 0;   // WRITE: host address of payload byte 0; READ: of the next segment; ATOMIC: the word
  uint32_t len = 0;  // READ: bytes still to read
  uint32_t mtu = 0;
  uint32_t npkts = 0, pkt = 0;  // READ: responses in all, the current one
  uint8_t opcode = 0;
  uint64_t swap = 0, compare = 0;
  uint32_t psn = 0;
  uint8_t grp = 0, grps_left = 0;  // AQ lookup: group being read, groups left to try (linear mode)
  // SEND last/only, WRITE with immediate: write a CQE after the payload.
  bool cqe = false;
  bool fwd = false;  // ATOMIC: its word is that of the atomic queued just before it: no host read
  uint32_t cqe_wr_id = 0, cqe_len = 0, imm = 0;
  uint8_t cqe_opcode = 0;
  uint16_t wqe = 0;  // index of the receive WQE this request consumes
  bool cqe_imm = false;
};

// An in-flight queue entry: a response waiting for its turn (and for its read data).
enum class PendKind : uint8_t { kRespond, kRead, kAtomic };
struct Pending {
  PendKind kind = PendKind::kRespond;
  int qp = 0;
  uint64_t pa = 0;  // READ: the segment's host address; ATOMIC: the word
  uint8_t opcode = 0;
  uint64_t swap = 0, compare = 0;  // ATOMIC: operands; swap holds the new value once computed
  uint32_t psn = 0;
  bool fwd = false;  // ATOMIC: the old value is the previous atomic's new value (on chip), no host read
  ResponseDesc desc;
};

// A receive WQE as the host wrote it (prefetched into the QP's ring).
struct Wqe {
  uint64_t addr = 0;
  uint32_t len = 0, wr_id = 0;
};

// A host read whose data is still to come (data returns in issue order): an in-flight entry's, or a WQE
// prefetch of `k` WQEs for QP `idx`.
struct ReadTag {
  bool pf = false;
  uint8_t idx = 0, k = 0;
};
constexpr int kTagFifo = (kInflight + kPfReads <= 32) ? 32 : (kInflight + kPfReads <= 64) ? 64 : 128;
// Cycles the RTL's slot divider (rtl/rdma/rdma_slot_div.sv) takes for x % n, one quotient bit a cycle.
constexpr int kSlotDivCycles = 16;

class RdmaCycleModel : public ClockedBlock<RdmaIn, RdmaOut> {
 public:
  void Reset() override;
  const RdmaOut& Eval(const RdmaIn& in) override;
  void Tick() override;
  State state() const { return state_; }
  BackState back_state() const { return back_; }

 private:
  void Check();
  Request ParseSlot() const;
  void ParseAhead();
  bool TableWrite() const;
  bool MayProceed() const;
  void Push(PendKind kind, uint64_t pa);
  int PrefetchQp() const;
  DmaRequest PrefetchDma() const;
  DmaRequest CqeDma() const;
  bool WqeReady(int qp) const;
  void ResetPrefetch(int qp, uint16_t at);
  void Back(bool ex_done_now, int n, const std::array<bool, kInflight>& done,
            const std::array<bool, kInflight>& executed);
  void Execute(bool dma_fire, int n, uint8_t rd, const std::array<bool, kInflight>& done,
               const std::array<bool, kInflight>& executed);
  int YoungestAtomic() const;
  bool Forwards() const;
  void Fill();
  int Inflight() const { return static_cast<uint8_t>(pq_wr_ - pq_rd_); }
  int Head() const { return pq_rd_ % kInflight; }
  void Receive();
  int Slot(uint8_t count) const { return count % kRxFrames; }
  void Release() { ++rx_rd_; }
  void Finish() {  // the front end is done with the request: free its ring slot
    Release();
    state_ = State::kRx;
  }
  void StartAqLookup(const QpState& q, uint32_t psn);
  ResponseDesc BaseDesc(const QpState& q) const;
  DmaRequest CurrentDma() const;
  DmaRequest BackDma() const;
  void AfterPayload();
  StreamPort ResponseBeat() const;
  int MrLookup(uint32_t rkey) const;

  RdmaIn in_;
  RdmaOut out_;
  State state_ = State::kRx;
  ResponderCfg resp_;
  std::array<QpState, kQps> qps_{};
  std::array<MrCfg, kMrs> mrs_{};
  std::array<RecentAtomics, kQps> recent_{};
  // Receive-WQE prefetch: per QP the ring (WQE i in slot i mod kWqeRing), its reads still outstanding and how
  // many of those to discard (issued before the QP or its RQ was rewritten); reads outstanding in all.
  std::array<std::array<Wqe, kWqeRing>, kQps> wqe_ring_{};
  std::array<uint8_t, kQps> pf_out_{}, pf_skip_{};
  // Per QP the cycles left before the RTL knows its RQ slot (pf_iss % rq_entries) or its CQ slot (cq_tail %
  // cq_entries) after a queues write left them to its divider (docs/rdma-microarchitecture.md "The
  // slot divider"); meanwhile no prefetch is offered for the QP, and a CQE to it waits with everything behind it.
  std::array<uint8_t, kQps> rq_div_{}, cq_div_{};
  int pf_total_ = 0;
  enum class DmaSrc : uint8_t { kNone, kBack, kCqe, kFront, kPrefetch };
  // The CQE of the last completed message, written at the next cycle the port is free (before any later
  // request's DMA): the front end does not spend a cycle on it.
  bool cq_pend_ = false;
  Job cq_job_;
  DmaSrc dma_src_ = DmaSrc::kNone;
  // The DMA request port is a valid/ready stream: a request offered and not taken is held, payload and
  // source (and a prefetch's QP), and offered again until it is taken; the sources wait for it meanwhile.
  bool held_ = false;
  DmaRequest held_req_;
  DmaSrc held_src_ = DmaSrc::kNone;
  int held_pf_qp_ = 0;
  // The atomic executor: its state, the entry it executes, which entries it has executed, and the value the
  // word of the atomic it computed last holds after it (forwarded to a following atomic on that word).
  ExState ex_ = ExState::kIdle;
  int ex_idx_ = 0;
  std::array<bool, kInflight> executed_{};
  uint64_t last_new_ = 0;
  // Receive ring: frames received / released (wrapping 8-bit counts; a frame's slot is its count mod
  // kRxFrames); per slot the beats, the frame length, the ICRC register and the received ICRC.
  struct RxSlot {
    std::array<Beat, kBufBeats> beats{};
    int len = 0;
    uint32_t crc = 0, icrc = 0;
  };
  std::array<RxSlot, kRxFrames> ring_{};
  uint8_t rx_wr_ = 0, rx_rd_ = 0;
  // The frame being received: beats, bytes, running ICRC, received ICRC, and from beat 0 where its ICRC
  // field starts and its IP family.
  int rx_nb_ = 0, rx_len_ = 0, rx_end_ = 0;
  uint32_t rx_crc_ = 0, rx_icrc_ = 0;
  bool rx_v6_ = false;
  Request req_;
  // The job and its response.
  Job job_;
  int wbeat_ = 0;  // WRITE: buffer beat of the next DMA write
  bool found_ = false;
  ResponseDesc desc_;
  // In-flight queue (written / answered counts, 8-bit wrapping; an entry's index is its count mod
  // kInflight), each entry with its read-data buffer, whether that data is complete, and the order in
  // which entries' host reads were issued (read data comes back in that order).
  std::array<Pending, kInflight> pq_{};
  std::array<std::array<Beat, kRspBeats>, kInflight> rbuf_{};
  std::array<bool, kInflight> done_{};
  std::array<ReadTag, kTagFifo> rtag_{};
  uint8_t pq_wr_ = 0, pq_rd_ = 0, rt_wr_ = 0, rt_rd_ = 0;
  int fill_beat_ = 0;
  BackState back_ = BackState::kIdle;
  int k_ = 0;          // response beat being sent
  uint32_t rcrc_ = IcrcSeed();  // ICRC register over the response beats sent so far
  RdmaCounters counters_;
  CqeEvent cqe_;  // registered: valid for the one cycle after the CQE write was accepted
};

}  // namespace nettwin::rdma
