// What every Verilated block adapter shares: the model's context and FST, reset, the clock edge, and the
// byte <-> wide-port packing. A block's adapter derives from it and only maps its ports in Eval().
#pragma once

#include <unistd.h>
#include <verilated.h>
#include <verilated_fst_c.h>
#ifdef NT_COVERAGE
#include <verilated_cov.h>
#endif

#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "model/common/cfg_port.h"
#include "tb/common/harness.h"
#include "tb/common/sva.h"

namespace nettwin::tb {

// Byte i of a frame or word sits in bits 8i+7:8i of the SystemVerilog vector (AXI lane order). VlWide keeps
// 32-bit words least significant first, so on a little-endian host that is exactly the byte order in memory:
// one memcpy per port instead of a loop of shifts (these run for every port every cycle).
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "PutBytes/GetBytes assume a little-endian host");
template <size_t N>
void PutBytes(VlWide<N>& w, const uint8_t* bytes, size_t n) {
  static_assert(sizeof(w.m_storage) == 4 * N, "VlWide is N packed 32-bit words");
  if (n < 4 * N) std::memset(w.m_storage, 0, sizeof w.m_storage);
  std::memcpy(w.m_storage, bytes, n < 4 * N ? n : 4 * N);
}
template <size_t N>
void GetBytes(const VlWide<N>& w, uint8_t* bytes, size_t n) {
  std::memcpy(bytes, w.m_storage, n < 4 * N ? n : 4 * N);
}
// Bits [lo, lo + n) (n <= 64) of a wide port, e.g. one field of a packed struct, and the other way; the
// overloads for a port of at most 64 bits (Verilator's CData..QData) do the same on an integer.
template <size_t N>
uint64_t WideField(const VlWide<N>& w, int lo, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= uint64_t{(w[(lo + i) / 32] >> ((lo + i) % 32)) & 1u} << i;
  return v;
}
template <size_t N>
void SetWideField(VlWide<N>& w, int lo, int n, uint64_t v) {
  for (int i = 0; i < n; ++i) {
    const uint32_t m = 1u << ((lo + i) % 32);
    w[(lo + i) / 32] = ((v >> i) & 1) ? (w[(lo + i) / 32] | m) : (w[(lo + i) / 32] & ~m);
  }
}
template <class T, class = std::enable_if_t<std::is_integral_v<T>>>
uint64_t WideField(T w, int lo, int n) {
  const uint64_t mask = n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
  return (static_cast<uint64_t>(w) >> lo) & mask;
}
template <class T, class = std::enable_if_t<std::is_integral_v<T>>>
void SetWideField(T& w, int lo, int n, uint64_t v) {
  const uint64_t mask = (n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1) << lo;
  w = static_cast<T>((static_cast<uint64_t>(w) & ~mask) | ((v << lo) & mask));
}
// A Bits<> value (e.g. CfgData) onto a wide port, 32 bits at a time.
template <size_t N, class B>
void PutWords32(VlWide<N>& w, const B& b) {
  for (size_t i = 0; i < N; ++i) w[i] = b.Word32(static_cast<int>(i));
}

// A packed array port of counters (element i in bits [W*i, W*i + W), docs/blockgen.md "counter arrays") <->
// std::array: a VlWide port (more than 64 bits) or an integral one (CData .. QData).
template <int W, class P, class T, size_t K>
void GetPacked(const P& p, std::array<T, K>* a) {
  static_assert(W >= 1 && W <= 64, "a counter is 1 to 64 bits");
  if constexpr (std::is_integral_v<P>) {
    static_assert(W * K <= 64, "an integral port holds at most 64 bits");
    for (size_t i = 0; i < K; ++i) (*a)[i] = static_cast<T>((uint64_t{p} >> (W * i)) & (~uint64_t{0} >> (64 - W)));
  } else if constexpr (W == 32) {
    for (size_t i = 0; i < K; ++i) (*a)[i] = static_cast<T>(p[i]);
  } else if constexpr (W == 64) {
    for (size_t i = 0; i < K; ++i) (*a)[i] = static_cast<T>(p[2 * i] | uint64_t{p[2 * i + 1]} << 32);
  } else {
    for (size_t i = 0; i < K; ++i) (*a)[i] = static_cast<T>(WideField(p, static_cast<int>(W * i), W));
  }
}
template <int W, class P, class T, size_t K>
void PutPacked(P& p, const std::array<T, K>& a) {
  static_assert(W >= 1 && W <= 64, "a counter is 1 to 64 bits");
  if constexpr (std::is_integral_v<P>) {
    static_assert(W * K <= 64, "an integral port holds at most 64 bits");
    uint64_t v = 0;
    for (size_t i = 0; i < K; ++i) v |= (uint64_t{a[i]} & (~uint64_t{0} >> (64 - W))) << (W * i);
    p = static_cast<P>(v);
  } else if constexpr (W == 32) {
    for (size_t i = 0; i < K; ++i) p[i] = static_cast<uint32_t>(a[i]);
  } else if constexpr (W == 64) {
    for (size_t i = 0; i < K; ++i) {
      p[2 * i] = static_cast<uint32_t>(a[i]);
      p[2 * i + 1] = static_cast<uint32_t>(uint64_t{a[i]} >> 32);
    }
  } else {
    for (size_t i = 0; i < K; ++i) SetWideField(p, static_cast<int>(W * i), W, a[i]);
  }
}

// Every block's top has the stream ports s_* (input), m_* (output) and, on the lockstep wrapper, model_m_*
// (the model's output shown to the SVA checks); these map one nettwin::StreamPort onto them.
template <class VTop>
void DriveS(VTop& t, const StreamPort& s) {
  t.s_valid_i = s.valid;
  PutBytes(t.s_data_i, s.beat.data.data(), kBeatBytes);
  t.s_keep_i = s.beat.keep;
  t.s_last_i = s.beat.last;
}
template <class VTop>
void SampleM(const VTop& t, StreamPort* m) {
  m->valid = t.m_valid_o;
  GetBytes(t.m_data_o, m->beat.data.data(), kBeatBytes);
  m->beat.keep = t.m_keep_o;
  m->beat.last = t.m_last_o;
}
template <class VTop>
void ShowModelM(VTop& t, const StreamPort& m) {
  t.model_m_valid_i = m.valid;
  PutBytes(t.model_m_data_i, m.beat.data.data(), kBeatBytes);
  t.model_m_keep_i = m.beat.keep;
  t.model_m_last_i = m.beat.last;
}

// The programming port (cfg_valid_i, cfg_table_i, cfg_index_i, cfg_data_i) every block's top has.
template <class VTop>
void DriveCfg(VTop& t, const CfgWrite& c) {
  t.cfg_valid_i = c.valid;
  t.cfg_table_i = c.table;
  t.cfg_index_i = c.index;
  PutWords32(t.cfg_data_i, c.data);
}

// VTop: the Verilated class (ports clk_i, rst_ni, ...). Derived classes drive their inputs in Eval() and
// set the inputs that must be idle during reset in IdleInputs().
template <class VTop, class In, class Out>
class VerilatedBlock : public RtlBlock<In, Out> {
 public:
  explicit VerilatedBlock(const char* name) : ctx_(std::make_unique<VerilatedContext>()), name_(name) {
    ctx_->traceEverOn(true);
    // NT_SVA_OFF=1 switches the RTL assertions off (scripts/sva_mutants.sh: the cycle at which lockstep alone
    // sees a planted bug); they are on otherwise.
    if (const char* off = std::getenv("NT_SVA_OFF"); off != nullptr && off[0] == '1') ctx_->assertOn(false);
    top_ = std::make_unique<VTop>(ctx_.get(), name);
  }
  ~VerilatedBlock() override {
    // Verilator 5.006 erases a model's scopes (which DPI, i.e. the assertions' hook, creates) from the
    // *thread's* current context, not the model's own: after another block (e.g. a divergence replay) was
    // destroyed, that is a freed context, and the erase waits forever on its mutex. Point it at ours.
    Verilated::threadContextp(ctx_.get());
    if (fst_) fst_->close();
    top_->final();
#ifdef NT_COVERAGE
    // `make coverage`: every RTL instance leaves its counts in NT_COVERAGE_DIR for verilator_coverage.
    if (const char* dir = std::getenv("NT_COVERAGE_DIR")) {
      static std::atomic<int> serial{0};
      const std::string f = std::string(dir) + "/" + name_ + "_" + std::to_string(getpid()) + "_" +
                            std::to_string(serial++) + ".dat";
      ctx_->coveragep()->write(f.c_str());
    }
#endif
  }

  void Reset() override {
    top_->rst_ni = 0;
    IdleInputs();
    for (int i = 0; i < 3; ++i) {
      top_->clk_i = 0;
      top_->eval();
      top_->clk_i = 1;
      top_->eval();
    }
    top_->clk_i = 0;
    top_->eval();
    top_->rst_ni = 1;
    top_->eval();
    TakeSvaFailure();  // assertions are disabled in reset; nothing from before this run counts
    sva_failure_.reset();
  }
  void Tick() override {
    Dump();
    top_->clk_i = 1;
    top_->eval();
    Dump();
    if (auto f = TakeSvaFailure(); f && !sva_failure_) sva_failure_ = std::move(f);
  }
  std::optional<std::string> TakeAssertion() override { return std::exchange(sva_failure_, std::nullopt); }
  void OpenTrace(const std::string& path) override {
    fst_ = std::make_unique<VerilatedFstC>();
    top_->trace(fst_.get(), 99);
    fst_->open(path.c_str());
  }
  void SetTracing(bool on) override { tracing_ = on; }
  void ShowModel(const Out&) override {}

 protected:
  virtual void IdleInputs() = 0;
  VTop& top() { return *top_; }

 private:
  void Dump() {
    if (fst_ && tracing_) fst_->dump(half_cycles_);
    ++half_cycles_;
  }
  std::unique_ptr<VerilatedContext> ctx_;
  std::string name_;
  std::unique_ptr<VTop> top_;
  std::unique_ptr<VerilatedFstC> fst_;
  bool tracing_ = false;
  uint64_t half_cycles_ = 0;
  std::optional<std::string> sva_failure_;
};

}  // namespace nettwin::tb
