#!/usr/bin/env bash
# Self-test of the RoCEv2 responder scripts (no C++ needed, about a minute).
#
#   bash scripts/nettwin/rdma/test_scripts.sh [SEED...]        (default seeds: 1 2 3)
#
# 1. unit tests (nettwin/rdma/test_ref.py, test_ref_rq.py): ICRC helper = Scapy's BTH.compute_icrc for IPv4 and Scapy-field
#    masking for IPv6, config errors, responses equal to Scapy-built ones, PSN, AQ groups, SEND /
#    WRITE with immediate: receive WQEs, CQE bytes, RNR NAK, buffer overflow, duplicates;
# 2. every scenario (seed 1) and "mixed" per seed: rdma_gen is deterministic and its own model agrees
#    with rdma_ref (intent of every packet, final memory); rdma_ref's output passes rdma_check,
#    also against the generator's expect_memory.json; the AQ grouping off gives the same output;
# 3. the checked-in vectors under vectors/rdma/ regenerate byte-identically and the reference still
#    produces their expected responses / memory / stats;
# 4. damaged copies of a run (every nettwin.rdma.corrupt mode) make rdma_check fail with the precise
#    message expected, and unusable input exits 2;
# The C++ tool against rdma_check is scripts/tests/test_rdma_model.sh (ctest rdma_model_check).
# Exits non-zero on the first failure.
set -euo pipefail
PY=/usr/bin/python3
S="$(cd "$(dirname "$0")/../.." && pwd)"   # scripts/ (the entry points)
export PYTHONPATH="$S${PYTHONPATH:+:$PYTHONPATH}"   # python3 -m nettwin.<block>.<tool> finds the package
PYM=(env PYTHONPATH="$S" "$PY" -m)   # a module of the nettwin package
V="$S/../vectors/rdma"
W="$(mktemp -d)"
trap 'rm -rf "$W"' EXIT
SEEDS=("$@")
[ ${#SEEDS[@]} -eq 0 ] && SEEDS=(1 2 3)
SCENARIOS=(traffic atomic lostack reorder badreq psnwrap icrc malformed send edge sendstream hotatomic)
VECTORS=(atomic badreq edge icrc psnwrap reorder send)

fail() { echo "test_rdma_scripts: FAIL: $*" >&2; exit 1; }
# expect_rc RC PATTERN CMD...: CMD must exit RC and print PATTERN
expect_rc() {
    local want="$1" pat="$2"; shift 2
    local rc=0
    "$@" >"$W/out.txt" 2>&1 || rc=$?
    [ "$rc" -eq "$want" ] || { cat "$W/out.txt"; fail "expected exit $want from: $*  (got $rc)"; }
    grep -q -- "$pat" "$W/out.txt" || { cat "$W/out.txt"; fail "expected '$pat' from: $*"; }
    echo "  ok (exit $want as it must): $(grep -m1 -- "$pat" "$W/out.txt" | cut -c1-170)"
}
# run_case DIR [extra ref/check options]: reference + checker on a generated directory
run_case() {
    local D="$1"; shift
    $PY -m nettwin.rdma.ref --config "$D/responder.txt" --in "$D/requests.pcap" --out "$D/exp.pcap" \
        --mem-out "$D/mem.json" --stats "$D/stats.json" --trace "$D/trace.txt" "$@" >/dev/null
    $PY -m nettwin.rdma.check --config "$D/responder.txt" --in "$D/requests.pcap" --out "$D/exp.pcap" \
        --mem-out "$D/mem.json" --stats "$D/stats.json" "$@"
}
gen_twice() {     # gen_twice SEED SCENARIO DIR
    $PY -m nettwin.rdma.gen --seed "$1" --scenario "$2" --out-dir "$3" | tail -1
    $PY -m nettwin.rdma.gen --seed "$1" --scenario "$2" --out-dir "$3.again" --no-check >/dev/null
    for f in responder.txt requests.pcap expect_memory.json; do
        cmp "$3/$f" "$3.again/$f" || fail "rdma_gen --seed $1 --scenario $2 is not deterministic ($f)"
    done
}

echo "== unit tests"
"${PYM[@]}" unittest nettwin.rdma.test_ref nettwin.rdma.test_ref_rq

echo "== scenarios (seed 1)"
for sc in "${SCENARIOS[@]}"; do
    echo "-- $sc"
    D="$W/$sc"
    gen_twice 1 "$sc" "$D"
    run_case "$D"
    $PY -m nettwin.rdma.check --config "$D/responder.txt" --in "$D/requests.pcap" --out "$D/exp.pcap" \
        --mem-out "$D/expect_memory.json" >/dev/null || fail "$sc: the generator's expect_memory.json fails the check"
done
echo "-- atomic with the AQ grouping off (--aq-linear, aq_mode linear): the same responses and memory"
D="$W/atomic"
$PY -m nettwin.rdma.ref --config "$D/responder.txt" --in "$D/requests.pcap" --out "$D/lin.pcap" \
    --mem-out "$D/lin.json" --aq-linear >/dev/null
if ! cmp "$D/lin.pcap" "$D/exp.pcap" || ! cmp "$D/lin.json" "$D/mem.json"; then
    fail "--aq-linear changes the result"
fi
$PY -m nettwin.rdma.gen --seed 1 --scenario atomic --out-dir "$D.lin" --aq-mode linear | tail -1
grep -q "aq_mode linear" "$D.lin/responder.txt" || fail "rdma_gen --aq-mode linear"
cmp "$D.lin/requests.pcap" "$D/requests.pcap" || fail "rdma_gen --aq-mode changes the requests"
run_case "$D.lin"
cmp "$D.lin/exp.pcap" "$D/exp.pcap" || fail "aq_mode linear changes the responses"

echo "== checked-in vectors ($V)"
for sc in "${VECTORS[@]}"; do
    D="$W/vec_$sc"
    $PY -m nettwin.rdma.gen --seed 1 --scenario "$sc" --out-dir "$D" --no-check --manifest >/dev/null
    for f in responder.txt requests.pcap expect_memory.json manifest.txt; do
        cmp "$D/$f" "$V/$sc/$f" || fail "vectors/rdma/$sc/$f differs from rdma_gen --seed 1 --scenario $sc"
    done
    $PY -m nettwin.rdma.ref --config "$V/$sc/responder.txt" --in "$V/$sc/requests.pcap" --out "$D/exp.pcap" \
        --mem-out "$D/mem.json" --stats "$D/stats.json" --trace "$D/trace.txt" >/dev/null
    cmp "$D/trace.txt" "$V/$sc/trace.txt" || fail "vectors/rdma/$sc: reference trace changed"
    cmp "$D/exp.pcap" "$V/$sc/expected_responses.pcap" || fail "vectors/rdma/$sc: reference responses changed"
    cmp "$D/mem.json" "$V/$sc/expect_memory.json" || fail "vectors/rdma/$sc: reference memory changed"
    cmp "$D/stats.json" "$V/$sc/expected_stats.json" || fail "vectors/rdma/$sc: reference stats changed"
    echo "  ok: vectors/rdma/$sc"
done

for seed in "${SEEDS[@]}"; do
    echo "== mixed, seed $seed"
    D="$W/mixed$seed"
    gen_twice "$seed" mixed "$D"
    run_case "$D"
    $PY -m nettwin.rdma.check --config "$D/responder.txt" --in "$D/requests.pcap" --out "$D/exp.pcap" \
        --mem-out "$D/expect_memory.json" >/dev/null || fail "mixed $seed: expect_memory.json fails the check"
done

echo "== damaged runs must fail (mixed, seed ${SEEDS[0]})"
D="$W/mixed${SEEDS[0]}"
B="$W/bad"
corrupt_check() {     # corrupt_check MODE PATTERN
    $PY -m nettwin.rdma.corrupt --mode "$1" --config "$D/responder.txt" --in "$D/requests.pcap" \
        --out "$D/exp.pcap" --mem-out "$D/mem.json" --stats "$D/stats.json" --dest "$B" >/dev/null
    expect_rc 1 "$2" $PY -m nettwin.rdma.check --config "$D/responder.txt" --in "$D/requests.pcap" \
        --out "$B/rsp.pcap" --mem-out "$B/mem.json" --stats "$B/stats.json"
}
corrupt_check atomic-orig "MISMATCH \[bytes\].*response [0-9]* (request [0-9]*, QP 0x[0-9a-f]* PSN 0x[0-9a-f]* \(FAA\|CAS\)): AtomicAckETH.orig expected 0x[0-9a-f]* got 0x"
corrupt_check msn "): AETH.msn expected 0x[0-9a-f]* got 0x"
corrupt_check syndrome "): AETH.syndrome expected 0x1f got 0x63"
corrupt_check psn "): BTH.psn expected"
corrupt_check ttl "MISMATCH \[decode\].*IP.ttl: expected 64 got 63"
corrupt_check payload "READ): Raw.load byte 0: expected"
corrupt_check icrc "MISMATCH \[icrc\] (1 in total) first: response [0-9]* (.*): ICRC [0-9a-f]* is wrong"
corrupt_check drop "): missing, expected"
corrupt_check dup "unexpected extra response"
corrupt_check swap "MISMATCH \[bytes\]"
corrupt_check mem-byte "MISMATCH \[memory\].*byte [0-9]* (va 0x[0-9a-f]* pa 0x[0-9a-f]*.*): expected 0x"
corrupt_check faa-double "MISMATCH \[at-most-once\].*FAA target pa 0x[0-9a-f]*: final value"
corrupt_check stats "MISMATCH \[stats\].*packets_out: expected"
corrupt_check stats-drop "drops.rnr_nak: expected 0 got 1 (not a drop reason of docs/rdma.md)"
corrupt_check rnr "): AETH.syndrome expected 0x[23][0-9a-f] got 0x[23][0-9a-f]"
corrupt_check cqe "MISMATCH \[cqe\].*QP 0x[0-9a-f]* CQ slot [0-9]* (pa 0x[0-9a-f]*), CQE [0-9]* completing request [0-9]* \(SEND_\|WRITE_\)[A-Z_]* PSN 0x[0-9a-f]*: byte_count expected 0x[0-9a-f]* got 0x"
corrupt_check cqe "MISMATCH \[memory\].*(va 0x[0-9a-f]* pa 0x[0-9a-f]*, CQ of QP 0x[0-9a-f]* slot [0-9]* byte 4 (byte_count), CQE [0-9]* of request [0-9]* PSN 0x[0-9a-f]*): expected 0x"
corrupt_check replay "MISMATCH \[at-most-once\].*replay returns 0x[0-9a-f]*, the first ATOMIC ACK for this PSN returned"
# the atomic scenario: a replay with a fresh value
A="$W/atomic"
$PY -m nettwin.rdma.corrupt --mode replay --index 7 --config "$A/responder.txt" --in "$A/requests.pcap" \
    --out "$A/exp.pcap" --mem-out "$A/mem.json" --dest "$B" >/dev/null
expect_rc 1 "MISMATCH \[bytes\].*AtomicAckETH.orig" $PY -m nettwin.rdma.check --config "$A/responder.txt" \
    --in "$A/requests.pcap" --out "$B/rsp.pcap" --mem-out "$B/mem.json"

echo "== unusable input exits 2"
printf 'responder mac 02:00:00:00:00:01 ip 10.0.0.1\nqp 1 dest_qp 2 epsn 3 mtu 256 max_rd_atomic 4 aq zz\n' > "$W/bad.txt"
expect_rc 2 "bad.txt:2: token 'zz'" $PY -m nettwin.rdma.check --config "$W/bad.txt" --in "$D/requests.pcap" \
    --out "$D/exp.pcap" --mem-out "$D/mem.json"
expect_rc 2 "not a readable pcap" $PY -m nettwin.rdma.check --config "$D/responder.txt" --in "$D/responder.txt" \
    --out "$D/exp.pcap" --mem-out "$D/mem.json"
echo '{"x": ' > "$W/broken.json"
expect_rc 2 "cannot read memory JSON" $PY -m nettwin.rdma.check --config "$D/responder.txt" --in "$D/requests.pcap" \
    --out "$D/exp.pcap" --mem-out "$W/broken.json"
expect_rc 2 "no such file" $PY -m nettwin.rdma.ref --config "$D/responder.txt" --in "$W/none.pcap" \
    --out "$W/x.pcap" --mem-out "$W/x.json"
echo "test_rdma_scripts: PASS"
