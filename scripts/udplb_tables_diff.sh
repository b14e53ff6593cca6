#!/usr/bin/env bash
# Differential test of udplb_tables (branch udt20; udt21): a git revision's module (ref below; NT_DIFF_REF
# overrides) against this tree's, every output compared every cycle over random writes and lookups. udt20 compared
# main @ cf75b50's walks in index order with the beat-matrix searches; udt21 compares main @ 58eb2f0 (the
# beat matrices) with the key compares registered a cycle early; udt23 compares main @ 4762ce4 (udt22's kept
# steps) with the mac_dst / ip_dst lookups in child modules. The old module is taken from git, never kept
# in the tree. Usage: scripts/udplb_tables_diff.sh [cycles] [seed] [dir]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-400000}
seed=${2:-1}
out=${3:-build/udplb_tables_diff}
ref=${NT_DIFF_REF:-4762ce4}
mkdir -p "$out"
git show "$ref:rtl/lb/udplb_tables.sv" | sed -e 's/^module udplb_tables$/module udplb_tables_old/' \
  > "$out/udplb_tables_old.sv"
verilator --binary --timing -O2 -Irtl/common -Irtl/lb -Wno-fatal -Wno-lint -Wno-style -j 1 --top-module tb \
  -Mdir "$out/obj" rtl/common/nt_pkg.sv rtl/common/nt_sva_pkg.sv rtl/lb/udplb_pkg.sv "$out/udplb_tables_old.sv" \
  rtl/lb/udplb_beat_matrix.sv rtl/lb/udplb_step_and3.sv rtl/lb/udplb_step_ao3.sv rtl/lb/udplb_step_or6.sv \
  rtl/lb/udplb_ao_rows.sv rtl/lb/udplb_prio_lookup.sv rtl/lb/udplb_tables.sv tb/udplb_tables_diff/tables_diff_tb.sv \
  > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
"$out/obj/Vtb" "+cycles=$n" "+verilator+seed+$seed"
