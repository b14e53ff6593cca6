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

}  // namespace nettwin::naa
