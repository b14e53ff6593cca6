#include "model/naa/naa_cm.h"

#include <algorithm>

#include "model/common/bytes.h"
#include "model/rdma/rdma_packet.h"

namespace nettwin::naa {

const CmOut& CmEngine::Eval(const CmIn& in) {
  in_ = in;
  out_.s_ready = state_ == CmState::kRx;
  out_.busy = state_ != CmState::kRx;
  out_.hold = Holding();
  out_.m = state_ == CmState::kResp ? ResponseBeat() : StreamPort{};
  out_.cfg = Configuring() ? QpWrite() : CfgWrite{};
  out_.counters = counters_;
  out_.counters.conn = conn_;
  out_.conn = NaaConn{conn_ == Conn::kEstablished, client_mac_, client_ip_, static_cast<uint16_t>(client_sport_),
                      client_qpn_, rdma::DecodeQp(qp_tpl_).qpn, start_psn_, mtu_log2_};
  return out_;
}

CfgWrite CmEngine::QpWrite() const {
  CfgWrite w;
  w.valid = true;
  w.index = cfg_.qp_slot;
  if (state_ == CmState::kCfgQueues) {
    w.table = params::kRdmaTblQpQueues;
    w.data = queues_tpl_;
    return w;
  }
  w.table = params::kRdmaTblQp;
  if (cfg_connect_) {
    rdma::QpCfg q = rdma::DecodeQp(qp_tpl_);
    q.valid = true;
    q.dest_qp = client_qpn_;
    q.epsn = client_psn_;
    q.mtu_log2 = mtu_log2_;
    q.max_rd_atomic = resp_res_;
    w.data = rdma::Encode(q);
  }
  return w;
}

StreamPort CmEngine::ResponseBeat() const {
  StreamPort p;
  p.valid = true;
  const int base = k_ * kBeatBytes;
  for (int i = 0; i < kBeatBytes && base + i < kCmIcrcAt; ++i) p.beat.data[i] = frame_[base + i];
  const uint32_t icrc = ~rdma::IcrcBeat(rcrc_, p.beat.data.data(), base, 14, kCmIcrcAt, false);
  for (int j = 0; j < 4; ++j) {
    const int pos = kCmIcrcAt + j;
    if (pos >= base && pos < base + kBeatBytes) p.beat.data[pos - base] = static_cast<uint8_t>(icrc >> (8 * j));
  }
  p.beat.keep = KeepMask(std::min(kBeatBytes, kCmFrameBytes - base));
  p.beat.last = base + kBeatBytes >= kCmFrameBytes;
  return p;
}

bool CmEngine::Establishes(const Beat& b) const {
  const uint8_t* d = b.data.data();
  return conn_ == Conn::kRepSent && (b.keep >> 49 & 1) && Load16(d + 12) == 0x0800 && d[14] == 0x45 &&
         d[23] == 17 && Load16(d + 36) == params::kRdmaUdpPort && LoadBe(d + 47, 3) != 1 &&
         LoadBe(d + 47, 3) == rdma::DecodeQp(qp_tpl_).qpn && LoadBe(d + 26, 4) == client_ip_;
}

void CmEngine::Receive(const Beat& beat) {
  if (nb_ < kCmBufBeats) {
    buf_[nb_] = beat;
    crc_ = rdma::IcrcBeat(nb_ == 0 ? rdma::IcrcSeed() : crc_, beat.data.data(), nb_ * kBeatBytes, 14, kCmIcrcAt, false);
    ++nb_;
  } else {
    overflow_ = true;
  }
  len_ = (len_ + beat.Bytes()) & 0xFFFF;
  if (beat.last) {
    ++counters_.packets_in;
    state_ = CmState::kParse;
  }
}

void CmEngine::Parse() {
  CmFrameBytes f{};
  for (int b = 0; b < nb_; ++b) std::copy(buf_[b].data.begin(), buf_[b].data.end(), f.begin() + b * kBeatBytes);
  const CmMsg m = ParseCm(f, len_, overflow_, crc_, resp_);
  nb_ = 0;
  len_ = 0;
  overflow_ = false;
  state_ = CmState::kRx;
  auto drop = [this](CmDrop d) { ++counters_.drops[static_cast<int>(d)]; };
  if (m.drop != CmDrop::kNone) return drop(m.drop);
  desc_ = CmDesc{};
  desc_.tid = m.tid;
  desc_.dst_mac = m.src_mac;
  desc_.dst_ip = m.src_ip;
  desc_.sport = m.sport;
  desc_.psn = mad_psn_;
  const rdma::QpCfg tpl = rdma::DecodeQp(qp_tpl_);
  auto reject = [&](uint16_t reason) {
    desc_.attr = attr::kRej;
    desc_.remote_comm = m.comm0;
    desc_.reason = reason;
    ++counters_.rejects;
    state_ = CmState::kDrain;
    after_ = CmState::kResp;
  };
  const bool ours = m.comm1 == local_comm_ && m.comm0 == remote_comm_;
  switch (m.attr) {
    case attr::kReq: {
      const bool dup = conn_ != Conn::kIdle && m.comm0 == remote_comm_ && m.qpn == client_qpn_;
      if (dup && conn_ != Conn::kRepSent) return drop(CmDrop::kIgnored);
      if (!dup) {
        if (!cfg_.listen || m.service_id != cfg_.service_id) return reject(rej::kInvalidServiceId);
        if (m.transport != 0) return reject(rej::kInvalidTransportType);
        // A path MTU above the qp line's is refused (the REP has no MTU field: the client would send packets
        // the responder NAKs); one at or below it is the connection's MTU.
        if (m.mtu < 1 || m.mtu > 5 || m.mtu + 7 > tpl.mtu_log2) return reject(rej::kInvalidMtu);
        if (conn_ != Conn::kIdle) return reject(rej::kNoQp);
        remote_comm_ = m.comm0;
        client_qpn_ = m.qpn;
        client_psn_ = m.psn;
        client_mac_ = m.src_mac;
        client_ip_ = m.src_ip;
        client_sport_ = m.sport;
        start_psn_ = cfg_.start_psn;
        local_comm_ = cfg_.comm_id + accepted_;
        ++accepted_;
        resp_res_ = static_cast<uint8_t>(std::min<uint32_t>(m.init_depth, std::min<uint32_t>(tpl.max_rd_atomic, 255)));
        init_depth_ = std::min(m.resp_res, cfg_.initiator_depth);
        mtu_log2_ = static_cast<uint8_t>(std::min<int>(m.mtu + 7, tpl.mtu_log2));
        conn_ = Conn::kRepSent;
      }
      desc_.attr = attr::kRep;
      desc_.local_comm = local_comm_;
      desc_.remote_comm = remote_comm_;
      desc_.qpn = tpl.qpn;
      desc_.start_psn = cfg_.start_psn;
      desc_.resp_res = resp_res_;
      desc_.init_depth = init_depth_;
      desc_.rnr_retry = cfg_.rnr_retry;
      desc_.ack_delay = cfg_.ack_delay;
      desc_.guid = cfg_.ca_guid;
      state_ = CmState::kDrain;
      after_ = CmState::kResp;
      return;
    }
    case attr::kRtu:
      if (conn_ != Conn::kRepSent || !ours) return drop(CmDrop::kIgnored);
      conn_ = Conn::kEstablished;
      ++counters_.connects;
      cfg_connect_ = true;
      state_ = CmState::kDrain;
      after_ = CmState::kCfgQp;
      return;
    case attr::kDreq:
      // A DREQ is always answered (IBA 12.9.6: a DREQ for an unknown connection gets a DREP, so that a
      // retried DREQ whose DREP was lost still completes).
      desc_.attr = attr::kDrep;
      desc_.local_comm = m.comm1;
      desc_.remote_comm = m.comm0;
      state_ = CmState::kDrain;
      after_ = CmState::kResp;
      if (conn_ != Conn::kIdle && ours) {
        conn_ = Conn::kIdle;
        ++counters_.disconnects;
        cfg_connect_ = false;
        after_ = CmState::kCfgQp;
      }
      return;
    case attr::kRej:
      if (conn_ != Conn::kRepSent || !ours) return drop(CmDrop::kIgnored);
      conn_ = Conn::kIdle;
      ++counters_.processed;
      return;
    default: return drop(CmDrop::kIgnored);
  }
}

void CmEngine::Tick() {
  switch (state_) {
    case CmState::kRx:
      if (in_.est && conn_ == Conn::kRepSent) {  // a lost RTU: the client's first packet establishes
        conn_ = Conn::kEstablished;
        ++counters_.connects;
        cfg_connect_ = true;
        implicit_ = true;
        state_ = CmState::kDrain;
        after_ = CmState::kCfgQp;
      } else if (in_.s.valid) {
        Receive(in_.s.beat);
      }
      break;
    case CmState::kParse:
      Parse();
      k_ = 0;
      rcrc_ = rdma::IcrcSeed();
      frame_ = ComposeCm(desc_, resp_);
      break;
    case CmState::kDrain:
      if (in_.rdma_idle) state_ = after_;
      break;
    case CmState::kCfgQp: state_ = cfg_connect_ ? CmState::kCfgQueues : CmState::kResp; break;
    case CmState::kCfgQueues:
      if (!implicit_) ++counters_.processed;
      implicit_ = false;
      state_ = CmState::kRx;
      break;
    case CmState::kResp:
      if (in_.m_ready) {
        const StreamPort p = out_.m;
        rcrc_ = rdma::IcrcBeat(rcrc_, p.beat.data.data(), k_ * kBeatBytes, 14, kCmIcrcAt, false);
        ++k_;
        if (p.beat.last) {
          ++counters_.responses;
          ++counters_.processed;
          ++mad_psn_;
          mad_psn_ &= rdma::kPsnMask;
          state_ = CmState::kRx;
        }
      }
      break;
  }
  // Table writes take effect at this edge, after the state machine read the old values (as the registers do).
  if (in_.cfg.valid && in_.cfg.table == params::kRdmaTblResponder && in_.cfg.index == 0) {
    resp_ = rdma::DecodeResponder(in_.cfg.data);
  }
  if (in_.cfg.valid && in_.cfg.table == params::kNaaTblCm) {
    if (in_.cfg.index == 0) cfg_ = DecodeCm(in_.cfg.data);
    if (in_.cfg.index == 1) qp_tpl_ = in_.cfg.data;
    if (in_.cfg.index == 2) queues_tpl_ = in_.cfg.data;
  }
}

}  // namespace nettwin::naa
