#!/usr/bin/env bash
# The reassembly engine against the independent checker: nettwin.re.gen vectors (the seed's header, and E2SAR's)
# through `nettwin re` (RTL and cycle model in lockstep; also with gaps + output backpressure, and the golden
# model alone) with the generated configuration and a tight one (2 contexts, so segments find none), each
# checked by nettwin.re.check;
# then a corrupted event, a bad config and a config beyond the RTL's parameters must be caught.
#
#   bash scripts/nettwin/re/test_scripts.sh BUILD_DIR [SEED...]      (default seeds: 1 2)
set -euo pipefail
PY=/usr/bin/python3
S="$(cd "$(dirname "$0")/../.." && pwd)"   # scripts/ (the entry points)
export PYTHONPATH="$S${PYTHONPATH:+:$PYTHONPATH}"   # python3 -m nettwin.<block>.<tool> finds the package
NT="$(cd "$1" && pwd)/nettwin"; shift
W="$(mktemp -d)"
trap 'rm -rf "$W"' EXIT
SEEDS=("$@")
[ ${#SEEDS[@]} -eq 0 ] && SEEDS=(1 2)
# shellcheck source=SCRIPTDIR/../../tests/expect_exit.sh
source "$S/tests/expect_exit.sh"
for job in "${SEEDS[@]}" "${SEEDS[@]/#/e2sar:}"; do
    seed="${job#e2sar:}"
    if [ "$job" = "$seed" ]; then
        d="$W/s$seed"
        $PY -m nettwin.re.gen --seed "$seed" --out-dir "$d" >/dev/null
    else   # E2SAR's 20-byte header, frames as its segmenter makes them (some still behind an LB header)
        d="$W/e$seed"
        $PY -m nettwin.re.gen --seed "$seed" --out-dir "$d" --header e2sar >/dev/null
    fi
    sed 's/^contexts .*/contexts 2/' "$d/re.txt" >"$d/re_tight.txt"
    for run in "re" "re_tight" "re --engine fast" "re --gaps 0.3 --backpressure 0.6 --seed $seed"; do
        read -r conf flags <<<"$run"
        name="$conf${flags:+_x}"
        # shellcheck disable=SC2086 # flags are words
        "$NT" re --config "$d/$conf.txt" --in "$d/segments.pcap" --out "$d/ev_$name.pcap" --report "$d/rep_$name.json" $flags
        $PY -m nettwin.re.check --dir "$d" --events "$d/ev_$name.pcap" --report "$d/rep_$name.json" --config "$d/$conf.txt"
    done
    grep -q '"no_context": [1-9]' "$d/rep_re_tight.json" || fail "the tight configuration found a context for every segment"
    if [ "$job" != "$seed" ]; then
        grep -q '"bad_version": 2' "$d/rep_re.json" || fail "E2SAR: the wrong version and reserved byte were not dropped"
        grep -q '"lb_header": 1' "$d/rep_re.json" || fail "E2SAR: the LB header of an unknown version was not dropped"
    fi
done
d="$W/s${SEEDS[0]}"
$PY - "$d/ev_re.pcap" "$W/bad.pcap" <<'PYEOF'
import sys
from scapy.utils import RawPcapReader, RawPcapWriter
frames = [bytes(f) for f, _ in RawPcapReader(sys.argv[1])]
i = next(k for k, f in enumerate(frames) if len(f) > 30)
frames[i] = frames[i][:-1] + bytes([frames[i][-1] ^ 1])
with RawPcapWriter(sys.argv[2], linktype=1) as w:
    for f in frames:
        w.write(f)
PYEOF
expect 1 "not byte-identical to the source" $PY -m nettwin.re.check --dir "$d" --events "$W/bad.pcap" --report "$d/rep_re.json"
printf 'contexts 4\ntimeout_us -1\n' >"$W/bad.txt"
expect 2 "bad.txt:2: token '-1': timeout_us must be in" "$NT" re --config "$W/bad.txt" --in "$d/segments.pcap" --out "$W/x.pcap"
printf 'contexts 100\n' >"$W/big.txt"
expect 2 "exceeds the RTL's ReContexts" "$NT" re --config "$W/big.txt" --in "$d/segments.pcap" --out "$W/x.pcap"
"$NT" re --engine fast --config "$W/big.txt" --in "$d/segments.pcap" --out "$W/x.pcap" >/dev/null
echo "test_re: ok (${#SEEDS[@]} seeds)"
