// The Verilated naa_ctl (the NAA controller alone) behind ClockedBlock, for its component lockstep tests.
#pragma once

#include <memory>

#include "model/naa/naa_ctl.h"
#include "tb/common/harness.h"

namespace nettwin::naa {

// tb/naa/naa_ctl_rtl.cc is the only file that sees the Verilated header.
std::unique_ptr<tb::RtlBlock<NaaCtlIn, NaaCtlOut>> MakeNaaCtlRtl();

}  // namespace nettwin::naa
