#!/usr/bin/env bash
# `buffer host` (event bytes placed in host memory by DMA, docs/re-microarchitecture.md) against the independent
# checker: nettwin.re.gen --host's E2SAR events (1 B .. a 3 MiB one, shuffled) through `nettwin re` in lockstep, back
# to back and with a host slower than line rate, each checked by nettwin.re.check from the completion records and
# --host-data; then a changed byte of host data, a record's address moved to no slot, one DMA byte too many, a
# missing --host-data and
# `buffer host` with the golden model must be caught.
#
#   bash scripts/nettwin/re/test_host.sh BUILD_DIR [SEED]      (default seed: 1)
set -euo pipefail
PY=/usr/bin/python3
S="$(cd "$(dirname "$0")/../.." && pwd)"   # scripts/ (the entry points)
export PYTHONPATH="$S${PYTHONPATH:+:$PYTHONPATH}"   # python3 -m nettwin.<block>.<tool> finds the package
NT="$(cd "$1" && pwd)/nettwin"
SEED="${2:-1}"
W="$(mktemp -d)"
trap 'rm -rf "$W"' EXIT
# shellcheck source=SCRIPTDIR/../../tests/expect_exit.sh
source "$S/tests/expect_exit.sh"
d="$W/h$SEED"
$PY -m nettwin.re.gen --seed "$SEED" --out-dir "$d" --host --big-bytes 3145728 --events 12 >/dev/null
for run in "fast" "slow --host-outstanding 30"; do
    read -r name flags <<<"$run"
    # shellcheck disable=SC2086 # flags are words
    "$NT" re --config "$d/re.txt" --in "$d/segments.pcap" --out "$d/ev_$name.pcap" --report "$d/rep_$name.json" \
        --host-data "$d/ev_$name.bin" $flags
    $PY -m nettwin.re.check --dir "$d" --events "$d/ev_$name.pcap" --report "$d/rep_$name.json" --host-data "$d/ev_$name.bin"
done
grep -q '"input_stall_cycles": 0' "$d/rep_fast.json" || fail "line rate: the input stalled with 128 credits"
grep -q '"input_stall_cycles": [1-9]' "$d/rep_slow.json" || fail "30 credits for a 100-cycle latency did not stall"
# A changed byte in the middle of the host data, and a record pointing between slots, must fail the check.
$PY - "$d/ev_fast.bin" "$d/bad.bin" <<'PYEOF'
import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[len(b) // 2] ^= 1
open(sys.argv[2], "wb").write(bytes(b))
PYEOF
expect 1 "not byte-identical" $PY -m nettwin.re.check --dir "$d" --events "$d/ev_fast.pcap" --report "$d/rep_fast.json" \
    --host-data "$d/bad.bin"
PYTHONPATH="$S" $PY - "$d/ev_fast.pcap" "$d/bad.pcap" <<'PYEOF'
import sys
from nettwin.common.pcap import read_pcap, write_pcap
frames = read_pcap(sys.argv[1])
fr, ts = frames[0]
fr = bytearray(fr)
fr[-2] ^= 0x10   # the address moves by 4 KiB: inside the slot range but not a slot's start
frames[0] = (bytes(fr), ts)
write_pcap(sys.argv[2], frames)
PYEOF
expect 1 "no context.s slot" $PY -m nettwin.re.check --dir "$d" --events "$d/bad.pcap" --report "$d/rep_fast.json" \
    --host-data "$d/ev_fast.bin"
# A byte written twice (or a dropped segment's written) shows in the DMA byte count the report gives.
$PY -c "import json,sys; r=json.load(open(sys.argv[1])); r['dma_write_bytes'] += 1; json.dump(r, open(sys.argv[2], 'w'))" \
    "$d/rep_fast.json" "$d/bad_rep.json"
expect 1 "DMA wrote" $PY -m nettwin.re.check --dir "$d" --events "$d/ev_fast.pcap" --report "$d/bad_rep.json" \
    --host-data "$d/ev_fast.bin"
expect 2 "host-data FILE is required" "$NT" re --config "$d/re.txt" --in "$d/segments.pcap" --out "$d/x.pcap"
expect 2 "buffer host needs a cycle engine" "$NT" re --config "$d/re.txt" --in "$d/segments.pcap" --out "$d/x.pcap" \
    --host-data "$d/x.bin" --engine fast
echo "re host scripts: ok"
