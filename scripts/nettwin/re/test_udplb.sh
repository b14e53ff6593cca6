#!/usr/bin/env bash
# udplb's own expected output (esnet/udplb p4/sim/test-1, vectors/peers/udplb/) through `nettwin re`: the LB's
# segments, half of them still behind the LB v2/v3 header that LB instance keeps. The seed's 8-byte header
# (its payloads are the spec generator's EVIO6 segments), LB headers skipped (the default): exactly the two
# events the test's source sent (a 1050-byte zero blob as rocid 0xabc from port 50000 and as rocid 0x123 from
# port 12345), byte-identical, and nothing else: no incomplete event (the LB-header frames used to be read as
# RE headers with data_id 513), every other copy a duplicate. Checked by nettwin.re.check (its own reassembly).
# With `lb_header drop` the kept-header frames are counted drops instead, and the same two events come out.
#
#   bash scripts/nettwin/re/test_udplb.sh BUILD_DIR
set -euo pipefail
PY=/usr/bin/python3
S="$(cd "$(dirname "$0")/../.." && pwd)"   # scripts/
export PYTHONPATH="$S${PYTHONPATH:+:$PYTHONPATH}"   # python3 -m nettwin.<block>.<tool> finds the package
V="$S/../vectors/peers/udplb"
NT="$(cd "$1" && pwd)/nettwin"
W="$(mktemp -d)"
trap 'rm -rf "$W"' EXIT
# shellcheck source=SCRIPTDIR/../../tests/expect_exit.sh
source "$S/tests/expect_exit.sh"
cp "$V/expected_packets_out.pcap" "$W/segments.pcap"
# The simulator's timestamps are its own run time: segments 4.4 ms apart, the capture 0.46 s long. A timeout
# of 1 s keeps each event's context (and its hold) over the whole capture, as an RE behind a real LB would see
# the segments within microseconds.
printf 'contexts 16\ntimeout_us 1000000\n' >"$W/re.txt"
printf 'contexts 16\ntimeout_us 1000000\nlb_header drop\n' >"$W/re_drop.txt"
# The source's events, from the spec's generator (the data source of udplb's test-1).
$PY - "$W/source.json" <<'PYEOF'
import json, sys
blob = bytes(1050)
json.dump({"events": [{"tick": 50000, "data_id": 0xABC, "kind": "udplb", "data": blob.hex()},
                      {"tick": 12345, "data_id": 0x123, "kind": "udplb", "data": blob.hex()}]}, open(sys.argv[1], "w"))
PYEOF
for conf in re re_drop; do
    "$NT" re --config "$W/$conf.txt" --in "$W/segments.pcap" --out "$W/ev_$conf.pcap" --report "$W/rep_$conf.json"
    $PY -m nettwin.re.check --dir "$W" --events "$W/ev_$conf.pcap" --report "$W/rep_$conf.json" --config "$W/$conf.txt"
    $PY - "$W/rep_$conf.json" "$conf" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
def fail(m):
    sys.exit("test_udplb: FAIL (%s): %s" % (sys.argv[2], m))
keys = sorted((e["tick16"], e["data_id"], e["length"]) for e in r["events"])
if keys != [(12345, 0x123, 1050), (50000, 0xABC, 1050)]:
    fail("events %s, want exactly (12345, 0x123) and (50000, 0xabc) of 1050 bytes" % keys)
if r["incomplete"] or r["events_timed_out"]:
    fail("incomplete events reported: %s" % r["incomplete"])
d = r["drops"]
lb = 44 if sys.argv[2] == "re_drop" else 0
# 98 frames: 22 used, 10 ARP/ICMP/ND frames not UDP segments, the second copies (22) and, skipped, the 44
# kept-header frames are duplicates of the events already completed; `lb_header drop` drops those 44.
if (r["segments_in"], r["segments_used"], d["duplicate"], d["lb_header"], d["bad_version"]) != \
        (98, 22, 66 - lb, lb, 0):
    fail("counters %s" % {k: r[k] for k in ("segments_in", "segments_used", "drops")})
print("test_udplb (%s): ok: 2 events of 1050 bytes, no incomplete, drops %s"
      % (sys.argv[2], {k: v for k, v in d.items() if v}))
PYEOF
done
