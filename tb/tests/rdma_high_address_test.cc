// The responder with every address, key and identifier near the top of its field (docs/coverage-review.md,
// toggle coverage): MR, AQ, receive queue, completion queue and receive buffers in the top of the 64-bit
// host address space, rkey, QPNs, MAC and IP addresses, wr_id and immediate with their upper bits set,
// atomic operands of all ones. The other tests use addresses below 2^40, so the upper address bits of the
// request, queue and DMA buses never toggled. RTL and model in lockstep; results read back from host memory.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "model/common/bytes.h"
#include "tb/rdma/rdma_requests.h"
#include "tb/rdma/rdma_run.h"
#include "tb/tests/rdma_lockstep.h"

namespace nettwin::rdma {
namespace {

constexpr uint64_t kVa = 0xFFFFFFFFFFFE0000ull, kPa = 0xFFFFFFFFFF000000ull;
constexpr uint64_t kBuf = 0xFFFFFFFFFB000000ull, kRq = 0xFFFFFFFFFD000000ull, kCq = 0xFFFFFFFFFC000000ull;
constexpr uint32_t kRkey = 0xFFFFFFF0u, kQpn = 0xFFFFFE;

uint32_t Le32(const uint8_t* p) { return static_cast<uint32_t>(LoadLe64(p)); }  // p has 8 readable bytes

RdmaConfig HighConfig() {
  RdmaConfig c = ParseConfig(
      "responder mac fe:ff:ff:ff:ff:fe ip 255.255.255.254\n"
      "qp 0xfffffe dest_qp 0xfffffd epsn 0xfffff0 mtu 1024 max_rd_atomic 16 aq 0xfffffffffe000000 "
      "rq 0xfffffffffd000000 rq_entries 4 rq_posted 2 cq 0xfffffffffc000000 cq_entries 4\n"
      "mr 0xfffffff0 va 0xfffffffffffe0000 len 0x10000 pa 0xffffffffff000000 access rwa\n",
      "high");
  uint8_t wqe[32] = {};
  for (int i = 0; i < 2; ++i) {  // two 16-byte receive WQEs: 4000-byte buffers, wr_id with every bit set but one
    StoreLe64(wqe + 16 * i, kBuf + 0x10000 * static_cast<uint64_t>(i));
    StoreLe64(wqe + 16 * i + 8, (uint64_t{0xFFFFFFFEu - static_cast<uint32_t>(i)} << 32) | 4000);
  }
  c.memory.push_back(MemInit{kRq, std::vector<uint8_t>(wqe, wqe + 32)});
  std::vector<uint8_t> words(16);
  StoreLe64(words.data(), 0x8000000000000001ull);  // FETCH_ADD target
  StoreLe64(words.data() + 8, ~0ull);              // CAS target
  c.memory.push_back(MemInit{kPa + 0xFFF0, words});
  return c;
}

RequestSpec High(uint8_t opcode, uint32_t psn) {
  RequestSpec s;
  s.dst_mac = 0xFEFFFFFFFFFE;
  s.src_mac = 0xFDFFFFFFFFFF;
  s.dst_ip4 = 0xFFFFFFFE;
  s.src_ip4 = 0xFFFFFFFD;
  s.sport = 0xFFFF;
  s.opcode = opcode;
  s.dqpn = kQpn;
  s.psn = psn & kPsnMask;
  s.rkey = kRkey;
  return s;
}

std::vector<uint8_t> Pattern(size_t n) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i % 2 ? ~i : i * 37);
  return v;
}

TEST(RdmaHighAddress, WritesReadsAtomicsSendsAndCompletionsAtTheTopOfTheAddressSpace) {
  const uint32_t p0 = 0xFFFFF0;
  std::vector<RequestSpec> q;
  RequestSpec w = High(op::kWriteOnly, p0);
  w.va = kVa + 0xE003;  // unaligned: every byte lane of the DMA data bus
  w.payload = Pattern(1000);
  w.dmalen = 1000;
  q.push_back(w);
  RequestSpec r = High(op::kReadRequest, p0 + 1);
  r.va = kVa + 0xE003;
  r.dmalen = 2000;  // two responses: the data written, then bytes never written (zeros)
  q.push_back(r);
  RequestSpec faa = High(op::kFetchAdd, p0 + 3);  // the READ took two PSNs
  faa.va = kVa + 0xFFF0;
  faa.swap = ~0ull;  // adds -1
  q.push_back(faa);
  RequestSpec cas = High(op::kCompareSwap, p0 + 4);
  cas.va = kVa + 0xFFF8;
  cas.compare = ~0ull;
  cas.swap = 0x5555555555555555ull;
  q.push_back(cas);
  q.push_back(faa);  // a retransmission: answered from the recent-results store
  RequestSpec s = High(op::kSendOnlyImm, p0 + 5);
  s.imm = 0xFFFFFFFF;
  s.payload = Pattern(700);
  q.push_back(s);
  RequestSpec wi = High(op::kWriteOnlyImm, p0 + 6);
  wi.va = kVa;
  wi.imm = 0xFEDCBA98;
  wi.payload = Pattern(64);
  wi.dmalen = 64;
  q.push_back(wi);
  for (double bp : {0.0, 0.4}) {
    SCOPED_TRACE(bp);
    const RdmaRunReport rep = RunLockstep(HighConfig(), q, bp);
    // ACK (WRITE), 2 READ responses, 2 atomic ACKs, the replayed one, ACK (SEND), ACK (WRITE with immediate)
    ASSERT_EQ(rep.run.out.size(), 8u);
    std::vector<uint8_t> got(1000);
    rep.memory->Read(kPa + 0xE003, got.data(), got.size());
    EXPECT_EQ(got, w.payload);
    std::vector<uint8_t> read_back;
    for (int i = 1; i <= 2; ++i) {
      const auto& f = rep.run.out[static_cast<size_t>(i)].bytes;
      const int end = 14 + Load16(&f[16]) - 4 - ((f[43] >> 4) & 3);
      const int hdr = f[42] == op::kReadRspMiddle ? 54 : 58;
      read_back.insert(read_back.end(), f.begin() + hdr, f.begin() + end);
    }
    std::vector<uint8_t> want = w.payload;
    want.resize(2000, 0);
    EXPECT_EQ(read_back, want);
    EXPECT_EQ(Load64(&rep.run.out[3].bytes[58]), 0x8000000000000001ull);
    EXPECT_EQ(Load64(&rep.run.out[4].bytes[58]), ~0ull);
    EXPECT_EQ(Load64(&rep.run.out[5].bytes[58]), 0x8000000000000001ull);  // the replay: the original result
    uint8_t b[16];
    rep.memory->Read(kPa + 0xFFF0, b, 16);
    EXPECT_EQ(LoadLe64(b), 0x8000000000000000ull);
    EXPECT_EQ(LoadLe64(b + 8), 0x5555555555555555ull);
    std::vector<uint8_t> sent(700);
    rep.memory->Read(kBuf, sent.data(), sent.size());
    EXPECT_EQ(sent, s.payload);
    uint8_t cqe[64];
    rep.memory->Read(kCq, cqe, 64);
    EXPECT_EQ(Le32(cqe), 0xFFFFFFFEu);        // wr_id of WQE 0
    EXPECT_EQ(Le32(cqe + 4), 700u);           // byte count
    EXPECT_EQ(Load32(cqe + 8), 0xFFFFFFFFu);  // immediate
    EXPECT_EQ(Le32(cqe + 12), kQpn);
    EXPECT_EQ(Le32(cqe + 32), 0xFFFFFFFDu);  // WRITE with immediate: WQE 1
    EXPECT_EQ(Load32(cqe + 40), 0xFEDCBA98u);
    EXPECT_EQ(rep.counters.cqes, 2u);
    EXPECT_EQ(rep.counters.atomic_replays, 1u);
  }
}

}  // namespace
}  // namespace nettwin::rdma
