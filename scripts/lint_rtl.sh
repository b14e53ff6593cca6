#!/usr/bin/env bash
# verilator --lint-only -Wall over every RTL block; non-zero exit on any warning.
set -euo pipefail
cd "$(dirname "$0")/.."
incs=$(find rtl -type d | sed 's/^/-I/' | tr '\n' ' ')
pkgs="rtl/common/nt_pkg.sv $(find rtl -name '*_pkg.sv' ! -name nt_pkg.sv | sort)"
status=0
for top in lb_top; do
  out=$(verilator --lint-only -Wall $incs $pkgs $(find rtl -name '*.sv' ! -name '*_pkg.sv' | sort) \
        --top-module "$top" 2>&1) || status=1
  if [ -n "$out" ]; then echo "$out"; status=1; fi
done
[ $status -eq 0 ] && echo "rtl lint: clean"
exit $status
