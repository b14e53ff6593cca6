#!/usr/bin/env bash
# nt_stream_checker against a reference revision of itself (docs/assertions.md "Cost in simulation"): both on
# the same random streams with injected rule breaks, side by side in one Verilated model; every assertion
# failure (label and cycle) of one must be a failure of the other, and legal streams must fail neither.
#   scripts/sva_checker_equiv.sh [REV] [SEEDS] [CYCLES]   (default: ff6b35e, the last $stable/$past version;
#                                                           seeds 1 2 3; 100000 cycles each)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
REV=${1:-ff6b35e}
SEEDS=${2:-"1 2 3"}
CYCLES=${3:-100000}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
git -C "$ROOT" show "$REV:rtl/common/nt_stream_checker.sv" |
  sed 's/^module nt_stream_checker /module nt_stream_checker_ref /' >"$T/ref_checker.sv"
nice verilator --cc --exe --build -j 1 -O1 --x-assign 0 --x-initial 0 -Wno-fatal --assert -Wno-SYNCASYNCNET \
  -I"$ROOT/rtl/common" --top stream_checker_equiv_top --prefix Vstream_checker_equiv_top -Mdir "$T/obj" \
  -CFLAGS -O1 -o stream_checker_equiv "$ROOT/rtl/common/nt_sva_pkg.sv" "$ROOT/rtl/common/nt_stream_checker.sv" \
  "$T/ref_checker.sv" "$ROOT/tb/sva/stream_checker_equiv_top.sv" "$ROOT/tb/sva/stream_checker_equiv.cc" \
  >"$T/build.log" 2>&1 || { tail -20 "$T/build.log"; echo "FAIL build"; exit 1; }
rc=0
for s in $SEEDS; do
  "$T/obj/stream_checker_equiv" "$s" "$CYCLES" 0.02 || rc=1
done
"$T/obj/stream_checker_equiv" 99 "$CYCLES" 0 || rc=1
[ $rc -eq 0 ] && echo "sva_checker_equiv: same failures as $REV" || echo "sva_checker_equiv: FAIL"
exit $rc
