#!/usr/bin/env bash
# The input and output errors a new user meets (issue 28), on every subcommand that reads or writes files,
# not only lb (test_cli.sh): a directory given as --in, an output in a missing directory or on a directory,
# a binary file given as the configuration (a clear message, its bytes never echoed raw), each exit 2 with
# "nettwin <command>: <path>: ..." naming the reason.
#   scripts/tests/test_cli_inputs.sh BUILD_DIR
set -uo pipefail
B=$(cd "${1:?usage: test_cli_inputs.sh BUILD_DIR}" && pwd)
N="$B/nettwin"
HERE=$(cd "$(dirname "$0")/.." && pwd)   # scripts/
export PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}"   # python3 -m nettwin.<block>.<tool> finds the package
ROOT=$(cd "$HERE/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# shellcheck source=SCRIPTDIR/cli_check.sh
source "$HERE/tests/cli_check.sh"

small_vectors "$T"
mkdir -p "$T/adir"
# A binary file without a NUL byte: escape sequences and bytes that are not UTF-8.
printf 'port \x1b[31m\xff\xfe\x07 0\n' > "$T/esc.txt"
raw_free() { ! grep -q $'\x1b' <<<"$1"; }

check "version" 0 "nettwin " "$N" --version
check "version spelled as a command" 0 "nettwin " "$N" version

# name | the configuration option and file | the other arguments (one per line) | its input option
declare -A CFG ARGS
CFG[lb]="--tables $ROOT/vectors/lb/spec/runsim.txt"
ARGS[lb]=$(printf '%s\n' lb)
CFG[rdma]="--config $T/rdma/responder.txt"
ARGS[rdma]=$(printf '%s\n' rdma)
CFG[reorder]="--config $T/cw/reorder.txt"
ARGS[reorder]=$(printf '%s\n' reorder --ctrl-out "$T/ctrl.pcap")
CFG[vnic]="--config $T/vnic/vnic.txt"
ARGS[vnic]=$(printf '%s\n' vnic --direction encap)
CFG[naa]="--config $ROOT/vectors/naa/naa.txt"
ARGS[naa]=$(printf '%s\n' naa)
CFG[re]="--config $T/re/re.txt"
ARGS[re]=$(printf '%s\n' re)
CFG[reroute]=""
ARGS[reroute]=$(printf '%s\n' reroute)
# The quickest engine of each: the output errors come after the run.
declare -A QUICK=([lb]=fast [rdma]=model [reorder]=model [vnic]=model [naa]=model [re]=fast [reroute]=model)
declare -A IN=([lb]="$T/lb.pcap" [rdma]="$T/rdma/requests.pcap" [reorder]="$T/cw/arrivals.pcap"
  [vnic]="$T/vnic/eth.pcap" [naa]="$ROOT/vectors/naa/connect.pcap" [re]="$T/re/segments.pcap"
  [reroute]="$T/cw/arrivals.pcap")

for name in lb rdma reorder vnic naa re reroute; do
  mapfile -t args <<<"${ARGS[$name]}"
  read -r -a cfg <<<"${CFG[$name]}"
  check "$name: directory as --in" 2 "nettwin ${args[0]}: $T/adir: cannot open (is a directory)" \
    "$N" "${args[@]}" "${cfg[@]}" --in "$T/adir" --out "$T/o.pcap"
  check "$name: --out in a missing directory" 2 \
    "nettwin ${args[0]}: $T/nodir/o.pcap: cannot create (directory '$T/nodir' does not exist)" \
    "$N" "${args[@]}" "${cfg[@]}" --in "${IN[$name]}" --out "$T/nodir/o.pcap" --engine "${QUICK[$name]}"
  check "$name: --out is a directory" 2 "nettwin ${args[0]}: $T/adir: cannot create (is a directory)" \
    "$N" "${args[@]}" "${cfg[@]}" --in "${IN[$name]}" --out "$T/adir" --engine "${QUICK[$name]}"
  holds "$name: a directory given as --out is left in place" test -d "$T/adir"
  mkdir -p "$T/adir"  # (so one command's loss does not fail the next ones)
  if [ ${#cfg[@]} -gt 0 ]; then
    check "$name: directory as ${cfg[0]}" 2 "nettwin ${args[0]}: $T/adir: cannot open (is a directory)" \
      "$N" "${args[@]}" "${cfg[0]}" "$T/adir" --in "${IN[$name]}" --out "$T/o.pcap"
    check "$name: a pcap as ${cfg[0]}" 2 "nettwin ${args[0]}: ${IN[$name]}: not a text file (byte 0x00 at offset" \
      "$N" "${args[@]}" "${cfg[0]}" "${IN[$name]}" --in "${IN[$name]}" --out "$T/o.pcap"
    out=$("$N" "${args[@]}" "${cfg[0]}" "$T/esc.txt" --in "${IN[$name]}" --out "$T/o.pcap" 2>&1)
    rc=$?
    holds "$name: escape bytes in ${cfg[0]}: exit 2 ($rc)" test "$rc" -eq 2
    holds "$name: escape bytes in ${cfg[0]} are not echoed raw" raw_free "$out"
  fi
done
# The other outputs, one per command that has them.
check "rdma: --mem-out in a missing directory" 2 "cannot create (directory '$T/nodir' does not exist)" \
  "$N" rdma --config "$T/rdma/responder.txt" --in "$T/rdma/requests.pcap" --out "$T/o.pcap" --mem-out "$T/nodir/m.json" \
  --engine model
check "reorder: --ctrl-out in a missing directory" 2 "cannot create (directory '$T/nodir' does not exist)" \
  "$N" reorder --config "$T/cw/reorder.txt" --in "$T/cw/arrivals.pcap" --out "$T/o.pcap" --ctrl-out "$T/nodir/c.pcap" \
  --engine model
check "re: --report in a missing directory" 2 "cannot create (directory '$T/nodir' does not exist)" \
  "$N" re --config "$T/re/re.txt" --in "$T/re/segments.pcap" --out "$T/o.pcap" --report "$T/nodir/r.json" \
  --engine fast
check "vnic: --stats in a missing directory" 2 "cannot create (directory '$T/nodir' does not exist)" \
  "$N" vnic --config "$T/vnic/vnic.txt" --direction encap --in "$T/vnic/eth.pcap" --out "$T/o.pcap" \
  --stats "$T/nodir/s.json" --engine model
check "vnic: a pcap as --ports" 2 "eth.pcap: not a text file (byte 0x00 at offset" \
  "$N" vnic --config "$T/vnic/vnic.txt" --direction encap --in "$T/vnic/eth.pcap" --out "$T/o.pcap" \
  --ports "$T/vnic/eth.pcap"
check "cwloop: --out-dir in a missing directory" 2 "cannot create (directory '$T/nodir/x' does not exist)" \
  "$N" cwloop --out-dir "$T/nodir/x" --packets 5
check "old name cw-loop: --out-dir in a missing directory" 2 "cannot create (directory '$T/nodir/x' does not exist)" \
  "$N" cw-loop --out-dir "$T/nodir/x" --packets 5  # the old name
check "lb-plan: a pcap as --tables" 2 "lb.pcap: not a text file (byte 0x00 at offset" \
  "$N" lb-plan --tables "$T/lb.pcap" --members "$T/esc.txt" --boundary 5 --out "$T/s.txt" --cleanup-out "$T/c.txt"

echo "cli inputs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
