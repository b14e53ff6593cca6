#include "model/reorder/reorder_config.h"

#include <cstdint>
#include <map>
#include <vector>
#include "model/common/file_io.h"
#include "model/common/text_lines.h"

namespace nettwin::reorder {

namespace {

struct Key {
  const char* name;
  uint64_t lo, hi;
  std::string rule;
};

// Limits follow from the parameters: the held-buffer limit leaves room for the largest frame in flight,
// and times stay below half the 16-bit microsecond clock so modular comparisons hold.
const std::vector<Key> kKeys = {
    {"flows", 1, kFlows, "a power of two, 1.." + std::to_string(kFlows)},
    {"queues", 4, kQueues, "4, 8, 16 or 32"},
    {"buffer_bytes", 64, uint64_t{kCells - kMaxCells} * 64, "64.." + std::to_string((kCells - kMaxCells) * 64)},
    {"margin_us", 0, 32767, "0..32767"},
    {"default_hold_us", 1, 32767, "1..32767"},
    {"flow_idle_us", 1, 65535, "1..65535"},
};

bool PowerOfTwo(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

}  // namespace

ReorderCfg ParseConfig(const std::string& text, const std::string& file) {
  std::map<std::string, uint64_t> got;
  TextLines lines(text);
  int n = 0;
  std::string allocation;  // optional: "4way" (the spec's, default) or "any"
  std::string format;      // optional: "seed" (default) or "conweave-p4"
  auto fail = [&](const std::string& tok, const std::string& msg) {
    throw ConfigError(nettwin::TokenMessage(file, n, tok, msg));
  };
  while (lines.Next()) {
    n = lines.number();
    const std::vector<std::string>& tok = lines.words();
    if (tok.empty()) continue;
    // The optional keys whose value is one of two words.
    auto word = [&](std::string* slot, const char* a, const char* b) {
      if (tok.size() != 2) fail(tok[0], "expected exactly one value");
      if (!slot->empty()) fail(tok[0], "given twice");
      if (tok[1] != a && tok[1] != b) fail(tok[1], tok[0] + " must be " + a + " or " + b);
      *slot = tok[1];
    };
    if (tok[0] == "queue_allocation") {
      word(&allocation, "4way", "any");
      continue;
    }
    if (tok[0] == "wire_format") {
      word(&format, "seed", "conweave-p4");
      continue;
    }
    const Key* key = nullptr;
    for (const Key& k : kKeys) {
      if (tok[0] == k.name) key = &k;
    }
    if (key == nullptr)
      fail(tok[0],
           "unknown key (flows, queues, buffer_bytes, margin_us, default_hold_us, flow_idle_us, "
           "queue_allocation, wire_format)");
    if (tok.size() != 2) fail(tok[0], "expected exactly one value");
    if (got.count(tok[0])) fail(tok[0], "given twice");
    uint64_t v = 0;
    size_t used = 0;
    try {
      // Decimal only: a leading zero or 0x would read differently in other tools.
      if (tok[1].find_first_not_of("0123456789") != std::string::npos) throw std::invalid_argument("digits");
      v = std::stoull(tok[1], &used, 10);
    } catch (const std::exception&) {
      fail(tok[1], "not a decimal number");
    }
    if (used != tok[1].size()) fail(tok[1], "not a decimal number");
    if (v < key->lo || v > key->hi) fail(tok[1], std::string(key->name) + " must be " + key->rule);
    if ((tok[0] == "flows" || tok[0] == "queues") && !PowerOfTwo(v)) {
      fail(tok[1], std::string(key->name) + " must be " + key->rule);
    }
    got[tok[0]] = v;
  }
  for (const Key& k : kKeys) {
    if (!got.count(k.name)) throw ConfigError(file + ": no '" + k.name + "' line");
  }
  ReorderCfg c;
  c.flows_mask = static_cast<uint16_t>(got["flows"] - 1);
  c.queues = static_cast<uint8_t>(got["queues"]);
  c.buffer_cells = static_cast<uint16_t>((got["buffer_bytes"] + 63) / 64);
  c.margin_us = static_cast<uint16_t>(got["margin_us"]);
  c.default_hold_us = static_cast<uint16_t>(got["default_hold_us"]);
  c.flow_idle_us = static_cast<uint16_t>(got["flow_idle_us"]);
  c.any_queue = allocation == "any";
  c.p4_format = format == "conweave-p4";
  return c;
}

ReorderCfg LoadConfig(const std::string& path) {
  const std::string text = nettwin::ReadTextFile<ConfigError>(path);
  return ParseConfig(text, path);
}

}  // namespace nettwin::reorder
