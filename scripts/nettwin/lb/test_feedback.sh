#!/usr/bin/env bash
# The control plane's feedback loop, short (ctest lb_feedback; the regression's `feedback` block runs the long
# one): nettwin.lb.feedback gen (members' fill -> PID as udplbd2 -> weights -> `nettwin lb-plan` per period, one
# member three times slower) -> `nettwin lb --engine fast` on every packet with the loop's switches applied
# mid-run -> nettwin.lb.feedback check (each event whole at the simulated member, nothing dropped or lost, the slow
# member's share within 10% of what its rate allows). Then the check must reject the same loop without
# feedback (gains 0: the share stays at a quarter) and an event sent elsewhere than simulated.
#
#   bash scripts/nettwin/lb/test_feedback.sh BUILD_DIR [SEED]
set -euo pipefail
PY=/usr/bin/python3
S="$(cd "$(dirname "$0")/../.." && pwd)"   # scripts/ (the entry points)
export PYTHONPATH="$S${PYTHONPATH:+:$PYTHONPATH}"   # python3 -m nettwin.<block>.<tool> finds the package
B="$(cd "$1" && pwd)"
SEED="${2:-1}"
NT="$B/nettwin"
W="$(mktemp -d)"
trap 'rm -rf "$W"' EXIT
# shellcheck source=SCRIPTDIR/../../tests/expect_exit.sh
source "$S/tests/expect_exit.sh"

loop() {  # DIR [gen flags...]: simulate, run the LB on every packet
    local d="$1"; shift
    $PY -m nettwin.lb.feedback gen --nettwin "$NT" --out-dir "$d" --seed "$SEED" --quick "$@"
    "$NT" lb --engine fast --tables "$d/run.txt" --in "$d/packets_in.pcap" --out "$d/out.pcap" \
        --stats "$d/stats.json" >/dev/null
}
loop "$W/fb"
$PY -m nettwin.lb.feedback check --dir "$W/fb" --out "$W/fb/out.pcap" --stats "$W/fb/stats.json"
$PY -m nettwin.lb.feedback plot --dir "$W/fb" --png "$W/fb/feedback.png"
[ -s "$W/fb/feedback.png" ] || fail "no plot"

loop "$W/off" --no-feedback --periods 16
expect 1 "MISMATCH .* first: slow member m2 ends with 0.2.* of the events, its rate allows 0.10.*: more than 10%" \
    $PY -m nettwin.lb.feedback check --dir "$W/off" --out "$W/off/out.pcap" --stats "$W/off/stats.json"

$PY - "$W/fb/events.json" <<'PYEOF'
import json, sys
ev = json.load(open(sys.argv[1]))
ev["members"][700] = (ev["members"][700] + 1) % 4
json.dump(ev, open(sys.argv[1], "w"))
PYEOF
expect 1 "MISMATCH .* first: event [0-9]*: the LB sent it to member [0-9], the simulation to [0-9]" \
    $PY -m nettwin.lb.feedback check --dir "$W/fb" --out "$W/fb/out.pcap" --stats "$W/fb/stats.json"
echo "test_feedback: ok"
