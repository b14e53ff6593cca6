#!/usr/bin/env bash
# The udplb epoch switch end to end: `nettwin lb-plan --program udplb` on udplb's own test-1 tables (a first
# switch of instance 0 from test-1's sparse calendars to a full one, its cleanup, then per seed the switch
# under test with varied boundary, weights, port bits, keep-lb-header and slot options) -> nettwin.lb.udplb_plan_check
# plan (independent: its own table model, every epoch write) -> frames on both sides of the boundary through
# current, switch and cleanup in the independent reference nettwin.lb.udplb_ref, and in `nettwin lb --program udplb`
# (lockstep RTL + model, gaps and backpressure; then nettwin.lb.udplb_check byte for byte) when the CLI has it ->
# nettwin.lb.udplb_plan_check traffic (each frame's member).
# Then tampered plans the checker must reject, and the planner's refusals.
#
#   bash scripts/nettwin/lb/test_plan_udplb.sh BUILD_DIR [SEED...]      (default seeds: 1 2 3)
set -euo pipefail
PY=/usr/bin/python3
S="$(cd "$(dirname "$0")/../.." && pwd)"   # scripts/ (the entry points)
export PYTHONPATH="$S${PYTHONPATH:+:$PYTHONPATH}"   # python3 -m nettwin.<block>.<tool> finds the package
V="$S/../vectors/peers/udplb"
B="$(cd "$1" && pwd)"; shift
NT="$B/nettwin"
W="$(mktemp -d)"
trap 'rm -rf "$W"' EXIT
SEEDS=("$@")
[ ${#SEEDS[@]} -eq 0 ] && SEEDS=(1 2 3)
# shellcheck source=SCRIPTDIR/../../tests/expect_exit.sh
source "$S/tests/expect_exit.sh"
HAVE_LB_UDPLB=0
"$NT" lb --help 2>&1 | grep -q -- "--program" && HAVE_LB_UDPLB=1

grep -v '^run_traffic' "$V/cli_commands.txt" >"$W/test1.txt"
cat >"$W/m0.txt" <<'M'
member r0 weight 1 ipv4 02:00:00:00:01:00 10.20.0.1 20000 ipv6 02:00:00:00:01:00 fd00::1:1 20000
member r1 weight 1 ipv4 02:00:00:00:01:01 10.20.0.2 20000 ipv6 02:00:00:00:01:01 fd00::1:2 20000 port-bits 1
M
"$NT" lb-plan --program udplb --lb-id 0 --tables "$W/test1.txt" --members "$W/m0.txt" --boundary 1000 \
    --out "$W/sw0.txt" --cleanup-out "$W/cl0.txt" >/dev/null
cat "$W/test1.txt" "$W/sw0.txt" "$W/cl0.txt" >"$W/current.txt"

# scenario DIR SEED: the switch of instance 0 at a seed-chosen boundary after 1000 (the first switch's
# boundary; the current epoch's start is 32, where test-1's [16, 32) -> epoch 1 ends). Frames: ticks >= 1000.
scenario() {
    local d="$1" seed="$2"
    mkdir -p "$d"
    cp "$W/current.txt" "$d/current.txt"
    read -r boundary bits xor < <($PY - "$seed" <<'PYEOF'
import random, sys
r = random.Random(int(sys.argv[1]))
b = r.choice([1001, 1 << 40, r.randrange(1 << 20, 1 << 64), (1 << 64) - 1 - r.randrange(4)])
print(b, r.choice([9, 9, 6, 3]), r.choice([0, 0, 0x5a5a, 0xffff]))
PYEOF
)
    $PY - "$seed" >"$d/members.txt" <<'PYEOF'
import random, sys
r = random.Random(int(sys.argv[1]) * 7)
for i in range(r.randint(2, 5)):
    w = "fill %.3f" % r.uniform(0, 0.9) if r.random() < 0.3 else "weight %d" % r.randint(1, 9)
    extra = (" port-bits %d" % r.randint(0, 14) if r.random() < 0.6 else "") + \
            (" keep-lb-header 1" if r.random() < 0.3 else "")
    print("member m%d %s ipv4 02:00:00:00:02:%02x 10.30.0.%d %d ipv6 02:00:00:00:02:%02x fd00::2:%d %d%s"
          % (i, w, i, i + 1, 30000 + 1000 * i, i, i + 1, 30000 + 1000 * i, extra))
PYEOF
    "$NT" lb-plan --program udplb --lb-id 0 --tables "$d/current.txt" --members "$d/members.txt" \
        --boundary "$boundary" --now 1000 --slot-bits "$bits" --slot-xor "$xor" \
        --out "$d/switch.txt" --cleanup-out "$d/cleanup.txt" --json "$d/plan.json"
    printf '{"lb_id": 0, "boundary": %s, "start": 1000, "slot_bits": %s, "slot_xor": %s}\n' \
        "$boundary" "$bits" "$xor" >"$d/scenario.json"
    $PY -m nettwin.lb.udplb_plan_check gen --dir "$d" --seed "$seed" --packets 90
    read -r n1 n2 < <($PY -c "import json,sys; s=json.load(open(sys.argv[1]))['segments']; print(s[0], s[1])" "$d/scenario.json")
    { cat "$d/current.txt"; echo "run_traffic $n1"; cat "$d/switch.txt"; echo "run_traffic $n2"
      cat "$d/cleanup.txt"; echo "run_traffic"; } >"$d/run.txt"
    $PY -m nettwin.lb.udplb_ref --tables "$d/run.txt" --in "$d/packets_in.pcap" --out "$d/ref.pcap" --stats "$d/ref.json"
    $PY -m nettwin.lb.udplb_plan_check traffic --dir "$d" --out "$d/ref.pcap" --stats "$d/ref.json"
    if [ "$HAVE_LB_UDPLB" = 1 ]; then
        # lockstep: the udplb RTL and the cycle model, compared every cycle, under gaps and backpressure
        "$NT" lb --program udplb --tables "$d/run.txt" --in "$d/packets_in.pcap" --out "$d/out.pcap" \
            --stats "$d/stats.json" --engine lockstep --gaps 0.2 --backpressure 0.3 --seed "$seed" >/dev/null
        $PY -m nettwin.lb.udplb_plan_check traffic --dir "$d" --out "$d/out.pcap" --stats "$d/stats.json"
        $PY -m nettwin.lb.udplb_check --tables "$d/run.txt" --in "$d/packets_in.pcap" --out "$d/out.pcap" \
            --stats "$d/stats.json" >/dev/null || fail "udplb_check on seed $seed"
    fi
}
for seed in "${SEEDS[@]}"; do
    scenario "$W/s$seed" "$seed"
done
[ "$HAVE_LB_UDPLB" = 1 ] || echo "  note: nettwin lb has no --program yet: traffic checked through nettwin.lb.udplb_ref only"

# Tampered plans: the wildcard replaced before the covers (ticks miss), a calendar entry moved to another
# member, an old-cover prefix missing, the switch applied after ticks >= boundary went through.
d="$W/s${SEEDS[0]}"
tamper() {  # tamper NAME PYTHON-EDIT: a copy of $d with switch.txt edited
    rm -rf "${W:?}/${1:?}"; cp -r "$d" "$W/$1"
    $PY - "$W/$1/switch.txt" "$2" <<'PYEOF'
import sys
path, how = sys.argv[1], sys.argv[2]
lines = open(path).read().split("\n")
if how == "wildcard-first":
    i = next(k for k, l in enumerate(lines) if l.startswith("table_delete epoch_assign_table 0 0x0000000000000000/0"))
    j = next(k for k, l in enumerate(lines) if l.startswith("table_add epoch_assign_table"))
    lines.insert(j, lines.pop(i))
elif how == "calendar":
    cal = [k for k, l in enumerate(lines) if l.startswith("table_add load_balance_calendar_table")]
    ids = sorted({lines[k].split()[-1] for k in cal})
    w = lines[cal[0]].split()
    w[-1] = [x for x in ids if x != w[-1]][0] if len(ids) > 1 else "0x003f"
    lines[cal[0]] = " ".join(w)
elif how == "old-cover":  # and its delete from the cleanup, which would no longer apply
    old = [k for k, l in enumerate(lines) if l.startswith("table_add epoch_assign_table") and "/0 " not in l]
    key = lines.pop(old[0]).split()[4]
    cl = path.replace("switch.txt", "cleanup.txt")
    rest = [l for l in open(cl).read().split("\n") if l != "table_delete epoch_assign_table 0 " + key]
    open(cl, "w").write("\n".join(rest))
open(path, "w").write("\n".join(lines))
PYEOF
}
tamper wf wildcard-first
expect 1 "MISMATCH .* first: switch command .* reaches no epoch" $PY -m nettwin.lb.udplb_plan_check plan --dir "$W/wf"
tamper cal calendar
expect 1 "MISMATCH .* first: member .* slots of the new calendar\|MISMATCH .* first: .*neighbouring" $PY -m nettwin.lb.udplb_plan_check plan --dir "$W/cal"
tamper oc old-cover
expect 1 "MISMATCH .* first: .*below the boundary.* moved" $PY -m nettwin.lb.udplb_plan_check plan --dir "$W/oc"
rm -rf "$W/late"; cp -r "$d" "$W/late"
read -r n1 n2 < <($PY -c "import json,sys; s=json.load(open(sys.argv[1]))['segments']; print(s[0], s[1])" "$d/scenario.json")
{ cat "$d/current.txt"; echo "run_traffic $((n1 + n2))"; cat "$d/switch.txt" "$d/cleanup.txt"; } >"$W/late/run.txt"
$PY -m nettwin.lb.udplb_ref --tables "$W/late/run.txt" --in "$d/packets_in.pcap" --out "$W/late/ref.pcap" --stats "$W/late/ref.json"
expect 1 "MISMATCH .* first: packet .* >= boundary, segment 1): sent to" \
    $PY -m nettwin.lb.udplb_plan_check traffic --dir "$W/late" --out "$W/late/ref.pcap" --stats "$W/late/ref.json"

# Refusals: exit 2 with a message naming the rule.
M="$d/members.txt"
P=("$NT" lb-plan --program udplb --lb-id 0 --tables "$d/current.txt" --members "$M" --out "$W/x.txt")
expect 2 "a boundary in the past of the current epoch" "${P[@]}" --boundary 32
expect 2 "not after the newest tick in flight" "${P[@]}" --boundary 5000 --now 5000
expect 2 "reachable or still has calendar entries" "${P[@]}" --boundary 5000 --epoch 1
expect 2 "--boundary is required" "${P[@]}"
expect 2 "slot-bits must be 0..9" "${P[@]}" --boundary 5000 --slot-bits 10
expect 2 "lb-id must be 0..7" "$NT" lb-plan --program udplb --lb-id 8 --tables "$d/current.txt" --members "$M" --out "$W/x.txt"
cat "$d/current.txt" "$d/switch.txt" >"$W/twice.txt"
expect 2 "matches ticks at or after the current epoch's start" "$NT" lb-plan --program udplb --lb-id 0 \
    --tables "$W/twice.txt" --members "$M" --boundary 5000 --current-start 1000 --out "$W/x.txt"
printf 'member a weight 1 ipv4 0 10.0.0.1 65000 ipv6 0 fd00::1 65000 port-bits 10\n' >"$W/bad.txt"
expect 2 "bad.txt:1: token '65000': UDP base port" "$NT" lb-plan --program udplb --lb-id 0 --tables "$d/current.txt" \
    --members "$W/bad.txt" --boundary 5000 --out "$W/x.txt"
printf 'member a weight 1 ipv4 0 10.0.0.1 100 port-bits 15\n' >"$W/bad.txt"
expect 2 "port-bits must be 0..14" "$NT" lb-plan --program udplb --lb-id 0 --tables "$d/current.txt" \
    --members "$W/bad.txt" --boundary 5000 --out "$W/x.txt"
expect 2 "no ipv6 rewrite" "$NT" lb-plan --program udplb --lb-id 0 --tables "$d/current.txt" \
    --members <(printf 'member a weight 1 ipv4 0 10.0.0.1 100\n') --boundary 5000 --out "$W/x.txt"
echo "test_plan_udplb: PASS (seeds ${SEEDS[*]})"
