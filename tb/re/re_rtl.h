// The Verilated re_top behind ClockedBlock (tb/re/re_rtl.cc is the only file that sees the Verilated header).
#pragma once

#include <memory>

#include "model/re/re_cycle_model.h"
#include "tb/common/harness.h"

namespace nettwin::re {

std::unique_ptr<tb::RtlBlock<ReIn, ReOut>> MakeReRtl();

}  // namespace nettwin::re
