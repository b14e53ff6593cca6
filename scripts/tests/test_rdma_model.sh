#!/usr/bin/env bash
# The C++ responder checked directly by the independent Python checker: for every generated scenario
# (seed 1; the edge scenario too) and "mixed" at one more seed, `nettwin rdma --engine ENGINE` (default
# model, the cycle-accurate C++ model alone) must pass nettwin.rdma.check (responses byte for byte,
# ICRC, final memory, at-most-once, stats). A damaged copy of one output must fail the same check.
#   scripts/test_rdma_model.sh BUILD_DIR [ENGINE] [MIXED_SEED]
set -euo pipefail
B=${1:?usage: test_rdma_model.sh BUILD_DIR [ENGINE] [MIXED_SEED]}
ENGINE=${2:-model}
MIXED_SEED=${3:-2}
PY=/usr/bin/python3
S="$(cd "$(dirname "$0")/.." && pwd)"   # scripts/
export PYTHONPATH="$S${PYTHONPATH:+:$PYTHONPATH}"   # python3 -m nettwin.<block>.<tool> finds the package
W="$(mktemp -d)"
trap 'rm -rf "$W"' EXIT
fail() { echo "test_rdma_model: FAIL: $*" >&2; exit 1; }

run() {     # run SEED SCENARIO [nettwin options]
    local seed=$1 sc=$2 D="$W/$2$1"
    shift 2
    $PY -m nettwin.rdma.gen --seed "$seed" --scenario "$sc" --out-dir "$D" --no-check >/dev/null
    "$B/nettwin" rdma --config "$D/responder.txt" --in "$D/requests.pcap" --out "$D/dut.pcap" \
        --mem-out "$D/dut.json" --stats "$D/dut_stats.json" --engine "$ENGINE" "$@" >/dev/null \
        || fail "nettwin rdma --engine $ENGINE exits $? on $sc seed $seed"
    $PY -m nettwin.rdma.check --config "$D/responder.txt" --in "$D/requests.pcap" --out "$D/dut.pcap" \
        --mem-out "$D/dut.json" --stats "$D/dut_stats.json" >"$D/check.txt" 2>&1 \
        || { cat "$D/check.txt"; fail "nettwin rdma --engine $ENGINE disagrees with rdma_check on $sc seed $seed"; }
    echo "  ok: $sc seed $seed ($(tail -1 "$D/check.txt" | cut -c1-100))"
}

echo "== nettwin rdma --engine $ENGINE against nettwin.rdma.check"
for sc in traffic atomic lostack reorder badreq psnwrap icrc malformed send edge; do run 1 "$sc"; done
run "$MIXED_SEED" mixed --mem-read-cycles 900 --backpressure 0.3

echo "== a damaged output must fail the check"
D="$W/mixed$MIXED_SEED"
$PY -m nettwin.rdma.corrupt --mode atomic-orig --config "$D/responder.txt" --in "$D/requests.pcap" \
    --out "$D/dut.pcap" --mem-out "$D/dut.json" --stats "$D/dut_stats.json" --dest "$W/bad" >/dev/null
rc=0
$PY -m nettwin.rdma.check --config "$D/responder.txt" --in "$D/requests.pcap" --out "$W/bad/rsp.pcap" \
    --mem-out "$W/bad/mem.json" --stats "$W/bad/stats.json" >"$W/bad.txt" 2>&1 || rc=$?
if [ "$rc" -ne 1 ] || ! grep -q "MISMATCH" "$W/bad.txt"; then
    cat "$W/bad.txt"; fail "a damaged response passed rdma_check"
fi
echo "test_rdma_model: PASS"
