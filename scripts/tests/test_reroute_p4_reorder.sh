#!/usr/bin/env bash
# The two ConWeave ToRs meet on conweave-p4's wire format (issue 26 item 2; docs/reroute.md "Wire format"):
# hosts' flows (rr_gen --wire-format conweave-p4 --no-clear) -> `nettwin reroute --wire-format conweave-p4`
# in lockstep (rr_check) -> rr_fabric.py (8 paths of different delays) -> `nettwin reorder` with
# `wire_format conweave-p4` in lockstep -> cw_check.py: the hosts get the NIC frames in order, exactly once,
# byte for byte, and one CLEAR per reroute. The Lua dissector reads both ToRs' outputs in that format. The
# same arrivals given to a reorder block configured for the seed's format are all malformed (so the test
# does see the format).
#   scripts/tests/test_reroute_p4_reorder.sh BUILD_DIR [NETTWIN]   (NETTWIN: default BUILD_DIR/nettwin)
set -uo pipefail
B=${1:?usage: test_reroute_p4_reorder.sh BUILD_DIR [NETTWIN]}
N=${2:-"$B/nettwin"}
PY=/usr/bin/python3
HERE=$(cd "$(dirname "$0")/.." && pwd)   # scripts/
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# shellcheck source=SCRIPTDIR/cli_check.sh
source "$HERE/tests/cli_check.sh"
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
R=(--flows 1024 --paths 8 --reply-cutoff-us 40 --path-busy-us 100 --flow-idle-us 2000)

for run in "mixed 1" "mixed 2" "ipv6 3"; do
  read -r sc seed <<<"$run"
  D="$T/$sc$seed"
  E="$D/e"
  if ! $PY "$HERE/rr_gen.py" --seed "$seed" --scenario "$sc" --out-dir "$D" --wire-format conweave-p4 --no-clear \
      >/dev/null; then
    bad "$sc $seed: rr_gen"; continue
  fi
  check "$sc $seed: reroute" 0 "reroute:" "$N" reroute --in "$D/hosts.pcap" --ctrl-in "$D/control.pcap" \
    --out "$D/fabric.pcap" --stats "$D/stats.json" "${R[@]}" --wire-format conweave-p4 --engine lockstep
  check "$sc $seed: rr_check" 0 "rr_check: PASS (conweave-p4 format)" \
    $PY "$HERE/rr_check.py" --dir "$D" --out "$D/fabric.pcap" --stats "$D/stats.json"
  check "$sc $seed: rr_fabric" 0 "rr_fabric:" $PY "$HERE/rr_fabric.py" --dir "$D" --fabric "$D/fabric.pcap" --out-dir "$E"
  if grep -q "^wire_format conweave-p4$" "$E/reorder.txt"; then ok; else bad "$sc $seed: reorder.txt format"; fi
  check "$sc $seed: reorder" 0 "reorder:" "$N" reorder --config "$E/reorder.txt" --in "$E/arrivals.pcap" \
    --out "$E/delivered.pcap" --ctrl-out "$E/control.pcap" --stats "$E/stats.json" --engine lockstep
  check "$sc $seed: cw_check" 0 "cw_check: PASS" $PY "$HERE/cw_check.py" --dir "$E" --delivered "$E/delivered.pcap" \
    --ctrl "$E/control.pcap" --stats "$E/stats.json"
  # The destination held something (a reroute to a faster path overtook its TAIL) and released it by the TAIL.
  if $PY -c "import json,sys; s=json.load(open(sys.argv[1])); sys.exit(0 if s['held'] > 0 and s['released_by_tail'] > 0 else 1)" \
      "$E/stats.json"; then ok; else bad "$sc $seed: the reorder block held nothing"; fi
done

# The dissector, in conweave-p4's format, on both ToRs' outputs of the first run.
check "dissector" 0 "test_cw_dissector: PASS" $PY "$HERE/test_cw_dissector.py" --wire-format conweave-p4 \
  "$T/mixed1/fabric.pcap" "$T/mixed1/e/control.pcap"

# The same arrivals at a reorder block in the seed's format: every frame malformed, the checker fails.
E="$T/mixed1/e"
grep -v '^wire_format' "$E/reorder.txt" >"$T/seed.txt"
check "seed-format reorder" 0 "reorder:" "$N" reorder --config "$T/seed.txt" --in "$E/arrivals.pcap" \
  --out "$T/sd.pcap" --ctrl-out "$T/sc.pcap" --stats "$T/ss.json" --engine model
if $PY -c "import json,sys; s=json.load(open(sys.argv[1])); sys.exit(0 if s['drops']['malformed'] == s['packets_in'] > 0 else 1)" \
    "$T/ss.json"; then ok; else bad "seed-format reorder: not every arrival malformed"; fi

echo "reroute p4 -> reorder: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
