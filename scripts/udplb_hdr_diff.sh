#!/usr/bin/env bash
# Differential test of udplb's S8 restructuring (branch hdr17): main @ 87d32bf's one-stage udplb_hdr_calc
# (a serial checksum chain, variable-offset reads and writes) against udplb_pkg::l4_window + udplb_hdr_sum (its
# udplb_csum_tree trees) + udplb_hdr_calc on N
# random vectors (default 1,000,000). The old module and its checksum helpers are taken from git, never kept
# in the tree. Usage: scripts/udplb_hdr_diff.sh [N] [seed] [build dir]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000000}
seed=${2:-1}
out=${3:-build/udplb_hdr_diff}
ref=87d32bf
mkdir -p "$out"
git show "$ref:rtl/lb/udplb_hdr_calc.sv" |
  sed -e 's/^module udplb_hdr_calc$/module udplb_hdr_calc_old/' -e 's/udplb_pkg::csum_/udplb_old_pkg::csum_/g' \
  > "$out/udplb_hdr_calc_old.sv"
{
  echo "package udplb_old_pkg;"
  git show "$ref:rtl/lb/udplb_pkg.sv" | sed -n '/function automatic logic \[15:0\] csum_fold/,/^endpackage/p' |
    sed '/^endpackage/d'
  echo "endpackage"
} > "$out/udplb_old_pkg.sv"
verilator --cc --exe --build -O3 -Irtl/common -Wno-fatal -Wno-lint -Wno-style -j 2 --top-module hdr_diff_top \
  -Mdir "$out/obj" -CFLAGS -O2 -CFLAGS "-I$PWD" rtl/common/nt_pkg.sv rtl/common/nt_csum_pkg.sv rtl/lb/udplb_pkg.sv "$out/udplb_old_pkg.sv" \
  "$out/udplb_hdr_calc_old.sv" rtl/lb/udplb_csa_level.sv rtl/lb/udplb_csum_tree.sv rtl/lb/udplb_hdr_pre.sv rtl/lb/udplb_hdr_sum.sv rtl/lb/udplb_hdr_calc.sv \
  tb/udplb_hdr_diff/hdr_diff_top.sv "$PWD/tb/udplb_hdr_diff/hdr_diff_main.cc" -o hdr_diff > "$out/build.log" 2>&1 ||
  { tail -30 "$out/build.log"; exit 1; }
"$out/obj/hdr_diff" "$n" "$seed"
