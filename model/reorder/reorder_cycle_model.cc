#include "model/reorder/reorder_cycle_model.h"

#include <algorithm>

namespace nettwin::reorder {

namespace {

constexpr uint8_t kMaskReply = 1, kMaskNotify = 2, kMaskClear = 4;

uint16_t Sub16(uint16_t a, uint16_t b) { return static_cast<uint16_t>(a - b); }
// a is at or after b on the 16-bit microsecond clock (within half its range).
bool Reached(uint16_t now, uint16_t t) { return Sub16(now, t) < 0x8000; }

int LowestBit(uint8_t mask) { return mask & 1 ? 0 : mask & 2 ? 1 : 2; }

}  // namespace

ReorderCycleModel::ReorderCycleModel() : cell_(kCells), next_(kCells), info_(kCells), free_(kCells), flow_(kFlows) {}

void ReorderCycleModel::Reset() {
  in_ = ReorderIn{};
  out_ = ReorderOut{};
  h_valid_ = false;
  h_beat_ = Beat{};
  h_idx_ = in_idx_ = 0;
  skip_ = false;
  meta_ = CwMeta{};
  ip_head_ = ip_prev_ = ip_cells_ = 0;
  pend_ = Pending{};
  d2_ = DStage{};
  std::fill(cell_.begin(), cell_.end(), Beat{});
  std::fill(next_.begin(), next_.end(), 0);
  std::fill(info_.begin(), info_.end(), Info{});
  fresh_ = 0;
  std::fill(free_.begin(), free_.end(), 0);
  free_rd_ = free_count_ = 0;
  std::fill(flow_.begin(), flow_.end(), Flow{});
  q_.fill(Queue{});
  of_ = {};
  scan_q_ = 0;
  rd_busy_ = rd_queue_ = rd_discard_ = rd_first_ = false;
  rd_cell_ = 0;
  rd_q_ = 0;
  rd_held_ = false;
  rd_hold_ = 0;
  m_ = StreamPort{};
  m_held_ = false;
  m_hold_ = 0;
  ca_ = {};
  cb_ = {};
  cg_busy_ = false;
  cg_req_ = CtrlReq{};
  cg_beat_ = 0;
  cg_frame_ = CtrlFrame{};
  c_ = StreamPort{};
  cnt_ = ReorderCounters{};
}

const ReorderOut& ReorderCycleModel::Eval(const ReorderIn& in) {
  in_ = in;
  const bool cell_avail = free_count_ > 0 || fresh_ < kCells;
  const bool take = D1Take(D2Fire());
  out_.s_ready = !h_valid_ || (cell_avail && (!pend_.valid || take));
  out_.m = m_;
  out_.m_held = m_held_;
  out_.m_hold_us = m_hold_;
  out_.c = c_;
  out_.idle = !h_valid_ && !pend_.valid && !d2_.valid && of_.count == 0 && !rd_busy_ && !m_.valid && ca_.count == 0 &&
              cb_.count == 0 && !cg_busy_ && !c_.valid;
  out_.cnt = cnt_;
  return out_;
}

bool ReorderCycleModel::D2Fire() const { return d2_.valid && of_.Free() >= 2 && ca_.Free() >= 1; }

// D1 takes the pending packet when D2 is empty or decides this cycle, except a packet of the flow-table
// index D2 decides on (D2 writes that entry at this edge; the packet waits one cycle and reads it then).
bool ReorderCycleModel::D1Take(bool d2_fire) const {
  if (!pend_.valid || (d2_.valid && !d2_fire)) return false;
  const uint16_t mask = in_.cfg.flows_mask;
  const bool hazard = d2_.valid && !d2_.p.bad && !pend_.bad &&
                      (d2_.p.meta.hash & mask) == (pend_.meta.hash & mask);
  return !hazard;
}

ReorderCycleModel::Decision ReorderCycleModel::Decide() const {
  Decision d;
  if (!D2Fire()) return d;
  d.fire = true;
  const Pending& p = d2_.p;
  const CwMeta& m = p.meta;
  const ReorderCfg& cfg = in_.cfg;
  const uint16_t now = d2_.now;  // the clock when D1 took the packet
  if (p.bad) {
    if (p.cells > 0) {
      d.push = true;
      d.entry = OutEntry{false, true, p.head};
    }
    return d;
  }
  d.req.hdr = m.hdr;
  d.req.v6 = m.v6;
  d.req.mask = static_cast<uint8_t>((m.op == kCwRttRequest ? kMaskReply : 0) | (m.ce ? kMaskNotify : 0));
  const uint16_t idx = static_cast<uint16_t>(m.hash & cfg.flows_mask);
  Flow e = flow_[idx];
  const auto alive = [&](const Flow& f, QState want) {
    const Queue& q = q_[f.hq];
    return f.hq_valid && q.owner == idx && (want == QState::kFree ? q.state != QState::kFree : q.state == want);
  };
  d.entry = OutEntry{false, false, p.head};
  if (e.valid && e.key != m.key) {
    const bool idle = !alive(e, QState::kFree) && Sub16(now, e.last_us) >= cfg.flow_idle_us;
    if (!idle) {  // collision: forwarded unordered
      d.collision = true;
      d.push = true;
      d.req.clear_epoch = e.epoch;
      if (m.tail) {  // untracked, so nothing was held: CLEAR at once, for the epoch the reroute went to
        d.req.mask |= kMaskClear;
        d.req.clear_epoch = (m.epoch + 1) & 3;
      }
      d.ctrl = d.req.mask != 0;
      return d;
    }
    e.valid = false;
  }
  if (!e.valid) {
    e = Flow{};
    e.valid = true;
    e.key = m.key;
    e.epoch = m.epoch;
    // Created by a rerouted packet: the old path may still carry packets we know nothing of, so hold
    // (with the default deadline: there is no old-path delay to estimate from).
    e.tail_seen = !m.rerouted;
  }
  e.last_us = now;
  const uint16_t owd = Sub16(now, m.tx_ts);
  const uint8_t dd = (m.epoch - e.epoch) & 3;
  const bool qh = alive(e, QState::kHolding);
  const bool qr = alive(e, QState::kReleased);
  e.tail_seen = e.tail_seen || (e.hq_valid && !qh);
  bool want_hold = false, release = false;
  if (dd == 1 || dd == 2) {
    d.epoch_jump = dd == 2;
    // After a jump the old path is the skipped epoch's, whose delay was never sampled.
    e.owd_old = e.owd_cur;
    e.owd_old_valid = dd == 1 && e.owd_cur_valid;
    e.owd_cur = owd;
    e.owd_cur_valid = true;
    e.epoch = m.epoch;
    if (m.rerouted) {
      // A new reroute. Its old path is done only if that path's TAIL already came (TAIL first: the new
      // path was slower); after a jump (d = 2) the TAIL we wait for is of the epoch skipped, not yet seen.
      // A queue that is no longer holding belongs to the previous reroute (draining or free); forget it,
      // or the next check would take this reroute's TAIL as seen.
      e.tail_seen = dd == 1 && e.tail_next;
      if (!qh) e.hq_valid = false;
    }
    e.tail_next = false;
    want_hold = (m.rerouted && !e.tail_seen) || qh;
  } else if (dd == 0) {
    e.owd_cur = e.owd_cur_valid ? std::max(e.owd_cur, owd) : owd;
    e.owd_cur_valid = true;
    want_hold = (m.rerouted && !e.tail_seen) || qh;
  } else {
    e.owd_old = e.owd_old_valid ? std::max(e.owd_old, owd) : owd;
    e.owd_old_valid = true;
    if (m.tail && !e.tail_seen) {
      e.tail_seen = true;
      release = true;
    }
  }
  // The TAIL of the (now) current epoch, before any packet of the next one: remember it, so the next
  // reroute's packets are forwarded at once, and CLEAR now (it mirrors the TAIL). A duplicate does not
  // CLEAR again.
  const bool tail_first = m.tail && dd != 3 && !e.tail_next;
  if (tail_first) {
    e.tail_next = true;
    d.req.mask |= kMaskClear;
  }
  d.flow_write = true;
  d.flow_idx = idx;
  if (want_hold) {
    if (cnt_.held_cells + p.cells > cfg.buffer_cells) {
      d.entry.discard = true;
      d.push = true;
    } else if (qh) {
      d.qop = Decision::QOp::kAppend;
      d.q = e.hq;
      d.held = true;
    } else {
      const int qw = cfg.queues / kWays;
      int found = -1;
      if (cfg.any_queue) {
        for (int c = 0; c < cfg.queues && found < 0; ++c) {
          if (q_[c].state == QState::kFree) found = c;
        }
      } else {
        for (int w = 0; w < kWays && found < 0; ++w) {
          const int c = w * qw + ((m.hash >> (4 + 3 * w)) & (qw - 1));
          if (q_[c].state == QState::kFree) found = c;
        }
      }
      if (found < 0) {
        d.fallback = true;
        e.hq_valid = false;
        d.push = true;
      } else {
        d.qop = Decision::QOp::kAlloc;
        d.q = static_cast<uint8_t>(found);
        d.held = true;
        e.hq = d.q;
        e.hq_valid = true;
        if (e.owd_old_valid) {
          const uint16_t dl = static_cast<uint16_t>(m.tail_tx_ts + e.owd_old + cfg.margin_us);
          d.deadline = Reached(now, dl) ? now : dl;
        } else {
          d.deadline = static_cast<uint16_t>(now + cfg.default_hold_us);
        }
      }
    }
  } else if (release && qh) {
    d.qop = Decision::QOp::kTailRelease;
    d.q = e.hq;
    d.push = true;  // the queue, now led by the TAIL, joins the output FIFO
    d.entry = OutEntry{true, false, e.hq};
  } else {
    if (release) d.req.mask |= kMaskClear;
    if (qr && dd != 3) {
      d.qop = Decision::QOp::kAppend;
      d.q = e.hq;
    } else {
      d.push = true;
    }
  }
  d.req.clear_epoch = tail_first ? static_cast<uint8_t>((e.epoch + 1) & 3) : e.epoch;
  d.ctrl = d.req.mask != 0;
  d.flow = e;
  return d;
}

ReorderCycleModel::ReaderStep ReorderCycleModel::Read(const Decision& d) const {
  ReaderStep rs;
  const uint16_t now = in_.now_us;
  rs.adv = !m_.valid || in_.m_ready;
  rs.held = rd_held_;
  rs.hold = rd_hold_;
  rs.busy = rd_busy_;
  rs.queue = rd_queue_;
  rs.discard = rd_discard_;
  rs.first = rd_first_;
  rs.cell = rd_cell_;
  rs.q = rd_q_;
  auto load = [&](const OutEntry& e) {
    rs.pop = true;
    rs.busy = true;
    rs.queue = e.queue;
    rs.discard = e.discard;
    rs.q = e.queue ? static_cast<uint8_t>(e.ref) : rd_q_;
    rs.cell = e.queue ? q_[e.ref].head : e.ref;
    rs.first = true;
  };
  if (!rd_busy_) {
    if (of_.count > 0) load(of_.Front());
    return rs;
  }
  if (cb_.Full() || !(rd_discard_ || rs.adv)) return rs;
  const uint16_t c = rd_cell_;
  const Beat& b = cell_[c];
  if (!rd_discard_) {
    rs.emit = true;
    rs.beat = b;
    if (rd_first_) {
      rs.held = info_[c].held;
      rs.hold = rs.held ? Sub16(now, info_[c].t_us) : 0;
    }
  }
  rs.free = true;
  rs.free_cell = c;
  if (!b.last) {
    rs.cell = next_[c];
    rs.first = false;
    return rs;
  }
  bool cont = false;
  if (rd_queue_) {
    rs.qpop = true;
    // The decision may append to this queue in this very cycle: then its packet comes next.
    const bool app = d.fire && d.qop == Decision::QOp::kAppend && d.q == rd_q_;
    if (q_[rd_q_].count >= 2) {
      rs.cell = next_[c];
      cont = true;
    } else if (app) {
      rs.cell = d2_.p.head;
      cont = true;
    } else {
      rs.qdone = true;
    }
  }
  if (cont) {
    rs.first = true;
  } else if (of_.count > 0) {
    load(of_.Front());  // no bubble between output entries
  } else {
    rs.busy = false;
  }
  return rs;
}

ReorderCycleModel::CtrlStep ReorderCycleModel::Control() const {
  CtrlStep cs;
  cs.adv = !c_.valid || in_.c_ready;
  cs.busy = cg_busy_;
  cs.req = cg_req_;
  cs.beat = cg_beat_;
  cs.frame = cg_frame_;
  // The packet for the request's lowest bit: RTT_REPLY, NOTIFY, then CLEAR (with the flow's epoch).
  auto build = [this](const CtrlReq& r) {
    const int bth8 = (r.v6 ? 54 : 34) + 8 + 8;
    const int bit = LowestBit(r.mask);
    const uint8_t op = bit == 0 ? kCwRttReply : bit == 1 ? kCwNotify : kCwClear;
    const uint8_t ep = bit == 2 ? r.clear_epoch : static_cast<uint8_t>((r.hdr[bth8] >> 2) & 3);
    return BuildControl(r.hdr, r.v6, op, ep, in_.cfg.p4_format);
  };
  if (!cs.adv) return cs;
  if (cg_busy_) {
    const int base = cg_beat_ * kBeatBytes;
    const int n = std::min(kBeatBytes, cg_frame_.len - base);
    cs.c.valid = true;
    for (int j = 0; j < n; ++j) cs.c.beat.data[j] = cg_frame_.bytes[base + j];
    cs.c.beat.keep = KeepMask(n);
    cs.c.beat.last = base + n == cg_frame_.len;
    if (cs.c.beat.last) {
      const uint8_t rem = cg_req_.mask & static_cast<uint8_t>(cg_req_.mask - 1);
      if (rem != 0) {
        cs.req.mask = rem;
        cs.frame = build(cs.req);
        cs.beat = 0;
      } else {
        cs.busy = false;
      }
    } else {
      cs.beat = static_cast<uint8_t>(cg_beat_ + 1);
    }
  } else if (cb_.count > 0 || ca_.count > 0) {  // drained-queue CLEARs first
    cs.pop_b = cb_.count > 0;
    cs.pop_a = !cs.pop_b;
    cs.req = cs.pop_b ? cb_.Front() : ca_.Front();
    cs.busy = true;
    cs.beat = 0;
    cs.frame = build(cs.req);
  }
  return cs;
}

ReorderCycleModel::IngressStep ReorderCycleModel::Ingest(bool dec_fire) const {
  IngressStep is;
  is.skip = skip_;
  is.meta = meta_;
  is.head = ip_head_;
  is.prev = ip_prev_;
  is.cells = ip_cells_;
  const bool cell_avail = free_count_ > 0 || fresh_ < kCells;
  const bool res_ok = cell_avail && (!pend_.valid || dec_fire);
  is.go = h_valid_ && res_ok && (h_beat_.last || in_.s.valid);
  if (!is.go) return is;
  const bool first = h_idx_ == 0;
  const Beat& nx = in_.s.beat;  // valid whenever this beat is not the last
  CwMeta m = meta_;
  if (first) {
    std::array<uint8_t, kWindowBytes> win{};
    for (int j = 0; j < kBeatBytes; ++j) {
      win[j] = h_beat_.data[j];
      win[kBeatBytes + j] = h_beat_.last ? 0 : nx.data[j];
    }
    const int known = h_beat_.last ? h_beat_.Bytes() : nx.last ? kBeatBytes + nx.Bytes() : -1;
    m = ParseCw(win.data(), known, in_.cfg.p4_format);
    m.hash = FlowHash(m.key);
    is.meta = m;
    is.cells = 0;
  }
  if (first && !m.ok) {
    is.pend = true;
    is.pend_rec = Pending{true, true, m, 0, 0, 0, 0};
    is.skip = true;
    return is;
  }
  if (!first && skip_) return is;
  const int k = h_idx_;
  int out_n = kBeatBytes, len = 0;
  bool last = false;
  if (h_beat_.last) {
    out_n = h_beat_.Bytes() - 4;
    len = k * kBeatBytes + h_beat_.Bytes();
    last = true;
  } else if (nx.last && nx.Bytes() <= 4) {  // the successor only holds bytes the removal pulls in
    out_n = kBeatBytes - 4 + nx.Bytes();
    len = (k + 1) * kBeatBytes + nx.Bytes();
    last = true;
  }
  const uint16_t cells_before = first ? 0 : ip_cells_;
  const bool oversize = !last && cells_before == kMaxCells - 1;
  is.write = true;
  is.from_fifo = free_count_ > 0;
  is.cell = is.from_fifo ? free_[free_rd_] : fresh_;
  is.beat = StripBeat(h_beat_, nx, k, m, out_n, last || oversize);
  is.link = cells_before > 0;
  is.head = first ? is.cell : ip_head_;
  is.prev = is.cell;
  is.cells = static_cast<uint16_t>(cells_before + 1);
  if (last || oversize) {
    const int want = (m.v6 ? 54 : 14) + m.ip_len;
    is.pend = true;
    is.pend_rec = Pending{true, oversize || want != len, m, is.head, is.cell, is.cells, static_cast<uint16_t>(len)};
    is.skip = true;
  } else {
    is.skip = false;
  }
  return is;
}

void ReorderCycleModel::Tick() {
  const ReorderIn& in = in_;
  const uint16_t now = in.now_us;
  ReorderCounters cnt = cnt_;
  const Decision d = Decide();

  // ---- T: one queue's deadline per cycle ----
  const uint8_t t = scan_q_;
  const bool dec_touches_t = d.fire && d.qop != Decision::QOp::kNone && d.q == t;
  const bool timeout =
      q_[t].state == QState::kHolding && Reached(now, q_[t].deadline) && of_.Free() >= 2 && !dec_touches_t;

  const ReaderStep rs = Read(d);
  const CtrlStep cs = Control();
  const bool take = D1Take(d.fire);
  const IngressStep is = Ingest(take);

  // ================= apply (all stages read the state above; now it changes) =================
  // D
  if (d.fire) {
    ++cnt.in;
    const Pending& p = d2_.p;
    if (p.bad) ++cnt.drop_malformed;
    if (d.collision) ++cnt.fallback_collision;
    if (d.fallback) ++cnt.fallback_unordered;
    if (d.entry.discard && !p.bad) ++cnt.drop_buffer_full;
    if (d.epoch_jump) ++cnt.epoch_jump;
    if (d.flow_write) flow_[d.flow_idx] = d.flow;
    if (p.cells > 0) info_[p.head] = Info{d.held, d2_.now};
    Queue* q = d.qop == Decision::QOp::kNone ? nullptr : &q_[d.q];
    switch (d.qop) {
      case Decision::QOp::kAlloc:
        q->state = QState::kHolding;
        q->owner = d.flow_idx;
        q->head = p.head;
        q->tail = p.tail;
        q->count = 1;
        q->cells = p.cells;
        q->deadline = d.deadline;
        q->v6 = p.meta.v6;
        q->clear_epoch = d.flow.epoch;
        q->hdr = p.meta.hdr;
        ++cnt.queues_now;
        break;
      case Decision::QOp::kAppend:
        next_[q->tail] = p.head;
        q->tail = p.tail;
        ++q->count;
        if (d.held) q->cells = static_cast<uint16_t>(q->cells + p.cells);
        break;
      case Decision::QOp::kTailRelease:
        cnt.released_by_tail += q->count;
        ++cnt.tail_releases;
        cnt.held_now -= q->count;
        cnt.held_cells -= q->cells;
        next_[p.tail] = q->head;
        q->head = p.head;
        ++q->count;
        q->cells = 0;
        q->state = QState::kReleased;
        q->hdr = p.meta.hdr;
        q->v6 = p.meta.v6;
        q->clear_epoch = d.flow.epoch;
        break;
      case Decision::QOp::kNone: break;
    }
    if (d.held) {
      ++cnt.held;
      ++cnt.held_now;
      cnt.held_cells += p.cells;
    }
    if (d.push) {
      of_.mem[(of_.rd + of_.count) % kOutFifo] = d.entry;
      ++of_.count;
    }
    if (d.ctrl) {
      ca_.mem[(ca_.rd + ca_.count) % kCtrlFifo] = d.req;
      ++ca_.count;
    }
  }
  // T
  if (timeout) {
    Queue& q = q_[t];
    cnt.released_by_timeout += q.count;
    cnt.held_now -= q.count;
    cnt.held_cells -= q.cells;
    q.cells = 0;
    q.state = QState::kReleased;
    of_.mem[(of_.rd + of_.count) % kOutFifo] = OutEntry{true, false, t};
    ++of_.count;
  }
  scan_q_ = static_cast<uint8_t>(t + 1 >= in.cfg.queues ? 0 : t + 1);
  // R
  if (rs.qpop) {
    Queue& q = q_[rd_q_];
    --q.count;
    if (rs.qdone) {
      q.state = QState::kFree;
      --cnt.queues_now;
      cb_.mem[(cb_.rd + cb_.count) % kQueues] = CtrlReq{q.hdr, q.v6, kMaskClear, q.clear_epoch};
      ++cb_.count;
    }
  }
  if (rs.pop) {
    of_.rd = (of_.rd + 1) % kOutFifo;
    --of_.count;
  }
  if (rs.free) {
    free_[(free_rd_ + free_count_) % kCells] = rs.free_cell;
    ++free_count_;
    --cnt.cells_used;
  }
  if (m_.valid && in.m_ready && m_.beat.last) ++cnt.delivered;
  if (rs.adv) {
    m_.valid = rs.emit;
    m_.beat = rs.emit ? rs.beat : Beat{};
    m_held_ = rs.emit && rs.held;
    m_hold_ = rs.emit ? rs.hold : 0;
  }
  if (rs.emit) {
    rd_held_ = rs.held;
    rd_hold_ = rs.hold;
  }
  rd_busy_ = rs.busy;
  rd_queue_ = rs.queue;
  rd_discard_ = rs.discard;
  rd_first_ = rs.first;
  rd_cell_ = rs.cell;
  rd_q_ = rs.q;
  // C
  if (c_.valid && in.c_ready && c_.beat.last) ++cnt.ctrl_out;
  if (cs.pop_a) {
    ca_.rd = (ca_.rd + 1) % kCtrlFifo;
    --ca_.count;
  }
  if (cs.pop_b) {
    cb_.rd = (cb_.rd + 1) % kQueues;
    --cb_.count;
  }
  if (cs.adv) c_ = cs.c;
  cg_busy_ = cs.busy;
  cg_req_ = cs.req;
  cg_beat_ = cs.beat;
  cg_frame_ = cs.frame;
  // I
  if (is.write) {
    if (is.from_fifo) {
      free_rd_ = (free_rd_ + 1) % kCells;
      --free_count_;
    } else {
      ++fresh_;
    }
    cell_[is.cell] = is.beat;
    if (is.link) next_[ip_prev_] = is.cell;
    ++cnt.cells_used;
  }
  if (d.fire) d2_.valid = false;
  if (take) {
    d2_ = DStage{true, pend_, now};
    pend_.valid = false;
  }
  if (is.pend) pend_ = is.pend_rec;
  skip_ = is.skip;
  meta_ = is.meta;
  ip_head_ = is.head;
  ip_prev_ = is.prev;
  ip_cells_ = is.cells;
  if (in.s.valid && out_.s_ready) {
    h_valid_ = true;
    h_beat_ = in.s.beat;
    h_idx_ = in_idx_;
    in_idx_ = in.s.beat.last ? 0 : static_cast<uint8_t>(std::min(255, in_idx_ + 1));
  } else if (is.go) {
    h_valid_ = false;
  }
  // peaks, one cycle late (as the RTL: compared with the counts registered at the last edge)
  cnt.peak_queues = std::max(cnt_.peak_queues, cnt_.queues_now);
  cnt.peak_held_cells = std::max(cnt_.peak_held_cells, cnt_.held_cells);
  cnt.peak_cells_used = std::max(cnt_.peak_cells_used, cnt_.cells_used);
  cnt_ = cnt;
}

}  // namespace nettwin::reorder
