#include "model/vnic/vnic_cycle_model.h"

#include <algorithm>

#include "model/vnic/vnic_format.h"

namespace nettwin::vnic {

void VnicCycleModel::Reset() { *this = VnicCycleModel(dir_); }

const VnicOut& VnicCycleModel::Eval(const VnicIn& in) {
  in_ = in;
  ready_ = used_ < kBufBeats && static_cast<int>(desc_.size()) < kDescFifo;
  head_ = Held{};
  if (!desc_.empty()) {
    const Desc& d = desc_.front();
    const size_t off = k_ * kBeatBytes;
    const size_t n = std::min<size_t>(kBeatBytes, d.bytes.size() - off);
    head_.valid = true;
    std::copy_n(d.bytes.begin() + static_cast<std::ptrdiff_t>(off), n, head_.beat.data.begin());
    head_.beat.keep = KeepMask(static_cast<int>(n));
    head_.beat.last = off + n == d.bytes.size();
    head_.port = d.port;
  }
  const Held& out = dir_ == Direction::kEncap ? out_reg_ : head_;
  out_.s_ready = !in_reg_.valid || ready_;
  out_.m = StreamPort{};
  out_.m.valid = out.valid;
  if (out.valid) out_.m.beat = out.beat;
  out_.m_port = out.valid ? out.port : 0;
  advance_ = head_.valid && (dir_ == Direction::kEncap ? (!out_reg_.valid || in.m_ready) : in.m_ready);
  out_.cnt = cnt_;
  return out_;
}

void VnicCycleModel::EndOfFrame() {
  ++cnt_.in;
  Desc d;
  int drop = 0;
  if (dir_ == Direction::kEncap) {
    EncapResult r = Encapsulate(cur_, port_, tables_);
    drop = r.drop;
    d.bytes = std::move(r.pkt);
    d.port = port_;
  } else {
    DecapResult r = Decapsulate(cur_, tables_);
    drop = r.drop;
    d.bytes = std::move(r.frame);
    d.port = r.port;
  }
  if (drop != 0) {
    ++cnt_.drops[static_cast<size_t>(drop)];
    used_ -= written_;
  } else {
    d.in_beats = written_;
    desc_.push_back(std::move(d));
  }
  cur_.clear();
  written_ = 0;
  sop_ = true;
}

// One beat into the buffer (the write side; `ready_` was true).
void VnicCycleModel::Accept(const Beat& beat, uint8_t s_port) {
  if (sop_) port_ = static_cast<uint8_t>(s_port % kPorts);
  sop_ = false;
  AppendBeat(beat, &cur_);
  if (written_ < kMaxBeats) {
    ++written_;
    ++used_;
  }
  if (beat.last) EndOfFrame();
}

void VnicCycleModel::Tick() {
  tables_.Apply(in_.cfg);
  // write side: the input register's beat into the buffer, the input beat into the register
  const bool take = in_reg_.valid && ready_;
  if (take) Accept(in_reg_.beat, in_reg_.port);
  if (in_.s.valid && out_.s_ready) {
    in_reg_.valid = true;
    in_reg_.beat = in_.s.beat;
    in_reg_.port = in_.s_port;
  } else if (take) {
    in_reg_.valid = false;
  }
  // read side
  if (dir_ == Direction::kEncap && out_reg_.valid && in_.m_ready) {
    if (out_reg_.beat.last) ++cnt_.out;
    out_reg_.valid = false;
  }
  if (advance_) {
    if (dir_ == Direction::kEncap) out_reg_ = head_;
    if (head_.beat.last) {
      if (dir_ == Direction::kDecap) ++cnt_.out;
      used_ -= desc_.front().in_beats;
      desc_.pop_front();
      k_ = 0;
    } else {
      ++k_;
    }
  }
}

}  // namespace nettwin::vnic
