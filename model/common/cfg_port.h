// The table-programming port every block has: one write replaces a whole entry, table[index] <= data.
// Same fields as the SystemVerilog ports cfg_valid_i, cfg_table_i, cfg_index_i, cfg_data_i.
#pragma once

#include <cstdint>

#include "model/common/bits.h"
#include "nt_params.h"

namespace nettwin {

using CfgData = Bits<static_cast<int>(params::kCfgDataBits)>;

struct CfgWrite {
  bool valid = false;
  uint8_t table = 0;
  uint16_t index = 0;
  CfgData data;
};

}  // namespace nettwin
