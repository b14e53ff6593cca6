#!/usr/bin/env bash
# Executions per second of the libFuzzer targets (docs/PERF.md, "Fuzzing"): each target runs SECONDS from
# a frozen corpus (new units go to a scratch directory, so every run starts from the same inputs) with a
# fixed -seed, and the line gives libFuzzer's executions and exec/s (wall) and the executions per CPU
# second of the process (user + sys), which on a shared machine is the steadier number.
#   bench/fuzz_rate.sh --bin DIR --corpus DIR [--seconds N] [--only TARGET]...
# DIR of --bin holds TARGET_fuzz binaries (e.g. build-fuzz/tb/fuzz, or a copy of older ones to compare),
# --corpus one folder per target (e.g. build-fuzz/seeds).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN=""
CORPUS=""
SECS=10
ONLY=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) BIN=$2; shift 2 ;;
    --corpus) CORPUS=$2; shift 2 ;;
    --seconds) SECS=$2; shift 2 ;;
    --only) ONLY+=("$2"); shift 2 ;;
    *) echo "fuzz_rate.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
if [ -z "$BIN" ] || [ -z "$CORPUS" ]; then
  echo "fuzz_rate.sh: --bin DIR and --corpus DIR are required" >&2
  exit 2
fi
# shellcheck source=scripts/fuzz_targets.sh
. "$ROOT/scripts/fuzz_targets.sh"
[ ${#ONLY[@]} -gt 0 ] && TARGETS=("${ONLY[@]}")
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT
printf '%-16s %8s %10s %10s %8s %12s\n' target seconds execs exec/s cpu_s execs/cpu_s
for t in "${TARGETS[@]}"; do
  mkdir -p "$SCRATCH/$t"
  log="$SCRATCH/$t.log"
  args=()
  while IFS= read -r a; do args+=("$a"); done < <(FuzzArgs "$t")
  TIMEFORMAT='%U %S'
  { time "$BIN/${t}_fuzz" "$SCRATCH/$t" "$CORPUS/$t" "${args[@]}" -seed=1 -max_total_time="$SECS" \
      -print_final_stats=1 >"$log" 2>&1 || true; } 2>"$log.cpu"
  execs=$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')
  rate=$(grep -m1 'stat::average_exec_per_sec' "$log" | awk '{print $2}')
  cpu=$(awk '{ print $1 + $2 }' "$log.cpu")
  printf '%-16s %8s %10s %10s %8s %12s\n' "$t" "$SECS" "${execs:-?}" "${rate:-?}" "${cpu:-?}" \
    "$(awk -v e="${execs:-0}" -v c="${cpu:-0}" 'BEGIN { if (c > 0) printf "%d", e / c; else print "?" }')"
done
