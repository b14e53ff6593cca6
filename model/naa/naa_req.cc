#include "model/naa/naa_req.h"

#include <algorithm>

#include "model/common/bytes.h"
#include "model/rdma/rdma_packet.h"

namespace nettwin::naa {
namespace {

constexpr uint32_t kPsnMask = 0xFFFFFF;
constexpr uint32_t kWindow = params::kNaaReqWindow;
constexpr uint32_t kAckEvery = params::kNaaReqAckEvery;
constexpr int kIcrcLo = 14;
constexpr int kAckFrameBytes = 62;

uint32_t Psn(uint64_t v) { return static_cast<uint32_t>(v & kPsnMask); }
// a is at or after b in PSN order (within half the space).
bool PsnGe(uint32_t a, uint32_t b) { return Psn(a - b) < 0x800000; }

// Packets of a message (1 for a zero-length one; at most 2^23 packets, as the RTL).
uint32_t Packets(uint32_t len, int mtu_log2) {
  if (len == 0) return 1;
  const uint64_t q = (len >> mtu_log2) + ((len & ((1u << mtu_log2) - 1)) != 0 ? 1 : 0);
  return static_cast<uint32_t>((q & kPsnMask) | ((q >> 24) != 0 ? 1 : 0));
}

uint16_t Ip4Csum(uint16_t len, uint32_t src, uint32_t dst) {
  uint32_t s = 0x4500 + len + 0x4000 + 0x4011 + (src >> 16) + (src & 0xFFFF) + (dst >> 16) + (dst & 0xFFFF);
  s = (s & 0xFFFF) + (s >> 16);
  s = (s & 0xFFFF) + (s >> 16);
  return static_cast<uint16_t>(~s);
}

}  // namespace

ReqEngine::Shape ReqEngine::NextShape() const {
  Shape p;
  const Msg& m = msg_[st_.snd_msg % kReqMsgs];
  const int mtu_log2 = in_.conn.mtu_log2;
  const uint32_t mtu = 1u << mtu_log2;
  p.n = m.n;
  p.off = st_.snd_pkt << mtu_log2;
  const uint32_t left = m.cmd.len - p.off;
  p.plen = left > mtu ? mtu : left & 0x1FFF;
  const bool first = st_.snd_pkt == 0;
  p.last = Psn(st_.snd_pkt + 1) == m.n;
  p.reth = m.cmd.op != ReqOp::kSend && first;
  p.imm = m.cmd.op == ReqOp::kWriteImm && p.last;
  p.ack = p.last || Psn(st_.snd_pkt + 1) % kAckEvery == 0;
  p.hdr = 54 + (p.reth ? 16 : 0) + (p.imm ? 4 : 0);
  const bool only = m.n == 1;
  switch (m.cmd.op) {
    case ReqOp::kSend: p.opcode = only ? 0x04 : first ? 0x00 : p.last ? 0x02 : 0x01; break;
    case ReqOp::kWrite: p.opcode = only ? 0x0a : first ? 0x06 : p.last ? 0x08 : 0x07; break;
    default: p.opcode = only ? 0x0b : first ? 0x06 : p.last ? 0x09 : 0x07; break;
  }
  return p;
}

// The beat being sent: header bytes from the latched packet and the connection, the payload out of the
// packet buffer, zero pad, and the ICRC over what went before (appended on the fly).
StreamPort ReqEngine::TxBeat() const {
  const State& s = st_;
  const uint32_t pad = (4 - (s.p_plen & 3)) & 3;
  const uint32_t icrc_at = s.p_hdr + s.p_plen + pad;
  const uint32_t total = icrc_at + 4;
  const uint32_t base = s.k * kBeatBytes;
  StreamPort p;
  p.valid = true;
  uint8_t* d = p.beat.data.data();
  if (base < s.p_hdr) {
    uint8_t h[80] = {};
    const NaaConn& c = in_.conn;
    StoreBe(h, 6, c.mac);
    StoreBe(h + 6, 6, s.mac);
    StoreBe(h + 12, 2, 0x0800);
    h[14] = 0x45;
    const uint16_t ip_len = static_cast<uint16_t>(total - 14);
    StoreBe(h + 16, 2, ip_len);
    StoreBe(h + 20, 2, 0x4000);
    h[22] = 64;
    h[23] = 17;
    StoreBe(h + 24, 2, Ip4Csum(ip_len, s.ip4, c.ip));
    StoreBe(h + 26, 4, s.ip4);
    StoreBe(h + 30, 4, c.ip);
    StoreBe(h + 34, 2, c.sport);
    StoreBe(h + 36, 2, params::kRdmaUdpPort);
    StoreBe(h + 38, 2, total - 34);
    h[42] = s.p_opcode;
    h[43] = static_cast<uint8_t>(pad << 4);
    StoreBe(h + 44, 2, 0xFFFF);
    StoreBe(h + 47, 3, c.qpn);
    h[50] = s.p_ack ? 0x80 : 0;
    StoreBe(h + 51, 3, s.p_psn);
    if (s.p_reth) {
      StoreBe(h + 54, 8, s.p_va);
      StoreBe(h + 62, 4, s.p_rkey);
      StoreBe(h + 66, 4, s.p_dmalen);
    }
    if (s.p_has_imm) StoreBe(h + (s.p_reth ? 70 : 54), 4, s.p_imm);
    for (uint32_t i = 0; i < kBeatBytes && base + i < s.p_hdr; ++i) d[i] = h[base + i];
  }
  for (uint32_t i = 0; i < kBeatBytes; ++i) {
    const uint32_t f = base + i;
    if (f >= s.p_hdr && f < s.p_hdr + s.p_plen) {
      const uint32_t q = f - s.p_hdr;
      d[i] = buf_[q / kDmaBeatBytes][q % kDmaBeatBytes];
    }
  }
  const uint32_t icrc = ~rdma::IcrcBeat(s.rcrc, d, static_cast<int>(base), kIcrcLo, static_cast<int>(icrc_at), false);
  for (uint32_t j = 0; j < 4; ++j) {
    if (icrc_at + j >= base && icrc_at + j < base + kBeatBytes)
      d[icrc_at + j - base] = static_cast<uint8_t>(icrc >> (8 * j));
  }
  p.beat.keep = KeepMask(static_cast<int>(std::min<uint32_t>(kBeatBytes, total - base)));
  p.beat.last = base + kBeatBytes >= total;
  return p;
}

const ReqOut& ReqEngine::Eval(const ReqIn& in) {
  in_ = in;
  const State& s = st_;
  shape_ = NextShape();
  icrc_at_ = s.p_hdr + s.p_plen + ((4 - (s.p_plen & 3)) & 3);
  out_.m = s.sst == Snd::kSend ? TxBeat() : StreamPort{};
  out_.dma_req = DmaRequest{};
  if (s.sst == Snd::kRead) {
    out_.dma_req.valid = true;
    out_.dma_req.addr = s.p_laddr;
    out_.dma_req.len = static_cast<uint16_t>(s.p_plen);
  }
  // Commands in.
  const bool ring_full = s.tail - s.head == static_cast<uint32_t>(kReqMsgs);
  ring_empty_ = s.tail == s.head;
  out_.cmd_ready = s.live && !ring_full;
  ctl_take_ = in.cmd_valid && out_.cmd_ready;
  host_take_ = !in.cmd_valid && s.live && !ring_full && s.hq_wr != s.hq_rd;
  take_ = ctl_take_ || host_take_;
  take_cmd_ = ctl_take_ ? in.cmd : hq_[s.hq_rd % kReqHostCmds];
  // Completions.
  const Msg& h = msg_[s.head % kReqMsgs];
  const uint32_t acked = Psn(s.una - h.psn);
  head_done_ = !ring_empty_ && acked >= h.n && acked < 0x800000;
  flushing_ = !ring_empty_ && (s.fatal || !s.live);
  cpl_status_ = head_done_ ? CplStatus::kOk : s.fail_first ? s.fail_status : CplStatus::kFlushed;
  out_.cpl = ReqCpl{};
  out_.cpl.valid = (head_done_ || flushing_) && !h.host;
  out_.cpl.tag = h.cmd.tag;
  out_.cpl.status = cpl_status_;
  out_.s_ready = !s.rx_full;
  out_.busy = !ring_empty_ || s.sst != Snd::kIdle || s.rx_full || (s.live && s.hq_wr != s.hq_rd);
  out_.counters = s.c;
  return out_;
}

void ReqEngine::Receive() {
  if (!(in_.s.valid && !o_.rx_full)) return;
  if (o_.rx_nb == 0) rx_ = in_.s.beat.data;
  if (o_.rx_nb != 3) st_.rx_nb = o_.rx_nb + 1;
  st_.rx_len = (o_.rx_len + in_.s.beat.Bytes()) & 0xFFFF;
  if (in_.s.beat.last) {
    st_.rx_full = true;
    ++st_.c.packets_in;
  }
}

void ReqEngine::ProcessAck() {
  if (!o_.rx_full) return;
  st_.rx_full = false;
  st_.rx_nb = 0;
  st_.rx_len = 0;
  const uint8_t* f = rx_.data();
  const uint8_t syn = f[54];
  const uint8_t kind = syn >> 5, code = syn & 0x1F;
  const bool malformed = o_.rx_nb != 1 || o_.rx_len != kAckFrameBytes || Load16(f + 12) != 0x0800 || f[14] != 0x45 ||
                         Load16(f + 16) != 48 || (Load16(f + 20) & 0x3FFF) != 0 || f[23] != 17 ||
                         Load16(f + 36) != params::kRdmaUdpPort || Load16(f + 38) != 28 || f[42] != 0x11 ||
                         (syn & 0x80) || kind == 2 || (kind == 3 && code > 4);
  const bool not_for_us = LoadBe(f, 6) != o_.mac || Load32(f + 30) != o_.ip4 || LoadBe(f + 47, 3) != in_.conn.local_qpn;
  const uint32_t icrc = ~rdma::IcrcBeat(rdma::IcrcSeed(), f, 0, kIcrcLo, 58, false);
  const bool bad_icrc = (f[58] | f[59] << 8 | f[60] << 16 | static_cast<uint32_t>(f[61]) << 24) != icrc;
  const uint32_t psn = static_cast<uint32_t>(LoadBe(f + 51, 3));
  const uint32_t d = Psn(psn - o_.una), out = Psn(o_.max - o_.una);
  auto drop = [this](ReqDrop r) { ++st_.c.drops[static_cast<int>(r)]; };
  auto fatal = [this](CplStatus st) {
    st_.fatal = true;
    st_.fail_first = true;
    st_.fail_status = st;
  };
  if (malformed) return drop(ReqDrop::kMalformed);
  if (not_for_us) return drop(ReqDrop::kNotForUs);
  if (bad_icrc) return drop(ReqDrop::kBadIcrc);
  if (!o_.live) return drop(ReqDrop::kNotConnected);
  if (o_.fatal || d >= 0x800000) {
    ++st_.c.processed;
    ++st_.c.cnt[params::kNaaReqCntStale];
    return;
  }
  if (kind == 3 && code == 0 ? d > out : d >= out) return drop(ReqDrop::kGhost);
  ++st_.c.processed;
  const uint32_t una = kind == 0 ? Psn(psn + 1) : psn;
  st_.una = una;
  if (kind == 0 || d != 0) {
    st_.timer = 0;
    st_.retry_left = o_.retry_max;
    st_.rnr_left = o_.rnr_max;
  }
  if (PsnGe(una, Psn(o_.snd + 1))) st_.rw = true;
  if (kind == 0) {
    ++st_.c.cnt[params::kNaaReqCntAcks];
  } else if (kind == 1) {
    ++st_.c.cnt[params::kNaaReqCntNakRnr];
    const uint8_t left = d == 0 ? o_.rnr_left : o_.rnr_max;
    if (o_.rnr_max != 7 && left == 0) {
      fatal(CplStatus::kRetryExceeded);
    } else {
      if (o_.rnr_max != 7) st_.rnr_left = static_cast<uint8_t>((left - 1) & 7);
      st_.rnr_waiting = true;
      st_.rnr_wait = (code + 1u) * params::kNaaReqRnrUnit;
    }
  } else if (code == 0) {
    ++st_.c.cnt[params::kNaaReqCntNakSeq];
    const uint8_t left = d == 0 ? o_.retry_left : o_.retry_max;
    if (left == 0) {
      fatal(CplStatus::kRetryExceeded);
    } else {
      st_.retry_left = static_cast<uint8_t>((left - 1) & 7);
      st_.rw = true;
    }
  } else {
    ++st_.c.cnt[params::kNaaReqCntNakFatal];
    fatal(CplStatus::kRemoteError);
  }
}

void ReqEngine::Send() {
  const Shape& p = shape_;
  switch (o_.sst) {
    case Snd::kIdle:
      if (o_.rw && o_.live && !head_done_ && !o_.rx_full && !o_.rnr_waiting) {
        st_.rw = false;
        st_.snd_msg = o_.head;
        st_.snd = o_.una;
        st_.snd_pkt = ring_empty_ ? 0 : Psn(o_.una - msg_[o_.head % kReqMsgs].psn);
      } else if (o_.live && !o_.fatal && !o_.rw && !o_.rnr_waiting && o_.snd_msg != o_.tail &&
                 Psn(o_.snd - o_.una) < kWindow) {
        const ReqCmd& c = msg_[o_.snd_msg % kReqMsgs].cmd;
        st_.p_hdr = p.hdr;
        st_.p_plen = p.plen;
        st_.p_opcode = p.opcode;
        st_.p_ack = p.ack;
        st_.p_reth = p.reth;
        st_.p_has_imm = p.imm;
        st_.p_psn = o_.snd;
        st_.p_va = c.raddr + p.off;
        st_.p_rkey = c.rkey;
        st_.p_dmalen = c.len - p.off;
        st_.p_imm = c.imm;
        st_.p_laddr = c.laddr + p.off;
        st_.fill = 0;
        st_.k = 0;
        st_.rcrc = rdma::IcrcSeed();
        st_.sst = p.plen != 0 ? Snd::kRead : Snd::kSend;
      }
      break;
    case Snd::kRead:
      if (in_.dma_ready) st_.sst = Snd::kFill;
      break;
    case Snd::kFill:
      if (in_.dma_rsp.valid) {
        if (o_.fill < static_cast<uint32_t>(kReqBufBeats)) buf_[o_.fill % kReqBufBeats] = in_.dma_rsp.data;
        st_.fill = (o_.fill + 1) & 0x7F;
        if (in_.dma_rsp.last) st_.sst = Snd::kSend;
      }
      break;
    case Snd::kSend:
      if (in_.m_ready) {
        const StreamPort& b = out_.m;
        st_.rcrc = rdma::IcrcBeat(o_.rcrc, b.beat.data.data(), static_cast<int>(o_.k * kBeatBytes), kIcrcLo,
                                  static_cast<int>(icrc_at_), false);
        st_.k = (o_.k + 1) & 0x7F;
        if (b.beat.last) {
          st_.sst = Snd::kIdle;
          ++st_.c.cnt[params::kNaaReqCntSent];
          if (!PsnGe(o_.p_psn, o_.max)) {
            ++st_.c.cnt[params::kNaaReqCntRetransmits];
          } else {
            st_.max = Psn(o_.p_psn + 1);
          }
          if (o_.live) {
            st_.snd = Psn(o_.snd + 1);
            st_.timer = 0;
            if (Psn(o_.snd_pkt + 1) == p.n) {
              st_.snd_msg = o_.snd_msg + 1;
              st_.snd_pkt = 0;
            } else {
              st_.snd_pkt = Psn(o_.snd_pkt + 1);
            }
          }
        }
      }
      break;
  }
}

void ReqEngine::Tick() {
  o_ = st_;
  const NaaConn& conn = in_.conn;
  const CfgWrite& cfg = in_.cfg;
  // Settings and host-posted commands.
  if (cfg.valid && cfg.table == params::kRdmaTblResponder && cfg.index == 0) {
    st_.mac = cfg.data.Get(3, 48);
    st_.ip4 = static_cast<uint32_t>(cfg.data.Get(51, 32));
  }
  if (cfg.valid && cfg.table == params::kNaaTblReq) {
    if (cfg.index == 0) {
      st_.timeout = static_cast<uint32_t>(cfg.data.Get(0, 32));
      st_.retry_max = static_cast<uint8_t>(cfg.data.Get(32, 3));
      st_.rnr_max = static_cast<uint8_t>(cfg.data.Get(35, 3));
    }
    if (cfg.index == 1 && o_.hq_wr - o_.hq_rd != static_cast<uint32_t>(kReqHostCmds)) {
      hq_[o_.hq_wr % kReqHostCmds] = DecodeReqCmd(cfg.data);
      st_.hq_wr = o_.hq_wr + 1;
    }
  }
  // The connection: live once connected and the sender and ring are clear of the last one.
  if (!conn.connected) {
    st_.live = false;
  } else if (!o_.live && o_.sst == Snd::kIdle && ring_empty_) {
    st_.live = true;
    st_.alloc = st_.snd = st_.una = st_.max = conn.start_psn;
    st_.snd_pkt = 0;
    st_.snd_msg = o_.head;
    st_.fatal = st_.fail_first = false;
    st_.timer = 0;
    st_.rnr_waiting = st_.rw = false;
    st_.retry_left = o_.retry_max;
    st_.rnr_left = o_.rnr_max;
  }
  // Commands in.
  if (take_) {
    Msg& m = msg_[o_.tail % kReqMsgs];
    m.cmd = take_cmd_;
    m.psn = o_.alloc;
    m.n = Packets(take_cmd_.len, conn.mtu_log2);
    m.host = !ctl_take_;
    st_.tail = o_.tail + 1;
    st_.alloc = Psn(o_.alloc + m.n);
    if (host_take_) st_.hq_rd = o_.hq_rd + 1;
  }
  // Completions.
  if (head_done_ || flushing_) {
    st_.head = o_.head + 1;
    switch (cpl_status_) {
      case CplStatus::kOk: ++st_.c.cnt[params::kNaaReqCntCplOk]; break;
      case CplStatus::kRetryExceeded: ++st_.c.cnt[params::kNaaReqCntCplRetry]; break;
      case CplStatus::kRemoteError: ++st_.c.cnt[params::kNaaReqCntCplRemote]; break;
      case CplStatus::kFlushed: ++st_.c.cnt[params::kNaaReqCntCplFlushed]; break;
    }
    if (!head_done_) st_.fail_first = false;
  }
  // Timers.
  if (o_.live && !o_.fatal && o_.una != o_.max && !o_.rnr_waiting && !o_.rw && o_.timeout != 0) {
    if (o_.timer + 1 >= o_.timeout) {
      st_.timer = 0;
      ++st_.c.cnt[params::kNaaReqCntTimeouts];
      if (o_.retry_left == 0) {
        st_.fatal = true;
        st_.fail_first = true;
        st_.fail_status = CplStatus::kRetryExceeded;
      } else {
        st_.retry_left = static_cast<uint8_t>(o_.retry_left - 1);
        st_.rw = true;
      }
    } else {
      st_.timer = o_.timer + 1;
    }
  }
  if (o_.rnr_waiting) {
    if (o_.rnr_wait <= 1) {
      st_.rnr_waiting = false;
      st_.rw = true;
    }
    st_.rnr_wait = o_.rnr_wait - 1;
  }
  Receive();
  ProcessAck();
  Send();
}

}  // namespace nettwin::naa
