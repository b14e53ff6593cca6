#!/usr/bin/env bash
# Self-test of the LB vector / reference / checker scripts (no C++ needed).
#
#   bash scripts/nettwin/lb/test_scripts.sh [SEED...]        (default seeds: 1 2 3)
#
# 1. unit tests of the Python reference (nettwin/lb/test_ref.py);
# 2. the spec vector regenerates byte-identically to vectors/lb/spec/packets_in.pcap and the
#    reference's output for it equals vectors/lb/spec/expected_out.pcap / expected_stats.json;
# 3. per seed: lb_gen is deterministic, lb_ref's own output passes lb_check (with --stats and
#    --tshark), and (first seed) corrupted copies / wrong stats make lb_check fail with a precise message;
# 4. the Lua dissectors decode the spec vector (input and LB output) and the random inputs.
# Exits non-zero on the first failure.
set -euo pipefail
PY=/usr/bin/python3
S="$(cd "$(dirname "$0")/../.." && pwd)"   # scripts/ (the entry points)
export PYTHONPATH="$S${PYTHONPATH:+:$PYTHONPATH}"   # python3 -m nettwin.<block>.<tool> finds the package
PYM=(env PYTHONPATH="$S" "$PY" -m)   # a module of the nettwin package
V="$S/../vectors/lb/spec"
W="$(mktemp -d)"
trap 'rm -rf "$W"' EXIT
SEEDS=("$@")
[ ${#SEEDS[@]} -eq 0 ] && SEEDS=(1 2 3)

fail() { echo "test_lb_scripts: FAIL: $*" >&2; exit 1; }
# expect_fail PATTERN CMD...: CMD must exit 1 and print PATTERN
expect_fail() {
    local pat="$1"; shift
    local rc=0
    "$@" >"$W/out.txt" 2>&1 || rc=$?
    [ "$rc" -eq 1 ] || { cat "$W/out.txt"; fail "expected exit 1 from: $*  (got $rc)"; }
    grep -q -- "$pat" "$W/out.txt" || { cat "$W/out.txt"; fail "expected '$pat' from: $*"; }
    echo "  ok (fails as it must): $(grep -m1 -- "$pat" "$W/out.txt" | cut -c1-150)"
}

echo "== unit tests"
"${PYM[@]}" nettwin.lb.test_ref

echo "== spec vector"
$PY -m nettwin.lb.spec_gen --out "$W/spec_in.pcap"
cmp "$W/spec_in.pcap" "$V/packets_in.pcap" || fail "spec vector differs from the checked-in one"
$PY -m nettwin.lb.ref --tables "$V/runsim.txt" --in "$V/packets_in.pcap" --out "$W/spec_out.pcap" --stats "$W/spec_stats.json"
cmp "$W/spec_out.pcap" "$V/expected_out.pcap" || fail "reference output differs from expected_out.pcap"
cmp "$W/spec_stats.json" "$V/expected_stats.json" || fail "reference stats differ from expected_stats.json"
$PY -m nettwin.lb.check --tables "$V/runsim.txt" --in "$V/packets_in.pcap" --out "$V/expected_out.pcap" \
    --stats "$V/expected_stats.json" --tshark
"${PYM[@]}" nettwin.lb.test_dissectors "$V/packets_in.pcap" --spec
"${PYM[@]}" nettwin.lb.test_dissectors "$V/expected_out.pcap" --spec

for seed in "${SEEDS[@]}"; do
    echo "== seed $seed"
    D="$W/s$seed"
    $PY -m nettwin.lb.gen --seed "$seed" --out-dir "$D"
    $PY -m nettwin.lb.gen --seed "$seed" --out-dir "$D.again" >/dev/null
    if ! cmp "$D/packets_in.pcap" "$D.again/packets_in.pcap" || ! cmp "$D/runsim.txt" "$D.again/runsim.txt"; then
        fail "lb_gen --seed $seed is not deterministic"
    fi
    $PY -m nettwin.lb.ref --tables "$D/runsim.txt" --in "$D/packets_in.pcap" --out "$D/exp.pcap" --stats "$D/exp.json"
    $PY -m nettwin.lb.check --tables "$D/runsim.txt" --in "$D/packets_in.pcap" --out "$D/exp.pcap" \
        --stats "$D/exp.json" --tshark
    "${PYM[@]}" nettwin.lb.test_dissectors "$D/packets_in.pcap"
    [ "$seed" = "${SEEDS[0]}" ] || continue
    # Damaged outputs (first seed only: the checker's comparison does not depend on the seed).
    for mode in flip-byte ip-dst drop dup swap; do
        $PY -m nettwin.common.corrupt_pcap --in "$D/exp.pcap" --out "$D/bad.pcap" --mode "$mode" >/dev/null
        expect_fail "MISMATCH \[" $PY -m nettwin.lb.check --tables "$D/runsim.txt" --in "$D/packets_in.pcap" \
            --out "$D/bad.pcap"
    done
    sed 's/"packets_out": \([0-9]*\)/"packets_out": 1\1/' "$D/exp.json" > "$D/bad.json"
    expect_fail "MISMATCH \[stats\]" $PY -m nettwin.lb.check --tables "$D/runsim.txt" \
        --in "$D/packets_in.pcap" --out "$D/exp.pcap" --stats "$D/bad.json"
done
echo "test_lb_scripts: PASS"
