#include "model/reroute/reroute_core.h"

#include "model/common/bytes.h"
#include "model/common/checksum.h"
#include "model/reorder/reorder_frame.h"

namespace nettwin::reroute {

namespace {

constexpr int kEthHdr = 14, kIp4Hdr = 20, kIp6Hdr = 40, kUdpHdr = 8, kBthLen = 12, kCwLen = 4, kIcrc = 4;

// Key bytes as the reorder block builds them (family, source, destination, destination QP); `swap` reads
// a control packet, whose IP addresses are the reverse of its flow's.
FlowKey KeyOf(const uint8_t* w, bool v6, int bth, bool swap) {
  FlowKey k{};
  k[0] = v6 ? 1 : 0;
  const int ipn = v6 ? 16 : 4;
  const int src = v6 ? 22 : 26;
  const int a = swap ? src + ipn : src, b = swap ? src : src + ipn;
  for (int i = 0; i < ipn; ++i) {
    k[1 + i] = w[a + i];
    k[17 + i] = w[b + i];
  }
  for (int i = 0; i < 3; ++i) k[33 + i] = w[bth + 5 + i];
  return k;
}

}  // namespace

uint8_t EncodeByte8(uint8_t nic_b8, uint8_t op, uint8_t epoch, bool rerouted, bool tail, bool p4) {
  const uint8_t ack = nic_b8 & 0x80;
  if (!p4) return static_cast<uint8_t>(ack | (op << 4) | (epoch << 2) | (rerouted << 1) | (tail ? 1 : 0));
  // conweave-p4: DATA | phase = REROUTED | epoch - phase | ask_reply = RTT_REQUEST or TAIL | tail.
  const uint8_t phase = rerouted ? 1 : 0;
  const bool ask = op == reorder::kCwRttRequest || tail;
  return static_cast<uint8_t>(ack | (1 << 5) | (phase << 4) | (((epoch - phase) & 3) << 2) | (ask << 1) |
                              (tail ? 1 : 0));
}

void MapP4Control(reorder::CwMeta& m) {
  // The seed's parse left op = byte 8 bits 6..4 = {conweave-p4 opcode, phase} once the headers were good
  // (and 0 otherwise): 4 REPLY phase 0, 5 REPLY phase 1, 6 / 7 NOTIFY; anything else is not a control
  // packet of conweave-p4's. The seed's epoch = conweave-p4's epoch + phase (as the reorder block's parse).
  const uint8_t raw = m.op;
  const uint8_t phase = raw & 1;
  m.op = raw == 4 ? reorder::kCwRttReply : raw == 5 ? reorder::kCwClear : raw >= 6 ? reorder::kCwNotify : 0;
  m.epoch = static_cast<uint8_t>((m.epoch + phase) & 3);
}

std::array<uint8_t, 2> Candidates(uint16_t h, uint16_t now, int paths) {
  const int mask = paths - 1;
  const int c0 = (h + now) & mask;
  const int c1 = c0 ^ (((h >> 6) & mask) | 1);
  return {static_cast<uint8_t>(c0), static_cast<uint8_t>(c1)};
}

void RerouteCore::Reset() {
  flows_.assign(kFlows, Flow{});
  paths_.fill(PathStatus{});
  cnt_ = RerouteCounters{};
}

bool RerouteCore::Congested(int p, uint16_t now) const {
  return paths_[p].busy && !Elapsed(now, paths_[p].ts, cfg_.path_busy_us);
}

void RerouteCore::Scan(int p, uint16_t now) {
  if (paths_[p].busy && Elapsed(now, paths_[p].ts, cfg_.path_busy_us)) paths_[p].busy = false;
}

DataResult RerouteCore::Data(const uint8_t* w, int len, uint16_t now) {
  DataResult r;
  ++cnt_.in;
  // Parse (the reorder block's rules, without the CW header).
  bool v6 = false;
  int udp = 0;
  uint16_t ip_len = 0;
  bool good = len >= kEthHdr + kIp4Hdr && len <= kMaxBytes;
  if (good) {
    const uint16_t et = Load16(w + 12);
    if (et == 0x0800) {
      udp = kEthHdr + kIp4Hdr;
      good = w[14] == 0x45 && w[23] == 17 && ((w[20] & 0x3F) | w[21]) == 0;
      ip_len = Load16(w + 16);
      good = good && ip_len == len - kEthHdr;
    } else if (et == 0x86DD && len >= kEthHdr + kIp6Hdr) {
      v6 = true;
      udp = kEthHdr + kIp6Hdr;
      good = (w[14] >> 4) == 6 && w[20] == 17;
      ip_len = Load16(w + 18);
      good = good && ip_len == len - kEthHdr - kIp6Hdr;
    } else {
      good = false;
    }
  }
  const int bth = udp + kUdpHdr;
  good = good && len >= bth + kBthLen + kIcrc && Load16(w + udp + 2) == params::kReorderUdpPort;
  if (!good) {
    ++cnt_.drop_malformed;
    return r;
  }
  r.ok = true;
  const FlowKey key = KeyOf(w, v6, bth, false);
  const uint16_t h = reorder::FlowHash(key);
  const uint8_t ecmp = EcmpPath(h, cfg_.paths);
  Flow& f = flows_[h & cfg_.flows_mask];
  const bool mine = f.valid && f.key == key;
  const bool idle = f.valid && Elapsed(now, f.last_us, cfg_.flow_idle_us);
  r.tx_ts = now;
  if (!f.valid || (!mine && idle)) {
    if (f.valid) ++cnt_.evictions;
    f = Flow{};
    f.valid = true;
    f.key = key;
    f.path = ecmp;
  } else if (mine && idle) {
    if (f.rerouted || f.req_wait) ++cnt_.idle_resets;
    f.rerouted = false;
    f.req_wait = false;
  } else if (!mine) {
    ++cnt_.fallback_ecmp;
    r.fallback = true;
    r.path = ecmp;
  }
  if (!r.fallback) {
    const bool cond_i = f.req_wait && Elapsed(now, f.req_ts, cfg_.reply_cutoff_us);
    int take = -1;
    if (cond_i && f.rerouted) {
      ++cnt_.reroute_blocked_clear;
    } else if (cond_i) {
      r.candidates = Candidates(h, now, cfg_.paths);
      for (uint8_t c : r.candidates) {
        if (c != f.path && !Congested(c, now)) {
          take = c;
          break;
        }
      }
      if (take < 0) ++cnt_.reroute_no_path;
    }
    r.path = f.path;
    r.epoch = f.epoch;
    r.rerouted = f.rerouted;
    r.tail_tx_ts = f.tail_ts;
    if (take >= 0) {
      // The triggering packet is the old path's TAIL (docs/reroute.md "Epoch and TAIL marking").
      ++cnt_.reroutes;
      r.tail = true;
      r.tail_tx_ts = now;
      r.reroute = true;
      r.new_path = static_cast<uint8_t>(take);
      f.path = static_cast<uint8_t>(take);
      f.epoch = static_cast<uint8_t>((f.epoch + 1) & 3);
      f.rerouted = true;
      f.tail_ts = now;
      f.req_wait = false;
    } else if (!f.req_wait) {
      ++cnt_.rtt_requests;
      r.op = reorder::kCwRttRequest;
      f.req_wait = true;
      f.req_ts = now;
    }
    f.last_us = now;
  }
  // The fabric frame: 4 bytes inserted after the BTH, fields written; the seed's format: lengths + 4, IPv4
  // checksum by RFC 1624; conweave-p4's: lengths and checksum as the NIC's (docs/reroute.md "Wire format").
  const int cw = bth + kBthLen;
  r.frame.assign(w, w + cw);
  r.frame.resize(cw + kCwLen);
  Store16(&r.frame[cw], r.tx_ts);
  Store16(&r.frame[cw + 2], r.tail_tx_ts);
  r.frame.insert(r.frame.end(), w + cw, w + len);
  uint8_t* o = r.frame.data();
  o[bth + 4] = r.path;
  o[bth + 8] = EncodeByte8(w[bth + 8], r.op, r.epoch, r.rerouted, r.tail, cfg_.p4_format);
  ++cnt_.out;
  if (cfg_.p4_format) return r;
  const int ip_len_pos = v6 ? 18 : 16;
  Store16(o + ip_len_pos, static_cast<uint16_t>(ip_len + kCwLen));
  Store16(o + udp + 4, static_cast<uint16_t>(Load16(w + udp + 4) + kCwLen));
  if (!v6) {
    ChecksumDelta d;
    d.Replace(ip_len, static_cast<uint16_t>(ip_len + kCwLen));
    Store16(o + 24, d.Apply(Load16(w + 24)));
  }
  return r;
}

CtrlResult RerouteCore::Control(const uint8_t* win, int len, uint16_t now) {
  ++cnt_.ctrl_in;
  reorder::CwMeta m = reorder::ParseCw(win, len <= kCtrlBytes ? len : -1);
  if (cfg_.p4_format) MapP4Control(m);
  const bool ctrl = !m.ok && m.cw_off != 0 &&
                    (m.op == reorder::kCwRttReply || m.op == reorder::kCwClear || m.op == reorder::kCwNotify);
  if (!ctrl) {
    ++cnt_.bad_control;
    return CtrlResult::kBad;
  }
  if (m.op == reorder::kCwNotify) {
    if (m.path_id >= cfg_.paths) {
      ++cnt_.bad_control;
      return CtrlResult::kBad;
    }
    paths_[m.path_id].busy = true;
    paths_[m.path_id].ts = now;
    ++cnt_.notifies;
    return CtrlResult::kNotify;
  }
  const FlowKey key = KeyOf(win, m.v6, m.cw_off - kBthLen, true);
  Flow& f = flows_[reorder::FlowHash(key) & cfg_.flows_mask];
  const bool mine = f.valid && f.key == key;
  if (m.op == reorder::kCwRttReply) {
    if (mine && f.req_wait && m.tx_ts == f.req_ts) {
      f.req_wait = false;
      ++cnt_.rtt_replies;
      return CtrlResult::kReply;
    }
    ++cnt_.stale_replies;
    return CtrlResult::kStaleReply;
  }
  if (mine && f.rerouted && m.epoch == f.epoch) {
    f.rerouted = false;
    ++cnt_.clears;
    return CtrlResult::kClear;
  }
  ++cnt_.stale_clears;
  return CtrlResult::kStaleClear;
}

}  // namespace nettwin::reroute
