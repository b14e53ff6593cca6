#include "model/vnic/vnic_types.h"

#include <cstddef>

namespace nettwin::vnic {

void Tables::Apply(const CfgWrite& w) {
  if (!w.valid) return;
  const CfgData& d = w.data;
  if (w.table == params::kVnicTblPort && w.index < kPorts) {
    PortCfg& p = ports[w.index];
    p.valid = d.Bit(0);
    p.veswid = static_cast<uint16_t>(d.Get(1, 16));
    p.pkey = static_cast<uint16_t>(d.Get(17, 16));
    p.sc = static_cast<uint8_t>(d.Get(33, 5));
    p.rc = static_cast<uint8_t>(d.Get(38, 3));
    p.slid = static_cast<uint32_t>(d.Get(41, 24));
    p.ucast_dlid = static_cast<uint32_t>(d.Get(65, 24));
    p.mcast_dlid = static_cast<uint32_t>(d.Get(89, 24));
    p.entropy = static_cast<uint16_t>(d.Get(113, 16));
    p.linux_profile = d.Bit(129);
    p.sc_mc = static_cast<uint8_t>(d.Get(130, 5));
    for (int i = 0; i < 8; ++i) {
      p.pcp_sc_uc[static_cast<std::size_t>(i)] = static_cast<uint8_t>(d.Get(135 + 5 * i, 5));
      p.pcp_sc_mc[static_cast<std::size_t>(i)] = static_cast<uint8_t>(d.Get(175 + 5 * i, 5));
    }
    p.rc_word = static_cast<uint32_t>(d.Get(215, 32));
  } else if (w.table == params::kVnicTblMac && w.index < kMacEntries) {
    MacEntry& m = macs[w.index];
    m.valid = d.Bit(0);
    m.port = static_cast<uint8_t>(d.Get(1, 4));
    m.mac = d.Get(5, 48);
    m.dlid = static_cast<uint32_t>(d.Get(53, 24));
  }
}

CfgWrite EncodePort(int index, const PortCfg& p) {
  CfgWrite w;
  w.valid = true;
  w.table = static_cast<uint8_t>(params::kVnicTblPort);
  w.index = static_cast<uint16_t>(index);
  w.data.SetBit(0, p.valid);
  w.data.Set(1, 16, p.veswid);
  w.data.Set(17, 16, p.pkey);
  w.data.Set(33, 5, p.sc);
  w.data.Set(38, 3, p.rc);
  w.data.Set(41, 24, p.slid);
  w.data.Set(65, 24, p.ucast_dlid);
  w.data.Set(89, 24, p.mcast_dlid);
  w.data.Set(113, 16, p.entropy);
  w.data.SetBit(129, p.linux_profile);
  w.data.Set(130, 5, p.sc_mc);
  for (int i = 0; i < 8; ++i) {
    w.data.Set(135 + 5 * i, 5, p.pcp_sc_uc[static_cast<std::size_t>(i)]);
    w.data.Set(175 + 5 * i, 5, p.pcp_sc_mc[static_cast<std::size_t>(i)]);
  }
  w.data.Set(215, 32, p.rc_word);
  return w;
}

CfgWrite EncodeMac(int index, const MacEntry& m) {
  CfgWrite w;
  w.valid = true;
  w.table = static_cast<uint8_t>(params::kVnicTblMac);
  w.index = static_cast<uint16_t>(index);
  w.data.SetBit(0, m.valid);
  w.data.Set(1, 4, m.port);
  w.data.Set(5, 48, m.mac);
  w.data.Set(53, 24, m.dlid);
  return w;
}

}  // namespace nettwin::vnic
