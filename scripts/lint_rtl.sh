#!/usr/bin/env bash
# verilator --lint-only -Wall over all of rtl/ at once (as the before-stop hook does); fails on any warning.
set -euo pipefail
cd "$(dirname "$0")/.."
incs=$(find rtl -type d | sed 's/^/-I/' | tr '\n' ' ')
pkgs="rtl/common/nt_pkg.sv $(find rtl -name '*_pkg.sv' ! -name nt_pkg.sv | sort)"
out=$(verilator --lint-only -Wall -Wno-MULTITOP $incs $pkgs $(find rtl -name '*.sv' ! -name '*_pkg.sv' | sort) 2>&1) || true
if [ -n "$out" ]; then
  echo "$out"
  exit 1
fi
echo "rtl lint: clean"
