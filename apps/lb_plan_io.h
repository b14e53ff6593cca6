// What both `nettwin lb-plan` commands (the seed's and udplb's program) read and write: numeric options and
// whole files, with errors the commands report as exit 2.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "model/common/file_io.h"
#include "model/lb/lb_plan.h"
#include "model/lb/lb_script.h"

namespace nettwin::lb {

// A numeric option of at most `bits` bits (decimal or 0x hex), else std::invalid_argument naming it.
inline uint64_t Tick(const std::string& opt, const std::string& v, int bits) {
  const auto n = ParseScriptValue(v);
  if (!n || n->hi != 0 || (bits < 64 && (n->lo >> bits) != 0) || v.find_first_of(".:") != std::string::npos) {
    throw std::invalid_argument(opt + " wants a " + std::to_string(bits) + "-bit number (decimal or 0x hex), got '" +
                                v + "'");
  }
  return n->lo;
}

inline std::string Slurp(const std::string& path) {
  return ReadTextFile<PlanError>(path);
}

inline void Spit(const std::string& path, const std::string& text) {
  WriteTextFile<PlanError>(path, text);
}

}  // namespace nettwin::lb
