#include "tb/naa/naa_rtl.h"

#include "Vnaa_tb_top.h"
#include "naa_rtl_ports.h"  // NOLINT(build/include_subdir): generated

namespace nettwin::naa {

// naa_top inside naa_tb_top.sv, both port lists and the adapter (NaaRtlPorts) generated from
// rtl/naa/data/naa.json (which includes rdma.json's ports; docs/blockgen.md): a model_* input beside every
// output in the FST.
std::unique_ptr<tb::RtlBlock<NaaIn, NaaOut>> MakeNaaRtl() {
  return std::make_unique<NaaRtlPorts<Vnaa_tb_top>>();
}

}  // namespace nettwin::naa
