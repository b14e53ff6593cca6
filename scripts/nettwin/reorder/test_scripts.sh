#!/usr/bin/env bash
# Self-test of the ConWeave test tooling (no C++ needed, about a minute).
#
#   bash scripts/nettwin/reorder/test_scripts.sh [SEED...]        (default seeds: 1 2)
#
# Per seed and scenario (mixed tailloss epochwrap tswrap ecn exhaust):
# 1. nettwin.reorder.gen is deterministic (two runs, identical bytes) and its fabric frames strip back to the
#    originals (reorder/layers.py round trip);
# 2. the ideal reference (nettwin.reorder.ref) output passes nettwin.reorder.check;
# 3. damaged copies (nettwin.reorder.corrupt) fail (exit 1) with the precise message expected: dropped,
#    swapped, flipped and duplicated packets, removed NOTIFY / CLEAR / RTT_REPLY, no reordering at
#    all, inconsistent stats, stats that claim drops or collisions the traffic cannot cause, a packet
#    held with no rule holding it (issue 13), a CLEAR before its trigger;
# 4. (first scenario only) the tshark Lua dissector (nettwin/reorder/test_dissector.py) decodes the fabric frames and
#    the control packets as reorder/layers.py does, and not by default; first seed: also malformed variants and
#    a broken copy of the dissector that must fail;
# 5. conweave-p4's wire format (first seed, mixed): nettwin.reorder.gen --wire-format conweave-p4, the reference passes reorder_check,
#    the dissector with conweave.wire_format:conweave-p4 agrees with reorder/layers.py, damaged copies fail;
# 6. unusable input exits 2.
# Exits non-zero on the first failure.
set -euo pipefail
PY=/usr/bin/python3
S="$(cd "$(dirname "$0")/../.." && pwd)"   # scripts/ (the entry points)
export PYTHONPATH="$S${PYTHONPATH:+:$PYTHONPATH}"   # python3 -m nettwin.<block>.<tool> finds the package
PYM=(env PYTHONPATH="$S" "$PY" -m)   # a module of the nettwin package
W="$(mktemp -d)"
trap 'rm -rf "$W"' EXIT
SEEDS=("$@")
[ ${#SEEDS[@]} -eq 0 ] && SEEDS=(1 2)
SCENARIOS=(mixed tailloss epochwrap tswrap ecn exhaust)

fail() { echo "reorder test_scripts: FAIL: $*" >&2; exit 1; }
expect_rc() {   # expect_rc RC PATTERN CMD...
    local want="$1" pat="$2"; shift 2
    local rc=0
    "$@" >"$W/out.txt" 2>&1 || rc=$?
    [ "$rc" -eq "$want" ] || { cat "$W/out.txt"; fail "expected exit $want from: $*  (got $rc)"; }
    grep -q -- "$pat" "$W/out.txt" || { cat "$W/out.txt"; fail "expected '$pat' from: $*"; }
    echo "  ok (exit $want): $(grep -m1 -- "$pat" "$W/out.txt" | cut -c1-200)"
}

for seed in "${SEEDS[@]}"; do
  for sc in "${SCENARIOS[@]}"; do
    D="$W/$sc.$seed"
    echo "== seed $seed scenario $sc"
    $PY -m nettwin.reorder.gen --seed "$seed" --scenario "$sc" --out-dir "$D"
    $PY -m nettwin.reorder.gen --seed "$seed" --scenario "$sc" --out-dir "$D.again" >/dev/null
    for f in reorder.txt arrivals.pcap originals.pcap flows.json; do
        cmp -s "$D/$f" "$D.again/$f" || fail "nettwin.reorder.gen not deterministic: $sc seed $seed $f"
    done
    echo "  ok: deterministic"
    $PY -c "
from nettwin.common.pcap import read_pcap
from nettwin.reorder.layers import to_nic, decode_cw, flow_key, parse
from nettwin.rdma.layers import check_icrc
orig = {(flow_key(f), parse(f).psn): f for f, _ in read_pcap('$D/originals.pcap')}
arr = read_pcap('$D/arrivals.pcap')
assert len(arr) == len(orig) and all(check_icrc(f) for f in orig.values())
ts = [t for _, t in arr]; assert ts == sorted(ts), 'arrivals not sorted'
for f, _ in arr:
    n = to_nic(f); assert n == orig[(flow_key(n), parse(n).psn)], 'round trip'
    assert not check_icrc(f) and decode_cw(f).op in (0, 1)
print('  ok: %d fabric frames strip back to their NIC frames' % len(arr))
"
    $PY -m nettwin.reorder.ref --dir "$D" --delivered "$D/dl.pcap" --ctrl "$D/ctrl.pcap" --stats "$D/stats.json"
    expect_rc 0 "PASS" $PY -m nettwin.reorder.check --dir "$D" --delivered "$D/dl.pcap" --ctrl "$D/ctrl.pcap" --stats "$D/stats.json"
    if [ "$sc" = "${SCENARIOS[0]}" ]; then   # tshark Lua dissector: first scenario only (~0.5 s per tshark run)
        extra=(); [ "$seed" = "${SEEDS[0]}" ] && extra=(--malformed)
        expect_rc 0 "PASS" "${PYM[@]}" nettwin.reorder.test_dissector "$D/arrivals.pcap" "$D/ctrl.pcap" "${extra[@]}"
        if [ "$seed" = "${SEEDS[0]}" ]; then   # the dissector test catches a broken dissector
            sed 's/ht:add(f.tx_tstamp, buf(BTH_LEN, 2))/ht:add(f.tx_tstamp, buf(BTH_LEN + 2, 2))/' \
                "$S/dissectors/conweave.lua" > "$W/bad_conweave.lua"
            ! cmp -s "$W/bad_conweave.lua" "$S/dissectors/conweave.lua" || fail "dissector mutation did not apply"
            expect_rc 1 "conweave.tx_tstamp expected" "${PYM[@]}" nettwin.reorder.test_dissector --lua "$W/bad_conweave.lua" "$D/ctrl.pcap"
        fi
    fi
    corrupt() {   # corrupt MODE PATTERN
        $PY -m nettwin.reorder.corrupt --dir "$D" --delivered "$D/dl.pcap" --ctrl "$D/ctrl.pcap" --stats "$D/stats.json" \
            --mode "$1" --out-delivered "$D/bad.pcap" --out-ctrl "$D/badc.pcap" --out-stats "$D/bads.json" | sed 's/^/  /'
        expect_rc 1 "$2" $PY -m nettwin.reorder.check --dir "$D" --delivered "$D/bad.pcap" --ctrl "$D/badc.pcap" --stats "$D/bads.json"
    }
    corrupt drop "never delivered"
    corrupt swap "out of PSN order"
    corrupt flip "ICRC invalid"
    corrupt dup "delivered twice"
    corrupt rm-clear "no CLEAR mirroring"
    corrupt stats "stats: packets_in"
    corrupt lie-buffer-full "cannot be a buffer_full drop"
    corrupt lie-collision "out of PSN order"
    corrupt late "but no rule holds it"
    corrupt early-clear "CLEAR (control frame"
    if [ "$sc" != exhaust ]; then corrupt noreorder "out of PSN order"; fi
    case "$sc" in mixed|tswrap|ecn|exhaust) corrupt rm-notify "no NOTIFY";; esac
    if [ "$sc" != tailloss ] && [ "$sc" != exhaust ]; then corrupt rm-reply "no RTT_REPLY"; fi
  done
done

echo "== conweave-p4's wire format (docs/reorder.md \"Two wire formats\")"
D="$W/p4.${SEEDS[0]}"
$PY -m nettwin.reorder.gen --seed "${SEEDS[0]}" --scenario mixed --out-dir "$D" --wire-format conweave-p4
grep -q "^wire_format conweave-p4$" "$D/reorder.txt" || fail "nettwin.reorder.gen --wire-format conweave-p4: no wire_format line"
$PY -m nettwin.reorder.ref --dir "$D" --delivered "$D/dl.pcap" --ctrl "$D/ctrl.pcap" --stats "$D/stats.json"
expect_rc 0 "PASS" $PY -m nettwin.reorder.check --dir "$D" --delivered "$D/dl.pcap" --ctrl "$D/ctrl.pcap" --stats "$D/stats.json"
expect_rc 0 "PASS" "${PYM[@]}" nettwin.reorder.test_dissector --wire-format conweave-p4 "$D/arrivals.pcap" "$D/ctrl.pcap"
for m in "swap:out of PSN order" "rm-clear:no CLEAR mirroring" "rm-reply:no RTT_REPLY"; do
    $PY -m nettwin.reorder.corrupt --dir "$D" --delivered "$D/dl.pcap" --ctrl "$D/ctrl.pcap" --stats "$D/stats.json" \
        --mode "${m%%:*}" --out-delivered "$D/bad.pcap" --out-ctrl "$D/badc.pcap" --out-stats "$D/bads.json" | sed 's/^/  /'
    expect_rc 1 "${m#*:}" $PY -m nettwin.reorder.check --dir "$D" --delivered "$D/bad.pcap" --ctrl "$D/badc.pcap" --stats "$D/bads.json"
done

echo "== unusable input"
D="$W/mixed.${SEEDS[0]}"
expect_rc 2 "unusable input" $PY -m nettwin.reorder.check --dir "$D" --delivered "$W/nonexistent.pcap" --ctrl "$D/ctrl.pcap" --stats "$D/stats.json"
echo "not json" > "$W/bad.json"
expect_rc 2 "unusable input" $PY -m nettwin.reorder.check --dir "$D" --delivered "$D/dl.pcap" --ctrl "$D/ctrl.pcap" --stats "$W/bad.json"
expect_rc 2 "unusable input" $PY -m nettwin.reorder.check --dir "$W" --delivered "$D/dl.pcap" --ctrl "$D/ctrl.pcap" --stats "$D/stats.json"
expect_rc 2 "no such file" "${PYM[@]}" nettwin.reorder.test_dissector "$W/nonexistent.pcap"
echo "reorder test_scripts: all passed"
