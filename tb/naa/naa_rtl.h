// The Verilated naa_top behind ClockedBlock.
#pragma once

#include <memory>

#include "model/naa/naa_types.h"
#include "tb/common/harness.h"

namespace nettwin::naa {

// tb/naa/naa_rtl.cc is the only file that sees the Verilated header.
std::unique_ptr<tb::RtlBlock<NaaIn, NaaOut>> MakeNaaRtl();

}  // namespace nettwin::naa
