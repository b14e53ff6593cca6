// The control-plane script (`--tables`, the p4 behavioural simulator's runsim.txt format, see docs/lb.md)
// and the driver that turns it into programming-port writes, as the host's table library would.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/lb/lb_tables.h"
#include "model/lb/lb_types.h"

namespace nettwin::lb {

class ScriptError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Writes to apply, then how many packets to run with the result (-1: all that remain).
struct Segment {
  std::vector<CfgWrite> writes;
  int64_t run_count = -1;
};

// Shadow of the hardware tables: validates each command and allocates slots like a real driver.
class LbDriver {
 public:
  std::vector<CfgWrite> AddFilter(const FilterEntry& e);
  std::vector<CfgWrite> DeleteFilter(const FilterEntry& key);
  std::vector<CfgWrite> AddEpoch(const EpochEntry& e);
  std::vector<CfgWrite> DeleteEpoch(uint64_t value, uint64_t mask, std::optional<uint16_t> prio);
  std::vector<CfgWrite> AddCalendar(uint32_t epoch, int slot, const CalendarEntry& e);
  std::vector<CfgWrite> DeleteCalendar(uint32_t epoch, int slot);
  std::vector<CfgWrite> AddMember(bool is_v6, uint16_t id, const MemberEntry& e);
  std::vector<CfgWrite> DeleteMember(bool is_v6, uint16_t id);
  std::vector<CfgWrite> Clear(int table);

 private:
  std::array<std::optional<FilterEntry>, kFilterEntries> filter_;
  std::array<std::optional<EpochEntry>, kEpochEntries> epoch_;
  std::array<std::optional<uint32_t>, kCalendarEpochs> rows_;
  std::array<int, kCalendarEpochs> row_use_{};
  std::array<std::optional<CalendarEntry>, kCalendarEntries> calendar_;
  std::array<std::optional<uint16_t>, kMemberEntries> member_id_;
};

// A key or parameter value as the script writes it: 0x hex, decimal, dotted IPv4, colon MAC or IPv6 text;
// nullopt if it is none of these or does not fit in 128 bits.
std::optional<U128> ParseScriptValue(const std::string& text);

// `run_traffic ARG`: a number (decimal or 0x hex) is a packet count; anything else names the traffic (all that
// remains). Shared by the seed program's script and udplb's.
bool IsRunTrafficCount(const std::string& arg);
// The other way round, as the planners write scripts: `digits` hex digits after 0x; 32 for 128 bits.
std::string ScriptHex(uint64_t v, int digits);
std::string ScriptHex128(const U128& v);

// Parses and validates a whole script; throws ScriptError("file:line: token 'x': message").
std::vector<Segment> ParseScript(const std::string& text, const std::string& file_name);
std::vector<Segment> LoadScript(const std::string& path);

}  // namespace nettwin::lb
