#!/usr/bin/env bash
# Hazard pairs through the RTL with the model in lockstep, checked by the independent reference:
# rdma_hazard_gen.py (every ordered pair of WRITE / READ / FAA / CAS, overlapping on one QP, overlapping
# across two QPs, disjoint; chains on one word) -> nettwin rdma --engine lockstep (back to back, and with
# output backpressure so the receive ring fills) -> rdma_check.py (every response byte, memory, stats).
#
#   bash scripts/nettwin/rdma/test_hazards.sh BUILD_DIR [SEED...]      (default seeds: 1 2 3)
set -euo pipefail
PY=/usr/bin/python3
S="$(cd "$(dirname "$0")/../.." && pwd)"   # scripts/ (the entry points)
B="$(cd "${1:?usage: test_hazards.sh BUILD_DIR [SEED...]}" && pwd)"
shift
SEEDS=("$@")
[ ${#SEEDS[@]} -eq 0 ] && SEEDS=(1 2 3)
W="$(mktemp -d)"
trap 'rm -rf "$W"' EXIT
for seed in "${SEEDS[@]}"; do
    D="$W/s$seed"
    $PY "$S/rdma_hazard_gen.py" --seed "$seed" --out-dir "$D" | tail -1
    for bp in 0 0.6; do
        "$B/nettwin" rdma --config "$D/responder.txt" --in "$D/requests.pcap" --out "$D/rsp.pcap" \
            --mem-out "$D/mem.json" --stats "$D/stats.json" --engine lockstep --backpressure "$bp" \
            --seed "$seed" --mem-read-cycles 50 | tail -1
        $PY "$S/rdma_check.py" --config "$D/responder.txt" --in "$D/requests.pcap" --out "$D/rsp.pcap" \
            --mem-out "$D/mem.json" --stats "$D/stats.json" \
            || { echo "test_hazards: FAIL seed $seed backpressure $bp" >&2; exit 1; }
    done
done
echo "test_hazards: all seeds pass"
