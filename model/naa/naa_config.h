// The endpoint's configuration file (`nettwin naa --config`, docs/naa.md "Configuration"): the responder's
// directives (responder, one qp, mr, mem) plus `cm` and `ctl`, turned into programming-port writes.
#pragma once

#include <string>
#include <vector>

#include "model/naa/naa_ctl.h"
#include "model/naa/naa_types.h"
#include "model/rdma/rdma_config.h"

namespace nettwin::naa {

struct NaaConfig {
  rdma::RdmaConfig rdma;  // exactly one QP: the one the CM connects (its dest_qp and epsn come from the REQ)
  CmCfg cm;
  ReqCfg req;                 // the `req` line (defaults without one)
  std::vector<ReqCmd> posts;  // `post` lines: commands the requester runs once connected, in order
  CtlCfg ctl;  // the `ctl` line (enable false without one): MRSP/RPC, docs/naa.md "MRSP and RPC"
  // Responder table, MRs (the QP stays invalid until a connection is established), the CM table, the
  // requester's settings and posted commands, then the controller's table.
  std::vector<CfgWrite> Writes() const;
};

// Throws rdma::ConfigError("file:line: token 'x': message").
NaaConfig ParseNaaConfig(const std::string& text, const std::string& file_name);
NaaConfig LoadNaaConfig(const std::string& path);

}  // namespace nettwin::naa
