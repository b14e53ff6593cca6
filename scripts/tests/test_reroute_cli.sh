#!/usr/bin/env bash
# CLI behaviour of `nettwin reroute`: every engine gives the same fabric pcap (accepted by nettwin.reroute.check), the
# stats JSON has every key, --inject-divergence stops a lockstep run with exit 1, and bad usage / bad pcaps
# exit 2 with a clear message.
# With PART p4-reorder instead (ctest reroute_p4_reorder): the two ConWeave ToRs meet on conweave-p4's wire
# format (issue 26 item 2; docs/reroute.md "Wire format"): hosts' flows (nettwin.reroute.gen --wire-format conweave-p4
# --no-clear) -> `nettwin reroute --wire-format conweave-p4` in lockstep (reroute_check) -> nettwin.reroute.fabric (8 paths of
# different delays) -> `nettwin reorder` with `wire_format conweave-p4` in lockstep -> nettwin.reorder.check: the hosts
# get the NIC frames in order, exactly once, byte for byte, and one CLEAR per reroute. The Lua dissector reads
# both ToRs' outputs in that format. The same arrivals given to a reorder block configured for the seed's format
# are all malformed (so the test does see the format).
#   scripts/tests/test_reroute_cli.sh BUILD_DIR [NETTWIN [PART]]   (NETTWIN: default BUILD_DIR/nettwin; PART: cli
#   (default) or p4-reorder)
set -uo pipefail
B=${1:?usage: test_reroute_cli.sh BUILD_DIR [NETTWIN [cli|p4-reorder]]}
N=${2:-"$B/nettwin"}
PART=${3:-cli}
PY=/usr/bin/python3
HERE=$(cd "$(dirname "$0")/.." && pwd)   # scripts/
export PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}"   # python3 -m nettwin.<block>.<tool> finds the package
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# shellcheck source=SCRIPTDIR/cli_check.sh
source "$HERE/tests/cli_check.sh"
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

p4_reorder() {
  for run in "mixed 1" "mixed 2" "ipv6 3"; do
    read -r sc seed <<<"$run"
    D="$T/$sc$seed"
    E="$D/e"
    if ! $PY -m nettwin.reroute.gen --seed "$seed" --scenario "$sc" --out-dir "$D" --wire-format conweave-p4 --no-clear \
        >/dev/null; then
      bad "$sc $seed: reroute_gen"; continue
    fi
    check "$sc $seed: reroute" 0 "reroute:" "$N" reroute --in "$D/hosts.pcap" --ctrl-in "$D/control.pcap" \
      --out "$D/fabric.pcap" --stats "$D/stats.json" "${R[@]}" --wire-format conweave-p4 --engine lockstep
    check "$sc $seed: reroute_check" 0 "reroute_check: PASS: conweave-p4 format:" \
      $PY -m nettwin.reroute.check --dir "$D" --out "$D/fabric.pcap" --stats "$D/stats.json"
    check "$sc $seed: reroute_fabric" 0 "reroute_fabric:" \
      $PY -m nettwin.reroute.fabric --dir "$D" --fabric "$D/fabric.pcap" --out-dir "$E"
    if grep -q "^wire_format conweave-p4$" "$E/reorder.txt"; then ok; else bad "$sc $seed: reorder.txt format"; fi
    check "$sc $seed: reorder" 0 "reorder:" "$N" reorder --config "$E/reorder.txt" --in "$E/arrivals.pcap" \
      --out "$E/delivered.pcap" --ctrl-out "$E/control.pcap" --stats "$E/stats.json" --engine lockstep
    check "$sc $seed: reorder_check" 0 "reorder_check: PASS" $PY -m nettwin.reorder.check --dir "$E" --delivered "$E/delivered.pcap" \
      --ctrl "$E/control.pcap" --stats "$E/stats.json"
    # The destination held something (a reroute to a faster path overtook its TAIL) and released it by the TAIL.
    if $PY -c "import json,sys; s=json.load(open(sys.argv[1]))
sys.exit(0 if s['held'] > 0 and s['released_by_tail'] > 0 else 1)" \
        "$E/stats.json"; then ok; else bad "$sc $seed: the reorder block held nothing"; fi
  done

  # The dissector, in conweave-p4's format, on both ToRs' outputs of the first run.
  check "dissector" 0 "reorder_test_dissector: PASS" $PY -m nettwin.reorder.test_dissector --wire-format conweave-p4 \
    "$T/mixed1/fabric.pcap" "$T/mixed1/e/control.pcap"

  # The same arrivals at a reorder block in the seed's format: every frame malformed, the checker fails.
  E="$T/mixed1/e"
  grep -v '^wire_format' "$E/reorder.txt" >"$T/seed.txt"
  check "seed-format reorder" 0 "reorder:" "$N" reorder --config "$T/seed.txt" --in "$E/arrivals.pcap" \
    --out "$T/sd.pcap" --ctrl-out "$T/sc.pcap" --stats "$T/ss.json" --engine model
  if $PY -c "import json,sys; s=json.load(open(sys.argv[1]))
sys.exit(0 if s['drops']['malformed'] == s['packets_in'] > 0 else 1)" \
      "$T/ss.json"; then ok; else bad "seed-format reorder: not every arrival malformed"; fi
}

if [ "$PART" = p4-reorder ]; then
  R=(--flows 1024 --paths 8 --reply-cutoff-us 40 --path-busy-us 100 --flow-idle-us 2000)
  p4_reorder
  echo "reroute p4 -> reorder: $pass passed, $fail failed"
  [ "$fail" -eq 0 ]
  exit
fi

if ! $PY -m nettwin.reroute.gen --seed 2 --scenario overflow --out-dir "$T/v" >/dev/null; then
  echo "FAIL nettwin.reroute.gen did not make the vector"; exit 1
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
check "bad wire format" 2 "--wire-format must be seed or conweave-p4, got 'p4'" \
  "$N" reroute --in "$H" --out "$T/o.pcap" --wire-format p4

# ---- every engine, the same output, checked ----
for e in model rtl lockstep; do
  check "engine $e" 0 "reroute:" "$N" reroute --in "$H" --ctrl-in "$C" --out "$T/$e.pcap" --stats "$T/$e.json" \
    --engine "$e" "${R[@]}" --backpressure 0.3 --seed 5
done
for e in rtl lockstep; do
  if cmp -s "$T/model.pcap" "$T/$e.pcap"; then ok; else bad "engine $e: output differs from the model's"; fi
done
check "reroute_check" 0 "reroute_check: PASS" $PY -m nettwin.reroute.check --dir "$T/v" --out "$T/lockstep.pcap" --stats "$T/lockstep.json"
# ---- the divergence path: the report, a waveform of the cycles before it (reroute_tb_top: RTL and model side by
# side), the replay line that diverges again at the same cycle; --trace: the whole run ----
out=$("$N" reroute --in "$H" --ctrl-in "$C" --out "$T/inj.pcap" "${R[@]}" --inject-divergence 300 2>&1)
rc=$?
cyc=$(grep -m1 -oE '^LOCKSTEP MISMATCH at cycle [0-9]+' <<<"$out" | grep -oE '[0-9]+$')
if [ "$rc" -eq 1 ] && [ -n "$cyc" ] && [ "$cyc" -ge 300 ] && grep -qF "waveform of cycles" <<<"$out" &&
   grep -qF "model_* signals" <<<"$out" && [ -s "$T/inj.pcap.mismatch.fst" ]; then ok
else bad "inject-divergence: exit $rc, report: $(head -3 <<<"$out")"; fi
# every block's report format (tb::MismatchReport): the signal with the byte window, both values in hex, where
# the frames were
if grep -qE '^LOCKSTEP MISMATCH at cycle [0-9]+: signal m_data_o byte 0 \(bytes 0\.\.7 shown\)$' <<<"$out" &&
   grep -qE '^  rtl   = 0x[0-9a-f]{16}$' <<<"$out" && grep -qE '^  model = 0x[0-9a-f]{16}$' <<<"$out" &&
   grep -qE '^  host frame #[0-9]+ being offered; output frame #[0-9]+, beat [0-9]+$' <<<"$out"; then ok
else bad "inject-divergence: not the common report format: $(head -5 <<<"$out")"; fi
replay=$(grep -m1 '^  replay: ' <<<"$out" | sed 's/^  replay: //')
if [ -n "$replay" ]; then
  out2=$(eval "$replay" 2>&1)
  cyc2=$(grep -m1 -oE '^LOCKSTEP MISMATCH at cycle [0-9]+' <<<"$out2" | grep -oE '[0-9]+$')
  if [ "$cyc2" = "$cyc" ]; then ok; else bad "replay diverged at '$cyc2', not $cyc"; fi
else bad "inject-divergence: no replay line"; fi
check "trace, whole run" 0 "reroute:" "$N" reroute --in "$H" --ctrl-in "$C" --out "$T/tr.pcap" "${R[@]}" --trace "$T/tr.fst"
if [ -s "$T/tr.fst" ]; then ok; else bad "--trace: no FST"; fi
check "trace with model" 2 "--trace" "$N" reroute --in "$H" --out "$T/o.pcap" --engine model --trace "$T/m.fst"
for k in packets_in packets_out drops rtt_requests reroutes reroute_blocked_clear reroute_no_path fallback_ecmp \
         evictions idle_resets control_in rtt_replies stale_replies notifies clears stale_clears bad_control \
         cycles mismatches conservation_ok; do
  if grep -q "\"$k\"" "$T/lockstep.json"; then ok; else bad "stats: no key $k"; fi
done
# ---- conweave-p4's wire format (docs/reroute.md "Wire format"): same traffic, control in that format ----
if ! $PY -m nettwin.reroute.gen --seed 2 --scenario overflow --out-dir "$T/p" --wire-format conweave-p4 >/dev/null; then
  bad "nettwin.reroute.gen --wire-format conweave-p4"
fi
check "p4 lockstep" 0 "reroute:" "$N" reroute --in "$T/p/hosts.pcap" --ctrl-in "$T/p/control.pcap" --out "$T/p4.pcap" \
  --stats "$T/p4.json" "${R[@]}" --wire-format conweave-p4 --backpressure 0.3 --seed 5
check "p4 reroute_check" 0 "reroute_check: PASS: conweave-p4 format:" \
  $PY -m nettwin.reroute.check --dir "$T/p" --out "$T/p4.pcap" --stats "$T/p4.json"
if grep -q '"wire_format": "conweave-p4"' "$T/p4.json"; then ok; else bad "p4 stats: wire_format"; fi
# The same decisions as the seed's format: equal counters (the control packets say the same in both).
strip_fmt() { grep -v -e wire_format -e '"engine"' "$1"; }
if diff <(strip_fmt "$T/lockstep.json") <(strip_fmt "$T/p4.json") >/dev/null; then ok; else bad "p4 stats differ from the seed format's"; fi
# A run in one format checked as the other fails (the checker reads the format from run.json).
check "seed output checked as p4" 1 "reroute_check: FAIL" \
  $PY -m nettwin.reroute.check --dir "$T/p" --out "$T/lockstep.pcap" --stats "$T/lockstep.json"
# The seed's control packets given to a conweave-p4 block are not control packets there.
check "seed control to a p4 block" 0 "reroute:" "$N" reroute --in "$H" --ctrl-in "$C" --out "$T/pc.pcap" \
  --stats "$T/pc.json" "${R[@]}" --wire-format conweave-p4 --engine model
if grep -q '"clears": 0,' "$T/pc.json" && grep -q '"notifies": 0,' "$T/pc.json" &&
   ! grep -q '"bad_control": 3,' "$T/pc.json"; then ok
else bad "seed control to a p4 block: $(tr -d '\n' < "$T/pc.json")"; fi

check "inject divergence" 1 "LOCKSTEP MISMATCH" "$N" reroute --in "$H" --ctrl-in "$C" --out "$T/x.pcap" "${R[@]}" \
  --inject-divergence 2000

echo "reroute cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
