#!/usr/bin/env bash
# Assertion evidence (docs/assertions.md, issue 27 item 5): every block has one planted RTL-only protocol bug
# behind -DNT_MUTATE_<BLOCK> (the model is not touched). This builds a nettwin whose Verilated blocks carry
# their bug (a build directory configured with -DNT_MUTANTS), runs each block's lockstep command with output
# backpressure, and requires for each:
#   - the run stops with "RTL ASSERTION FAILED at cycle C: <assertion>", exit 1, a replay line and an FST;
#   - with the assertions switched off (NT_SVA_OFF=1) lockstep alone diverges at a cycle D >= C.
# It prints one row per block (block, bug, assertion, C, D) and exits 1 if any block fails.
#   scripts/sva_mutants.sh [--build DIR] [--target T] [BLOCK...]
#     BLOCK: LB UDPLB RDMA RDMA_DMA REORDER REROUTE VNIC RE NAA (default all; RDMA_DMA is rdma's second bug,
#     on its DMA request port); T: the program built and run (default
#     nettwin; nettwin_reroute needs only the reroute block, which keeps ctest sva_mutants to one Verilated model)
# DIR (default build-mutants in the repository) is configured and built here, the Verilated code at -O1 (it
# compiles about three times faster than -O3, and these runs are short). NT_MUTANT_OPT=-O3 in the environment
# builds at the normal build's level instead, so the blocks without a bug come from ccache after a normal build.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B="$ROOT/build-mutants"
if [ "${1:-}" = --build ]; then
  B=$(mkdir -p "${2:?--build DIR}" && cd "$2" && pwd)
  shift 2
fi
TARGET=nettwin
if [ "${1:-}" = --target ]; then
  TARGET=${2:?--target T}
  shift 2
fi
ALL=(LB UDPLB RDMA RDMA_DMA REORDER REROUTE VNIC RE NAA)
BLOCKS=("$@")
[ ${#BLOCKS[@]} -eq 0 ] && BLOCKS=("${ALL[@]}")
PY=/usr/bin/python3
HERE="$ROOT/scripts"
export PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}"   # python3 -m nettwin.<block>.<tool> finds the package
mkdir -p "$B"
list=$(IFS=';'; echo "${BLOCKS[*]}")

export CCACHE_BASEDIR=/work
if ! cmake -S "$ROOT" -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
    "-DNT_MUTANTS=$list" "-DNT_VERILATED_OPT=${NT_MUTANT_OPT:--O1}" >"$B/sva_configure.log" 2>&1; then
  echo "FAIL configure (see $B/sva_configure.log)"; exit 1
fi
if ! nice cmake --build "$B" -j2 --target "$TARGET" >"$B/sva_build.log" 2>&1; then
  echo "FAIL build (see $B/sva_build.log)"; exit 1
fi
N="$B/$TARGET"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
gen() { "$@" >/dev/null || { echo "FAIL vector: $*"; exit 1; }; }

declare -A ARGS BUG
BUG[LB]="the output register's waiting beat changes (nt_skid_buffer, LB only)"
BUG[UDPLB]="S8 stage beat changes while the pipeline is stalled (udplb_top)"
BUG[RDMA]="m_valid_o drops every other stalled cycle (rdma_top)"
BUG[RDMA_DMA]="the DMA request port holds nothing: a waiting request is replaced (rdma_top)"
BUG[REORDER]="m_valid_o drops every other stalled cycle (reorder_top)"
BUG[REROUTE]="m_valid_o drops every other stalled cycle (reroute_top)"
BUG[VNIC]="head valid drops every other stalled cycle (vnic_store_forward; encap)"
BUG[VNIC_DECAP]="the same bug, the decapsulation top"
BUG[RE]="m_valid_o drops every other stalled cycle (re_event_buffer)"
BUG[NAA]="m_valid_o drops every other stalled cycle (naa_top's output mux)"
for blk in "${BLOCKS[@]}"; do
  case $blk in
    LB)
      gen "$PY" -m nettwin.lb.gen --seed 1 --packets 200 --out-dir "$T/lb"
      ARGS[LB]="lb --tables $T/lb/runsim.txt --in $T/lb/packets_in.pcap --out $T/lb_out.pcap" ;;
    UDPLB)
      gen "$PY" -m nettwin.lb.udplb_gen --seed 1 --packets 200 --out-pcap "$T/udplb.pcap" --out-tables "$T/udplb.txt"
      ARGS[UDPLB]="lb --program udplb --tables $T/udplb.txt --in $T/udplb.pcap --out $T/udplb_out.pcap" ;;
    RDMA)
      gen "$PY" -m nettwin.rdma.gen --seed 3 --out-dir "$T/rdma" --scenario mixed
      ARGS[RDMA]="rdma --config $T/rdma/responder.txt --in $T/rdma/requests.pcap --out $T/rdma_out.pcap" ;;
    RDMA_DMA)  # a host that takes one request at a time keeps requests waiting
      gen "$PY" -m nettwin.rdma.gen --seed 3 --out-dir "$T/rdma_dma" --scenario mixed
      ARGS[RDMA_DMA]="rdma --config $T/rdma_dma/responder.txt --in $T/rdma_dma/requests.pcap --out $T/rdma_dma_out.pcap --mem-model slots --mem-outstanding 1" ;;
    REORDER)
      gen "$PY" -m nettwin.reorder.gen --seed 3 --scenario ecn --flows 4 --out-dir "$T/cw"
      ARGS[REORDER]="reorder --config $T/cw/reorder.txt --in $T/cw/arrivals.pcap --out $T/cw_out.pcap --ctrl-out $T/cw_ctrl.pcap" ;;
    REROUTE)
      gen "$PY" -m nettwin.reroute.gen --seed 2 --scenario overflow --out-dir "$T/rr"
      ARGS[REROUTE]="reroute --in $T/rr/hosts.pcap --ctrl-in $T/rr/control.pcap --out $T/rr_out.pcap --flows 4 --paths 8" ;;
    VNIC)
      gen "$PY" -m nettwin.vnic.gen --seed 3 --frames 60 --out-dir "$T/vnic"
      ARGS[VNIC]="vnic --config $T/vnic/vnic.txt --direction encap --in $T/vnic/eth.pcap --ports $T/vnic/eth.ports --out $T/enc_out.pcap"
      ARGS[VNIC_DECAP]="vnic --config $T/vnic/vnic.txt --direction decap --in $T/vnic/opa.pcap --out $T/dec_out.pcap" ;;
    RE)
      gen "$PY" -m nettwin.re.gen --seed 1 --out-dir "$T/re"
      ARGS[RE]="re --config $T/re/re.txt --in $T/re/segments.pcap --out $T/re_out.pcap" ;;
    NAA)
      ARGS[NAA]="naa --config $ROOT/vectors/naa/naa.txt --in $ROOT/vectors/naa/connect.pcap --out $T/naa_out.pcap" ;;
    *) echo "unknown block $blk (one of ${ALL[*]})"; exit 2 ;;
  esac
done

# VNIC's one bug serves both tops: both directions are run.
RUNS=()
for blk in "${BLOCKS[@]}"; do
  RUNS+=("$blk")
  [ "$blk" = VNIC ] && RUNS+=(VNIC_DECAP)
done
fail=0
printf '| block | planted bug | assertion that fired | assertion cycle | lockstep alone diverges at |\n|---|---|---|---|---|\n'
for blk in "${RUNS[@]}"; do
  read -r -a args <<<"${ARGS[$blk]}"
  err=$("$N" "${args[@]}" --backpressure 0.5 --seed 1 2>&1 >/dev/null)
  rc=$?
  # every block, reroute included, reports in tb::MismatchReport's format (tb/common/harness.h)
  first=$(grep -m1 '^RTL ASSERTION FAILED at cycle' <<<"$err")
  off=$(NT_SVA_OFF=1 "$N" "${args[@]}" --backpressure 0.5 --seed 1 2>&1 >/dev/null)
  lock=$(grep -m1 -oE '^LOCKSTEP MISMATCH at cycle [0-9]+' <<<"$off" | grep -oE '[0-9]+$')
  if [ "$rc" -ne 1 ] || [ -z "$first" ]; then
    echo "| $blk | ${BUG[$blk]} | NONE (exit $rc) | - | ${lock:-none} |"
    echo "$err" | head -6 | sed 's/^/    /'
    fail=$((fail + 1))
    continue
  fi
  cyc=$(sed -E 's/^RTL ASSERTION FAILED at cycle ([0-9]+): .*/\1/' <<<"$first")
  name=$(sed -E 's/^RTL ASSERTION FAILED at cycle [0-9]+: ([^ ]*).*/\1/' <<<"$first")
  echo "| $blk | ${BUG[$blk]} | \`$name\` | $cyc | ${lock:-none} |"
  if ! grep -q '^  replay: ' <<<"$err"; then
    echo "    FAIL $blk: no replay line"; fail=$((fail + 1))
  fi
  if [ -n "$lock" ] && [ "$lock" -lt "$cyc" ]; then
    echo "    FAIL $blk: lockstep alone diverges at $lock, before the assertion ($cyc)"; fail=$((fail + 1))
  fi
done
[ "$fail" -eq 0 ] && echo "sva_mutants: ${#RUNS[@]} of ${#RUNS[@]} planted-bug runs caught by an assertion" ||
  echo "sva_mutants: $fail FAILED"
[ "$fail" -eq 0 ]
