#include "tb/re/re_binding.h"

#include <cstdio>
#include <string>

namespace nettwin::re {

std::optional<tb::SignalDiff> ReBinding::Compare(const Out& r, const Out& m) {
  const auto diff = tb::DiffValues;
  if (auto d = diff("s_ready_o", r.s_ready, m.s_ready)) return d;
  if (!(r.m == m.m)) return tb::DiffStream("m", r.m, m.m);
  if (!(r.dma == m.dma)) {
    auto show = [](const DmaRequest& q) {
      if (!q.valid) return std::string("idle");
      char b[120];
      std::snprintf(b, sizeof b, "write addr 0x%llx len %u off %u", static_cast<unsigned long long>(q.addr), q.len,
                    q.off);
      return std::string(b);
    };
    if (r.dma.valid && m.dma.valid && show(r.dma) == show(m.dma)) {
      for (int i = 0; i < kDmaBeatBytes; ++i) {
        if (auto d = diff("dma_req_data_o byte " + std::to_string(i), r.dma.data[static_cast<size_t>(i)],
                          m.dma.data[static_cast<size_t>(i)]))
          return d;
      }
    }
    return tb::SignalDiff{"dma_req_*_o", show(r.dma), show(m.dma)};
  }
  if (auto d = diff("rep_valid_o", r.report.valid, m.report.valid)) return d;
  if (r.report.valid && !(r.report == m.report)) {
    auto show = [](const ReReport& p) {
      char b[200];
      std::snprintf(b, sizeof b,
                    "event_num %llu data_id %u received %u segments %u length %u end_known %d at_end %d",
                    static_cast<unsigned long long>(p.event_num), p.data_id, p.received, p.segments, p.length,
                    p.end_known, p.at_end);
      return std::string(b);
    };
    return tb::SignalDiff{"rep_*_o", show(r.report), show(m.report)};
  }
  if (auto d = diff("busy_o", r.busy, m.busy)) return d;
  if (auto d = diff("cnt_in_o", r.cnt.in, m.cnt.in)) return d;
  if (auto d = diff("cnt_used_o", r.cnt.used, m.cnt.used)) return d;
  if (auto d = diff("cnt_completed_o", r.cnt.completed, m.cnt.completed)) return d;
  if (auto d = diff("cnt_timed_out_o", r.cnt.timed_out, m.cnt.timed_out)) return d;
  if (auto d = diff("cnt_out_o", r.cnt.out, m.cnt.out)) return d;
  for (int i = 1; i < kReDropCodes; ++i) {
    const std::string sig = std::string("cnt_drops_o[") + DropName(i - 1) + "]";
    if (auto d = diff(sig, r.cnt.drops[static_cast<size_t>(i)], m.cnt.drops[static_cast<size_t>(i)])) return d;
  }
  return std::nullopt;
}

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
