#!/usr/bin/env bash
# CLI behaviour of `nettwin lb`: bad input gets a clear error and exit 2, never a crash; --trace and
# --timed work; the spec vector's golden output is the same from every engine.
#   scripts/tests/test_cli.sh BUILD_DIR
set -uo pipefail
B=${1:?usage: test_cli.sh BUILD_DIR}
N="$B/nettwin"
HERE=$(cd "$(dirname "$0")/.." && pwd)   # scripts/
export PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}"   # python3 -m nettwin.<block>.<tool> finds the package
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# shellcheck source=SCRIPTDIR/cli_check.sh
source "$HERE/tests/cli_check.sh"

/usr/bin/python3 -m nettwin.lb.spec_gen --out "$T/in.pcap" >/dev/null
TABLES="$HERE/../vectors/lb/spec/runsim.txt"

check "no args" 2 "usage: nettwin" "$N"
check "unknown command" 2 "unknown command 'xyz'" "$N" xyz
check "missing options" 2 "--tables, --in and --out are required" "$N" lb --in "$T/in.pcap"
check "bad engine" 2 "--engine must be" "$N" lb --tables "$TABLES" --in "$T/in.pcap" --out "$T/o.pcap" --engine foo
check "bad probability" 2 "--gaps wants a number" "$N" lb --tables "$TABLES" --in "$T/in.pcap" --out "$T/o.pcap" --gaps 2
check "unknown option" 2 "unknown option '--frob'" "$N" lb --tables "$TABLES" --in "$T/in.pcap" --out "$T/o.pcap" --frob

printf 'table_add dst_filter_table NoAction 0x00aabbccddee 0x0800\n  10.1.2.300 =>\n' > "$T/bad1.txt"
check "bad address names file:line:token" 2 "bad1.txt:2: token '10.1.2.300'" \
  "$N" lb --tables "$T/bad1.txt" --in "$T/in.pcap" --out "$T/o.pcap"
printf 'table_add member_info_lookup_table do_ipv4_member_rewrite 0x0800 0 => 0x1 1.2.3.4\n' > "$T/bad2.txt"
check "missing parameter" 2 "takes 3 parameters" "$N" lb --tables "$T/bad2.txt" --in "$T/in.pcap" --out "$T/o.pcap"
check "missing tables file" 2 "cannot open" "$N" lb --tables "$T/nope.txt" --in "$T/in.pcap" --out "$T/o.pcap"
check "missing tables file says why" 2 "nope.txt: cannot open (no such file)" \
  "$N" lb --tables "$T/nope.txt" --in "$T/in.pcap" --out "$T/o.pcap"
check "version" 0 "nettwin " "$N" --version
mkdir -p "$T/adir"
check "directory as --in" 2 "adir: cannot open (is a directory)" "$N" lb --tables "$TABLES" --in "$T/adir" --out "$T/o.pcap"
check "directory as --tables" 2 "adir: cannot open (is a directory)" "$N" lb --tables "$T/adir" --in "$T/in.pcap" --out "$T/o.pcap"
check "--out in a missing directory" 2 "cannot create (directory '$T/nodir' does not exist)" \
  "$N" lb --tables "$TABLES" --in "$T/in.pcap" --out "$T/nodir/o.pcap"
check "--out is a directory" 2 "adir: cannot create (is a directory)" "$N" lb --tables "$TABLES" --in "$T/in.pcap" --out "$T/adir"
check "--stats in a missing directory" 2 "cannot create (directory '$T/nodir' does not exist)" \
  "$N" lb --tables "$TABLES" --in "$T/in.pcap" --out "$T/o.pcap" --stats "$T/nodir/s.json"
# A binary file given as a table script: a clear message, its bytes never echoed raw into the terminal.
check "binary file with NUL as tables" 2 "in.pcap: not a text file (byte 0x00 at offset" \
  "$N" lb --tables "$T/in.pcap" --in "$T/in.pcap" --out "$T/o.pcap"
printf '\x1b[31m\xff\xfe\x01garbage\n' > "$T/bin.txt"
out=$("$N" lb --tables "$T/bin.txt" --in "$T/in.pcap" --out "$T/o.pcap" 2>&1)
if printf '%s' "$out" | LC_ALL=C grep -q $'[\x01-\x08\x0e-\x1f\x7f-\xff]'; then
  echo "FAIL: raw control or non-ASCII bytes in the error message: $(printf '%s' "$out" | od -c | head -3)"; fail=$((fail + 1))
elif ! printf '%s' "$out" | grep -qF '\x1b[31m\xff\xfe\x01garbage'; then
  echo "FAIL: escaped token not in the message: $out"; fail=$((fail + 1))
else
  pass=$((pass + 1))
fi

head -c 1000 "$T/in.pcap" > "$T/trunc.pcap"
check "truncated pcap" 2 "truncated packet data" "$N" lb --tables "$TABLES" --in "$T/trunc.pcap" --out "$T/o.pcap"
head -c 10 "$T/in.pcap" > "$T/trunc2.pcap"
check "truncated pcap header" 2 "truncated pcap file header" "$N" lb --tables "$TABLES" --in "$T/trunc2.pcap" --out "$T/o.pcap"
echo "not a pcap at all, just some text to read" > "$T/text.pcap"
check "not a pcap" 2 "not a pcap file" "$N" lb --tables "$TABLES" --in "$T/text.pcap" --out "$T/o.pcap"
: > "$T/empty.txt"
check "empty tables: everything counted as filter_miss" 0 "22 packets in, 0 out, 22 dropped" \
  "$N" lb --tables "$T/empty.txt" --in "$T/in.pcap" --out "$T/o.pcap"

check "whole-run trace" 0 "22 out" "$N" lb --tables "$TABLES" --in "$T/in.pcap" --out "$T/o.pcap" --trace "$T/w.fst"
if [ -s "$T/w.fst" ]; then pass=$((pass + 1)); else echo "FAIL trace file missing"; fail=$((fail + 1)); fi
check "trace needs an RTL engine" 2 "--trace needs the RTL (--engine rtl or lockstep)" \
  "$N" lb --tables "$TABLES" --in "$T/in.pcap" --out "$T/o.pcap" --trace "$T/w.fst" --engine model
check "timed" 0 "22 out" "$N" lb --tables "$TABLES" --in "$T/in.pcap" --out "$T/o.pcap" --timed --clock-mhz 322

for e in fast model rtl lockstep; do
  check "engine $e" 0 "22 out" "$N" lb --tables "$TABLES" --in "$T/in.pcap" --out "$T/o_$e.pcap" --engine $e
done
for e in fast model rtl; do
  # Same frames from every engine (timestamps differ: fast keeps arrival times).
  same_frames "engine $e output equals lockstep's" "$T/o_$e.pcap" "$T/o_lockstep.pcap"
done
# The golden output is also what the independent Python reference produced for this vector.
same_frames "lockstep output equals lb_ref's" "$T/o_lockstep.pcap" "$HERE/../vectors/lb/spec/expected_out.pcap"

# Capture formats: pcapng in (what Wireshark and dumpcap save), pcapng out, timestamp resolution kept.
frames() { tshark -r "$1" -T fields -e frame.len -e data.data -e udp.checksum 2>/dev/null; }
editcap -F pcapng "$T/in.pcap" "$T/in.pcapng"
editcap -F nsecpcap "$T/in.pcap" "$T/in_ns.pcap"
mergecap -F pcapng -w "$T/two_if.pcapng" "$T/in.pcap" "$T/in_ns.pcap"
for e in fast lockstep; do
  check "pcapng input, $e" 0 "22 out" "$N" lb --tables "$TABLES" --in "$T/in.pcapng" --out "$T/ng_$e.pcap" --engine $e
  check "pcapng output, $e" 0 "22 out" "$N" lb --tables "$TABLES" --in "$T/in.pcap" --out "$T/o_$e.pcapng" \
    --engine $e --out-format pcapng
done
check "pcapng, two interfaces (us and ns)" 0 "44 packets in, 44 out" \
  "$N" lb --tables "$TABLES" --in "$T/two_if.pcapng" --out "$T/two.pcap" --engine fast
check "nanosecond pcap input" 0 "22 out" "$N" lb --tables "$TABLES" --in "$T/in_ns.pcap" --out "$T/ns.pcap" --engine fast
for f in ng_fast.pcap ng_lockstep.pcap o_fast.pcapng o_lockstep.pcapng; do
  if cmp -s <(frames "$T/$f") <(frames "$T/o_lockstep.pcap"); then pass=$((pass + 1)); else
    echo "FAIL $f: frames differ from the pcap run"; fail=$((fail + 1)); fi
done
holds "--out-format pcapng" bash -c "capinfos -t '$T/o_fast.pcapng' | grep -q pcapng"
# Output keeps the input's resolution: microsecond magic d4c3b2a1 for a us input, 4d3cb2a1 for a ns input.
holds "us input gives a us output" [ "$(od -An -tx1 -N4 "$T/o_fast.pcap" | tr -d ' ')" = d4c3b2a1 ]
holds "ns input gives a ns output" [ "$(od -An -tx1 -N4 "$T/ns.pcap" | tr -d ' ')" = 4d3cb2a1 ]
head -c $(($(stat -c %s "$T/in.pcapng") - 10)) "$T/in.pcapng" > "$T/trunc.pcapng"
check "truncated pcapng" 2 "(Enhanced Packet Block, packet 22): truncated block" \
  "$N" lb --tables "$TABLES" --in "$T/trunc.pcapng" --out "$T/o.pcap" --engine fast
holds "a cut-short fast run leaves no output" [ ! -e "$T/o.pcap" ]
check "bad --out-format" 2 "--out-format must be pcap or pcapng, got 'erf'" \
  "$N" lb --tables "$TABLES" --in "$T/in.pcap" --out "$T/o.pcap" --out-format erf

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
