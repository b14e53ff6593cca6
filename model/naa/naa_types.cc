#include "model/naa/naa_types.h"

namespace nettwin::naa {

const char* CmDropName(int d) {
  static const char* const kNames[] = {"none", "malformed", "not_for_us", "bad_icrc", "bad_mad", "ignored"};
  static_assert(sizeof kNames / sizeof kNames[0] == kNumCmDrops, "a name per CM drop reason");
  return d >= 0 && d < kNumCmDrops ? kNames[d] : "?";
}

const char* ConnName(Conn c) {
  switch (c) {
    case Conn::kIdle: return "idle";
    case Conn::kRepSent: return "rep_sent";
    case Conn::kEstablished: return "established";
  }
  return "?";
}

// Layout: docs/naa-microarchitecture.md "Programming port".
CfgData Encode(const CmCfg& c) {
  CfgData d;
  d.SetBit(0, c.listen);
  d.Set(1, 64, c.service_id);
  d.Set(65, 64, c.ca_guid);
  d.Set(129, 24, c.start_psn);
  d.Set(153, 8, c.initiator_depth);
  d.Set(161, 3, c.rnr_retry);
  d.Set(164, 5, c.ack_delay);
  d.Set(169, 4, c.qp_slot);
  d.Set(173, 32, c.comm_id);
  return d;
}

CmCfg DecodeCm(const CfgData& d) {
  CmCfg c;
  c.listen = d.Bit(0);
  c.service_id = d.Get(1, 64);
  c.ca_guid = d.Get(65, 64);
  c.start_psn = static_cast<uint32_t>(d.Get(129, 24));
  c.initiator_depth = static_cast<uint8_t>(d.Get(153, 8));
  c.rnr_retry = static_cast<uint8_t>(d.Get(161, 3));
  c.ack_delay = static_cast<uint8_t>(d.Get(164, 5));
  c.qp_slot = static_cast<uint8_t>(d.Get(169, 4));
  c.comm_id = static_cast<uint32_t>(d.Get(173, 32));
  return c;
}

const char* CplStatusName(CplStatus s) {
  switch (s) {
    case CplStatus::kOk: return "ok";
    case CplStatus::kRetryExceeded: return "retry_exceeded";
    case CplStatus::kRemoteError: return "remote_error";
    case CplStatus::kFlushed: return "flushed";
  }
  return "?";
}

CfgData Encode(const ReqCfg& c) {
  CfgData d;
  d.Set(0, 32, c.timeout);
  d.Set(32, 3, c.retry);
  d.Set(35, 3, c.rnr_retry);
  return d;
}

// The packed naa_req_cmd_t: op [233:232], laddr [231:168], len [167:136], raddr [135:72], rkey [71:40],
// imm [39:8], tag [7:0].
CfgData Encode(const ReqCmd& c) {
  CfgData d;
  d.Set(0, 8, c.tag);
  d.Set(8, 32, c.imm);
  d.Set(40, 32, c.rkey);
  d.Set(72, 64, c.raddr);
  d.Set(136, 32, c.len);
  d.Set(168, 64, c.laddr);
  d.Set(232, 2, static_cast<uint64_t>(c.op));
  return d;
}

ReqCmd DecodeReqCmd(const CfgData& d) {
  ReqCmd c;
  c.tag = static_cast<uint8_t>(d.Get(0, 8));
  c.imm = static_cast<uint32_t>(d.Get(8, 32));
  c.rkey = static_cast<uint32_t>(d.Get(40, 32));
  c.raddr = d.Get(72, 64);
  c.len = static_cast<uint32_t>(d.Get(136, 32));
  c.laddr = d.Get(168, 64);
  c.op = static_cast<ReqOp>(d.Get(232, 2));
  return c;
}

const char* ReqDropName(int d) {
  static const char* const kNames[] = {"none", "malformed", "not_for_us", "bad_icrc", "not_connected", "ghost"};
  static_assert(sizeof kNames / sizeof kNames[0] == kNumReqDrops, "a name per requester drop reason");
  return d >= 0 && d < kNumReqDrops ? kNames[d] : "?";
}

const char* ReqCntName(int i) {
  static const char* const kNames[] = {"sent",     "retransmits", "acks",        "stale",        "nak_seq",
                                       "nak_rnr",  "nak_fatal",   "timeouts",    "cpl_ok",       "cpl_retry_exceeded",
                                       "cpl_remote_error", "cpl_flushed"};
  static_assert(sizeof kNames / sizeof kNames[0] == kNumReqCnts, "a name per requester counter");
  return i >= 0 && i < kNumReqCnts ? kNames[i] : "?";
}

const char* CtlDropName(int d) {
  static const char* const kNames[] = {"none", "rpc_no_regions", "event_overflow", "flushed"};
  return d >= 0 && d < kNumCtlDrops ? kNames[d] : "?";
}

const char* CtlStateName(CtlState s) {
  static const char* const kNames[] = {"idle",  "read",     "read_wait", "header", "entry",  "grant",  "ans_write",
                                       "cmd",   "cpl_wait", "repost",    "revoke", "kstart", "kwait"};
  const auto i = static_cast<unsigned>(s);
  return i < sizeof kNames / sizeof kNames[0] ? kNames[i] : "?";
}

}  // namespace nettwin::naa
