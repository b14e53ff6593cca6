#include "model/vnic/vnic_config.h"

#include <array>
#include <map>
#include <sstream>
#include "model/common/file_io.h"
#include "model/common/text_lines.h"

namespace nettwin::vnic {
namespace {

struct Line {
  std::string file;
  int n = 0;
  [[noreturn]] void Fail(const std::string& tok, const std::string& msg) const {
    throw ConfigError(nettwin::TokenMessage(file, n, tok, msg));
  }
  // Decimal, or hex with 0x; a leading zero is refused (octal or decimal would both be plausible).
  uint64_t Number(const std::string& tok, uint64_t max, const std::string& what) const {
    const bool hex = tok.size() > 2 && tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X');
    const std::string digits = hex ? tok.substr(2) : tok;
    const char* allowed = hex ? "0123456789abcdefABCDEF" : "0123456789";
    if (digits.empty() || digits.find_first_not_of(allowed) != std::string::npos || digits.size() > 16 ||
        (!hex && digits.size() > 1 && digits[0] == '0')) {
      Fail(tok, what + " is not a number (decimal or 0x-hex)");
    }
    const uint64_t v = std::stoull(digits, nullptr, hex ? 16 : 10);
    if (v > max) Fail(tok, what + " must be at most " + std::to_string(max));
    return v;
  }
};

uint64_t ParseMac(const Line& l, const std::string& tok) {
  uint64_t mac = 0;
  int bytes = 0;
  std::istringstream is(tok);
  std::string part;
  while (std::getline(is, part, ':')) {
    if (part.size() != 2 || part.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos) {
      l.Fail(tok, "MAC address must be six hex byte pairs, aa:bb:cc:dd:ee:ff");
    }
    mac = (mac << 8) | std::stoul(part, nullptr, 16);
    ++bytes;
  }
  if (bytes != 6 || tok.back() == ':') l.Fail(tok, "MAC address must be six hex byte pairs, aa:bb:cc:dd:ee:ff");
  return mac;
}

}  // namespace

Tables ParseConfig(const std::string& text, const std::string& file) {
  Tables t;
  TextLines lines(text);
  Line l{file, 0};
  int macs = 0;
  while (lines.Next()) {
    l.n = lines.number();
    const std::vector<std::string>& tok = lines.words();
    if (tok.empty()) continue;
    if (tok[0] == "port") {
      if (tok.size() < 2) l.Fail(tok[0], "expected: port <n> veswid <v> pkey <v> slid <v> [key value]...");
      const int n = static_cast<int>(l.Number(tok[1], kPorts - 1, "port number"));
      PortCfg& p = t.ports[n];
      if (p.valid) l.Fail(tok[1], "port " + std::to_string(n) + " is configured twice");
      if (tok.size() % 2 != 0) l.Fail(tok.back(), "every key needs a value");
      std::map<std::string, uint64_t> kv;
      std::map<std::string, std::array<uint8_t, 8>> pcp;
      bool linux_profile = false, profile_given = false;
      for (size_t i = 2; i < tok.size(); i += 2) {
        static const std::map<std::string, uint64_t> kMax = {
            {"veswid", 0xFFFF},        {"pkey", 0xFFFF},          {"slid", 0xFFFFFF},
            {"sc", 31},                {"rc", 7},                 {"ucast_dlid", 0xFFFFFF},
            {"mcast_dlid", 0xFFFFFF},  {"entropy", 0xFFFF},       {"sc_mc", 31},
            {"rc_word", 0xFFFFFFFF}};
        if (kv.count(tok[i]) || pcp.count(tok[i]) || (tok[i] == "profile" && profile_given)) {
          l.Fail(tok[i], "given twice");
        }
        if (tok[i] == "profile") {
          if (tok[i + 1] != "linux" && tok[i + 1] != "nettwin") l.Fail(tok[i + 1], "profile is nettwin or linux");
          linux_profile = tok[i + 1] == "linux";
          profile_given = true;
          continue;
        }
        if (tok[i] == "pcp_sc_uc" || tok[i] == "pcp_sc_mc") {  // eight SCs, PCP 0 first: a,b,c,d,e,f,g,h
          std::array<uint8_t, 8> v{};
          std::istringstream is(tok[i + 1]);
          std::string part;
          size_t n = 0;
          while (std::getline(is, part, ',')) {
            if (n == 8) break;
            v[n++] = static_cast<uint8_t>(l.Number(part, 31, tok[i]));
          }
          if (n != 8 || std::getline(is, part, ',') || tok[i + 1].back() == ',') {
            l.Fail(tok[i + 1], tok[i] + " wants eight SCs separated by commas (PCP 0 first)");
          }
          pcp[tok[i]] = v;
          continue;
        }
        auto it = kMax.find(tok[i]);
        if (it == kMax.end()) {
          l.Fail(tok[i], "unknown key (veswid, pkey, slid, sc, rc, ucast_dlid, mcast_dlid, entropy, profile, "
                         "sc_mc, pcp_sc_uc, pcp_sc_mc, rc_word)");
        }
        kv[tok[i]] = l.Number(tok[i + 1], it->second, tok[i]);
      }
      for (const char* req : {"veswid", "pkey", "slid"}) {
        if (!kv.count(req)) l.Fail(tok[0], std::string("port needs '") + req + "'");
      }
      if ((kv["pkey"] & 0x7FFF) == 0) l.Fail(tok[0], "pkey with low 15 bits zero is the invalid partition key");
      // Zero is not a LID and not a virtual switch (Linux hfi1_vnic_up refuses vesw_id 0; docs/vnic.md).
      if (kv["veswid"] == 0) l.Fail(tok[0], "veswid 0 is not a virtual switch (Linux refuses it)");
      if (kv["slid"] == 0) l.Fail(tok[0], "slid 0 is not a LID");
      static const std::array<const char*, 2> kLinuxOnly = {"sc_mc", "rc_word"}, kNettwinOnly = {"rc", "entropy"};
      for (const char* k : linux_profile ? kNettwinOnly : kLinuxOnly) {
        if (kv.count(k)) {
          l.Fail(k, linux_profile ? std::string(k) + " is computed per frame in profile linux (rc_word, flow hash)"
                                  : std::string(k) + " is a profile linux key");
        }
      }
      if (!linux_profile && !pcp.empty()) l.Fail(pcp.begin()->first, pcp.begin()->first + " is a profile linux key");
      for (int i = 0; i < kPorts; ++i) {
        if (t.ports[i].valid && t.ports[i].veswid == kv["veswid"]) {
          l.Fail(tok[0], "veswid " + std::to_string(kv["veswid"]) + " is already port " + std::to_string(i) +
                             "'s (receive demultiplexes by veswid)");
        }
      }
      p.valid = true;
      p.veswid = static_cast<uint16_t>(kv["veswid"]);
      p.pkey = static_cast<uint16_t>(kv["pkey"]);
      p.slid = static_cast<uint32_t>(kv["slid"]);
      p.sc = static_cast<uint8_t>(kv["sc"]);
      p.rc = static_cast<uint8_t>(kv["rc"]);
      p.ucast_dlid = static_cast<uint32_t>(kv.count("ucast_dlid") ? kv["ucast_dlid"] : 0xFFFFFF);
      p.mcast_dlid = static_cast<uint32_t>(kv.count("mcast_dlid") ? kv["mcast_dlid"] : 0xFFFFFF);
      p.entropy = static_cast<uint16_t>(kv["entropy"]);
      p.linux_profile = linux_profile;
      p.sc_mc = static_cast<uint8_t>(kv["sc_mc"]);
      if (pcp.count("pcp_sc_uc")) p.pcp_sc_uc = pcp["pcp_sc_uc"];
      if (pcp.count("pcp_sc_mc")) p.pcp_sc_mc = pcp["pcp_sc_mc"];
      p.rc_word = static_cast<uint32_t>(kv["rc_word"]);
    } else if (tok[0] == "mac") {
      if (tok.size() != 4) l.Fail(tok[0], "expected: mac <port> <aa:bb:cc:dd:ee:ff> <dlid>");
      const int port = static_cast<int>(l.Number(tok[1], kPorts - 1, "port number"));
      if (!t.ports[port].valid) l.Fail(tok[1], "port " + std::to_string(port) + " is not configured (yet)");
      const uint64_t mac = ParseMac(l, tok[2]);
      if (mac >> 40 & 1) l.Fail(tok[2], "a group (multicast) MAC always takes the port's mcast_dlid");
      if (macs >= kMacEntries) l.Fail(tok[0], "more than " + std::to_string(kMacEntries) + " MAC entries");
      for (int i = 0; i < macs; ++i) {
        if (t.macs[i].port == port && t.macs[i].mac == mac) l.Fail(tok[2], "MAC given twice for this port");
      }
      const uint64_t dlid = l.Number(tok[3], 0xFFFFFF, "dlid");
      if (dlid == 0) l.Fail(tok[3], "dlid 0 is not a LID (Linux treats such an entry as absent)");
      t.macs[macs++] = MacEntry{true, static_cast<uint8_t>(port), mac, static_cast<uint32_t>(dlid)};
    } else {
      l.Fail(tok[0], "unknown line (port, mac)");
    }
  }
  return t;
}

Tables LoadConfig(const std::string& path) {
  const std::string text = nettwin::ReadTextFile<ConfigError>(path);
  return ParseConfig(text, path);
}

std::vector<CfgWrite> ConfigWrites(const Tables& t) {
  std::vector<CfgWrite> w;
  for (int i = 0; i < kPorts; ++i) w.push_back(EncodePort(i, t.ports[i]));
  for (int i = 0; i < kMacEntries; ++i) {
    if (t.macs[i].valid) w.push_back(EncodeMac(i, t.macs[i]));
  }
  return w;
}

}  // namespace nettwin::vnic
