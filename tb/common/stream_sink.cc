#include "tb/common/stream_sink.h"

namespace nettwin::tb {

void StreamSink::Observe(uint64_t cycle, const StreamPort& port) {
  if (!port.valid || !ready_) return;
  ++out_beats_;
  if (!in_frame_) {
    first_cycles_.push_back(cycle);
    in_frame_ = true;
  }
  AppendBeat(port.beat, &cur_);
  if (port.beat.last) {
    frames_.push_back(Packet{std::move(cur_), 0});
    cur_.clear();
    in_frame_ = false;
  }
}

}  // namespace nettwin::tb
