#include "model/re/re_cycle_model.h"

#include <algorithm>

#include "model/re/re_packet_model.h"

namespace nettwin::re {
namespace {

constexpr int kContexts = static_cast<int>(params::kReContexts);
constexpr int kRanges = static_cast<int>(params::kReRanges);

}  // namespace

void ReCycleModel::Reset() { *this = ReCycleModel(); }

const ReOut& ReCycleModel::Eval(const ReIn& in) {
  in_ = in;
  out_.s_ready = desc_.size() + ParseCount() < params::kReDescFifo &&
                 (fifo_used_ < params::kReFifoBeats || beat_idx_ >= params::kReSegBeats);
  out_.m = StreamPort{};
  if (o_active_) {
    const size_t off = size_t{o_beat_} * kBeatBytes;
    const size_t n = std::min<size_t>(kBeatBytes, o_frame_.size() - off);
    out_.m.valid = true;
    std::copy_n(o_frame_.begin() + static_cast<std::ptrdiff_t>(off), n, out_.m.beat.data.begin());
    out_.m.beat.keep = KeepMask(static_cast<int>(n));
    out_.m.beat.last = off + n == o_frame_.size();
  }
  out_.dma = HostWrite();
  out_.report = report_;
  out_.cnt = cnt_;
  out_.busy = beat_idx_ != 0 || fifo_used_ != 0 || !desc_.empty() || look_.has_value() || !ParseIdle() ||
              cur_job_.valid || next_job_.valid || !done_q_.empty() || o_active_ || flush_pending_ || report_.valid;
  return out_;
}

// Beat b of the job's frame holds frame bytes [64 b, 64 b + 64); its data bytes [lo, hi) of the beat go to
// the slot at event offset + 64 b + lo - data_at. A beat without data bytes (header, padding) writes nothing.
DmaRequest ReCycleModel::HostWrite() const {
  DmaRequest r;
  const WriteJob& j = cur_job_;
  if (!in_.cfg_host || !j.valid || j.skip) return r;
  const int64_t base = int64_t{kBeatBytes} * j.beat;
  const int64_t lo = std::clamp<int64_t>(int64_t{j.data_at} - base, 0, kBeatBytes);
  const int64_t hi = std::clamp<int64_t>(int64_t{j.data_at} + j.len - base, 0, kBeatBytes);
  if (lo >= hi) return r;
  r.valid = true;
  r.write = true;
  r.addr = in_.cfg_host_base + static_cast<uint64_t>(j.ctx) * HostSlotBytes(in_.cfg_buffer_bytes) + j.offset +
           static_cast<uint64_t>(base + lo) - j.data_at;
  r.len = static_cast<uint16_t>(hi - lo);
  r.off = static_cast<uint8_t>(lo);
  for (int64_t k = lo; k < hi; ++k) r.data[static_cast<size_t>(k)] = j.frame[static_cast<size_t>(base + k)];
  return r;
}

bool ReCycleModel::Expired(const Context& c, uint64_t now) const {
  return c.valid && static_cast<int64_t>(now - c.first_ns) > static_cast<int64_t>(in_.cfg_timeout_ns);
}

// The context the decide stage frees next: at the end of input the oldest open one, otherwise the oldest
// one the time `now` expires. Oldest = smallest (first arrival, key), the order
// the golden model reports in.
int ReCycleModel::Oldest(bool flush, uint64_t now) const {
  int best = -1;
  for (int i = 0; i < kContexts; ++i) {
    const Context& c = ctx_[static_cast<size_t>(i)];
    const bool cand = flush ? c.valid && !c.done : Expired(c, now);
    if (!cand) continue;
    const Context& b = ctx_[static_cast<size_t>(best < 0 ? 0 : best)];
    if (best < 0 || c.first_ns < b.first_ns || (c.first_ns == b.first_ns && c.key < b.key)) best = i;
  }
  return best;
}

int ReCycleModel::Place(const Desc& d, int* slot, bool* completes) {
  const Segment& s = d.seg;
  const std::pair<uint64_t, uint16_t> key{s.event_num, s.data_id};
  const uint32_t off = s.offset, end = static_cast<uint32_t>(s.End()), ev_end = static_cast<uint32_t>(s.event_end);
  int h = -1, used = 0;
  for (int i = 0; i < kContexts; ++i) {
    const Context& c = ctx_[static_cast<size_t>(i)];
    used += c.valid;
    if (c.valid && c.key == key && h < 0) h = i;
  }
  int left = -1, right = -1, free_range = -1;
  if (h >= 0) {
    const Context& c = ctx_[static_cast<size_t>(h)];
    if (c.done) return static_cast<int>(Drop::kDuplicate) + 1;
    if ((s.last && ((c.end_known && ev_end != c.length) || (!c.end_known && c.max_end > ev_end))) ||
        (c.end_known && end > c.length)) {
      return static_cast<int>(Drop::kInconsistent) + 1;
    }
    uint32_t covered = 0;
    for (int k = 0; k < kRanges; ++k) {
      if (!c.rv[k]) {
        if (free_range < 0) free_range = k;
        continue;
      }
      const uint32_t a = std::max(c.rb[k], off), z = std::min(c.re[k], end);
      if (a < z) covered += z - a;
      if (c.re[k] == off) left = k;
      if (c.rb[k] == end) right = k;
    }
    if ((s.len > 0 && covered == s.len) || (s.len == 0 && c.end_known)) return static_cast<int>(Drop::kDuplicate) + 1;
    if (covered > 0) return static_cast<int>(Drop::kOverlap) + 1;
    if (s.len > 0 && left < 0 && right < 0 && free_range < 0) return static_cast<int>(Drop::kNoRange) + 1;
  } else {
    if (used >= static_cast<int>(in_.cfg_contexts)) return static_cast<int>(Drop::kNoContext) + 1;
    for (int i = 0; i < kContexts && h < 0; ++i) {
      if (!ctx_[static_cast<size_t>(i)].valid) h = i;
    }
    Context& n = ctx_[static_cast<size_t>(h)];
    std::vector<uint8_t> data = std::move(n.data);
    n = Context{};
    n.data = std::move(data);
    if (!in_.cfg_host) n.data.resize(params::kReBufBytes);
    n.valid = true;
    n.key = key;
    n.mac_dst = s.mac_dst;
    n.mac_src = s.mac_src;
    n.first_ns = d.time_ns;
    free_range = 0;
  }
  Context& c = ctx_[static_cast<size_t>(h)];
  if (s.len > 0) {
    if (left >= 0 && right >= 0) {
      c.re[left] = c.re[right];
      c.rv[right] = false;
    } else if (left >= 0) {
      c.re[left] = end;
    } else if (right >= 0) {
      c.rb[right] = off;
    } else {
      c.rv[free_range] = true;
      c.rb[free_range] = off;
      c.re[free_range] = end;
    }
    c.max_end = std::max(c.max_end, end);
    if (!in_.cfg_host) std::copy_n(d.frame.begin() + s.data_at, s.len, c.data.begin() + off);
  }
  ++c.segments;
  c.received += s.len;
  if (s.last) {
    c.end_known = true;
    c.length = ev_end;
  }
  *completes = c.end_known && c.received == c.length;
  if (*completes) c.done = c.out_pending = true;
  *slot = h;
  return 0;
}

// The decide stage's cycle: reads the registered state, updates the contexts and counters, and says what
// the other stages see at the edge.
ReCycleModel::Step ReCycleModel::Decide(bool job_slot_free) {
  Step st;
  auto report = [&](int i, bool at_end) {
    const Context& c = ctx_[static_cast<size_t>(i)];
    st.report = ReReport{true,
                         c.key.first,
                         c.key.second,
                         c.received,
                         c.segments,
                         c.length,
                         c.end_known,
                         at_end};
    ++cnt_.timed_out;
  };
  if (flush_pending_ && !look_ && desc_.empty() && beat_idx_ == 0 && ParseIdle()) {
    const int i = Oldest(true, 0);
    if (i >= 0) {
      report(i, true);
      ctx_[static_cast<size_t>(i)].valid = false;
    } else if (std::none_of(ctx_.begin(), ctx_.end(), [](const Context& c) { return c.valid && c.out_pending; })) {
      for (Context& c : ctx_) c.valid = false;
      st.flush_done = true;
    }
    return st;
  }
  if (!look_ || !job_slot_free) return st;
  const Desc& d = *look_;
  // An expired context whose event is still being sent keeps its buffer until the output is done with it.
  if (std::any_of(ctx_.begin(), ctx_.end(), [&](const Context& c) { return c.out_pending && Expired(c, d.time_ns); }))
    return st;
  // Expired completed contexts go at once (nothing to report); incomplete ones one per cycle, reported.
  for (Context& c : ctx_) {
    if (c.done && Expired(c, d.time_ns)) c.valid = false;
  }
  if (const int i = Oldest(false, d.time_ns); i >= 0) {
    report(i, false);
    ctx_[static_cast<size_t>(i)].valid = false;
    return st;
  }
  st.pop = true;
  int slot = 0;
  bool completes = false;
  const int code = d.seg.ok ? Place(d, &slot, &completes) : static_cast<int>(d.seg.drop) + 1;
  if (code != 0) {
    ++cnt_.drops[static_cast<size_t>(code)];
  } else {
    ++cnt_.used;
    cnt_.completed += completes;
  }
  if (d.stored > 0) {
    st.job = WriteJob{true, code != 0, completes && code == 0, slot, d.stored, 0, d.seg.offset, d.seg.len,
                      d.seg.data_at, {}};
    if (in_.cfg_host && code == 0) st.job.frame = d.frame;
  }
  return st;
}

void ReCycleModel::Tick() {
  const ReIn& in = in_;
  // `buffer host`: a beat whose DMA write the host does not take this cycle stays.
  const bool advance = !out_.dma.valid || in.dma_ready;
  const bool cur_finish = cur_job_.valid && (cur_job_.skip || (cur_job_.beat + 1 == cur_job_.beats && advance));
  const bool take = next_job_.valid && (!cur_job_.valid || cur_finish);
  // decide (first: it reads the contexts before the output stage releases one)
  const Step st = Decide(!next_job_.valid || take);
  report_ = st.report;
  // the lookup stage takes the FIFO's head when it is empty or its frame was placed
  if (st.pop) look_.reset();
  if (!look_ && !desc_.empty()) {
    look_ = std::move(desc_.front());
    desc_.pop_front();
  }
  // output
  const bool o_was_active = o_active_;
  if (o_active_ && in.m_ready) {
    if (out_.m.beat.last) {
      o_active_ = false;
      ctx_[static_cast<size_t>(o_ctx_)].out_pending = false;
      ++cnt_.out;
    } else {
      ++o_beat_;
    }
  }
  if (!o_was_active && !done_q_.empty()) {
    o_ctx_ = done_q_.front();
    done_q_.pop_front();
    const Context& c = ctx_[static_cast<size_t>(o_ctx_)];
    ReEvent e{static_cast<uint16_t>(c.key.first), c.key.second, c.key.first, c.mac_dst, c.mac_src, c.segments, 0, 0,
              {}};
    if (in.cfg_host) {
      const uint64_t slot = in.cfg_host_base + static_cast<uint64_t>(o_ctx_) * HostSlotBytes(in.cfg_buffer_bytes);
      o_frame_ = EventRecord(e, c.length, slot, in.cfg_format).bytes;
    } else {
      e.data.assign(c.data.begin(), c.data.begin() + c.length);
      o_frame_ = EventFrame(e, in.cfg_format).bytes;
    }
    o_active_ = true;
    o_beat_ = 0;
  }
  // write
  uint32_t released = 0;
  if (cur_finish) {
    released = cur_job_.beats;
    if (cur_job_.completes) done_q_.push_back(cur_job_.ctx);
  } else if (cur_job_.valid && advance) {
    ++cur_job_.beat;
  }
  if (take) {
    cur_job_ = next_job_;
    next_job_.valid = false;
  } else if (cur_finish) {
    cur_job_.valid = false;
  }
  if (st.job.valid) next_job_ = st.job;
  // ingress: the header-check stages advance; the oldest frame's descriptor is queued
  if (parse_.back()) desc_.push_back(std::move(*parse_.back()));
  for (size_t i = kParseDelay - 1; i > 0; --i) parse_[i] = std::move(parse_[i - 1]);
  parse_[0].reset();
  uint32_t added = 0;
  if (in.s.valid && out_.s_ready) {
    if (beat_idx_ == 0) {
      time_ = in.s_time_ns;
      cur_.clear();
    }
    AppendBeat(in.s.beat, &cur_);
    if (beat_idx_ < params::kReSegBeats) {
      ++stored_;
      added = 1;
    }
    ++beat_idx_;
    if (in.s.beat.last) {
      Desc d;
      d.seg = ParseSegment(cur_, ParseConfigOf(in));
      d.time_ns = time_;
      d.stored = stored_;
      d.frame = std::move(cur_);
      cur_ = {};
      parse_[0] = std::move(d);
      ++cnt_.in;
      beat_idx_ = 0;
      stored_ = 0;
    }
  }
  fifo_used_ = fifo_used_ + added - released;
  if (in.flush)
    flush_pending_ = true;
  else if (st.flush_done)
    flush_pending_ = false;
}

}  // namespace nettwin::re
