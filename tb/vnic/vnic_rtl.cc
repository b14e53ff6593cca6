#include "tb/vnic/vnic_rtl.h"

#include "Vvnic_decap_tb_top.h"
#include "Vvnic_encap_tb_top.h"

namespace nettwin::vnic {

std::unique_ptr<tb::RtlBlock<VnicIn, VnicOut>> MakeVnicRtl(Direction dir) {
  if (dir == Direction::kEncap) return std::make_unique<VnicRtl<Vvnic_encap_tb_top>>("vnic_encap_tb_top");
  return std::make_unique<VnicRtl<Vvnic_decap_tb_top>>("vnic_decap_tb_top");
}

}  // namespace nettwin::vnic
