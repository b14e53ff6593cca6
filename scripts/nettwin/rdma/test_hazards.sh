#!/usr/bin/env bash
# Hazard pairs through the RTL with the model in lockstep, checked by the independent reference:
# nettwin.rdma.hazard_gen (every ordered pair of WRITE / READ / FAA / CAS, overlapping on one QP, overlapping
# across two QPs, disjoint; chains on one word) -> nettwin rdma --engine lockstep (back to back with host
# read latencies of 2, 50 and 900 cycles, so a pair's reads are in flight together or not, and with output
# backpressure so the receive ring and the in-flight queue fill) -> nettwin.rdma.check (every response byte,
# memory, stats).
#
#   bash scripts/nettwin/rdma/test_hazards.sh BUILD_DIR [SEED...]      (default seeds: 1 2 3)
set -euo pipefail
PY=/usr/bin/python3
S="$(cd "$(dirname "$0")/../.." && pwd)"   # scripts/ (the entry points)
export PYTHONPATH="$S${PYTHONPATH:+:$PYTHONPATH}"   # python3 -m nettwin.<block>.<tool> finds the package
B="$(cd "${1:?usage: test_hazards.sh BUILD_DIR [SEED...]}" && pwd)"
shift
SEEDS=("$@")
[ ${#SEEDS[@]} -eq 0 ] && SEEDS=(1 2 3)
W="$(mktemp -d)"
trap 'rm -rf "$W"' EXIT
for seed in "${SEEDS[@]}"; do
    D="$W/s$seed"
    $PY -m nettwin.rdma.hazard_gen --seed "$seed" --out-dir "$D" | tail -1
    for run in 0:2 0:50 0:900 0.6:50; do
        bp="${run%%:*}"
        "$B/nettwin" rdma --config "$D/responder.txt" --in "$D/requests.pcap" --out "$D/rsp.pcap" \
            --mem-out "$D/mem.json" --stats "$D/stats.json" --engine lockstep --backpressure "$bp" \
            --seed "$seed" --mem-read-cycles "${run##*:}" | tail -1
        $PY -m nettwin.rdma.check --config "$D/responder.txt" --in "$D/requests.pcap" --out "$D/rsp.pcap" \
            --mem-out "$D/mem.json" --stats "$D/stats.json" \
            || { echo "test_hazards: FAIL seed $seed backpressure:read latency $run" >&2; exit 1; }
    done
done
echo "test_hazards: all seeds pass"
