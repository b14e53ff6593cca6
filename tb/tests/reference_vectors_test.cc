// The cycle models against the independent Python references: the checked-in vectors' expected outputs
// were produced by nettwin.lb.ref, nettwin.rdma.ref and nettwin.naa.ref (which share no code with the C++ models),
// and scripts/test_*_scripts.sh regenerate them, so these compare the models with something they cannot
// agree with by construction.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/common/pcap.h"
#include "model/lb/lb_script.h"
#include "model/rdma/rdma_config.h"
#include "tb/lb/lb_run.h"
#include "tb/naa/naa_run.h"
#include "tb/rdma/rdma_run.h"

namespace nettwin {
namespace {

const std::string kVectors = std::string(NT_SOURCE_DIR) + "/vectors/";

void ExpectSameFrames(const std::vector<Packet>& got, const std::vector<Packet>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i].bytes, want[i].bytes) << "frame " << i;
}

TEST(ReferenceVectors, LbCycleAndPacketModelsEqualLbRefOnTheSpecVector) {
  const std::string d = kVectors + "lb/spec/";
  const auto in = ReadPcap(d + "packets_in.pcap");
  const auto want = ReadPcap(d + "expected_out.pcap");
  for (lb::Engine e : {lb::Engine::kModel, lb::Engine::kFast}) {
    SCOPED_TRACE(lb::EngineName(e));
    lb::LbRunConfig cfg;
    cfg.engine = e;
    cfg.opt.backpressure = 0.3;
    const lb::LbRunReport r = lb::RunLb(lb::LoadScript(d + "runsim.txt"), in, cfg);
    EXPECT_TRUE(r.conservation_ok);
    ExpectSameFrames(r.run.out, want);
  }
}

class RdmaVector : public ::testing::TestWithParam<const char*> {};

TEST_P(RdmaVector, CycleModelEqualsRdmaRef) {
  const std::string d = kVectors + "rdma/" + GetParam() + "/";
  rdma::RdmaRunConfig cfg;
  cfg.engine = rdma::Engine::kModel;
  cfg.mem.read_latency = 37;
  cfg.opt.backpressure = 0.2;
  const rdma::RdmaRunReport r =
      rdma::RunRdma(rdma::LoadConfig(d + "responder.txt"), ReadPcap(d + "requests.pcap"), cfg);
  EXPECT_TRUE(r.conservation_ok);
  ExpectSameFrames(r.run.out, ReadPcap(d + "expected_responses.pcap"));
}

INSTANTIATE_TEST_SUITE_P(Vectors, RdmaVector,
                         ::testing::Values("atomic", "badreq", "edge", "icrc", "psnwrap", "reorder", "send"));

TEST(ReferenceVectors, NaaRtlAndModelEqualNaaRefOnTheConnectVector) {
  const std::string d = kVectors + "naa/";
  naa::NaaRunConfig cfg;
  cfg.mem.read_latency = 37;
  cfg.opt.backpressure = 0.2;
  const naa::NaaRunReport r = naa::RunNaa(naa::LoadNaaConfig(d + "naa.txt"), ReadPcap(d + "connect.pcap"), cfg);
  EXPECT_TRUE(r.mismatch_text.empty()) << r.mismatch_text;
  EXPECT_TRUE(r.conservation_ok);
  ExpectSameFrames(r.run.out, ReadPcap(d + "expected_server.pcap"));
}

}  // namespace
}  // namespace nettwin
