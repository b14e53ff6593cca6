#!/usr/bin/env bash
# Differential test of naa_req's transmit beat (branch naa22): main @ 7fd7cad's requester (the frame composed
# from variable offsets) against the registered-shape one, every output compared every cycle
# (tb/naa_req_diff/req_diff_tb.sv). The old module is taken from git, never kept in the tree.
# Usage: scripts/naa_req_diff.sh [cycles] [seed] [dir]; with PLANT=1 the new module's ICRC byte order is
# planted wrong, with PLANT=2 its received-ICRC check reads the wrong received bit (negative controls: the test
# must report differences). REF=<commit> picks the reference (default 7fd7cad; branch naa23 ran it against main
# 4762ce4 too). The new module's assertions run too (tb/common/sva.cc prints a failure; the script then fails).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-200000}
seed=${2:-1}
out=${3:-build/naa_req_diff}
ref=${REF:-7fd7cad}
mkdir -p "$out"
# (a reference from before branch naq24 calls naa_pkg::add64c(a, b), now rdma_pkg::add64c(a, b, cin))
git show "$ref:rtl/naa/naa_req.sv" | sed -e 's/^module naa_req$/module naa_req_ref/' \
  -e "s/naa_pkg::add64c(\(.*\));/rdma_pkg::add64c(\1, 1'b0);/" > "$out/naa_req_ref.sv"
new=rtl/naa/naa_req.sv
txo=rtl/naa/naa_req_tx_out.sv
if [ "${PLANT:-0}" = 1 ]; then
  sed -e 's/icrc\[8\*((i+2)%4)+:8\]/icrc[8*((i+1)%4)+:8]/' "$txo" > "$out/naa_req_tx_out_planted.sv"
  cmp -s "$txo" "$out/naa_req_tx_out_planted.sv" && { echo "plant did not apply"; exit 1; }
  txo="$out/naa_req_tx_out_planted.sv"
elif [ "${PLANT:-0}" = 2 ]; then
  sed -e 's/rxc_icrc\[o\], rxc_l1/rxc_icrc[(o+1)%32], rxc_l1/' "$new" > "$out/naa_req_planted.sv"
  cmp -s "$new" "$out/naa_req_planted.sv" && { echo "plant did not apply"; exit 1; }
  new="$out/naa_req_planted.sv"
fi
verilator --binary --timing --assert -O2 -Irtl/common -Irtl/naa -Wno-fatal -Wno-lint -Wno-style -j 1 \
  --top-module tb -Mdir "$out/obj" -CFLAGS "-I$PWD -std=c++17" rtl/common/nt_pkg.sv rtl/common/nt_sva_pkg.sv \
  rtl/common/nt_crc_pkg.sv rtl/rdma/rdma_crc_pkg.sv rtl/rdma/rdma_pkg.sv rtl/naa/naa_pkg.sv \
  rtl/naa/naa_xor6_level.sv rtl/naa/naa_or6_level.sv rtl/naa/naa_mux4_level.sv "$txo" "$out/naa_req_ref.sv" "$new" \
  tb/naa_req_diff/req_diff_tb.sv \
  "$PWD/tb/common/sva.cc" > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
"$out/obj/Vtb" "+cycles=$n" "+verilator+seed+$seed" 2> >(tee "$out/stderr.log" >&2)
wait
if grep -q "RTL assertion failed" "$out/stderr.log"; then echo "naa_req_diff: an RTL assertion failed"; exit 1; fi
