#!/usr/bin/env bash
# The closed loop (issue 11 part 3; udplb + E2SAR: issue 24 item 4): source events -> `nettwin lb` in lockstep
# with an epoch switch planned by `nettwin lb-plan` applied mid-run -> one `nettwin re` per member;
# nettwin.lb.plan_check checks the switch, nettwin.re.loop check that every event was reassembled exactly once at
# the member its tick maps to.
# The RE is its golden model (the RE RTL is not written, docs/re.md).
#
# A seed written udplb:N runs the same loop through ESnet's udplb program with E2SAR framing (nettwin.re.loop
# --program udplb: LB v2 and v3 headers, several senders with random source ports; the switch planned by
# `nettwin lb-plan --program udplb` and checked by nettwin.lb.udplb_plan_check plan; the LB output by nettwin.lb.udplb_check;
# one `nettwin re` with `header e2sar` in lockstep per member); then the same late-switch check.
#
#   bash scripts/nettwin/re/test_loop.sh BUILD_DIR [SEED|udplb:SEED...] [-- nettwin lb flags]   (default seed: 1)
set -euo pipefail
PY=/usr/bin/python3
S="$(cd "$(dirname "$0")/../.." && pwd)"   # scripts/ (the entry points)
export PYTHONPATH="$S${PYTHONPATH:+:$PYTHONPATH}"   # python3 -m nettwin.<block>.<tool> finds the package
NT="$(cd "$1" && pwd)/nettwin"; shift
SEEDS=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do SEEDS+=("$1"); shift; done
[ $# -gt 0 ] && shift
[ ${#SEEDS[@]} -eq 0 ] && SEEDS=(1)
W="${EJFAT_LOOP_WORK:-$(mktemp -d)}"
[ -z "${EJFAT_LOOP_WORK:-}" ] && trap 'rm -rf "$W"' EXIT
reassemble_lockstep() {   # reassemble_lockstep DIR WORK: nettwin re (RTL + cycle model) on every member's input
    $PY -m nettwin.re.loop reassemble --dir "$1" --work "$2" --nettwin "$NT" >/dev/null
}
udplb_loop() {   # udplb_loop SEED [nettwin lb flags]
    local seed="$1" d="$W/udplb$1"; shift
    $PY -m nettwin.re.loop gen --program udplb --seed "$seed" --out-dir "$d" --nettwin "$NT"
    $PY -m nettwin.lb.udplb_plan_check plan --dir "$d"
    "$NT" lb --program udplb --tables "$d/run.txt" --in "$d/packets_in.pcap" --out "$d/out.pcap" \
        --stats "$d/stats.json" --engine lockstep --seed "$seed" "$@"
    $PY -m nettwin.lb.udplb_check --tables "$d/run.txt" --in "$d/packets_in.pcap" --out "$d/out.pcap" --stats "$d/stats.json"
    $PY -m nettwin.re.loop split --program udplb --dir "$d" --out "$d/out.pcap"
    reassemble_lockstep "$d" "$d"
    $PY -m nettwin.re.loop check --dir "$d"
    [ -n "${EJFAT_LOOP_WORK:-}" ] && return 0
    # the switch applied after the ticks >= boundary went through must fail end to end
    read -r n1 n2 < <($PY -c "import json,sys; s=json.load(open(sys.argv[1]))['segments']; print(s[0], s[1])" \
        "$d/scenario.json")
    { cat "$d/current.txt"; echo "run_traffic $((n1 + n2))"; cat "$d/switch.txt" "$d/cleanup.txt"; } >"$d/late.txt"
    "$NT" lb --program udplb --tables "$d/late.txt" --in "$d/packets_in.pcap" --out "$d/late.pcap" \
        --engine model >/dev/null
    local rc=0
    { $PY -m nettwin.re.loop split --program udplb --dir "$d" --out "$d/late.pcap" --work "$d/late" &&
      reassemble_lockstep "$d" "$d/late" &&
      $PY -m nettwin.re.loop check --dir "$d" --work "$d/late"; } >"$W/late_udplb.txt" || rc=$?
    # (a member gets an event of another, or misses one of its own: which comes first depends on the names)
    if [ "$rc" -ne 1 ] || ! grep -q "MISMATCH \[re_check [a-z]*\] .* first: member .*\(not one the source sent here\|neither completed\)" \
            "$W/late_udplb.txt"; then
        cat "$W/late_udplb.txt"; echo "test_ejfat_loop: FAIL: a late udplb switch was not caught" >&2; exit 1
    fi
    echo "  ok (fails as it must): $(grep MISMATCH "$W/late_udplb.txt" | head -c 150)"
}
for seed in "${SEEDS[@]}"; do
    if [[ "$seed" == udplb:* ]]; then
        udplb_loop "${seed#udplb:}" "$@"
        continue
    fi
    d="$W/loop$seed"
    $PY -m nettwin.re.loop gen --seed "$seed" --out-dir "$d"
    read -r start boundary now < <($PY -c "import json,sys; s=json.load(open(sys.argv[1])); print(s['start'], s['boundary'], s['now'])" "$d/scenario.json")
    "$NT" lb-plan --tables "$d/filter.txt" --members "$d/members0.txt" --out "$d/init.txt" >/dev/null
    cat "$d/filter.txt" "$d/init.txt" >"$d/current.txt"
    "$NT" lb-plan --tables "$d/current.txt" --members "$d/members1.txt" --boundary "$boundary" \
        --current-start "$start" --now "$now" --out "$d/switch.txt" --cleanup-out "$d/cleanup.txt" >/dev/null
    $PY -m nettwin.lb.plan_gen assemble --dir "$d"
    "$NT" lb --tables "$d/run.txt" --in "$d/packets_in.pcap" --out "$d/out.pcap" --stats "$d/stats.json" \
        --engine lockstep --seed "$seed" "$@"
    $PY -m nettwin.lb.plan_check --dir "$d" --out "$d/out.pcap" --stats "$d/stats.json"
    $PY -m nettwin.re.loop split --dir "$d" --out "$d/out.pcap"
    for m in $($PY -c "import json,sys; print(' '.join(json.load(open(sys.argv[1]))))" "$d/members.json"); do
        "$NT" re --config "$d/re.txt" --in "$d/$m/segments.pcap" --out "$d/$m/events.pcap" \
            --report "$d/$m/report.json" >/dev/null
    done
    $PY -m nettwin.re.loop check --dir "$d"
done
if [ -z "${EJFAT_LOOP_WORK:-}" ]; then
    # The end-to-end check must catch a switch applied too late (events of ticks >= boundary on old members).
    d="$W/loop$(printf '%s\n' "${SEEDS[@]}" | grep -v -m1 '^udplb:' || true)"
  if [ "$d" != "$W/loop" ]; then
    read -r n1 n2 < <($PY -c "import json,sys; s=json.load(open(sys.argv[1]))['segments']; print(s[0], s[1])" "$d/scenario.json")
    { cat "$d/current.txt"; echo "run_traffic $((n1 + n2))"; cat "$d/switch.txt" "$d/cleanup.txt"; } >"$d/run.txt"
    "$NT" lb --tables "$d/run.txt" --in "$d/packets_in.pcap" --out "$d/out.pcap" --engine model >/dev/null
    $PY -m nettwin.re.loop split --dir "$d" --out "$d/out.pcap" >/dev/null
    for m in $($PY -c "import json,sys; print(' '.join(json.load(open(sys.argv[1]))))" "$d/members.json"); do
        "$NT" re --config "$d/re.txt" --in "$d/$m/segments.pcap" --out "$d/$m/events.pcap" \
            --report "$d/$m/report.json" >/dev/null
    done
    rc=0
    $PY -m nettwin.re.loop check --dir "$d" >"$W/late.txt" || rc=$?
    if [ "$rc" -ne 1 ] || ! grep -q "MISMATCH \[re_check [a-z]*\] .* first: member .*not one the source sent here" "$W/late.txt"; then
        cat "$W/late.txt"; echo "test_ejfat_loop: FAIL: a late switch was not caught" >&2; exit 1
    fi
    echo "  ok (fails as it must): $(head -c 150 "$W/late.txt")"
  fi
fi
echo "test_ejfat_loop: ok (${#SEEDS[@]} seeds)"
