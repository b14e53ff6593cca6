#!/usr/bin/env bash
# The closed loop (issue 11 part 3): source events -> `nettwin lb` in lockstep with an epoch switch planned
# by `nettwin lb-plan` applied mid-run -> one `nettwin re` per member; lb_plan_check.py checks the switch,
# ejfat_loop.py check that every event was reassembled exactly once at the member its tick maps to.
# The RE is its golden model (the RE RTL is not written, docs/re.md).
#
#   bash scripts/nettwin/re/test_loop.sh BUILD_DIR [SEED...] [-- nettwin lb flags]      (default seed: 1)
set -euo pipefail
PY=/usr/bin/python3
S="$(cd "$(dirname "$0")/../.." && pwd)"   # scripts/ (the entry points)
NT="$(cd "$1" && pwd)/nettwin"; shift
SEEDS=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do SEEDS+=("$1"); shift; done
[ $# -gt 0 ] && shift
[ ${#SEEDS[@]} -eq 0 ] && SEEDS=(1)
W="${EJFAT_LOOP_WORK:-$(mktemp -d)}"
[ -z "${EJFAT_LOOP_WORK:-}" ] && trap 'rm -rf "$W"' EXIT
for seed in "${SEEDS[@]}"; do
    d="$W/loop$seed"
    $PY "$S/ejfat_loop.py" gen --seed "$seed" --out-dir "$d"
    read -r start boundary now < <($PY -c "import json,sys; s=json.load(open(sys.argv[1])); print(s['start'], s['boundary'], s['now'])" "$d/scenario.json")
    "$NT" lb-plan --tables "$d/filter.txt" --members "$d/members0.txt" --out "$d/init.txt" >/dev/null
    cat "$d/filter.txt" "$d/init.txt" >"$d/current.txt"
    "$NT" lb-plan --tables "$d/current.txt" --members "$d/members1.txt" --boundary "$boundary" \
        --current-start "$start" --now "$now" --out "$d/switch.txt" --cleanup-out "$d/cleanup.txt" >/dev/null
    $PY "$S/lb_plan_gen.py" assemble --dir "$d"
    "$NT" lb --tables "$d/run.txt" --in "$d/packets_in.pcap" --out "$d/out.pcap" --stats "$d/stats.json" \
        --engine lockstep --seed "$seed" "$@"
    $PY "$S/lb_plan_check.py" --dir "$d" --out "$d/out.pcap" --stats "$d/stats.json"
    $PY "$S/ejfat_loop.py" split --dir "$d" --out "$d/out.pcap"
    for m in $($PY -c "import json,sys; print(' '.join(json.load(open(sys.argv[1]))))" "$d/members.json"); do
        "$NT" re --config "$d/re.txt" --in "$d/$m/segments.pcap" --out "$d/$m/events.pcap" \
            --report "$d/$m/report.json" >/dev/null
    done
    $PY "$S/ejfat_loop.py" check --dir "$d"
done
if [ -z "${EJFAT_LOOP_WORK:-}" ]; then
    # The end-to-end check must catch a switch applied too late (events of ticks >= boundary on old members).
    d="$W/loop${SEEDS[0]}"
    read -r n1 n2 < <($PY -c "import json,sys; s=json.load(open(sys.argv[1]))['segments']; print(s[0], s[1])" "$d/scenario.json")
    { cat "$d/current.txt"; echo "run_traffic $((n1 + n2))"; cat "$d/switch.txt" "$d/cleanup.txt"; } >"$d/run.txt"
    "$NT" lb --tables "$d/run.txt" --in "$d/packets_in.pcap" --out "$d/out.pcap" --engine model >/dev/null
    $PY "$S/ejfat_loop.py" split --dir "$d" --out "$d/out.pcap" >/dev/null
    for m in $($PY -c "import json,sys; print(' '.join(json.load(open(sys.argv[1]))))" "$d/members.json"); do
        "$NT" re --config "$d/re.txt" --in "$d/$m/segments.pcap" --out "$d/$m/events.pcap" \
            --report "$d/$m/report.json" >/dev/null
    done
    rc=0
    $PY "$S/ejfat_loop.py" check --dir "$d" >"$W/late.txt" || rc=$?
    if [ "$rc" -ne 1 ] || ! grep -q "FAIL: member .*not one the source sent here" "$W/late.txt"; then
        cat "$W/late.txt"; echo "test_ejfat_loop: FAIL: a late switch was not caught" >&2; exit 1
    fi
    echo "  ok (fails as it must): $(head -c 150 "$W/late.txt")"
fi
echo "test_ejfat_loop: ok (${#SEEDS[@]} seeds)"
