#include "model/reroute/reroute_cycle_model.h"

#include <algorithm>

namespace nettwin::reroute {

void RerouteCycleModel::Reset() {
  core_.Reset();
  in_ = RerouteIn{};
  out_ = RerouteOut{};
  rx_.assign(kMaxBytes, 0);
  rx_full_ = rx_long_ = false;
  rx_len_ = 0;
  cx_.fill(0);
  cx_full_ = false;
  cx_len_ = 0;
  ob_.clear();
  ob_valid_ = false;
  ob_idx_ = 0;
  ob_path_ = 0;
  scan_ = 0;
  now_ = 0;
  decisions_.clear();
}

const RerouteOut& RerouteCycleModel::Eval(const RerouteIn& in) {
  in_ = in;
  core_.SetConfig(in.cfg);
  out_.s_ready = !rx_full_;
  out_.r_ready = !cx_full_;
  out_.m.valid = ob_valid_;
  out_.m.beat = ob_valid_ ? ob_[ob_idx_] : Beat{};
  out_.m_path = ob_valid_ ? ob_path_ : 0;
  out_.idle = !rx_full_ && rx_len_ == 0 && !cx_full_ && cx_len_ == 0 && !ob_valid_;
  out_.cnt = core_.counters();
  return out_;
}

void RerouteCycleModel::Tick() {
  const uint16_t now = now_;
  now_ = in_.now_us;
  const int paths = in_.cfg.paths;
  // S
  core_.Scan(scan_ & (paths - 1), now);
  scan_ = (scan_ + 1) & (paths - 1);
  // D (on the registered state of A, K, O)
  const bool ob_was_valid = ob_valid_;
  if (cx_full_) {
    core_.Control(cx_.data(), cx_len_, now);
    cx_full_ = false;
    cx_len_ = 0;
    cx_.fill(0);
  } else if (rx_full_ && !ob_was_valid) {
    DataResult r = core_.Data(rx_.data(), rx_long_ ? kMaxBytes + 1 : rx_len_, now);
    if (r.ok) {
      ob_ = ToBeats(r.frame);
      ob_idx_ = 0;
      ob_path_ = r.path;
      ob_valid_ = true;
    }
    decisions_.push_back(std::move(r));
    rx_full_ = rx_long_ = false;
    rx_len_ = 0;
  }
  // O
  if (ob_was_valid && in_.m_ready) {
    if (ob_[ob_idx_].last) {
      ob_valid_ = false;
      ob_idx_ = 0;
    } else {
      ++ob_idx_;
    }
  }
  // A: a frame longer than kMaxBytes keeps only its length's overflow flag (dropped as malformed).
  if (in_.s.valid && out_.s_ready) {
    const Beat& b = in_.s.beat;
    const int n = b.Bytes();
    if (rx_len_ + n > kMaxBytes) {
      rx_long_ = true;
    } else {
      std::copy(b.data.begin(), b.data.begin() + n, rx_.begin() + rx_len_);
      rx_len_ += n;
    }
    if (b.last) rx_full_ = true;
  }
  // K
  if (in_.r.valid && out_.r_ready) {
    const Beat& b = in_.r.beat;
    const int n = b.Bytes();
    for (int j = 0; j < n; ++j) {
      if (cx_len_ + j < kCtrlBytes) cx_[cx_len_ + j] = b.data[j];
    }
    cx_len_ = std::min(cx_len_ + n, 0xFFFF);
    if (b.last) cx_full_ = true;
  }
}

}  // namespace nettwin::reroute
