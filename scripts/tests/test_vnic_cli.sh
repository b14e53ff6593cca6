#!/usr/bin/env bash
# `nettwin vnic`: both directions on a generated vector with every engine (identical outputs), each output
# accepted by the independent checker (nettwin.vnic.check), the round trip exact, and clear errors
# (exit 2, file:line: token 'x') for bad usage, bad configs, bad port files and bad pcaps.
#   scripts/tests/test_vnic_cli.sh BUILD_DIR
set -uo pipefail
B=${1:?usage: test_vnic_cli.sh BUILD_DIR}
N="$B/nettwin"
PY=/usr/bin/python3
HERE=$(cd "$(dirname "$0")/.." && pwd)   # scripts/
export PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}"   # python3 -m nettwin.<block>.<tool> finds the package
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# shellcheck source=SCRIPTDIR/cli_check.sh
source "$HERE/tests/cli_check.sh"

if ! $PY -m nettwin.vnic.gen --seed 3 --frames 260 --out-dir "$T/v" >/dev/null; then
  echo "FAIL nettwin.vnic.gen did not make the vector"; exit 1
fi
C="$T/v/vnic.txt"
E=(--config "$C" --direction encap --in "$T/v/eth.pcap" --ports "$T/v/eth.ports")
D=(--config "$C" --direction decap --in "$T/v/opa.pcap")

# ---- good runs: every engine, the checker, the round trip ----
for eng in lockstep model rtl; do
  check "encap $eng" 0 "vnic encap:" "$N" vnic "${E[@]}" --out "$T/enc_$eng.pcap" --stats "$T/enc_$eng.json" \
    --engine "$eng"
  check "decap $eng" 0 "vnic decap:" "$N" vnic "${D[@]}" --out "$T/dec_$eng.pcap" --ports-out "$T/dec_$eng.ports" \
    --stats "$T/dec_$eng.json" --engine "$eng"
done
for eng in model rtl; do
  check "encap $eng = lockstep" 0 "" cmp "$T/enc_lockstep.pcap" "$T/enc_$eng.pcap"
  check "decap $eng = lockstep" 0 "" cmp "$T/dec_lockstep.pcap" "$T/dec_$eng.pcap"
done
check "encap checker" 0 "PASS" $PY -m nettwin.vnic.check encap --config "$C" --in "$T/v/eth.pcap" \
  --ports "$T/v/eth.ports" --out "$T/enc_lockstep.pcap" --stats "$T/enc_lockstep.json"
check "decap checker" 0 "PASS" $PY -m nettwin.vnic.check decap --config "$C" --in "$T/v/opa.pcap" \
  --out "$T/dec_lockstep.pcap" --ports-out "$T/dec_lockstep.ports" --stats "$T/dec_lockstep.json"
check "decap of every drop reason" 0 '"pkey_mismatch": ' grep -v '": 0' "$T/dec_lockstep.json"
check "round trip decap" 0 "0 dropped" "$N" vnic --config "$C" --direction decap --in "$T/enc_lockstep.pcap" \
  --out "$T/rt.pcap" --ports-out "$T/rt.ports" --gaps 0.2 --backpressure 0.3 --seed 5
check "round trip exact" 0 "PASS" $PY -m nettwin.vnic.check roundtrip --config "$C" --in "$T/v/eth.pcap" \
  --ports "$T/v/eth.ports" --out "$T/rt.pcap" --ports-out "$T/rt.ports"
# Linux's tail byte (pad count alone, LT bits 0; hfi1 vnic_sdma.c): a capture built by Linux's rules
# (nettwin.vnic.linux_ref, written from the Linux sources) decapsulates to the frames Linux's receive delivers.
if ! (cd "$HERE" && $PY -m nettwin.vnic.linux_ref capture --seed 7 --out-dir "$T/lx" >/dev/null); then
  echo "FAIL linux_ref capture"; exit 1
fi
check "linux capture decap" 0 "0 dropped" "$N" vnic --config "$T/lx/vnic.txt" --direction decap --in "$T/lx/opa.pcap" \
  --out "$T/lx/out.pcap" --ports-out "$T/lx/out.ports" --gaps 0.1 --backpressure 0.2 --seed 3
check "linux capture frames" 0 "PASS" env PYTHONPATH="$HERE" $PY -m nettwin.vnic.linux_ref compare \
  --expected "$T/lx/eth.pcap" --expected-ports "$T/lx/eth.ports" --out "$T/lx/out.pcap" --ports-out "$T/lx/out.ports"
check "tshark reads the 16B pcap" 0 "user" tshark -r "$T/enc_lockstep.pcap" -c 1 -T fields -e frame.protocols
check "trace" 0 "vnic encap" "$N" vnic "${E[@]}" --out "$T/o.pcap" --trace "$T/w.fst"
check "FST written" 0 "" test -s "$T/w.fst"

# ---- usage errors ----
check "no options" 2 "--config, --direction, --in and --out are required" "$N" vnic
check "bad direction" 2 "--direction must be encap or decap, got 'both'" \
  "$N" vnic --config "$C" --direction both --in "$T/v/eth.pcap" --out "$T/o.pcap"
check "bad engine" 2 "--engine must be model, rtl or lockstep, got 'fast'" "$N" vnic "${E[@]}" --out "$T/o.pcap" \
  --engine fast
check "unknown option" 2 "unknown option '--frob'" "$N" vnic "${E[@]}" --out "$T/o.pcap" --frob
check "port out of range" 2 "--port wants a number in" "$N" vnic --config "$C" --direction encap \
  --in "$T/v/eth.pcap" --out "$T/o.pcap" --port 16
check "port with decap" 2 "--port and --ports are for encap" "$N" vnic "${D[@]}" --out "$T/o.pcap" --port 1
check "trace with model" 2 "--trace needs the RTL" "$N" vnic "${E[@]}" --out "$T/o.pcap" --engine model \
  --trace "$T/w2.fst"
check "help" 0 "usage: nettwin vnic" "$N" vnic --help

# ---- config, ports file and pcap errors ----
printf 'port 0 veswid 1 pkey 0x8001 slid 1\nport 1 veswid 2 pkey 0x8001 slid 1 sc 40\n' > "$T/bad.txt"
check "config range" 2 "bad.txt:2: token '40': sc must be at most 31" "$N" vnic --config "$T/bad.txt" \
  --direction encap --in "$T/v/eth.pcap" --out "$T/o.pcap"
printf 'port 0 veswid 1 pkey 0x8001 slid 1\nmac 0 zz:00:00:00:00:01 5\n' > "$T/bad2.txt"
check "config mac" 2 "bad2.txt:2: token 'zz:00:00:00:00:01': MAC address" "$N" vnic --config "$T/bad2.txt" \
  --direction encap --in "$T/v/eth.pcap" --out "$T/o.pcap"
check "missing config" 2 "$T/nope.txt: cannot open" "$N" vnic --config "$T/nope.txt" --direction encap \
  --in "$T/v/eth.pcap" --out "$T/o.pcap"
head -n 5 "$T/v/eth.ports" > "$T/short.ports"
check "ports file too short" 2 "short.ports: 5 ports for" "$N" vnic --config "$C" --direction encap \
  --in "$T/v/eth.pcap" --ports "$T/short.ports" --out "$T/o.pcap"
{ echo 1; echo 99; } > "$T/bad.ports"
check "ports file bad port" 2 "bad.ports:2: token '99': port must be 0..15" "$N" vnic --config "$C" \
  --direction encap --in "$T/v/eth.pcap" --ports "$T/bad.ports" --out "$T/o.pcap"
check "decap of an Ethernet pcap" 2 "link type 1 is not DLT_USER0 (147)" "$N" vnic --config "$C" \
  --direction decap --in "$T/v/eth.pcap" --out "$T/o.pcap"
check "encap of a 16B pcap" 2 "link type 147 is not Ethernet (1)" "$N" vnic --config "$C" \
  --direction encap --in "$T/v/opa.pcap" --out "$T/o.pcap"
head -c 5003 "$T/v/opa.pcap" > "$T/trunc.pcap"
check "truncated pcap" 2 "packet 7: truncated" "$N" vnic "${D[@]/$T\/v\/opa.pcap/$T/trunc.pcap}" --out "$T/o.pcap"
check "checker: bad link type" 2 "expected 147" $PY -m nettwin.vnic.check decap --config "$C" \
  --in "$T/v/eth.pcap" --out "$T/dec_lockstep.pcap"

echo "vnic cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
