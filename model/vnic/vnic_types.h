// Tables of the OPA VNIC block; its port structs VnicIn / VnicOut, the counters and the Direction enum are
// generated from rtl/vnic/data/vnic.json into vnic_ports.h (docs/blockgen.md; rtl/vnic/vnic_encap_top.sv
// and vnic_decap_top.sv have the same ports), shared by the cycle model and the Verilated adapter so
// lockstep compares the same fields. Format and checks: docs/vnic.md; stages: docs/vnic-microarchitecture.md.
#pragma once

#include <array>
#include <cstdint>

#include "model/common/cfg_port.h"
#include "model/common/stream.h"
#include "nt_params.h"
#include "vnic_ports.h"  // NOLINT(build/include_subdir): generated from rtl/vnic/data/vnic.json

namespace nettwin::vnic {

constexpr int kPorts = static_cast<int>(params::kVnicPorts);
constexpr int kMacEntries = static_cast<int>(params::kVnicMacEntries);
constexpr int kBufBeats = static_cast<int>(params::kVnicBufBeats);
constexpr int kMaxBeats = static_cast<int>(params::kVnicMaxBeats);
constexpr int kDescFifo = static_cast<int>(params::kVnicDescFifo);
constexpr int kHdrBytes = static_cast<int>(params::kVnicHdrBytes);
constexpr int kTrailerBytes = static_cast<int>(params::kVnicTrailerBytes);
constexpr int kMaxEthBytes = static_cast<int>(params::kVnicMaxEthBytes);
constexpr int kMinPktBytes = static_cast<int>(params::kVnicMinPktBytes);
constexpr uint8_t kL4Eth = static_cast<uint8_t>(params::kVnicL4Eth);
constexpr int kEthHdrBytes = 14;
constexpr int kNumReasons = static_cast<int>(params::kVnicDecDropReasons);  // counter array size (both)

// One VNIC port as the Ethernet Manager programs it (table VnicTblPort, index = port number).
struct PortCfg {
  bool valid = false;
  uint16_t veswid = 0;      // virtual Ethernet switch id: the 16-bit L4 header
  uint16_t pkey = 0x8001;   // partition key (bit 15 = full membership)
  uint8_t sc = 0;           // service channel, 5 bits
  uint8_t rc = 0;           // routing control, 3 bits
  uint32_t slid = 0;        // 24 bits
  uint32_t ucast_dlid = 0;  // DLID for unicast MACs not in the MAC table
  uint32_t mcast_dlid = 0;  // DLID for broadcast and multicast MACs
  uint16_t entropy = 0;     // QW1 bits 32..47
  // Profile `linux` (docs/vnic.md "Encapsulation profiles"): Linux opa_vnic's DLID, SC, RC and entropy rules
  // and its tail byte; `sc` is then Linux's non_vlan_sc_uc.
  bool linux_profile = false;
  uint8_t sc_mc = 0;                    // non_vlan_sc_mc
  std::array<uint8_t, 8> pcp_sc_uc{};   // pcp_to_sc_uc[pcp]
  std::array<uint8_t, 8> pcp_sc_mc{};   // pcp_to_sc_mc[pcp]
  uint32_t rc_word = 0;                 // vesw.rc: a 3-bit RC per protocol class (OPA_VNIC_ENCAP_RC_*)
};

// A MAC -> DLID entry of one port's virtual switch (table VnicTblMac).
struct MacEntry {
  bool valid = false;
  uint8_t port = 0;
  uint64_t mac = 0;  // 48 bits, first byte on the wire most significant
  uint32_t dlid = 0;
};

struct Tables {
  std::array<PortCfg, kPorts> ports{};
  std::array<MacEntry, kMacEntries> macs{};
  void Apply(const CfgWrite& w);  // one programming-port write
};

// Programming-port words (bit layouts in docs/vnic.md "Programming port").
CfgWrite EncodePort(int index, const PortCfg& p);
CfgWrite EncodeMac(int index, const MacEntry& m);

}  // namespace nettwin::vnic
