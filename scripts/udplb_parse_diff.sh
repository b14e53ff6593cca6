#!/usr/bin/env bash
# Differential test of udplb's parser split (branch uparse18): main @ 6bbb01d's one-module udplb_parser against
# udplb_parse_pre (the first beat's terms) + udplb_parser on N structured random windows (default 1,000,000).
# The old module is taken from git, never kept in the tree. Usage: scripts/udplb_parse_diff.sh [N] [seed] [dir]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000000}
seed=${2:-1}
out=${3:-build/udplb_parse_diff}
ref=6bbb01d
mkdir -p "$out"
git show "$ref:rtl/lb/udplb_parser.sv" | sed -e 's/^module udplb_parser$/module udplb_parser_old/' \
  > "$out/udplb_parser_old.sv"
verilator --cc --exe --build -O3 -Irtl/common -Wno-fatal -Wno-lint -Wno-style -j 1 --top-module parse_diff_top \
  -Mdir "$out/obj" -CFLAGS -O2 -CFLAGS "-I$PWD" rtl/common/nt_pkg.sv rtl/common/nt_csum_pkg.sv rtl/lb/udplb_pkg.sv \
  "$out/udplb_parser_old.sv" rtl/lb/udplb_parse_pre.sv rtl/lb/udplb_l4_slice.sv rtl/lb/udplb_l4_verdict.sv rtl/lb/udplb_parser.sv \
  tb/udplb_parse_diff/parse_diff_top.sv "$PWD/tb/udplb_parse_diff/parse_diff_main.cc" -o parse_diff \
  > "$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
"$out/obj/parse_diff" "$n" "$seed"
