#!/usr/bin/env bash
# The hitless epoch switch end to end: nettwin.lb.plan_gen scenario -> `nettwin lb-plan` (initial, then the
# switch and its cleanup) -> `nettwin lb` in lockstep with the switch applied mid-run (run_traffic
# interleaving) -> nettwin.lb.plan_check (independent: tables, prefixes, every packet's member) and
# nettwin.lb.check (byte-exact output). Then the planner's refusals, and a tampered plan the checker must reject.
#
#   bash scripts/nettwin/lb/test_plan.sh BUILD_DIR [SEED...]      (default seeds: 1 2 3 4)
set -euo pipefail
PY=/usr/bin/python3
S="$(cd "$(dirname "$0")/../.." && pwd)"   # scripts/ (the entry points)
export PYTHONPATH="$S${PYTHONPATH:+:$PYTHONPATH}"   # python3 -m nettwin.<block>.<tool> finds the package
B="$(cd "$1" && pwd)"; shift
NT="$B/nettwin"
W="$(mktemp -d)"
trap 'rm -rf "$W"' EXIT
SEEDS=("$@")
[ ${#SEEDS[@]} -eq 0 ] && SEEDS=(1 2 3 4)
# shellcheck source=SCRIPTDIR/../../tests/expect_exit.sh
source "$S/tests/expect_exit.sh"

$PY -m nettwin.lb.plan_check --self-test

# scenario DIR SEED [nettwin lb flags...]: the whole switch for one seed
scenario() {
    local d="$1" seed="$2"; shift 2
    $PY -m nettwin.lb.plan_gen gen --seed "$seed" --out-dir "$d" --packets 120 >/dev/null
    read -r start boundary now < <($PY -c "import json,sys; s=json.load(open(sys.argv[1])); print(s['start'], s['boundary'], s['now'])" "$d/scenario.json")
    "$NT" lb-plan --tables "$d/filter.txt" --members "$d/members0.txt" --out "$d/init.txt" >/dev/null
    cat "$d/filter.txt" "$d/init.txt" >"$d/current.txt"
    "$NT" lb-plan --tables "$d/current.txt" --members "$d/members1.txt" --boundary "$boundary" \
        --current-start "$start" --now "$now" --out "$d/switch.txt" --cleanup-out "$d/cleanup.txt"
    $PY -m nettwin.lb.plan_gen assemble --dir "$d"
    "$NT" lb --tables "$d/run.txt" --in "$d/packets_in.pcap" --out "$d/out.pcap" --stats "$d/stats.json" \
        --engine lockstep "$@" >/dev/null
    $PY -m nettwin.lb.plan_check --dir "$d" --out "$d/out.pcap" --stats "$d/stats.json"
    $PY -m nettwin.lb.check --tables "$d/run.txt" --in "$d/packets_in.pcap" --out "$d/out.pcap" \
        --stats "$d/stats.json" >/dev/null || fail "lb_check on seed $seed"
}
for seed in "${SEEDS[@]}"; do
    scenario "$W/s$seed" "$seed" --gaps 0.2 --backpressure 0.3 --seed "$seed"
done

# The checker must reject a calendar that does not follow the weights, and a switch applied too late
# (after packets of ticks >= boundary went through the old calendar).
d="$W/s${SEEDS[0]}"
cp -r "$d" "$W/late"
$PY - "$d/switch.txt" <<'PYEOF'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
cal = [i for i, l in enumerate(lines) if l.startswith("table_add load_balance_calendar_table")]
ids = sorted({lines[i].split()[-1] for i in cal})
first = lines[cal[0]].split()
first[-1] = [x for x in ids if x != first[-1]][0] if len(ids) > 1 else "0x7fff"
lines[cal[0]] = " ".join(first)
open(sys.argv[1], "w").write("\n".join(lines))
PYEOF
expect 1 "MISMATCH .* first: member .* slots of the new calendar, largest remainder gives" \
    $PY -m nettwin.lb.plan_check --dir "$d" --out "$d/out.pcap" --stats "$d/stats.json"
cp "$W/late/switch.txt" "$d/switch.txt"
read -r n1 n2 < <($PY -c "import json,sys; s=json.load(open(sys.argv[1]))['segments']; print(s[0], s[1])" "$d/scenario.json")
{ cat "$W/late/current.txt"; echo "run_traffic $((n1 + n2))"; cat "$W/late/switch.txt" "$W/late/cleanup.txt"; } >"$W/late/run.txt"
"$NT" lb --tables "$W/late/run.txt" --in "$W/late/packets_in.pcap" --out "$W/late/out.pcap" \
    --stats "$W/late/stats.json" --engine model >/dev/null
expect 1 "MISMATCH .* first: packet .* (>= boundary): sent to" \
    $PY -m nettwin.lb.plan_check --dir "$W/late" --out "$W/late/out.pcap" --stats "$W/late/stats.json"

# Refusals: exit 2 with a message naming the rule.
d="$W/s${SEEDS[0]}"
read -r start boundary < <($PY -c "import json,sys; s=json.load(open(sys.argv[1])); print(s['start'], s['boundary'])" "$d/scenario.json")
M="$d/members1.txt"
expect 2 "a boundary in the past of the current epoch" "$NT" lb-plan --tables "$d/current.txt" --members "$M" \
    --boundary "$start" --current-start "$start" --out "$W/x.txt"
expect 2 "not after the newest tick in flight" "$NT" lb-plan --tables "$d/current.txt" --members "$M" \
    --boundary "$boundary" --now "$boundary" --out "$W/x.txt"
expect 2 "epoch 0 is reachable" "$NT" lb-plan --tables "$d/current.txt" --members "$M" --boundary "$boundary" \
    --epoch 0 --out "$W/x.txt"
expect 2 "--boundary is required" "$NT" lb-plan --tables "$d/current.txt" --members "$M" --out "$W/x.txt"
cat "$d/current.txt" "$d/switch.txt" >"$W/twice.txt"
expect 2 "already matches ticks" "$NT" lb-plan --tables "$W/twice.txt" --members "$M" --boundary "$boundary" \
    --current-start "$start" --out "$W/x.txt"
printf 'member a weight 1 ipv4 0 10.0.0.1 1\nmember b weight -1 ipv4 0 10.0.0.2 1\n' >"$W/bad.txt"
expect 2 "bad.txt:2: token '-1': not a decimal number" "$NT" lb-plan --tables "$d/current.txt" --members "$W/bad.txt" \
    --boundary "$boundary" --out "$W/x.txt"
printf 'table_add epoch_assign_table do_assign_epoch 0/0 => 1\ntable_add load_balance_calendar_table nope 1 2 => 3\n' >"$W/badt.txt"
expect 2 "badt.txt:2: token 'nope'" "$NT" lb-plan --tables "$W/badt.txt" --members "$M" --boundary 5 --out "$W/x.txt"
expect 2 "wants a 64-bit number" "$NT" lb-plan --tables "$d/current.txt" --members "$M" --boundary 0x1ffffffffffffffff --out "$W/x.txt"
# The limits are in --help (issue 24): weights up to 1e9, UDP ports from 1.
"$NT" lb-plan --help | grep -q "0 <= W <= 1000000000 (1e9)" || fail "--help does not give the weight limit"
"$NT" lb-plan --help | grep -q "PORT: UDP destination port 1..65535" || fail "--help does not give the port range"
printf 'member a weight 1 ipv4 0 10.0.0.1 1\nmember b weight 1234567890123 ipv4 0 10.0.0.2 1\n' >"$W/big.txt"
expect 2 "big.txt:2: token '1234567890123': out of range: a weight is at most 1000000000" "$NT" lb-plan \
    --tables "$d/filter.txt" --members "$W/big.txt" --out "$W/x.txt"
printf 'member a weight 1 ipv4 0 10.0.0.1 1\nmember b weight 1 ipv4 0 10.0.0.2 0\n' >"$W/port0.txt"
expect 2 "port0.txt:2: token '0': UDP port 0: the member's packets would be sent to port 0" "$NT" lb-plan \
    --tables "$d/filter.txt" --members "$W/port0.txt" --out "$W/x.txt"

# Slot order (issue 24): 217/207/88 has no neighbouring pair on one member (the ring 511 -> 0 included), a
# member over half exactly 2M - 512, and random weight sets reach the fewest possible, by nettwin.lb.plan_check.
F4='table_add dst_filter_table NoAction 0x00aabbccddee 0x0800 10.1.2.3 =>'
$PY - "$W/w" <<'PYEOF'
import os, random, sys
d = sys.argv[1]
os.makedirs(d)
sets = [[217, 207, 88], [400, 100, 12], [256, 256], [1, 1, 510], [3]]
rng = random.Random(24)
for _ in range(12):
    n = rng.randrange(2, 9)
    sets.append([rng.choice([0, rng.randrange(1, 1000), rng.randrange(1, 1000), rng.randrange(1, 5000)])
                 for _ in range(n - 1)] + [rng.randrange(1, 2000)])
for k, ws in enumerate(sets):
    with open(os.path.join(d, "m%02d.txt" % k), "w") as f:
        for i, w in enumerate(ws):
            f.write("member n%d weight %s ipv4 0x0200000000%02x 10.9.0.%d %d\n" % (i, w, i, i + 1, 20000 + i))
PYEOF
echo "$F4" >"$W/w/filter.txt"
for m in "$W"/w/m*.txt; do
    "$NT" lb-plan --tables "$W/w/filter.txt" --members "$m" --out "$W/w/init.txt" >/dev/null
    cat "$W/w/filter.txt" "$W/w/init.txt" >"$W/w/tables.txt"
    $PY -m nettwin.lb.plan_check --initial "$W/w/tables.txt" "$m"
done
# ... and the checker rejects a calendar with an avoidable pair (217/207/88, two neighbouring slots swapped).
m="$W/w/m00.txt"
"$NT" lb-plan --tables "$W/w/filter.txt" --members "$m" --out "$W/w/init.txt" >/dev/null
cat "$W/w/filter.txt" "$W/w/init.txt" >"$W/w/tables.txt"
$PY - "$W/w/tables.txt" <<'PYEOF'
import sys
p = sys.argv[1]
lines = open(p).read().split("\n")
cal = [i for i, l in enumerate(lines) if l.startswith("table_add load_balance_calendar_table")]
ids = [lines[i].split()[-1] for i in cal]
k = next(j for j in range(1, 510) if ids[j + 1] != ids[j] and ids[j - 1] == ids[j + 1] and ids[j + 2] != ids[j + 1])
a, b = lines[cal[k]].split(), lines[cal[k + 1]].split()
a[-1], b[-1] = b[-1], a[-1]
lines[cal[k]], lines[cal[k + 1]] = " ".join(a), " ".join(b)
open(p, "w").write("\n".join(lines))
PYEOF
expect 1 "MISMATCH .* first: the initial calendar has [1-9][0-9]* neighbouring slot pairs on one member, the fewest possible is 0" \
    $PY -m nettwin.lb.plan_check --initial "$W/w/tables.txt" "$m"
echo "test_lb_plan: ok (${#SEEDS[@]} seeds)"
