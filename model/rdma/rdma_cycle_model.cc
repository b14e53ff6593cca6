#include "model/rdma/rdma_cycle_model.h"

#include <algorithm>

#include "model/common/bytes.h"

namespace nettwin::rdma {
namespace {

constexpr uint32_t kHalfPsn = 1u << 23;

bool IsWrite(uint8_t o) { return o >= op::kWriteFirst && o <= op::kWriteOnlyImm; }
bool IsResponse(uint8_t o) { return o >= op::kReadRspFirst && o <= op::kAtomicAck; }
bool IsAtomic(uint8_t o) { return o == op::kCompareSwap || o == op::kFetchAdd; }
bool IsSend(uint8_t o) { return o <= op::kSendOnlyImm; }

}  // namespace

void RdmaCycleModel::Reset() { *this = RdmaCycleModel(); }

int RdmaCycleModel::MrLookup(uint32_t rkey) const {
  for (int i = 0; i < kMrs; ++i) {
    if (mrs_[i].valid && mrs_[i].rkey == rkey) return i;
  }
  return -1;
}

ResponseDesc RdmaCycleModel::BaseDesc(const QpState& q) const {
  ResponseDesc d;
  d.v6 = req_.v6;
  d.dst_mac = req_.src_mac;
  d.src_mac = resp_.mac;
  d.dst_ip4 = req_.src_ip4;
  d.src_ip4 = resp_.ip4;
  d.dst_ip6 = req_.src_ip6;
  d.src_ip6 = resp_.ip6;
  d.sport = req_.sport;
  d.dqpn = q.cfg.dest_qp;
  d.psn = req_.psn;
  d.opcode = op::kAck;
  d.syndrome = syndrome::kAck;
  d.msn = q.msn;
  return d;
}

void RdmaCycleModel::StartAqLookup(const QpState& q, uint32_t psn) {
  const int n = q.cfg.aq_groups;
  const uint32_t dp = (q.epsn - psn) & kPsnMask;
  int best = -1, valid = 0;
  uint32_t best_ds = 0;
  for (int g = 0; g < n; ++g) {
    if (!q.grp_valid[g]) continue;
    ++valid;
    const uint32_t ds = (q.epsn - q.grp_psn[g]) & kPsnMask;
    if (ds >= dp && (best < 0 || ds < best_ds)) {
      best = g;
      best_ds = ds;
    }
  }
  // Older than every group start: after the AQ wrapped, the oldest results still kept are the tail of the
  // group being overwritten now. Before it wrapped (since the QP entry was written) that tail holds nothing of
  // this QP's (an earlier QP's results at the same AQ address): no group.
  if (best < 0 && q.aq_lapped && q.grp_valid[q.aq_wr / kAqGroup]) best = q.aq_wr / kAqGroup;
  if (resp_.aq_linear && valid > 0) {
    // Oldest group first: the one the write pointer will overwrite next.
    int g = (q.aq_wr % kAqGroup == 0) ? q.aq_wr / kAqGroup : (q.aq_wr / kAqGroup + 1) % n;
    while (!q.grp_valid[g]) g = (g + 1) % n;
    job_.grp = static_cast<uint8_t>(g);
    job_.grps_left = static_cast<uint8_t>(valid);
    return;
  }
  job_.grp = static_cast<uint8_t>(best < 0 ? 0 : best);
  job_.grps_left = best < 0 ? 0 : 1;
}

// Whether this cycle's configuration write goes to the QP or the MR table (rdma_top's cfg_qp_wr, cfg_mr_wr).
bool RdmaCycleModel::TableWrite() const {
  const CfgWrite& w = in_.cfg;
  return w.valid && ((w.table == params::kRdmaTblQp && w.index < kQps) || (w.table == params::kRdmaTblMr && w.index < kMrs));
}

// The request of the oldest frame in the ring (complete: rx_wr_ != rx_rd_), parsed from its first two beats.
Request RdmaCycleModel::ParseSlot() const {
  const RxSlot& slot = ring_[Slot(rx_rd_)];
  uint8_t hdr[kHdrWindow] = {};
  std::copy(slot.beats[0].data.begin(), slot.beats[0].data.end(), hdr);
  std::copy(slot.beats[1].data.begin(), slot.beats[1].data.end(), hdr + kBeatBytes);
  return ParseRequest(hdr, slot.len, resp_);
}

// Parse ahead (the RTL's fin_dma / next_ok): in the tick that takes a request's last DMA and frees its slot
// (WrDma, RdIssue, AtRead; Finish() has run), the next frame, if complete at the cycle's start (Receive()
// runs after the front end) and not dropped, is parsed now and the front end goes straight to Lookup,
// saving the Rx cycle; a frame to drop is left to Rx, which parses it again and counts the drop.
void RdmaCycleModel::ParseAhead() {
  if (rx_wr_ == rx_rd_) return;
  const Request next = ParseSlot();
  if (next.drop != Drop::kNone) return;
  req_ = next;
  state_ = State::kLookup;
}

void RdmaCycleModel::Check() {
  const Request& r = req_;
  auto drop = [this](Drop d) {
    ++counters_.drops[static_cast<int>(d)];
    job_ = Job{};
    job_.kind = JobKind::kDrop;
    job_.drop = d;
  };
  const RxSlot& slot = ring_[Slot(rx_rd_)];
  if (~slot.crc != slot.icrc) return drop(Drop::kBadIcrc);
  if (r.opcode == op::kCnp) return drop(Drop::kCnp);  // congestion notification: nothing to answer
  int qi = -1;
  for (int i = kQps - 1; i >= 0; --i) {
    if (qps_[i].cfg.valid && qps_[i].cfg.qpn == r.dqpn) qi = i;
  }
  if (qi < 0) return drop(Drop::kUnknownQp);
  if (IsResponse(r.opcode)) return drop(Drop::kNotRequest);
  QpState& q = qps_[qi];
  const uint32_t d = (r.psn - q.epsn) & kPsnMask;
  const bool ahead = d != 0 && d < kHalfPsn, is_new = d == 0;
  if (ahead && q.nak_sent) return drop(Drop::kPsnAheadSilent);

  ++counters_.processed;
  job_ = Job{};
  job_.qp = qi;
  job_.psn = r.psn;
  job_.mtu = 1u << q.cfg.mtu_log2;
  desc_ = BaseDesc(q);
  auto respond = [this](uint8_t syn, uint32_t psn) {
    job_.kind = JobKind::kRespond;
    desc_.opcode = op::kAck;
    desc_.syndrome = syn;
    desc_.psn = psn;
    desc_.plen = 0;
    if (syn == syndrome::kAck) ++counters_.acks; else ++counters_.naks;
  };
  auto nak_new = [&](uint8_t syn) {
    respond(syn, r.psn);
    q.nak_sent = true;
  };
  if (ahead) {
    respond(syndrome::kPsnSeqErr, q.epsn);
    q.nak_sent = true;
    return;
  }
  if (is_new) q.nak_sent = false;

  // Memory-region check: 0 if fine, else the NAK syndrome (not made for zero-length READs and WRITEs: C9-88).
  auto mr_check = [&](uint32_t rkey, char right, uint64_t va, uint64_t len, uint64_t* pa) -> uint8_t {
    const int m = MrLookup(rkey);
    if (m < 0) return syndrome::kRemoteAccess;
    const MrCfg& mr = mrs_[m];
    const bool ok_right = (right == 'r' && mr.r) || (right == 'w' && mr.w) || (right == 'a' && mr.a);
    if (!ok_right) return syndrome::kRemoteAccess;
    if (va < mr.va || len > mr.len || va - mr.va > mr.len - len) return syndrome::kRemoteAccess;
    *pa = mr.pa + (va - mr.va);
    return 0;
  };
  const bool write = IsWrite(r.opcode), read = r.opcode == op::kReadRequest, atomic = IsAtomic(r.opcode);
  const bool send = IsSend(r.opcode);
  const bool first = r.opcode == op::kWriteFirst, middle = r.opcode == op::kWriteMiddle;
  const bool last = r.opcode == op::kWriteLast || r.opcode == op::kWriteLastImm;
  const bool write_imm = r.opcode == op::kWriteLastImm || r.opcode == op::kWriteOnlyImm;
  const bool s_first = r.opcode == op::kSendFirst, s_middle = r.opcode == op::kSendMiddle;
  const bool s_last = r.opcode == op::kSendLast || r.opcode == op::kSendLastImm;
  const bool s_imm = r.opcode == op::kSendLastImm || r.opcode == op::kSendOnlyImm;
  const uint32_t plen = static_cast<uint32_t>(r.plen);

  if (!is_new) {  // duplicates: never re-executed
    if (write || send) return respond(syndrome::kAck, r.psn);
    if (atomic) {
      desc_.opcode = op::kAtomicAck;
      StartAqLookup(q, r.psn);
      if (job_.grps_left == 0) return respond(syndrome::kInvalidRequest, r.psn);
      const int hit = recent_[qi].Find(r.psn);
      if (hit >= 0) {  // a recent result: answered from the chip, no AQ read
        job_.kind = JobKind::kRespond;
        desc_.atomic_value = recent_[qi].value[hit];
        ++counters_.atomic_replays;
        ++counters_.acks;
        return;
      }
      job_.kind = JobKind::kAtomicDup;
      return;
    }
  }
  // Validation (docs/rdma.md), first failure wins: 1 opcode sequence, 2 lengths, 3 memory region,
  // 4 atomic alignment, 5 responder resources. A duplicate READ is checked again from step 2.
  uint8_t syn = 0;
  uint64_t pa = 0;
  if (is_new) {
    const bool seq_ok = (middle || last) ? q.w_open : (s_middle || s_last) ? q.s_open : !(q.w_open || q.s_open);
    if (!seq_ok) syn = syndrome::kInvalidRequest;
  }
  if (!syn && is_new) {
    const bool full = first || middle || s_first || s_middle;  // all packets but the last carry one MTU
    if (plen > job_.mtu || (full && plen != job_.mtu)) syn = syndrome::kInvalidRequest;
    else if (first && plen > r.dmalen) syn = syndrome::kInvalidRequest;
    else if ((r.opcode == op::kWriteOnly || r.opcode == op::kWriteOnlyImm) && plen != r.dmalen) syn = syndrome::kInvalidRequest;
    else if (middle && plen > q.w_remaining) syn = syndrome::kInvalidRequest;
    else if (last && plen != q.w_remaining) syn = syndrome::kInvalidRequest;
    else if ((read || atomic) && plen != 0) syn = syndrome::kInvalidRequest;
  }
  if (!syn && read && r.dmalen > 0x80000000u) syn = syndrome::kInvalidRequest;
  // IBA C9-88: a zero-length READ or WRITE need not carry a valid R_Key or VA, so a failed check is ignored
  // (pa 0 then; no byte is moved). Linux rxe does the same (rxe_resp.c check_rkey).
  if (!syn && (read || (write && !(middle || last)))) {
    syn = mr_check(r.rkey, read ? 'r' : 'w', r.va, r.dmalen, &pa);
    if (r.dmalen == 0) syn = 0;
  }
  if (!syn && atomic) {
    syn = mr_check(r.rkey, 'a', r.va, 8, &pa);
    if (!syn && r.va % 8 != 0) syn = syndrome::kInvalidRequest;
  }
  if (!syn && is_new && (read || atomic) && q.cfg.max_rd_atomic == 0) syn = syndrome::kInvalidRequest;
  // Requests that consume a receive WQE need a receive queue, and a posted WQE (else RNR).
  if (!syn && (s_first || r.opcode == op::kSendOnly || r.opcode == op::kSendOnlyImm || write_imm)) {
    if (!q.queues.valid) syn = syndrome::kInvalidRequest;
    else if (q.rq_head == q.queues.rq_posted) syn = static_cast<uint8_t>(syndrome::kRnr | q.queues.rnr_timer);
  }
  if (!syn && (s_middle || s_last) && plen > q.s_room) syn = syndrome::kInvalidRequest;
  // The WQE comes from the QP's prefetch ring; posted but not there yet: wait for it (no RNR: it is posted).
  const bool takes_wqe = s_first || r.opcode == op::kSendOnly || r.opcode == op::kSendOnlyImm || write_imm;
  if (!syn && takes_wqe && !WqeReady(qi)) {
    job_.kind = JobKind::kWait;
    return;
  }
  const Wqe& wqe = wqe_ring_[qi][q.rq_head % kWqeRing];
  // SEND first/only: a payload longer than the WQE's buffer is NAKed, the WQE not consumed.
  if (!syn && (s_first || r.opcode == op::kSendOnly || r.opcode == op::kSendOnlyImm) && plen > wqe.len) {
    syn = syndrome::kInvalidRequest;
  }
  if (syn) return is_new ? nak_new(syn) : respond(syn, r.psn);

  job_.imm = r.imm;
  job_.wqe = q.rq_head;
  if (send) {
    job_.cqe_opcode = 0;
    job_.cqe_imm = s_imm;
    job_.ack = r.ackreq || !(s_first || s_middle);
    if (s_first) {  // the message stays open on this WQE
      job_.pa = wqe.addr;
      q.s_open = true;
      q.s_addr = wqe.addr + plen;
      q.s_room = wqe.len - plen;
      q.s_total = plen;
      q.s_wr_id = wqe.wr_id;
      q.epsn = (q.epsn + 1) & kPsnMask;
    } else if (!(s_middle || s_last)) {  // only
      job_.pa = wqe.addr;
      q.epsn = (q.epsn + 1) & kPsnMask;
      q.msn = (q.msn + 1) & kPsnMask;
      ++q.rq_head;
      job_.cqe = true;
      job_.cqe_wr_id = wqe.wr_id;
      job_.cqe_len = plen;
    } else {
      job_.pa = q.s_addr;
      q.epsn = (q.epsn + 1) & kPsnMask;
      q.s_addr += plen;
      q.s_room -= plen;
      q.s_total += plen;
    }
    if (s_last) {
      q.s_open = false;
      q.msn = (q.msn + 1) & kPsnMask;
      ++q.rq_head;
      job_.cqe = true;
      job_.cqe_wr_id = q.s_wr_id;
      job_.cqe_len = q.s_total;
    }
    desc_.msn = q.msn;
    if (job_.ack) ++counters_.acks;
    job_.kind = JobKind::kWrite;
    wbeat_ = r.hdr_len / kBeatBytes;
    return;
  }

  if (write) {
    if (middle || last) pa = q.w_pa;
    job_.pa = pa;
    q.epsn = (q.epsn + 1) & kPsnMask;
    if (first) q.w_dmalen = r.dmalen;
    if (first || middle) {
      q.w_open = true;
      q.w_pa = pa + plen;
      q.w_remaining = (first ? r.dmalen : q.w_remaining) - plen;
    } else {
      q.w_open = false;
      q.msn = (q.msn + 1) & kPsnMask;
    }
    if (write_imm) {  // consumes a receive WQE (for its wr_id) and completes
      ++q.rq_head;
      job_.cqe_wr_id = wqe.wr_id;
      job_.cqe = true;
      job_.cqe_opcode = 1;
      job_.cqe_imm = true;
      job_.cqe_len = r.opcode == op::kWriteOnlyImm ? r.dmalen : q.w_dmalen;
    }
    job_.ack = r.ackreq || !(first || middle);
    desc_.msn = q.msn;
    if (job_.ack) ++counters_.acks;
    job_.kind = JobKind::kWrite;
    wbeat_ = r.hdr_len / kBeatBytes;
    return;
  }
  if (read) {
    job_.kind = JobKind::kRead;
    job_.pa = pa;
    job_.len = r.dmalen;
    job_.npkts = std::max<uint32_t>(1, (r.dmalen + job_.mtu - 1) / job_.mtu);
    if (is_new) {
      q.epsn = (q.epsn + job_.npkts) & kPsnMask;
      q.msn = (q.msn + 1) & kPsnMask;
    }
    desc_.msn = q.msn;
    desc_.opcode = job_.npkts == 1 ? op::kReadRspOnly : op::kReadRspFirst;
    desc_.plen = static_cast<uint16_t>(std::min(job_.len, job_.mtu));
    return;
  }
  job_.kind = JobKind::kAtomic;
  job_.pa = pa;
  job_.opcode = r.opcode;
  job_.swap = r.swap;
  job_.compare = r.compare;
  q.epsn = (q.epsn + 1) & kPsnMask;
  q.msn = (q.msn + 1) & kPsnMask;
  desc_.opcode = op::kAtomicAck;
  desc_.msn = q.msn;
}

DmaRequest RdmaCycleModel::CurrentDma() const {
  DmaRequest d;
  const QpState& q = qps_[job_.qp];
  switch (state_) {
    case State::kWrDma: {
      const int base = wbeat_ * kBeatBytes;
      const int lo = std::max<int>(req_.hdr_len, base);
      const int hi = std::min<int>(req_.hdr_len + req_.plen, base + kBeatBytes);
      d.valid = true;
      d.write = true;
      d.off = static_cast<uint8_t>(lo - base);
      d.len = static_cast<uint16_t>(hi - lo);
      d.addr = job_.pa + static_cast<uint64_t>(lo - req_.hdr_len);
      d.data = ring_[Slot(rx_rd_)].beats[wbeat_].data;
      break;
    }
    case State::kRdIssue:  // each segment needs an in-flight entry for its data
      d.valid = Inflight() < kInflight;
      d.addr = job_.pa;
      d.len = static_cast<uint16_t>(std::min(job_.len, job_.mtu));
      break;
    case State::kAtRead:
      d.valid = true;
      d.addr = job_.pa;
      d.len = 8;
      break;
    case State::kAqIssue:
      d.valid = true;
      d.addr = q.cfg.aq + uint64_t{job_.grp} * kAqGroup * kAqeBytes;
      d.len = kAqGroup * kAqeBytes;
      break;
    default:
      break;
  }
  return d;
}

// The pending CQE's write (docs/rdma.md "Receive and completion queues").
DmaRequest RdmaCycleModel::CqeDma() const {
  DmaRequest d;
  if (!cq_pend_) return d;
  const Job& j = cq_job_;
  const QpState& q = qps_[j.qp];
  d.valid = true;
  d.write = true;
  d.addr = q.queues.cq + uint64_t{params::kRdmaCqeBytes} * (q.cq_tail % q.queues.cq_entries);
  d.len = params::kRdmaCqeBytes;
  uint8_t* c = d.data.data();
  for (int i = 0; i < 4; ++i) {
    c[i] = static_cast<uint8_t>(j.cqe_wr_id >> (8 * i));
    c[4 + i] = static_cast<uint8_t>(j.cqe_len >> (8 * i));
    c[12 + i] = static_cast<uint8_t>(q.cfg.qpn >> (8 * i));
    c[20 + i] = static_cast<uint8_t>(j.psn >> (8 * i));
  }
  if (j.cqe_imm) Store32(c + 8, j.imm);
  c[16] = j.cqe_opcode;
  c[17] = j.cqe_imm ? 1 : 0;
  return d;
}

// The atomic executor's writes: the new value, then the AQE.
DmaRequest RdmaCycleModel::BackDma() const {
  DmaRequest d;
  const Pending& e = pq_[ex_idx_];
  const QpState& q = qps_[e.qp];
  if (ex_ == ExState::kAtWrite) {
    d.valid = true;
    d.write = true;
    d.addr = e.pa;
    d.len = 8;
    StoreLe64(d.data.data(), e.swap);  // the new value, little-endian in host memory
  } else if (ex_ == ExState::kAqWrite) {
    d.valid = true;
    d.write = true;
    d.addr = q.cfg.aq + uint64_t{q.aq_wr} * kAqeBytes;
    d.len = kAqeBytes;
    Store32(d.data.data(), 0x80000000u | e.psn);
    StoreBe(d.data.data() + 8, 8, e.desc.atomic_value);
  }
  return d;
}

// What follows a request's payload writes: the CQE (into the one-entry CQE buffer, written at the next free
// port cycle), the ACK.
void RdmaCycleModel::AfterPayload() {
  if (job_.cqe) {
    cq_pend_ = true;
    cq_job_ = job_;
  }
  if (job_.ack) Push(PendKind::kRespond, 0);
  Finish();
}

// Whether the checked request may go on now, or must wait in Check (with no side effect):
//  - every response needs an in-flight entry;
//  - a request whose WQE is posted but not prefetched yet waits for it;
//  - the AQ lookup of a duplicate atomic waits for the queue to drain, so its read and the AQC it looks up
//    are not behind anything in flight;
//  - a request touching bytes of an atomic still in the queue waits for it (its write may still be to come),
//    and a CQE write waits while any atomic is queued (the CQ may lie in a region atomics reach);
//  - READs and atomics in the queue for the QP count against its max_rd_atomic.
bool RdmaCycleModel::MayProceed() const {
  const JobKind k = job_.kind;
  if (k == JobKind::kDrop || k == JobKind::kNone) return true;
  if (k == JobKind::kWait) return false;
  const int n = Inflight();
  if (n == kInflight) return false;
  // An atomic that is not executed now (a duplicate's AQ lookup, or its NAK when the lookup already missed)
  // is decided on an AQC that the atomics still in flight have not updated yet: it waits for them too.
  const bool drain = IsAtomic(req_.opcode) && k != JobKind::kAtomic;
  if (drain && n > 0) return false;
  const bool cqe = k == JobKind::kWrite && job_.cqe;
  const bool fwd = Forwards();  // an atomic on the word of the youngest queued atomic: forwarded, no wait
  if (cqe && cq_pend_) return false;  // the CQE buffer holds the previous message's CQE
  uint64_t lo = job_.pa, len = 0;
  if (k == JobKind::kWrite) len = static_cast<uint32_t>(req_.plen);
  if (k == JobKind::kRead) len = job_.len;
  if (k == JobKind::kAtomic) len = 8;
  int resources = 0;
  for (int i = 0; i < n; ++i) {
    const Pending& e = pq_[static_cast<uint8_t>(pq_rd_ + i) % kInflight];
    if (e.kind == PendKind::kAtomic && len > 0 && lo < e.pa + 8 && e.pa < lo + len && !fwd) return false;
    if (e.kind == PendKind::kAtomic && cqe) return false;
    if (e.kind != PendKind::kRespond && e.qp == job_.qp) ++resources;
  }
  const bool rd_atomic = k == JobKind::kRead || k == JobKind::kAtomic;
  return !(rd_atomic && resources > 0 && resources >= qps_[job_.qp].cfg.max_rd_atomic);
}

// The youngest atomic in the in-flight queue (its index), -1 if there is none.
int RdmaCycleModel::YoungestAtomic() const {
  for (int i = Inflight() - 1; i >= 0; --i) {
    const int idx = static_cast<uint8_t>(pq_rd_ + i) % kInflight;
    if (pq_[idx].kind == PendKind::kAtomic) return idx;
  }
  return -1;
}

// Whether the checked atomic takes its old value on chip: the youngest queued atomic is on its word, so the
// executor computes it just before this one (queue order) and its new value is this one's old value. Any
// other request on that word waits for the queued atomics, so nothing between them changes the word.
bool RdmaCycleModel::Forwards() const {
  if (job_.kind != JobKind::kAtomic) return false;
  const int y = YoungestAtomic();
  return y >= 0 && pq_[y].pa == job_.pa;
}

// Queues the front end's response (desc_) for the back end; an entry with a host read also takes the next
// read-data tag.
void RdmaCycleModel::Push(PendKind kind, uint64_t pa) {
  const int i = pq_wr_ % kInflight;
  Pending& e = pq_[i];
  e.kind = kind;
  e.qp = job_.qp;
  e.pa = pa;
  e.opcode = job_.opcode;
  e.swap = job_.swap;
  e.compare = job_.compare;
  e.psn = job_.psn;
  e.fwd = job_.fwd;
  e.desc = desc_;
  done_[i] = job_.fwd;  // a forwarded atomic reads nothing
  executed_[i] = false;
  if (kind != PendKind::kRespond && !job_.fwd) rtag_[rt_wr_++ % kTagFifo] = ReadTag{false, static_cast<uint8_t>(i), 0};
  ++pq_wr_;
}

// Receive-WQE prefetch (docs/rdma-microarchitecture.md "Receive-WQE prefetch"): the lowest QP with a posted
// WQE not yet read and room in its ring, while fewer than kPfReads prefetch reads are outstanding; -1 if none.
int RdmaCycleModel::PrefetchQp() const {
  if (pf_total_ >= kPfReads) return -1;
  for (int i = 0; i < kQps; ++i) {
    const QpState& q = qps_[i];
    if (!q.queues.valid || q.queues.rq_entries == 0 || rq_div_[i] != 0) continue;
    if (q.pf_iss < q.queues.rq_posted && static_cast<uint16_t>(q.pf_iss - q.rq_head) < kWqeRing) return i;
  }
  return -1;
}

// The prefetch read of that QP: up to one beat of consecutive WQEs, within the ring's room, the posted ones
// and the RQ's end (WQE i lives at rq + 16 * (i mod rq_entries)).
DmaRequest RdmaCycleModel::PrefetchDma() const {
  DmaRequest d;
  const int i = PrefetchQp();
  if (i < 0) return d;
  const QpState& q = qps_[i];
  const uint32_t slot = q.pf_iss % q.queues.rq_entries;
  uint32_t k = kWqesPerRead;
  k = std::min<uint32_t>(k, kWqeRing - static_cast<uint16_t>(q.pf_iss - q.rq_head));
  k = std::min<uint32_t>(k, q.queues.rq_posted - q.pf_iss);
  k = std::min<uint32_t>(k, q.queues.rq_entries - slot);
  d.valid = true;
  d.addr = q.queues.rq + uint64_t{params::kRdmaWqeBytes} * slot;
  d.len = static_cast<uint16_t>(params::kRdmaWqeBytes * k);
  return d;
}

bool RdmaCycleModel::WqeReady(int qp) const { return qps_[qp].pf_fill != qps_[qp].rq_head; }

// The QP entry or its RQ was rewritten: the ring starts again at WQE `at`, and the reads still outstanding
// for the QP are discarded when their data comes.
void RdmaCycleModel::ResetPrefetch(int qp, uint16_t at) {
  qps_[qp].pf_iss = at;
  qps_[qp].pf_fill = at;
  pf_skip_[qp] = pf_out_[qp];
}

StreamPort RdmaCycleModel::ResponseBeat() const {
  StreamPort p;
  const ResponseDesc& d = pq_[Head()].desc;
  const auto& rb = rbuf_[Head()];
  const ResponseShape s = Compose(d);
  const int base = k_ * kBeatBytes;
  const int data_end = s.len - 4;
  for (int i = 0; i < kBeatBytes && base + i < s.len; ++i) {
    const int pos = base + i;
    uint8_t b = 0;
    if (pos < s.hdr_len) b = s.hdr[pos];
    else if (pos < s.hdr_len + d.plen) b = rb[(pos - s.hdr_len) / kBeatBytes].data[(pos - s.hdr_len) % kBeatBytes];
    p.beat.data[i] = b;
  }
  const uint32_t icrc = ~IcrcBeat(rcrc_, p.beat.data.data(), base, 14, data_end, d.v6);
  for (int j = 0; j < 4; ++j) {
    const int pos = data_end + j;
    if (pos >= base && pos < base + kBeatBytes) p.beat.data[pos - base] = static_cast<uint8_t>(icrc >> (8 * j));
  }
  const int n = std::min(kBeatBytes, s.len - base);
  p.valid = true;
  p.beat.keep = KeepMask(n);
  p.beat.last = base + kBeatBytes >= s.len;
  return p;
}

// One beat into the ring, its ICRC computed now: beat 0 gives the IP family and the frame end (from the
// IP length) that the masks and the received-ICRC position need. Runs after the back end's step, which
// only reads slots that are complete.
void RdmaCycleModel::Receive() {
  if (!(in_.s.valid && out_.s_ready)) return;
  const Beat& b = in_.s.beat;
  RxSlot& slot = ring_[Slot(rx_wr_)];
  const bool first = rx_nb_ == 0;
  if (first) {
    ++counters_.packets_in;
    rx_v6_ = Load16(b.data.data() + 12) == 0x86DD;
    rx_end_ = rx_v6_ ? 54 + Load16(b.data.data() + 18) : 14 + Load16(b.data.data() + 16);
    rx_crc_ = IcrcSeed();
    rx_icrc_ = 0;
  }
  const int base = rx_nb_ * kBeatBytes;
  rx_crc_ = IcrcBeat(rx_crc_, b.data.data(), base, 14, rx_end_ - 4, rx_v6_);
  for (int j = 0; j < 4; ++j) {
    const int pos = rx_end_ - 4 + j;
    if (pos >= base && pos < base + kBeatBytes) {
      rx_icrc_ = (rx_icrc_ & ~(0xFFu << (8 * j))) | (uint32_t{b.data[pos - base]} << (8 * j));
    }
  }
  if (rx_nb_ < kBufBeats) slot.beats[rx_nb_] = b;
  rx_nb_ = std::min(rx_nb_ + 1, 255);  // the RTL's 8-bit beat count saturates
  rx_len_ += b.Bytes();
  if (!b.last) return;
  if (rx_nb_ > kBufBeats) {
    ++counters_.drops[static_cast<int>(Drop::kOverflow)];
  } else {
    slot.len = rx_len_;
    slot.crc = rx_crc_;
    slot.icrc = rx_icrc_;
    ++rx_wr_;
  }
  rx_nb_ = 0;
  rx_len_ = 0;
}

const RdmaOut& RdmaCycleModel::Eval(const RdmaIn& in) {
  in_ = in;
  out_.s_ready = static_cast<uint8_t>(rx_wr_ - rx_rd_) != kRxFrames;
  out_.busy = state_ != State::kRx || Inflight() > 0 || cq_pend_;
  out_.m = back_ == BackState::kSend ? ResponseBeat() : StreamPort{};
  // The back end's writes go first, then a pending CQE, then the front end's request, then a WQE prefetch (not while the front
  // end reads an AQ group: that data must be the next to come back once the tagged reads are in).
  // A CQE whose QP's CQ slot is being divided waits, and nothing but the back end's writes goes before it.
  const DmaRequest back = BackDma();
  const DmaRequest cq = cq_div_[cq_job_.qp] != 0 ? DmaRequest{} : CqeDma();
  const DmaRequest front = CurrentDma();
  const bool aq = state_ == State::kAqIssue || state_ == State::kAqWait;
  const DmaRequest pf = (back.valid || cq_pend_ || front.valid || aq) ? DmaRequest{} : PrefetchDma();
  dma_src_ = back.valid ? DmaSrc::kBack : cq_pend_ ? DmaSrc::kCqe : front.valid ? DmaSrc::kFront
           : pf.valid ? DmaSrc::kPrefetch : DmaSrc::kNone;
  out_.dma_req = back.valid ? back : cq_pend_ ? cq : front.valid ? front : pf;
  if (held_) {  // a request offered and not taken stays on the port until it is taken
    dma_src_ = held_src_;
    out_.dma_req = held_req_;
  }
  out_.counters = counters_;
  out_.cqe = cqe_;
  return out_;
}

// The atomic executor: takes the oldest queued atomic not executed yet once its word is in (read from host
// memory, or forwarded: the value the word holds after the atomic executed just before it), computes FAA /
// CAS, writes the new value and the AQE, updates the AQC and the recent results. Atomics execute in queue
// order, each while the back end may still be sending earlier responses. `n`, `rd`, `done`, `executed`: the
// queue as it was at the start of the cycle.
void RdmaCycleModel::Execute(bool dma_fire, int n, uint8_t rd, const std::array<bool, kInflight>& done,
                        const std::array<bool, kInflight>& executed) {
  switch (ex_) {
    case ExState::kIdle: {
      int x = -1;
      for (int i = 0; i < n && x < 0; ++i) {
        const int idx = static_cast<uint8_t>(rd + i) % kInflight;
        if (pq_[idx].kind == PendKind::kAtomic && !executed[idx]) x = idx;
      }
      if (x < 0 || !done[x]) break;
      Pending& e = pq_[x];
      const uint64_t old = e.fwd ? last_new_ : LoadLe64(rbuf_[x][0].data.data());
      e.desc.atomic_value = old;
      const bool write = e.opcode == op::kFetchAdd || old == e.compare;
      e.swap = e.opcode == op::kFetchAdd ? old + e.swap : e.swap;
      last_new_ = write ? e.swap : old;
      ex_idx_ = x;
      ex_ = write ? ExState::kAtWrite : ExState::kAqWrite;
      break;
    }
    case ExState::kAtWrite:
      if (dma_fire) ex_ = ExState::kAqWrite;
      break;
    case ExState::kAqWrite:
      if (dma_fire) {
        const Pending& e = pq_[ex_idx_];
        QpState& q = qps_[e.qp];
        const int g = q.aq_wr / kAqGroup;
        if (q.aq_wr % kAqGroup == 0) {
          q.grp_psn[g] = e.psn;
          q.grp_valid[g] = true;
        }
        if (q.aq_wr + 1 == q.cfg.aq_groups * kAqGroup) q.aq_lapped = true;
        q.aq_wr = static_cast<uint16_t>((q.aq_wr + 1) % (q.cfg.aq_groups * kAqGroup));
        RecentAtomics& rec = recent_[e.qp];
        rec.psn[rec.wr] = e.psn;
        rec.value[rec.wr] = e.desc.atomic_value;
        rec.valid[rec.wr] = true;
        rec.wr = (rec.wr + 1) % kRecent;
        ++counters_.atomics;
        ++counters_.acks;
        executed_[ex_idx_] = true;
        ex_ = ExState::kIdle;
      }
      break;
  }
}

// The back end: sends the head of the in-flight queue once it is ready (an ACK/NAK at once, a READ segment
// once its data is in, an atomic once executed, or in the cycle its AQE write is accepted). `n`, `done`,
// `executed`: the queue as it was at the start of the cycle (an entry the front end queues now is seen next
// cycle).
void RdmaCycleModel::Back(bool ex_done_now, int n, const std::array<bool, kInflight>& done,
                     const std::array<bool, kInflight>& executed) {
  const int h = Head();
  Pending& e = pq_[h];
  switch (back_) {
    case BackState::kIdle:
      if (n == 0) break;
      if (e.kind == PendKind::kRespond || (e.kind == PendKind::kRead && done[h]) ||
          (e.kind == PendKind::kAtomic && (executed[h] || (ex_done_now && ex_idx_ == h)))) {
        back_ = BackState::kSend;
      }
      break;
    case BackState::kSend:
      if (in_.m_ready) {
        const ResponseShape s = Compose(e.desc);
        const StreamPort& beat = out_.m;
        rcrc_ = IcrcBeat(rcrc_, beat.beat.data.data(), k_ * kBeatBytes, 14, s.len - 4, e.desc.v6);
        ++k_;
        if (beat.beat.last) {
          ++counters_.responses;
          k_ = 0;
          rcrc_ = IcrcSeed();
          ++pq_rd_;
          back_ = BackState::kIdle;
        }
      }
      break;
  }
}

// Read data comes back in the order the reads were issued: each beat goes to the buffer of the entry whose
// tag is oldest.
void RdmaCycleModel::Fill() {
  const DmaResponse& rsp = in_.dma_rsp;
  if (!rsp.valid || rt_wr_ == rt_rd_) return;
  const ReadTag& t = rtag_[rt_rd_ % kTagFifo];
  if (t.pf) {  // a WQE prefetch: one beat of t.k WQEs into the QP's ring, unless it is stale
    QpState& q = qps_[t.idx];
    if (pf_skip_[t.idx] > 0) {
      --pf_skip_[t.idx];
    } else {
      for (int j = 0; j < t.k; ++j) {
        Wqe& w = wqe_ring_[t.idx][static_cast<uint16_t>(q.pf_fill + j) % kWqeRing];
        w.addr = LoadLe64(rsp.data.data() + 16 * j);
        const uint64_t lw = LoadLe64(rsp.data.data() + 16 * j + 8);
        w.len = static_cast<uint32_t>(lw);
        w.wr_id = static_cast<uint32_t>(lw >> 32);
      }
      q.pf_fill = static_cast<uint16_t>(q.pf_fill + t.k);
    }
    --pf_out_[t.idx];
    --pf_total_;
    ++rt_rd_;
    return;
  }
  const int i = t.idx;
  if (fill_beat_ < kRspBeats) rbuf_[i][fill_beat_] = Beat{rsp.data, ~uint64_t{0}, rsp.last};
  ++fill_beat_;
  if (rsp.last) {
    done_[i] = true;
    fill_beat_ = 0;
    ++rt_rd_;
  }
}

void RdmaCycleModel::Tick() {
  const DmaRequest dma = out_.dma_req;
  const bool dma_fire = dma.valid && in_.dma_ready;
  if (dma_fire) ++(dma.write ? counters_.dma_writes : counters_.dma_reads);
  const bool back_dma = dma_src_ == DmaSrc::kBack;  // the atomic executor's write
  const bool fire = dma_fire && dma_src_ == DmaSrc::kFront;  // the front end's request was taken
  const int pf_qp = held_ ? held_pf_qp_ : PrefetchQp();  // the QP of the prefetch on the port
  // The dividers' step; a restart below sets them again, decided on whether they were busy in this cycle.
  const std::array<uint8_t, kQps> rq_busy = rq_div_, cq_busy = cq_div_;
  for (int i = 0; i < kQps; ++i) {
    if (rq_div_[i] != 0) --rq_div_[i];
    if (cq_div_[i] != 0) --cq_div_[i];
  }
  // Not taken: held (the same request, from the same source) for the next cycle.
  held_ = dma.valid && !in_.dma_ready;
  if (held_) {
    held_req_ = dma;
    held_src_ = dma_src_;
    held_pf_qp_ = pf_qp;
  }
  if (dma_fire && dma_src_ == DmaSrc::kPrefetch) {  // a WQE prefetch read was taken
    const int i = pf_qp;
    const uint8_t k = static_cast<uint8_t>(dma.len / params::kRdmaWqeBytes);
    rtag_[rt_wr_++ % kTagFifo] = ReadTag{true, static_cast<uint8_t>(i), k};
    qps_[i].pf_iss = static_cast<uint16_t>(qps_[i].pf_iss + k);
    if (rq_busy[i] != 0) rq_div_[i] = kSlotDivCycles;  // a held prefetch moved the divided counter: again
    ++pf_out_[i];
    ++pf_total_;
  }
  // Read data is the front end's only while nothing in flight has a read outstanding (AQ group, WQE).
  const bool rsp_front = in_.dma_rsp.valid && rt_wr_ == rt_rd_;
  const DmaResponse& rsp = in_.dma_rsp;
  const int n0 = Inflight();
  const uint8_t rd0 = pq_rd_;
  const std::array<bool, kInflight> done0 = done_;
  const std::array<bool, kInflight> executed0 = executed_;
  const bool ex_done_now = ex_ == ExState::kAqWrite && dma_fire && back_dma;
  QpState& q = qps_[job_.qp];
  cqe_ = CqeEvent{};
  switch (state_) {
    case State::kRx:  // parse the oldest frame in the ring
      if (rx_wr_ != rx_rd_) {
        req_ = ParseSlot();
        if (req_.drop != Drop::kNone) {
          ++counters_.drops[static_cast<int>(req_.drop)];
          Release();
        } else {
          state_ = State::kLookup;
        }
      }
      break;
    case State::kLookup:
      // Check's first cycle: the RTL registers the QP search, the MR check and the request's own sums
      // (rdma_check's lookup), which depend only on the request and the QP and MR tables' keys; a write to
      // either table makes them stale, and the lookup is made again. Check() below reads the tables live in
      // the second cycle, which then hold what the lookup read.
      if (!TableWrite()) state_ = State::kCheck;
      break;
    case State::kCheck: {
      // Check decides on copies; a request that may not go on yet leaves no trace and is checked again
      // (its lookup made again first if a QP or MR table is written now).
      const std::array<QpState, kQps> qps_before = qps_;
      const RdmaCounters counters_before = counters_;
      Check();
      if (!MayProceed()) {
        qps_ = qps_before;
        counters_ = counters_before;
        if (TableWrite()) state_ = State::kLookup;
        break;
      }
      switch (job_.kind) {
        case JobKind::kDrop:
        case JobKind::kNone: Finish(); break;
        case JobKind::kRespond:
          Push(PendKind::kRespond, 0);
          Finish();
          break;
        case JobKind::kWrite:
          if (req_.plen == 0) AfterPayload(); else state_ = State::kWrDma;
          break;
        case JobKind::kRead:
          ++counters_.reads;
          if (job_.len == 0) {
            Push(PendKind::kRespond, 0);
            Finish();
          } else {
            state_ = State::kRdIssue;
          }
          break;
        case JobKind::kAtomic:
          if (Forwards()) {  // the old value comes from the chip: queued without a host read
            job_.fwd = true;
            Push(PendKind::kAtomic, job_.pa);
            Finish();
          } else {
            state_ = State::kAtRead;
          }
          break;
        case JobKind::kAtomicDup: state_ = State::kAqIssue; break;
        case JobKind::kWait: break;
      }
      break;
    }
    case State::kWrDma:
      if (fire) {
        ++wbeat_;
        if (wbeat_ * kBeatBytes >= req_.hdr_len + req_.plen) {
          AfterPayload();
          ParseAhead();
        }
      }
      break;
    case State::kRdIssue:  // one read and one in-flight entry per response segment
      if (fire) {
        const uint32_t seg = std::min(job_.len, job_.mtu);
        Push(PendKind::kRead, job_.pa);
        if (++job_.pkt < job_.npkts) {
          job_.pa += seg;
          job_.len -= seg;
          desc_.psn = (desc_.psn + 1) & kPsnMask;
          desc_.opcode = job_.pkt + 1 == job_.npkts ? op::kReadRspLast : op::kReadRspMiddle;
          desc_.plen = static_cast<uint16_t>(std::min(job_.len, job_.mtu));
        } else {
          Finish();
          ParseAhead();
        }
      }
      break;
    case State::kAtRead:
      if (fire) {
        Push(PendKind::kAtomic, job_.pa);
        Finish();
        ParseAhead();
      }
      break;
    case State::kAqIssue:
      if (fire) {
        found_ = false;
        state_ = State::kAqWait;
      }
      break;
    case State::kAqWait:
      if (rsp_front) {
        for (int e = 0; e < kBeatBytes / kAqeBytes && !found_; ++e) {
          const uint32_t w = Load32(rsp.data.data() + e * kAqeBytes);
          if ((w >> 31) && (w & kPsnMask) == job_.psn) {
            found_ = true;
            desc_.atomic_value = Load64(rsp.data.data() + e * kAqeBytes + 8);
          }
        }
        if (rsp.last) {
          if (found_) {
            ++counters_.atomic_replays;
            ++counters_.acks;
            Push(PendKind::kRespond, 0);
            Finish();
          } else if (job_.grps_left > 1) {
            --job_.grps_left;
            int g = (job_.grp + 1) % q.cfg.aq_groups;
            while (!q.grp_valid[g]) g = (g + 1) % q.cfg.aq_groups;
            job_.grp = static_cast<uint8_t>(g);
            state_ = State::kAqIssue;
          } else {
            desc_.opcode = op::kAck;
            desc_.syndrome = syndrome::kInvalidRequest;
            ++counters_.naks;
            Push(PendKind::kRespond, 0);
            Finish();
          }
        }
      }
      break;
  }
  Back(ex_done_now, n0, done0, executed0);
  Execute(dma_fire && back_dma, n0, rd0, done0, executed0);
  if (dma_fire && dma_src_ == DmaSrc::kCqe) {  // the pending CQE was written
    QpState& cq = qps_[cq_job_.qp];
    cqe_ = CqeEvent{true, cq_job_.cqe_wr_id, cq_job_.cqe_len, cq_job_.cqe_imm ? cq_job_.imm : 0u, cq.cfg.qpn,
                    cq_job_.cqe_opcode, cq_job_.psn};
    ++cq.cq_tail;
    if (cq_busy[cq_job_.qp] != 0) cq_div_[cq_job_.qp] = kSlotDivCycles;  // a held CQE moved it: again
    ++counters_.cqes;
    cq_pend_ = false;
  }
  Fill();
  Receive();
  if (in_.cfg.valid) {
    const CfgWrite& w = in_.cfg;
    if (w.table == params::kRdmaTblResponder && w.index == 0) resp_ = DecodeResponder(w.data);
    if (w.table == params::kRdmaTblQp && w.index < kQps) {
      qps_[w.index] = QpState{};
      qps_[w.index].cfg = DecodeQp(w.data);
      qps_[w.index].epsn = qps_[w.index].cfg.epsn;
      recent_[w.index] = RecentAtomics{};
      ResetPrefetch(w.index, 0);
      rq_div_[w.index] = 0;
      cq_div_[w.index] = 0;
    }
    if (w.table == params::kRdmaTblMr && w.index < kMrs) mrs_[w.index] = DecodeMr(w.data);
    if (w.table == params::kRdmaTblQpQueues && w.index < kQps) {
      // A doorbell (the same RQ, more WQEs posted) keeps the ring; a different RQ starts it again.
      QpState& q = qps_[w.index];
      const QpQueuesCfg nq = DecodeQpQueues(w.data);
      if (!(nq.valid && q.queues.valid && nq.rq == q.queues.rq && nq.rq_entries == q.queues.rq_entries)) {
        ResetPrefetch(w.index, q.rq_head);
        // The RTL's RQ slot: the counter itself below the entry count, else its divider's.
        rq_div_[w.index] = (nq.rq_entries == 0 || q.pf_iss < nq.rq_entries) ? 0 : kSlotDivCycles;
      }
      // The CQ slot likewise; a write that keeps cq_entries with no division running keeps it.
      if (nq.cq_entries == 0 || q.cq_tail < nq.cq_entries) {
        cq_div_[w.index] = 0;
      } else if (nq.cq_entries != q.queues.cq_entries || cq_busy[w.index] != 0) {
        cq_div_[w.index] = kSlotDivCycles;
      }
      q.queues = nq;
    }
  }
}

}  // namespace nettwin::rdma
