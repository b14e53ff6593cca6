#!/usr/bin/env bash
# CLI behaviour of `nettwin reorder`: the documented outputs on good input (every engine, identical results,
# stats JSON with every key, an FST trace, output accepted by nettwin.reorder.check), and clear errors with exit 2 on
# bad usage, bad configs and bad pcaps.
#   scripts/tests/test_reorder_cli.sh BUILD_DIR
set -uo pipefail
B=${1:?usage: test_reorder_cli.sh BUILD_DIR}
N="$B/nettwin"
PY=/usr/bin/python3
HERE=$(cd "$(dirname "$0")/.." && pwd)   # scripts/
export PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}"   # python3 -m nettwin.<block>.<tool> finds the package
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# shellcheck source=SCRIPTDIR/cli_check.sh
source "$HERE/tests/cli_check.sh"
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

# A small vector: 4 flows with reroutes, RTT requests and CE marks (~430 arrivals).
if ! $PY -m nettwin.reorder.gen --seed 3 --scenario ecn --flows 4 --out-dir "$T/v" >/dev/null; then
  echo "FAIL nettwin.reorder.gen did not make the vector"; exit 1
fi
C="$T/v/reorder.txt"
A="$T/v/arrivals.pcap"
O=(--out "$T/o.pcap" --ctrl-out "$T/c.pcap")

# ---- usage errors ----
check "missing --ctrl-out" 2 "--config, --in, --out and --ctrl-out are required" \
  "$N" reorder --config "$C" --in "$A" --out "$T/o.pcap"
check "missing --config" 2 "--config, --in, --out and --ctrl-out are required" "$N" reorder --in "$A" "${O[@]}"
check "no options at all" 2 "are required" "$N" reorder
check "unknown option" 2 "unknown option '--frob'" "$N" reorder --config "$C" --in "$A" "${O[@]}" --frob
check "option without value" 2 "--seed needs a value" "$N" reorder --config "$C" --in "$A" "${O[@]}" --seed
check "bad engine" 2 "--engine must be model, rtl or lockstep, got 'fast'" \
  "$N" reorder --config "$C" --in "$A" "${O[@]}" --engine fast
check "bad backpressure" 2 "--backpressure wants a number in" \
  "$N" reorder --config "$C" --in "$A" "${O[@]}" --backpressure 1.5
check "bad clock" 2 "--clock-mhz wants a number in" "$N" reorder --config "$C" --in "$A" "${O[@]}" --clock-mhz x
check "trace with model" 2 "--trace needs the RTL (--engine rtl or lockstep)" \
  "$N" reorder --config "$C" --in "$A" "${O[@]}" --engine model --trace "$T/w.fst"
check "help" 0 "usage: nettwin reorder" "$N" reorder --help

# ---- config errors: "file:line: token 'x': message" or "file: no 'key' line" ----
check "nonexistent config" 2 "nettwin reorder: $T/nope.txt: cannot open" \
  "$N" reorder --config "$T/nope.txt" --in "$A" "${O[@]}"
# cfg NAME KEY LINE...: the good config without KEY's line, then the given lines (KEY - keeps every key).
cfg() {
  local name=$1 key=$2
  shift 2
  grep -v "^$key " "$C" > "$T/$name.txt"
  printf '%s\n' "$@" >> "$T/$name.txt"
}
cfgcheck() {  # cfgcheck NAME TEXT
  check "config $1" 2 "$2" "$N" reorder --config "$T/$1.txt" --in "$A" "${O[@]}"
}
cfg unknown_key - "bogus 1"
cfgcheck unknown_key "unknown_key.txt:7: token 'bogus': unknown key"
cfg missing_key flow_idle_us
cfgcheck missing_key "missing_key.txt: no 'flow_idle_us' line"
: > "$T/empty.txt"
cfgcheck empty "empty.txt: no 'flows' line"
cfg not_number queues "queues abc"
cfgcheck not_number "not_number.txt:6: token 'abc': not a decimal number"
cfg trailing_junk queues "queues 12x"
cfgcheck trailing_junk "token '12x': not a decimal number"
cfg negative margin_us "margin_us -1"
cfgcheck negative "negative.txt:6: token '-1': not a decimal number"
cfg queues3 queues "queues 3"
cfgcheck queues3 "queues3.txt:6: token '3': queues must be 4, 8, 16 or 32"
cfg queues64 queues "queues 64"
cfgcheck queues64 "queues64.txt:6: token '64': queues must be 4, 8, 16 or 32"
cfg queues2 queues "queues 2"
cfgcheck queues2 "token '2': queues must be 4, 8, 16 or 32"
cfg flows3 flows "flows 3"
cfgcheck flows3 "flows3.txt:6: token '3': flows must be a power of two"
cfg flows0 flows "flows 0"
cfgcheck flows0 "token '0': flows must be a power of two"
cfg flows_big flows "flows 1048576"
cfgcheck flows_big "token '1048576': flows must be a power of two"
cfg buffer0 buffer_bytes "buffer_bytes 0"
cfgcheck buffer0 "buffer0.txt:6: token '0': buffer_bytes must be 64.."
cfg buffer_big buffer_bytes "buffer_bytes 99999999999"
cfgcheck buffer_big "token '99999999999': buffer_bytes must be 64.."
cfg margin_big margin_us "margin_us 40000"
cfgcheck margin_big "token '40000': margin_us must be 0..32767"
cfg hold0 default_hold_us "default_hold_us 0"
cfgcheck hold0 "token '0': default_hold_us must be 1..32767"
cfg idle_big flow_idle_us "flow_idle_us 65536"
cfgcheck idle_big "token '65536': flow_idle_us must be 1..65535"
cfg duplicate - "queues 8"
cfgcheck duplicate "duplicate.txt:7: token 'queues': given twice"
cfg two_values queues "queues 8 16"
cfgcheck two_values "two_values.txt:6: token 'queues': expected exactly one value"
cfg no_value queues "queues"
cfgcheck no_value "no_value.txt:6: token 'queues': expected exactly one value"
{ echo "# comment line"; sed 's/$/  # trailing comment/' "$C"; echo; } > "$T/comments.txt"
check "config with comments and blank lines" 0 "arrivals" \
  "$N" reorder --config "$T/comments.txt" --in "$A" "${O[@]}" --engine model

# ---- input pcap errors ----
check "nonexistent --in" 2 "nettwin reorder: $T/nope.pcap: cannot open" \
  "$N" reorder --config "$C" --in "$T/nope.pcap" "${O[@]}"
check "non-pcap file" 2 "reorder.txt: not a pcap file" "$N" reorder --config "$C" --in "$C" "${O[@]}"
echo "short" > "$T/short.pcap"
check "file shorter than a pcap header" 2 "truncated pcap file header" \
  "$N" reorder --config "$C" --in "$T/short.pcap" "${O[@]}"
# Cut / reorder with the record headers (either pcap magic, either byte order).
$PY - "$A" "$T" <<'EOF' || bad "could not make the damaged pcaps"
import struct, sys
src, d = sys.argv[1], sys.argv[2]
b = open(src, "rb").read()
end = "<" if b[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
recs, off = [], 24
while off < len(b):
    sec, frac, incl, _ = struct.unpack(end + "IIII", b[off:off + 16])
    recs.append((off, off + 16 + incl, (sec, frac)))
    off += 16 + incl
assert len(recs) > 3
# The middle of the second frame's data; the middle of the third record header (errors count packets from 1).
open(d + "/trunc_data.pcap", "wb").write(b[:recs[1][0] + 16 + (recs[1][1] - recs[1][0] - 16) // 2])
open(d + "/trunc_rec.pcap", "wb").write(b[:recs[2][0] + 8])
# Swap the first adjacent pair with different times; nettwin names the second of them, counting from 1.
i = next(k for k in range(len(recs) - 1) if recs[k][2] < recs[k + 1][2])
a, c = b[recs[i][0]:recs[i][1]], b[recs[i + 1][0]:recs[i + 1][1]]
open(d + "/disorder.pcap", "wb").write(b[:recs[i][0]] + c + a + b[recs[i + 1][1]:])
open(d + "/disorder_index", "w").write(str(i + 2))
EOF
check "pcap cut in the middle of a frame" 2 "trunc_data.pcap: packet 2: truncated packet data" \
  "$N" reorder --config "$C" --in "$T/trunc_data.pcap" "${O[@]}"
check "pcap cut in a record header" 2 "trunc_rec.pcap: packet 3: truncated record header" \
  "$N" reorder --config "$C" --in "$T/trunc_rec.pcap" "${O[@]}"
check "arrivals out of time order" 2 \
  "disorder.pcap: packet $(cat "$T/disorder_index" 2>/dev/null) arrives before packet" \
  "$N" reorder --config "$C" --in "$T/disorder.pcap" "${O[@]}"

# ---- good runs: every engine, identical outputs ----
for e in model rtl lockstep; do
  check "engine $e" 0 "433 arrivals, 433 delivered" "$N" reorder --config "$C" --in "$A" --out "$T/o_$e.pcap" \
    --ctrl-out "$T/c_$e.pcap" --stats "$T/s_$e.json" --engine $e
  # the same with output backpressure on both ports (a seeded random ready pattern)
  check "engine $e backpressure" 0 "433 arrivals" "$N" reorder --config "$C" --in "$A" --out "$T/obp_$e.pcap" \
    --ctrl-out "$T/cbp_$e.pcap" --stats "$T/sbp_$e.json" --engine $e --backpressure 0.4 \
    --ctrl-backpressure 0.4 --seed 7
done
# stats minus the engine name (cycle-accurate model: counters and cycles equal too)
strip_engine() { grep -v '"engine"' "$1"; }
for e in model rtl; do
  for p in o c obp cbp; do
    if cmp -s "$T/${p}_$e.pcap" "$T/${p}_lockstep.pcap"; then ok
    else bad "engine $e: $p pcap differs from lockstep"; fi
  done
  for s in s sbp; do
    if cmp -s <(strip_engine "$T/${s}_$e.json") <(strip_engine "$T/${s}_lockstep.json"); then ok
    else bad "engine $e: stats $s differ from lockstep"; diff <(strip_engine "$T/${s}_$e.json") \
      <(strip_engine "$T/${s}_lockstep.json") | head -6; fi
  done
done
if [ -s "$T/o_lockstep.pcap" ] && [ -s "$T/c_lockstep.pcap" ]; then ok; else bad "empty delivered or control pcap"; fi
check "stats JSON has every key" 0 "keys ok" $PY - "$T/s_lockstep.json" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
top = ["engine", "packets_in", "delivered", "control_out", "held", "held_now", "released_by_tail",
       "released_by_timeout", "fallback_unordered", "fallback_collision", "epoch_jump", "drops", "peak_queues",
       "peak_buffer_bytes", "peak_cells_in_use", "hold_us", "cycles", "in_beats", "out_beats",
       "input_stall_cycles", "mismatches", "conservation_ok"]
miss = [k for k in top if k not in s]
miss += ["drops." + k for k in ("malformed", "buffer_full") if k not in s.get("drops", {})]
miss += ["hold_us." + k for k in ("count", "min", "max", "mean", "p50", "p99", "histogram")
         if k not in s.get("hold_us", {})]
assert not miss, "missing keys: %s" % miss
assert s["engine"] == "lockstep" and s["mismatches"] == 0 and s["conservation_ok"] is True, s
assert s["packets_in"] == 433 and s["delivered"] + sum(s["drops"].values()) + s["held_now"] == 433, s
assert s["hold_us"]["count"] == s["held"] and sum(c for _, c in s["hold_us"]["histogram"]) == s["held"], s
print("keys ok")
EOF
check "reorder_check accepts the lockstep output" 0 "PASS" $PY -m nettwin.reorder.check --dir "$T/v" \
  --delivered "$T/o_lockstep.pcap" --ctrl "$T/c_lockstep.pcap" --stats "$T/s_lockstep.json"
check "reorder_check accepts the backpressure output" 0 "PASS" $PY -m nettwin.reorder.check --dir "$T/v" \
  --delivered "$T/obp_lockstep.pcap" --ctrl "$T/cbp_lockstep.pcap" --stats "$T/sbp_lockstep.json" \
  --backpressure 0.4 --ctrl-backpressure 0.4
check "back to back" 0 "433 arrivals" "$N" reorder --config "$C" --in "$A" --out "$T/o_b2b.pcap" \
  --ctrl-out "$T/c_b2b.pcap" --back-to-back --backpressure 0.2 --stats "$T/s_b2b.json"
check "reorder_check --b2b accepts the back-to-back output" 0 "PASS" $PY -m nettwin.reorder.check --dir "$T/v" \
  --delivered "$T/o_b2b.pcap" --ctrl "$T/c_b2b.pcap" --stats "$T/s_b2b.json" --b2b
check "back to back conserves" 0 "true" grep '"conservation_ok"' "$T/s_b2b.json"

# ---- trace ----
for e in lockstep rtl; do
  rm -f "$T/w_$e.fst"
  check "trace $e" 0 "433 arrivals" "$N" reorder --config "$C" --in "$A" "${O[@]}" --engine $e --trace "$T/w_$e.fst"
  if [ -s "$T/w_$e.fst" ]; then ok; else bad "--trace with --engine $e wrote no FST"; fi
done

# pcapng in (Wireshark's default format) and out: the same delivered and control frames as from the pcap.
editcap -F pcapng "$A" "$T/a.pcapng"
check "pcapng in and out" 0 "" "$N" reorder --config "$C" --in "$T/a.pcapng" --out "$T/ng.pcapng" \
  --ctrl-out "$T/ngc.pcapng" --out-format pcapng --engine model
check "same run from pcap" 0 "" "$N" reorder --config "$C" --in "$A" --out "$T/pc.pcap" --ctrl-out "$T/pcc.pcap" \
  --engine model
same_frames() {
  if cmp -s <(tshark -r "$T/$1" -T fields -e frame.time_epoch -e frame.len -e data.data 2>/dev/null) \
            <(tshark -r "$T/$2" -T fields -e frame.time_epoch -e frame.len -e data.data 2>/dev/null); then
    ok
  else
    bad "pcapng run: $1 differs from $2"
  fi
}
same_frames ng.pcapng pc.pcap
same_frames ngc.pcapng pcc.pcap

echo "reorder cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
