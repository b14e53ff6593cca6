#include "model/naa/naa_ctl.h"

#include <algorithm>

namespace nettwin::naa {

CfgData EncodeCtl0(const CtlCfg& c) {
  CfgData d;
  d.SetBit(0, c.enable);
  d.Set(1, 64, c.pool);
  d.Set(65, 64, c.pool_size);
  d.Set(129, 8, c.mr_first);
  d.Set(137, 8, c.mrs);
  d.Set(145, 32, c.rkey_base);
  d.Set(177, 4, c.qp_slot);
  d.Set(181, 24, c.qpn);
  return d;
}

CfgData EncodeCtl1(const CtlCfg& c) {
  CfgData d;
  d.Set(0, 64, c.rxbuf);
  d.Set(64, 64, c.txbuf);
  d.Set(128, 32, c.budget);
  d.SetBit(160, c.imm_naaice);
  return d;
}

void DecodeCtl(const CfgWrite& w, CtlCfg* c) {
  if (!w.valid || w.table != params::kNaaTblCtl) return;
  const CfgData& d = w.data;
  if (w.index == 0) {
    c->enable = d.Bit(0);
    c->pool = d.Get(1, 64);
    c->pool_size = d.Get(65, 64);
    c->mr_first = static_cast<uint8_t>(d.Get(129, 8));
    c->mrs = static_cast<uint8_t>(d.Get(137, 8));
    c->rkey_base = static_cast<uint32_t>(d.Get(145, 32));
    c->qp_slot = static_cast<uint8_t>(d.Get(177, 4));
    c->qpn = static_cast<uint32_t>(d.Get(181, 24));
  } else if (w.index == 1) {
    c->rxbuf = d.Get(0, 64);
    c->txbuf = d.Get(64, 64);
    c->budget = static_cast<uint32_t>(d.Get(128, 32));
    c->imm_naaice = d.Bit(160);
  } else if (w.index == 2) {
    c->queues = rdma::DecodeQpQueues(d);
  }
}

uint32_t RpcFunction(const CtlCfg& c, uint32_t imm) {
  if (!c.imm_naaice) return imm;
  return (imm & kNaaiceRpcFlag) != 0 ? imm & (kNaaiceRpcFlag - 1) : 0;
}

uint32_t RpcReturnImm(const CtlCfg& c, uint8_t code) {
  return c.imm_naaice ? uint32_t{code} << kNaaiceRetShift : code;
}

uint32_t NaaCtl::GrantKey(uint32_t grant, int region) const {
  return cfg_.rkey_base + grant * static_cast<uint32_t>(kRegions) + static_cast<uint32_t>(region);
}

uint64_t NaaCtl::MsgBe(int off, int n) const {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | MsgByte(off + i);
  return v;
}

uint8_t NaaCtl::AnsByte(int i) const {
  if (err_ != 0) return i == 1 ? err_ : 0;  // 0x00 Error: type 0, code, padding
  if (i < 4) return i == 0 ? mrsp::kAdv : i == 1 ? static_cast<uint8_t>(n_) : 0;
  const int j = (i - 4) / 16, k = (i - 4) % 16;
  const Region& r = regions_[j];
  if (k < 8) return static_cast<uint8_t>(r.fpga >> (8 * (7 - k)));
  if (k < 12) return static_cast<uint8_t>(GrantKey(counters_.grants - 1, j) >> (8 * (11 - k)));  // granted: counted
  return static_cast<uint8_t>(r.size >> (8 * (15 - k)));
}

const NaaCtlOut& NaaCtl::Eval(const NaaCtlIn& in) {
  in_ = in;
  out_ = NaaCtlOut{};
  kout_ = kernel_.Eval();
  rdma::MrCfg mr;  // an invalid MR unless granted below
  switch (state_) {
    case CtlState::kRead: {
      DmaRequest& d = out_.dma_req;
      d.valid = true;
      d.addr = cfg_.rxbuf + uint64_t{kRxBufBytes} * cur_.wr_id;
      d.len = static_cast<uint16_t>(std::min<uint32_t>(cur_.len, kMsgBytes));
      break;
    }
    case CtlState::kGrant:
      if (idx_ < req_n_) {
        const int e = 4 + 24 * idx_;
        mr.valid = mr.r = mr.w = true;
        mr.rkey = GrantKey(counters_.grants, idx_);  // the grants before this one
        mr.va = mr.pa = MsgBe(e + 1, 7);
        mr.len = MsgBe(e + 20, 4);
      }
      [[fallthrough]];
    case CtlState::kRevoke:
      out_.cfg.valid = true;
      out_.cfg.table = params::kRdmaTblMr;
      out_.cfg.index = static_cast<uint16_t>(cfg_.mr_first + idx_);
      out_.cfg.data = rdma::Encode(mr);
      break;
    case CtlState::kAnsWrite: {
      DmaRequest& d = out_.dma_req;
      d.valid = true;
      d.write = true;
      d.addr = cfg_.txbuf + uint64_t{kDmaBeatBytes} * beat_;
      d.len = static_cast<uint16_t>(std::min(kDmaBeatBytes, AnsLen() - kDmaBeatBytes * beat_));
      for (int i = 0; i < d.len; ++i) d.data[i] = AnsByte(kDmaBeatBytes * beat_ + i);
      break;
    }
    case CtlState::kCmd:
      out_.cmd_valid = !gone_;  // nothing of a connection that went reaches the requester
      if (!rpc_) {
        out_.cmd.op = ReqOp::kSend;
        out_.cmd.laddr = cfg_.txbuf;
        out_.cmd.len = static_cast<uint32_t>(AnsLen());
      } else {  // the result region to the client's region of the same index, or the error to region 0
        const bool ok = rpc_status_ == rpc::kOk;
        const Region& r = regions_[ok ? out_idx_ : 0];
        out_.cmd.op = ReqOp::kWriteImm;
        out_.cmd.laddr = ok ? r.fpga : 0;
        out_.cmd.len = ok ? out_len_ : 0;
        out_.cmd.raddr = r.host;
        out_.cmd.rkey = r.host_rkey;
        out_.cmd.imm = RpcReturnImm(cfg_, rpc_status_);
      }
      break;
    case CtlState::kKWait:  // the kernel has the DMA port
      out_.dma_req = kout_.dma_req;
      break;
    case CtlState::kRepost: {
      rdma::QpQueuesCfg q = cfg_.queues;
      q.rq_posted = static_cast<uint16_t>(posted_ + 1);
      out_.cfg.valid = true;
      out_.cfg.table = params::kRdmaTblQpQueues;
      out_.cfg.index = cfg_.qp_slot;
      out_.cfg.data = rdma::Encode(q);
      break;
    }
    default: break;
  }
  out_.counters = counters_;
  out_.counters.regions = static_cast<uint8_t>(n_);
  out_.counters.state = state_;
  out_.busy = state_ != CtlState::kIdle || EventCount() > 0 || ((!in.connected || gone_) && n_ > 0);
  return out_;
}

void NaaCtl::Tick() {
  const bool dma_fire = out_.dma_req.valid && in_.dma_ready;
  const bool cfg_fire = out_.cfg.valid && in_.cfg_ready;
  const uint32_t queued = EventCount();
  KernelStart ks;
  if (state_ == CtlState::kKStart) {
    ks.valid = true;
    ks.fn = RpcFunction(cfg_, cur_.imm);
    ks.nreg = static_cast<uint8_t>(n_);
    for (int j = 0; j < 3 && j < n_; ++j) {
      ks.addr[j] = regions_[j].fpga;
      ks.size[j] = regions_[j].size;
    }
    ks.budget = cfg_.budget;
  }
  const bool kwait = state_ == CtlState::kKWait;
  kernel_.Tick(ks, kwait && in_.dma_ready, kwait ? in_.dma_rsp : DmaResponse{});
  auto error = [&](uint8_t code) {
    rpc_ = false;
    err_ = code;
    ++counters_.errors[code];
    beat_ = 0;
    state_ = CtlState::kAnsWrite;
  };
  switch (state_) {
    case CtlState::kIdle:
      if (!in_.connected || gone_) {  // disconnect (now or while busy): revoke the grant
        gone_ = false;                 // set again below while the connection is down
        if (n_ > 0) {
          idx_ = 0;
          state_ = CtlState::kRevoke;
        }
      } else if (queued > 0) {
        cur_ = ev_[ev_rd_ % kCqeFifo];
        ++ev_rd_;
        if (cur_.opcode == 0) {
          ++counters_.requests;
          if (cur_.len < 4) {
            error(mrsp::kMalformed);
          } else {
            rpc_ = false;
            state_ = CtlState::kRead;
          }
        } else if (n_ == 0) {
          ++counters_.drops[static_cast<int>(CtlDrop::kNoRegions)];
          state_ = CtlState::kRepost;
        } else {
          state_ = CtlState::kKStart;
        }
      }
      break;
    case CtlState::kRead:
      if (dma_fire) {
        beat_ = 0;
        state_ = CtlState::kReadWait;
      }
      break;
    case CtlState::kReadWait:
      if (in_.dma_rsp.valid) {
        msg_[beat_] = in_.dma_rsp.data;
        ++beat_;
        if (in_.dma_rsp.last) state_ = CtlState::kHeader;
      }
      break;
    case CtlState::kHeader: {
      const int n = MsgByte(1);
      if (MsgByte(0) != mrsp::kAdvReq || n == 0 || cur_.len < static_cast<uint32_t>(4 + 24 * n)) {
        error(mrsp::kMalformed);
      } else if (n > kRegions || n > cfg_.mrs) {
        error(mrsp::kTooMany);
      } else {
        req_n_ = n;
        idx_ = 0;
        state_ = CtlState::kEntry;
      }
      break;
    }
    case CtlState::kEntry: {
      const int e = 4 + 24 * idx_;
      const uint64_t addr = MsgBe(e + 1, 7), size = MsgBe(e + 20, 4), end = cfg_.pool + cfg_.pool_size;
      if (addr < cfg_.pool || addr >= end) {
        error(mrsp::kBadAddress);
      } else if (addr + size > end) {
        error(mrsp::kNoMemory);
      } else if (idx_ + 1 == req_n_) {
        err_ = 0;
        idx_ = 0;
        state_ = CtlState::kGrant;
      } else {
        ++idx_;
      }
      break;
    }
    case CtlState::kGrant:
      if (cfg_fire) {
        if (idx_ < req_n_) {
          const int e = 4 + 24 * idx_;
          regions_[idx_] = Region{MsgBe(e + 1, 7), MsgBe(e + 8, 8), static_cast<uint32_t>(MsgBe(e + 20, 4)),
                                  static_cast<uint32_t>(MsgBe(e + 16, 4))};
        }
        ++idx_;
        if (idx_ == std::max(req_n_, n_)) {
          n_ = req_n_;
          ++counters_.grants;
          beat_ = 0;
          state_ = CtlState::kAnsWrite;
        }
      }
      break;
    case CtlState::kAnsWrite:
      if (dma_fire) {
        ++beat_;
        if (kDmaBeatBytes * beat_ >= AnsLen()) state_ = CtlState::kCmd;
      }
      break;
    case CtlState::kCmd:
      if (in_.cmd_ready && !gone_) {
        state_ = CtlState::kCplWait;
      } else if (!in_.connected || gone_) {  // the connection went away: the answer has nowhere to go
        ++counters_.send_failed;
        state_ = CtlState::kRepost;
      }
      break;
    case CtlState::kCplWait:
      if (in_.cpl.valid) {
        ++(in_.cpl.status == CplStatus::kOk ? counters_.answers : counters_.send_failed);
        state_ = CtlState::kRepost;
      }
      break;
    case CtlState::kRepost:
      if (!in_.connected || gone_) {  // the connection went away: the CM rewrites the queues on the next RTU
        state_ = CtlState::kIdle;
      } else if (cfg_fire) {
        ++posted_;
        ++counters_.reposts;
        state_ = CtlState::kIdle;
      }
      break;
    case CtlState::kKStart:
      ++counters_.rpcs;
      state_ = CtlState::kKWait;
      break;
    case CtlState::kKWait:
      if (kout_.done) {
        rpc_ = true;
        rpc_status_ = kout_.status;
        out_idx_ = kout_.out_idx;
        out_len_ = kout_.out_len;
        if (rpc_status_ != rpc::kOk) ++counters_.rpc_errors;
        state_ = CtlState::kCmd;
      }
      break;
    case CtlState::kRevoke:
      if (cfg_fire) {
        ++idx_;
        if (idx_ == n_) {
          n_ = 0;
          state_ = CtlState::kIdle;
        }
      }
      break;
  }
  // Completion events of the connected QP queue up; the state machine takes one per MRSP/RPC.
  if (cfg_.enable && in_.cqe.valid && in_.cqe.qpn == cfg_.qpn) {
    ++counters_.events;
    if (!in_.connected) {
      ++counters_.drops[static_cast<int>(CtlDrop::kFlushed)];
    } else if (queued == kCqeFifo) {  // the count at the start of the cycle, as the RTL sees it
      ++counters_.drops[static_cast<int>(CtlDrop::kOverflow)];
    } else {
      ev_[ev_wr_ % kCqeFifo] = in_.cqe;
      ++ev_wr_;
    }
  }
  if (!in_.connected) {
    // Events queued when the connection is gone are flushed in any state: none may reach a new connection.
    counters_.drops[static_cast<int>(CtlDrop::kFlushed)] += queued;
    ev_rd_ = ev_wr_;
    gone_ = true;
    posted_ = cfg_.queues.rq_posted;  // the CM writes the template on the next RTU
  }
  DecodeCtl(in_.cfg, &cfg_);
}

}  // namespace nettwin::naa
