#!/usr/bin/env bash
# Every lockstep command's divergence path, end to end, through `--inject-divergence CYCLE` (one bit of the
# model's compared output flipped): exit 1, a report with the cycle, the signal, both values and the packet
# index, an FST of the cycles before it, and a replay line that, pasted into a shell, diverges again at the
# same cycle. The files live in a folder whose name has a space and a quote, so the replay line must quote.
# Also: the option refused without lockstep, and a cycle after the last output reported as nothing injected.
#   scripts/tests/test_cli_divergence.sh BUILD_DIR
set -uo pipefail
B=$(cd "${1:?usage: test_cli_divergence.sh BUILD_DIR}" && pwd)
N="$B/nettwin"
HERE=$(cd "$(dirname "$0")/.." && pwd)   # scripts/
export PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}"   # python3 -m nettwin.<block>.<tool> finds the package
ROOT=$(cd "$HERE/.." && pwd)
BASE=$(mktemp -d)
trap 'rm -rf "$BASE"' EXIT
T="$BASE/it's a dir"
mkdir -p "$T"
# shellcheck source=SCRIPTDIR/cli_check.sh
source "$HERE/tests/cli_check.sh"

small_vectors "$T"

both_values() { grep -q '^  rtl   = ' <<<"$1" && grep -q '^  model = ' <<<"$1"; }
waveform_written() { grep -qF -- "$1" <<<"$2" && test -s "$1"; }

# name | arguments after the program (one per line, so paths with spaces stay whole) | injection cycle
declare -A ARGS CYCLE
ARGS[lb]=$(printf '%s\n' lb --tables "$ROOT/vectors/lb/spec/runsim.txt" --in "$T/lb.pcap" --out "$T/lb_out.pcap")
CYCLE[lb]=30
ARGS[rdma]=$(printf '%s\n' rdma --config "$T/rdma/responder.txt" --in "$T/rdma/requests.pcap" --out "$T/rdma_out.pcap")
CYCLE[rdma]=200
ARGS[reorder]=$(printf '%s\n' reorder --config "$T/cw/reorder.txt" --in "$T/cw/arrivals.pcap" \
  --out "$T/cw_out.pcap" --ctrl-out "$T/cw_ctrl.pcap")
CYCLE[reorder]=300
ARGS[vnic_encap]=$(printf '%s\n' vnic --config "$T/vnic/vnic.txt" --direction encap --in "$T/vnic/eth.pcap" \
  --ports "$T/vnic/eth.ports" --out "$T/enc_out.pcap")
CYCLE[vnic_encap]=100
ARGS[vnic_decap]=$(printf '%s\n' vnic --config "$T/vnic/vnic.txt" --direction decap --in "$T/vnic/opa.pcap" \
  --out "$T/dec_out.pcap")
CYCLE[vnic_decap]=100
ARGS[naa]=$(printf '%s\n' naa --config "$ROOT/vectors/naa/naa.txt" --in "$ROOT/vectors/naa/connect.pcap" \
  --out "$T/naa_out.pcap")
CYCLE[naa]=50
ARGS[re]=$(printf '%s\n' re --config "$T/re/re.txt" --in "$T/re/segments.pcap" --out "$T/re_out.pcap")
CYCLE[re]=200

for name in lb rdma reorder vnic_encap vnic_decap naa re; do
  mapfile -t args <<<"${ARGS[$name]}"
  out_pcap=""
  for ((i = 0; i + 1 < ${#args[@]}; ++i)); do [ "${args[i]}" = --out ] && out_pcap=${args[i + 1]}; done
  fst="$out_pcap.mismatch.fst"
  rm -f "$fst"
  err=$("$N" "${args[@]}" --inject-divergence "${CYCLE[$name]}" 2>&1 >/dev/null)
  rc=$?
  first=$(grep -m1 '^LOCKSTEP MISMATCH at cycle' <<<"$err")
  if [ "$rc" -ne 1 ] || [ -z "$first" ]; then
    echo "FAIL $name: exit $rc (want 1) or no divergence report:"
    echo "$err" | head -8
    fail=$((fail + 1))
    continue
  fi
  cycle=$(sed -E 's/^LOCKSTEP MISMATCH at cycle ([0-9]+):.*/\1/' <<<"$first")
  holds "$name: diverges at or after the injection cycle" test "$cycle" -ge "${CYCLE[$name]}"
  holds "$name: names the output stream" grep -qE 'signal (m_data_o byte 0|m \()' <<<"$first"
  holds "$name: both values" both_values "$err"
  holds "$name: the packet index" grep -qE '#[0-9]+ being offered; .* #[0-9]+, beat [0-9]+' <<<"$err"
  holds "$name: the waveform is named and written" waveform_written "$fst" "$err"
  replay=$(grep -m1 '^  replay: ' <<<"$err" | sed 's/^  replay: //')
  words=()
  eval "words=($replay)"
  want=("$N" "${args[@]}" --inject-divergence "${CYCLE[$name]}")
  if [ "${words[*]@Q}" = "${want[*]@Q}" ]; then
    pass=$((pass + 1))
  else
    echo "FAIL $name: the replay line's words are not the command's: $replay"
    fail=$((fail + 1))
  fi
  again=$(eval "$replay" 2>&1 >/dev/null | grep -m1 '^LOCKSTEP MISMATCH at cycle')
  if [ "$again" = "$first" ]; then
    pass=$((pass + 1))
  else
    echo "FAIL $name: the pasted replay line gave '$again', want '$first'"
    echo "  replay: $replay"
    fail=$((fail + 1))
  fi
  check "$name: refused without lockstep" 2 "--inject-divergence needs --engine lockstep" \
    "$N" "${args[@]}" --inject-divergence 1 --engine model
  check "$name: nothing to inject after the last output" 1 "nothing was injected" \
    "$N" "${args[@]}" --inject-divergence 100000000
done
check "not a cycle number" 2 "--inject-divergence wants a number" \
  "$N" lb --tables "$ROOT/vectors/lb/spec/runsim.txt" --in "$T/lb.pcap" --out "$T/x.pcap" --inject-divergence x

echo "cli divergence: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
