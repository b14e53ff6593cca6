#include "model/vnic/vnic_model.h"

#include <algorithm>

#include "model/vnic/vnic_format.h"

namespace nettwin::vnic {

void VnicModel::Reset() { *this = VnicModel(dir_); }

const VnicOut& VnicModel::Eval(const VnicIn& in) {
  in_ = in;
  out_.s_ready = used_ < kBufBeats && static_cast<int>(desc_.size()) < kDescFifo;
  out_.m = StreamPort{};
  out_.m_port = 0;
  if (!desc_.empty()) {
    const Desc& d = desc_.front();
    const size_t off = k_ * kBeatBytes;
    const size_t n = std::min<size_t>(kBeatBytes, d.bytes.size() - off);
    out_.m.valid = true;
    std::copy_n(d.bytes.begin() + static_cast<std::ptrdiff_t>(off), n, out_.m.beat.data.begin());
    out_.m.beat.keep = KeepMask(static_cast<int>(n));
    out_.m.beat.last = off + n == d.bytes.size();
    out_.m_port = d.port;
  }
  out_.cnt = cnt_;
  return out_;
}

void VnicModel::EndOfFrame() {
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

void VnicModel::Tick() {
  tables_.Apply(in_.cfg);
  if (in_.s.valid && out_.s_ready) {
    if (sop_) port_ = static_cast<uint8_t>(in_.s_port % kPorts);
    sop_ = false;
    AppendBeat(in_.s.beat, &cur_);
    if (written_ < kMaxBeats) {
      ++written_;
      ++used_;
    }
    if (in_.s.beat.last) EndOfFrame();
  }
  if (out_.m.valid && in_.m_ready) {
    if (out_.m.beat.last) {
      used_ -= desc_.front().in_beats;
      desc_.pop_front();
      k_ = 0;
      ++cnt_.out;
    } else {
      ++k_;
    }
  }
}

}  // namespace nettwin::vnic
