#include "tb/common/stream_source.h"

namespace nettwin::tb {

uint64_t StreamSource::ArrivalCycle(size_t i) const {
  if (!timed_ || packets_->empty()) return 0;
  const uint64_t t0 = (*packets_)[0].time_ns;
  const uint64_t t = (*packets_)[i].time_ns;
  return t < t0 ? 0 : static_cast<uint64_t>(static_cast<double>(t - t0) * clock_mhz_ / 1000.0);
}

void StreamSource::Drive(uint64_t cycle, bool may_start, StreamPort* port) {
  *port = StreamPort{};
  if (!presenting_) {
    if (beats_.empty()) {
      if (next_ >= packets_->size() || !may_start || cycle < ArrivalCycle(next_)) return;
      beats_ = ToBeats((*packets_)[next_].bytes);
      beat_ = 0;
      ++next_;
    }
    // A gap is only ever inserted before a beat is first presented (AXI: valid stays up until accepted).
    if (gap_ > 0 && std::uniform_real_distribution<double>(0, 1)(rng_) < gap_) return;
    presenting_ = true;
  }
  port->valid = true;
  port->beat = beats_[beat_];
}

void StreamSource::Observe(uint64_t cycle, bool ready) {
  if (!presenting_) return;
  if (!ready) {
    ++stall_cycles_;
    return;
  }
  ++in_beats_;
  if (beat_ == 0) first_cycles_.push_back(cycle);
  presenting_ = false;
  if (++beat_ == beats_.size()) {
    last_cycles_.push_back(cycle);
    beats_.clear();
  }
}

}  // namespace nettwin::tb
