#!/usr/bin/env bash
# verilator --lint-only -Wall over all of rtl/ at once (as the before-stop hook does); fails on any warning.
set -euo pipefail
cd "$(dirname "$0")/.."
# Packages first (nt_pkg, then the generated CRC tables rdma_pkg reads, before the blocks' packages that use
# them), then every module.
mapfile -t incs < <(find rtl -type d | sed 's/^/-I/')
mapfile -t pkgs < <(find rtl -name '*_crc_pkg.sv' | sort; find rtl -name '*_pkg.sv' ! -name nt_pkg.sv ! -name '*_crc_pkg.sv' | sort)
mapfile -t srcs < <(find rtl -name '*.sv' ! -name '*_pkg.sv' | sort)
out=$(verilator --lint-only -Wall -Wno-MULTITOP "${incs[@]}" rtl/common/nt_pkg.sv "${pkgs[@]}" "${srcs[@]}" 2>&1) || true
if [ -n "$out" ]; then
  echo "$out"
  exit 1
fi
echo "rtl lint: clean"
