// The load balancer's table memories as the hardware holds them (the programming port's image), with the
// lookups the pipeline performs. The cycle model calls each lookup in the stage the RTL does; the
// packet-at-a-time model calls them back to back.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "model/lb/lb_types.h"

namespace nettwin::lb {

constexpr int kFilterEntries = static_cast<int>(params::kLbFilterEntries);
constexpr int kEpochEntries = static_cast<int>(params::kLbEpochEntries);
constexpr int kEpochGroup = static_cast<int>(params::kLbEpochGroup);
constexpr int kEpochGroups = kEpochEntries / kEpochGroup;
constexpr int kCalendarSlots = static_cast<int>(params::kLbCalendarSlots);
constexpr int kCalendarEpochs = static_cast<int>(params::kLbCalendarEpochs);
constexpr int kCalendarEntries = static_cast<int>(params::kLbCalendarEntries);
constexpr int kMemberEntries = static_cast<int>(params::kLbMemberEntries);
static_assert(kCalendarEntries == kCalendarSlots * kCalendarEpochs, "calendar geometry");
static_assert(kEpochEntries % kEpochGroup == 0, "epoch groups");

// Winner of the priority reduction over some epoch entries.
struct EpochHit {
  bool hit = false, drop = false;
  uint16_t prio = 0;
  uint32_t epoch = 0;
};

// Which epoch TCAM entries match a tick: bit i % 64 of word i / 64 for entry i.
using EpochMatch = std::array<uint64_t, (kEpochEntries + 63) / 64>;
static_assert(kFilterEntries <= 32, "filter match mask");

struct FilterKey {
  uint64_t mac = 0;
  uint16_t ethertype = 0;
  U128 ip;
  uint16_t port = 0;
};

class LbTables {
 public:
  // Applies one programming-port write; an out-of-range table or index is ignored, as the RTL does.
  void Apply(const CfgWrite& w);

  // Lowest-index matching entry; `hit` false on a miss.
  void LookupFilter(const FilterKey& key, bool* hit, bool* drop) const;
  // The same in the RTL's two steps: the valid entries matching the key (bit i for entry i), then, a cycle
  // later and so from the table of then, the lowest of them and its drop flag.
  uint32_t FilterMatches(const FilterKey& key) const;
  void FilterSelect(uint32_t matches, bool* hit, bool* drop) const;
  // First TCAM stage: the winner within each group of kEpochGroup entries.
  std::array<EpochHit, kEpochGroups> EpochGroups(uint64_t tick) const;
  // The same in the RTL's two steps: the valid entries matching the tick, then, a cycle later and so from
  // the table of then, each group's winner among them (lowest priority, ties to the lower index).
  EpochMatch EpochMatches(uint64_t tick) const;
  std::array<EpochHit, kEpochGroups> EpochGroupsOf(const EpochMatch& matches) const;
  // Second stage: lowest priority wins, ties to the lower group (and so the lower index).
  static EpochHit ReduceEpoch(const std::array<EpochHit, kEpochGroups>& groups);
  // Both stages at once (the same winner: lowest priority, ties to the lowest index), for the packet model.
  EpochHit LookupEpoch(uint64_t tick) const;
  // Which of the calendar's epoch rows holds `epoch`; -1 if none.
  int EpochRow(uint32_t epoch) const;
  const CalendarEntry& Calendar(int row, int slot) const { return calendar_[row * kCalendarSlots + slot]; }
  const MemberEntry& Member(int slot) const { return member_[slot]; }

  const FilterEntry& filter(int i) const { return filter_[i]; }
  const EpochEntry& epoch(int i) const { return epoch_[i]; }
  const EpochMapEntry& epoch_map(int i) const { return epoch_map_[i]; }

 private:
  std::array<FilterEntry, kFilterEntries> filter_{};
  std::array<EpochEntry, kEpochEntries> epoch_{};
  std::array<EpochMapEntry, kCalendarEpochs> epoch_map_{};
  std::array<CalendarEntry, kCalendarEntries> calendar_{};
  std::array<MemberEntry, kMemberEntries> member_{};
  // Valid slots in ascending order, so lookups in software skip the empty ones; same result as a full scan.
  std::vector<int> filter_live_, epoch_live_;
};

}  // namespace nettwin::lb
