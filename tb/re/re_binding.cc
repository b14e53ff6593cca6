#include "tb/re/re_binding.h"

#include <string>

namespace nettwin::re {

std::string ReStaticError(const ReStatic& s) {
  if (s.contexts < 1 || s.contexts > params::kReContexts)
    return "contexts " + std::to_string(s.contexts) + " exceeds the RTL's ReContexts (" +
           std::to_string(params::kReContexts) + ")";
  if (s.version > 15) return "version " + std::to_string(s.version) + " does not fit the header's 4-bit field";
  if (s.buffer == BufferMode::kHost) {
    if (s.buffer_bytes < 1 || s.buffer_bytes > kReHostBufBytes)
      return "buffer_bytes " + std::to_string(s.buffer_bytes) + " exceeds the RTL's ReHostBufBytes (" +
             std::to_string(kReHostBufBytes) + ") with buffer host";
    if (s.host_base % 4096 != 0) return "host_base must be a multiple of 4096";
    return "";
  }
  if (s.buffer_bytes < 1 || s.buffer_bytes > params::kReBufBytes)
    return "buffer_bytes " + std::to_string(s.buffer_bytes) + " exceeds the RTL's ReBufBytes (" +
           std::to_string(params::kReBufBytes) + ")";
  return "";
}

bool ReSide::Drive(uint64_t cycle, size_t next_packet, const tb::Accounting& acc, ReIn* in) {
  in->cfg_contexts = cfg_.contexts;
  in->cfg_buffer_bytes = cfg_.buffer_bytes;
  in->cfg_timeout_ns = cfg_.timeout_ns;
  in->cfg_format = cfg_.format;
  in->cfg_version = cfg_.version;
  in->cfg_lb_header = cfg_.lb_header;
  in->cfg_host = cfg_.buffer == BufferMode::kHost;
  in->cfg_host_base = cfg_.host_base;
  if (mem_ != nullptr) {
    in->dma_ready = mem_->Ready(cycle);
    mem_->Response(cycle);  // the engine only writes; keeps the memory's cycle bookkeeping
  }
  in->s_time_ns = next_packet < packets_->size() ? (*packets_)[next_packet].time_ns : 0;
  // Every frame is in (its last beat accepted): tell the engine the input has ended, once.
  if (!flushed_ && next_packet >= packets_->size() && acc.in == packets_->size()) {
    in->flush = true;
    flushed_ = true;
  }
  return true;
}

void ReSide::Observe(uint64_t cycle, const ReIn& in, const ReOut& out) {
  busy_ = out.busy || in.flush;
  if (mem_ != nullptr) {
    if (out.dma.valid && in.dma_ready) mem_->Accept(cycle, out.dma);
    if (out.m.valid && in.m_ready) {
      AppendBeat(out.m.beat, &record_);
      if (out.m.beat.last) {
        // header (length at hb - 8), then the 8-byte address
        const size_t hb = EventHeaderBytes(cfg_.format);
        auto be = [&](size_t at, int n) {
          uint64_t v = 0;
          for (int i = 0; i < n; ++i) {
            const size_t k = at + static_cast<size_t>(i);
            v = (v << 8) | (k < record_.size() ? record_[k] : 0);
          }
          return v;
        };
        std::vector<uint8_t> data(record_.size() == hb + kReRecordAddrBytes ? be(hb - 8, 4) : 0);
        if (!data.empty()) mem_->Read(be(hb, 8), data.data(), data.size());
        host_events_.push_back(std::move(data));
        record_.clear();
      }
    }
  }
  if (out.report.valid) reports_.push_back(out.report);
}

}  // namespace nettwin::re
