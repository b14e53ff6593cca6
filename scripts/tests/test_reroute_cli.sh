#!/usr/bin/env bash
# CLI behaviour of `nettwin reroute`: every engine gives the same fabric pcap (accepted by rr_check.py), the
# stats JSON has every key, --inject-divergence stops a lockstep run with exit 1, and bad usage / bad pcaps
# exit 2 with a clear message.
#   scripts/tests/test_reroute_cli.sh BUILD_DIR [NETTWIN]   (NETTWIN: default BUILD_DIR/nettwin)
set -uo pipefail
B=${1:?usage: test_reroute_cli.sh BUILD_DIR [NETTWIN]}
N=${2:-"$B/nettwin"}
PY=/usr/bin/python3
HERE=$(cd "$(dirname "$0")/.." && pwd)   # scripts/
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# shellcheck source=SCRIPTDIR/cli_check.sh
source "$HERE/tests/cli_check.sh"
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

if ! $PY "$HERE/rr_gen.py" --seed 2 --scenario overflow --out-dir "$T/v" >/dev/null; then
  echo "FAIL rr_gen.py did not make the vector"; exit 1
fi
H="$T/v/hosts.pcap"
C="$T/v/control.pcap"
R=(--flows 4 --paths 8 --reply-cutoff-us 40 --path-busy-us 100 --flow-idle-us 2000)

# ---- usage errors ----
check "no options" 2 "--in and --out are required" "$N" reroute
check "unknown option" 2 "unknown option '--frob'" "$N" reroute --in "$H" --out "$T/o.pcap" --frob
check "bad engine" 2 "--engine must be model, rtl or lockstep, got 'fast'" \
  "$N" reroute --in "$H" --out "$T/o.pcap" --engine fast
check "bad paths" 2 "--paths must be 4, 8, 16 or 32" "$N" reroute --in "$H" --out "$T/o.pcap" --paths 6
check "bad flows" 2 "--flows must be a power of two" "$N" reroute --in "$H" --out "$T/o.pcap" --flows 5
check "bad cutoff" 2 "--reply-cutoff-us wants a number in" "$N" reroute --in "$H" --out "$T/o.pcap" --reply-cutoff-us 0
check "missing pcap" 2 "cannot open" "$N" reroute --in "$T/none.pcap" --out "$T/o.pcap"
check "inject with model" 2 "--inject-divergence needs --engine lockstep" \
  "$N" reroute --in "$H" --out "$T/o.pcap" --engine model --inject-divergence 100
check "help" 0 "usage: nettwin reroute" "$N" reroute --help

# ---- every engine, the same output, checked ----
for e in model rtl lockstep; do
  check "engine $e" 0 "reroute:" "$N" reroute --in "$H" --ctrl-in "$C" --out "$T/$e.pcap" --stats "$T/$e.json" \
    --engine "$e" "${R[@]}" --backpressure 0.3 --seed 5
done
for e in rtl lockstep; do
  if cmp -s "$T/model.pcap" "$T/$e.pcap"; then ok; else bad "engine $e: output differs from the model's"; fi
done
check "rr_check" 0 "rr_check: PASS" $PY "$HERE/rr_check.py" --dir "$T/v" --out "$T/lockstep.pcap" --stats "$T/lockstep.json"
for k in packets_in packets_out drops rtt_requests reroutes reroute_blocked_clear reroute_no_path fallback_ecmp \
         evictions idle_resets control_in rtt_replies stale_replies notifies clears stale_clears bad_control \
         cycles mismatches conservation_ok; do
  if grep -q "\"$k\"" "$T/lockstep.json"; then ok; else bad "stats: no key $k"; fi
done
check "inject divergence" 1 "LOCKSTEP MISMATCH" "$N" reroute --in "$H" --ctrl-in "$C" --out "$T/x.pcap" "${R[@]}" \
  --inject-divergence 2000

echo "reroute cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
