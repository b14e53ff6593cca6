// The udplb program's control-plane script: udplb's simulator CLI format (p4/sim/test-1/cli_commands.txt,
// docs/lb-udplb.md "Tables and the control-plane script") and the driver that turns it into programming-port
// writes of udplb_top, refusing what the hardware cannot hold.
#pragma once

#include <string>
#include <vector>

#include "model/lb/lb_script.h"

namespace nettwin::lb::udplb {

struct ScriptOptions {
  bool ttl_decrement = true;
};

// Parses and validates a whole script; throws lb::ScriptError("file:line: token 'x': message"). The first
// segment starts with the settings write.
std::vector<Segment> ParseScript(const std::string& text, const std::string& file_name, const ScriptOptions& opt);
std::vector<Segment> LoadScript(const std::string& path, const ScriptOptions& opt);

// True if `name` is one of udplb's table names (to point a user of the seed program at --program udplb).
bool IsUdplbTable(const std::string& name);

}  // namespace nettwin::lb::udplb
