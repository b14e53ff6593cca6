// The responder's configuration file (`--config`, docs/rdma.md): responder addresses, QPs, memory
// regions and initial host memory, turned into programming-port writes.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/rdma/rdma_types.h"

namespace nettwin::rdma {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct MemInit {
  uint64_t pa = 0;
  std::vector<uint8_t> bytes;
};

struct RdmaConfig {
  ResponderCfg responder;
  std::vector<QpCfg> qps;
  std::vector<QpQueuesCfg> queues;  // one per QP, same order
  std::vector<MrCfg> mrs;
  std::vector<MemInit> memory;
  std::vector<CfgWrite> Writes() const;  // responder, then QPs and MRs by slot
};

// Throws ConfigError("file:line: token 'x': message").
RdmaConfig ParseConfig(const std::string& text, const std::string& file_name);
RdmaConfig LoadConfig(const std::string& path);

}  // namespace nettwin::rdma
