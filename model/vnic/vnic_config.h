// The VNIC configuration file (`--config vnic.txt`, docs/vnic.md "Configuration"): the settings the
// Ethernet Manager programs into each VNIC port and the MAC -> DLID table of each port's virtual switch.
//   port <n> veswid <v> pkey <v> slid <v> [sc <v>] [rc <v>] [ucast_dlid <v>] [mcast_dlid <v>] [entropy <v>]
//        [profile nettwin|linux] [sc_mc <v>] [pcp_sc_uc a,b,c,d,e,f,g,h] [pcp_sc_mc ...] [rc_word <v>]
//   mac <port> <aa:bb:cc:dd:ee:ff> <dlid>
// Numbers are decimal or 0x-hex; `#` starts a comment.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "model/common/cfg_port.h"
#include "model/vnic/vnic_types.h"

namespace nettwin::vnic {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws ConfigError("file:line: token 'x': message").
Tables ParseConfig(const std::string& text, const std::string& file_name);
Tables LoadConfig(const std::string& path);
// The programming-port writes that load `t` (every port entry, then every valid MAC entry).
std::vector<CfgWrite> ConfigWrites(const Tables& t);

}  // namespace nettwin::vnic
