#!/usr/bin/env bash
# Differential test of naa_req's transmit beat (branch naa22): main @ 7fd7cad's requester (the frame composed
# from variable offsets) against the registered-shape one, every output compared every cycle
# (tb/naa_req_diff/req_diff_tb.sv). The old module is taken from git, never kept in the tree.
# Usage: scripts/naa_req_diff.sh [cycles] [seed] [dir]; with PLANT=1 the new module's ICRC byte order is
# planted wrong (the negative control: the test must report differences).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-200000}
seed=${2:-1}
out=${3:-build/naa_req_diff}
ref=7fd7cad
mkdir -p "$out"
git show "$ref:rtl/naa/naa_req.sv" | sed -e 's/^module naa_req$/module naa_req_ref/' > "$out/naa_req_ref.sv"
new=rtl/naa/naa_req.sv
if [ "${PLANT:-0}" = 1 ]; then
  sed -e 's/tx_icrc\[8\*((i+2)%4)+:8\]/tx_icrc[8*((i+1)%4)+:8]/' rtl/naa/naa_req.sv > "$out/naa_req_planted.sv"
  cmp -s rtl/naa/naa_req.sv "$out/naa_req_planted.sv" && { echo "plant did not apply"; exit 1; }
  new="$out/naa_req_planted.sv"
fi
verilator --binary --timing -O2 -Irtl/common -Irtl/naa -Wno-fatal -Wno-lint -Wno-style -j 1 --top-module tb \
  -Mdir "$out/obj" rtl/common/nt_pkg.sv rtl/common/nt_crc_pkg.sv rtl/rdma/rdma_crc_pkg.sv rtl/rdma/rdma_pkg.sv \
  rtl/naa/naa_pkg.sv "$out/naa_req_ref.sv" "$new" tb/naa_req_diff/req_diff_tb.sv \
  > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
"$out/obj/Vtb" "+cycles=$n" "+verilator+seed+$seed"
