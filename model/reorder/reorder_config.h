// The reorder block's configuration file (`--config reorder.txt`, docs/reorder.md "Configuration"):
// one `key value` per line, `#` comments. Every numeric key must appear once; `queue_allocation 4way|any`
// is optional (default 4way, the spec's lookup), and so is `wire_format seed|conweave-p4` (default seed).
#pragma once

#include <stdexcept>
#include <string>

#include "model/reorder/reorder_types.h"

namespace nettwin::reorder {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws ConfigError("file:line: token 'x': message") or ("file: no 'key' line").
ReorderCfg ParseConfig(const std::string& text, const std::string& file_name);
ReorderCfg LoadConfig(const std::string& path);

}  // namespace nettwin::reorder
