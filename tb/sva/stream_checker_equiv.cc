// Drives random streams with injected rule breaks (a withdrawn or changed waiting beat, non-contiguous keep,
// a partial beat that is not the last, non-zero pad bytes, last while idle, resets) into two implementations
// of nt_stream_checker side by side (tb/sva/stream_checker_equiv_top.sv) and requires the same assertion
// failures, by label, at the same cycles. Legal streams (p_bad = 0) must give none.
//   stream_checker_equiv [seed] [cycles] [p_bad]   (built and run by scripts/sva_checker_equiv.sh)
#include <cstdint>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <string>
#include <verilated.h>
#include "Vstream_checker_equiv_top.h"
static uint64_t g_cycle = 0;
static std::set<std::string> g_new, g_ref;
static std::map<std::string, int> g_count;
extern "C" void nt_sva_fail(const char* name) {
  std::string n(name);
  bool is_new = n.find("u_new_") != std::string::npos;
  auto p = n.find(is_new ? "u_new_" : "u_ref_");
  n.replace(p, 6, "u_X_");
  std::string key = std::to_string(g_cycle) + " " + n;
  (is_new ? g_new : g_ref).insert(key);
  if (is_new) ++g_count[n.substr(n.rfind('.') + 1)];
}
int main(int argc, char** argv) {
  uint64_t seed = argc > 1 ? std::stoull(argv[1]) : 1;
  uint64_t cycles = argc > 2 ? std::stoull(argv[2]) : 200000;
  double p_bad = argc > 3 ? std::stod(argv[3]) : 0.02;
  auto ctx = std::make_unique<VerilatedContext>();
  auto top = std::make_unique<Vstream_checker_equiv_top>(ctx.get());
  std::mt19937_64 rng(seed);
  auto coin = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  auto setbeat = [&](bool last_beat) {
    for (int i = 0; i < 16; ++i) top->data_i[i] = static_cast<uint32_t>(rng());
    for (int i = 0; i < 19; ++i) top->wdata_i[i] = static_cast<uint32_t>(rng());
    top->wdata_i[18] &= 1;
    int n = last_beat ? static_cast<int>(rng() % 65) : 64;
    uint64_t keep = n == 64 ? ~0ULL : ((1ULL << n) - 1);
    if (coin(p_bad)) keep ^= 1ULL << (rng() % 64);                  // non-contiguous or partial non-last
    top->keep_i = keep;
    for (int b = 0; b < 64; ++b)
      if (!(keep >> b & 1) && !coin(p_bad / 4)) top->data_i[b / 4] &= ~(0xffu << (8 * (b % 4)));  // pad zero
    top->last_i = last_beat;
  };
  top->rst_ni = 0; top->clk_i = 0; top->valid_i = 0; top->ready_i = 1; top->eval();
  for (int i = 0; i < 3; ++i) { top->clk_i = 1; top->eval(); top->clk_i = 0; top->eval(); }
  top->rst_ni = 1; top->eval();
  bool held = false;
  for (g_cycle = 1; g_cycle <= cycles; ++g_cycle) {
    // inputs for this cycle (clock low), then the rising edge
    if (held && !coin(p_bad)) {
      // keep the waiting beat (legal)
    } else if (held && coin(0.5)) {
      top->valid_i = 0;                                                // withdraw (valid_held)
      top->last_i = coin(0.5);                                         // and maybe last while idle
    } else if (held) {
      int what = static_cast<int>(rng() % 3);                          // change the waiting beat
      if (what == 0) top->data_i[rng() % 16] ^= 1u << (rng() % 32);
      if (what == 1) top->keep_i ^= 1ULL << (rng() % 64);
      if (what == 2) top->last_i ^= 1;
      top->wdata_i[rng() % 19] ^= 1u << (rng() % (g_cycle % 19 == 18 ? 1 : 32));
    } else {
      top->valid_i = coin(0.7);
      setbeat(coin(0.3));
      if (!top->valid_i && !coin(p_bad)) top->last_i = 0;
    }
    top->ready_i = coin(0.6);
    if (coin(0.0005)) top->rst_ni = 0; else top->rst_ni = 1;           // reset now and then
    top->eval();
    top->clk_i = 1; top->eval();
    top->clk_i = 0; top->eval();
    held = top->rst_ni && top->valid_i && !top->ready_i;
  }
  size_t only_new = 0, only_ref = 0;
  for (auto& k : g_new) if (!g_ref.count(k)) { if (only_new++ < 10) std::printf("only new: %s\n", k.c_str()); }
  for (auto& k : g_ref) if (!g_new.count(k)) { if (only_ref++ < 10) std::printf("only ref: %s\n", k.c_str()); }
  std::printf("seed %llu cycles %llu failures new %zu ref %zu only_new %zu only_ref %zu\n",
              (unsigned long long)seed, (unsigned long long)cycles, g_new.size(), g_ref.size(), only_new, only_ref);
  for (auto& [k, v] : g_count) std::printf("  %s %d\n", k.c_str(), v);
  if (p_bad == 0 && !g_new.empty()) {
    std::printf("FAIL: a legal stream made the checker fail\n");
    return 1;
  }
  return (only_new || only_ref) ? 1 : 0;
}
