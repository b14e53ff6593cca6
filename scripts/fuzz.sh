#!/usr/bin/env bash
# Builds the libFuzzer targets of tb/fuzz with clang (ASan + UBSan), seeds their corpora from the
# generators and the checked-in vectors, and runs each target in turn until it has run SECONDS or N
# executions, whichever comes first. Prints one line per target (wall and CPU seconds, executions, exec/s,
# coverage edges, corpus size, crashes) and a summary table at the end. Exits 1 if any target crashed (its
# reproducer is kept in BUILD/crashes/TARGET) or an input of tb/fuzz/regressions crashes again.
#   scripts/fuzz.sh [--build DIR] [--seconds N | --max-total-time N] [--cpu-seconds N] [--runs N]
#                   [--only TARGET]... [--jobs N]
#                   (--cpu-seconds: stop a target once it has used N seconds of CPU, not of wall time, so a
#                    campaign beside other work still gives each target its share; --seconds is then only a
#                    wall-time bound, none unless given)
#                   [--no-build]   (run the targets as already built in DIR: on a loaded machine at nice 19 the
#                                   configure and up-to-date checks alone take minutes)
#   make fuzz FUZZ_SECONDS=N
# The long campaign (docs/PERF.md, "Fuzzing"): nice -n 19 bash scripts/fuzz.sh --runs 10000000 --cpu-seconds 1800
# Seeds live in BUILD/seeds/TARGET (regenerated when missing, never written by the fuzzer); what the fuzzer
# finds goes to BUILD/corpus/TARGET, so later runs start from it.
set -euo pipefail
S="$(cd "$(dirname "$0")" && pwd)"
export PYTHONPATH="$S${PYTHONPATH:+:$PYTHONPATH}"   # python3 -m nettwin.<block>.<tool> finds the package
ROOT="$(cd "$S/.." && pwd)"
BUILD="$ROOT/build-fuzz"
SECONDS_EACH=60
SECONDS_GIVEN=0
CPU_SECONDS=""
RUNS=""
ONLY=()
JOBS=$(nproc)
BUILD_TARGETS=1
while [ $# -gt 0 ]; do
  case "$1" in
    --build) BUILD=$2; shift 2 ;;
    --seconds|--max-total-time) SECONDS_EACH=$2; SECONDS_GIVEN=1; shift 2 ;;
    --cpu-seconds) CPU_SECONDS=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --only) ONLY+=("$2"); shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --no-build) BUILD_TARGETS=0; shift ;;
    -h|--help) sed -n '2,/^set -euo pipefail/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) echo "fuzz.sh: unknown option '$1' (--help lists them)" >&2; exit 2 ;;
  esac
done
for v in "$SECONDS_EACH" "$CPU_SECONDS" "$RUNS" "$JOBS"; do
  if [ -n "$v" ] && ! [[ "$v" =~ ^[0-9]+$ ]]; then
    echo "fuzz.sh: '$v' is not a whole number" >&2
    exit 2
  fi
done
# shellcheck source=scripts/fuzz_targets.sh
. "$S/fuzz_targets.sh"
if [ ${#ONLY[@]} -gt 0 ]; then
  for t in "${ONLY[@]}"; do
    if ! printf '%s\n' "${TARGETS[@]}" | grep -qx -- "$t"; then
      echo "fuzz.sh: --only '$t': no such target (${TARGETS[*]})" >&2
      exit 2
    fi
  done
fi
ALL_TARGETS=("${TARGETS[@]}")
[ ${#ONLY[@]} -gt 0 ] && TARGETS=("${ONLY[@]}")
PY=/usr/bin/python3

if [ "$BUILD_TARGETS" = 1 ]; then
  LAUNCHER=()
  command -v ccache >/dev/null && LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
  cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++ -DNT_FUZZ=ON \
    "${LAUNCHER[@]}" >/dev/null
  BINS=()
  for t in "${TARGETS[@]}"; do BINS+=("${t}_fuzz"); done
  cmake --build "$BUILD" -j "$JOBS" -- "${BINS[@]}" >/dev/null
else
  for t in "${TARGETS[@]}"; do
    if [ ! -x "$BUILD/tb/fuzz/${t}_fuzz" ]; then
      echo "fuzz.sh: --no-build: $BUILD/tb/fuzz/${t}_fuzz is not built" >&2
      exit 2
    fi
  done
fi

# ---- seed corpora (regenerated when missing; small, from the generators and the vectors) ----
C="$BUILD/seeds"
if [ ! -f "$C/.seeded-v7" ]; then
  rm -rf "$C"
  for t in "${ALL_TARGETS[@]}"; do mkdir -p "$C/$t"; done
  G="$BUILD/gen"
  rm -rf "$G" && mkdir -p "$G"
  $PY -m nettwin.lb.gen --seed 1 --out-dir "$G/lb" --packets 120 >/dev/null
  $PY -m nettwin.rdma.gen --seed 1 --scenario mixed --out-dir "$G/rdma" --no-check >/dev/null
  $PY -m nettwin.reorder.gen --seed 1 --scenario mixed --out-dir "$G/cw" >/dev/null
  $PY -m nettwin.vnic.gen --seed 1 --out-dir "$G/vnic" >/dev/null
  $PY -m nettwin.re.gen --seed 1 --out-dir "$G/re" --events 20 >/dev/null
  $PY -m nettwin.re.gen --seed 1 --out-dir "$G/re/e2sar" --events 20 --header e2sar >/dev/null
  $PY -m nettwin.lb.plan_gen gen --seed 1 --out-dir "$G/plan" --packets 20 >/dev/null
  cp "$G/vnic/vnic.txt" "$C/vnic_config/gen1.txt"
  # lb_plan: tables NUL members NUL boundary NUL current start NUL now (the CLI's options, decimal)
  { cat "$G/plan/filter.txt"; printf '\0'; cat "$G/plan/members0.txt"; } >"$C/lb_plan/init"
  $PY - "$G/plan" "$ROOT/vectors/lb/spec/runsim.txt" "$C/lb_plan/switch" <<'PY'
# An in-service switch: the spec's tables (they hold an epoch) and the scenario's members and ticks.
import json, sys
d, spec, out = sys.argv[1:]
s = json.load(open(f"{d}/scenario.json"))
parts = [open(spec).read(), open(f"{d}/members1.txt").read(), str(s["boundary"]), str(s["start"]), str(s["now"])]
open(out, "wb").write("\0".join(parts).encode())
PY
  cp "$G/lb/runsim.txt" "$C/lb_script/gen1.txt"
  cp "$ROOT/vectors/lb/spec/runsim.txt" "$C/lb_script/spec.txt"
  cp "$G/rdma/responder.txt" "$C/rdma_config/mixed1.txt"
  for d in "$ROOT"/vectors/rdma/*/; do cp "$d/responder.txt" "$C/rdma_config/$(basename "$d").txt"; done
  cp "$G/cw/reorder.txt" "$C/reorder_config/mixed1.txt"
  cp "$ROOT/vectors/naa/naa.txt" "$C/naa_config/seed1.txt"
  cp "$ROOT/vectors/lb/spec/packets_in.pcap" "$C/pcap/lb_spec.pcap"
  cp "$ROOT/vectors/rdma/atomic/requests.pcap" "$C/pcap/rdma_atomic.pcap"
  $PY - "$C" "$G/lb/packets_in.pcap" "$ROOT/vectors/lb/spec/packets_in.pcap" "$G/rdma/requests.pcap" \
      "$G/cw/arrivals.pcap" "$G/vnic" "$G/re" "$ROOT/vectors/naa/connect.pcap" <<'PY'
# Frame targets read [2-byte big-endian length, bytes]...; a few frames per seed, up to 40 seeds each.
# vnic_frame starts with a byte (bit 0: encapsulate, bits 7:1 the first frame's port), re with the
# configuration text and a NUL.
import struct, sys
from scapy.utils import RawPcapReader
out, lb_gen, lb_spec, rdma, cw, vnic, re_dir, naa = sys.argv[1:]
def frames(p):
    return [bytes(d) for d, _ in RawPcapReader(p)]
def write(target, fs, per):
    for i in range(0, min(len(fs), 40 * per), per):
        blob = b"".join(struct.pack(">H", len(f)) + f for f in fs[i:i + per])
        open(f"{out}/{target}/seed{i // per:03d}", "wb").write(blob)
write("lb_frame", frames(lb_gen) + frames(lb_spec), 2)
write("rdma_frame", frames(rdma), 3)
write("reorder_frame", frames(cw), 3)
def write_prefixed(target, prefix, fs, per, name):
    for i in range(0, min(len(fs), 20 * per), per):
        blob = prefix + b"".join(struct.pack(">H", len(f)) + f for f in fs[i:i + per])
        open(f"{out}/{target}/{name}{i // per:03d}", "wb").write(blob)
write_prefixed("vnic_frame", b"\x01", frames(f"{vnic}/eth.pcap"), 3, "encap")
write_prefixed("vnic_frame", b"\x00", frames(f"{vnic}/opa.pcap"), 3, "decap")
write_prefixed("re", open(f"{re_dir}/re.txt", "rb").read() + b"\0", frames(f"{re_dir}/segments.pcap"), 8, "seg")
write_prefixed("re_frame", b"", frames(f"{re_dir}/e2sar/segments.pcap"), 4, "e2sar")  # E2SAR's header too
write("re_frame", frames(f"{re_dir}/segments.pcap"), 4)
write_prefixed("naa_frame", b"\x00", frames(naa), 3, "seed")  # no waits (the first byte)
PY
  # naa_frame starts connected (tb/fuzz/naa_frame_fuzz.cc, vectors/naa/naa_ctl.txt): MRSP SENDs and RPC
  # WRITE_WITH_IMMs from the client of tb/tests/naa_frames.h, in PSN order from its starting PSN, each
  # after the endpoint's answer to the one before.
  PYTHONPATH="$S" $PY - "$C/naa_frame" <<'PY'
import struct, sys
from nettwin.naa.mrsp import build_request as mrsp
from nettwin.rdma.layers import OP, RETH, ImmDt, build_request
out = sys.argv[1]
PSN, QPN, POOL = 0x123456, 0x11, 0x40000000
def roce(i, op, ext=(), payload=b""):
    return build_request(4, "02:00:00:00:00:02", "02:00:00:00:00:01", "10.0.0.2", "10.0.0.1", 50000, OP[op], QPN,
                         PSN + i, ackreq=True, ext=ext, payload=payload)
def regions(n, size):
    return [{"fpga": POOL + 0x1000 * i, "addr": 0x7f0000000000 + 0x10000 * i, "rkey": 0x700 + i, "size": size}
            for i in range(n)]
def write(i, region, data, imm=None):
    va, rkey = POOL + 0x1000 * region, 0x5000 + region
    if imm is None:
        return roce(i, "WRITE_ONLY", (RETH(va=va, rkey=rkey, dlen=len(data)),), data)
    return roce(i, "WRITE_ONLY_IMM", (RETH(va=va, rkey=rkey, dlen=len(data)), ImmDt(imm=imm)), data)
ack = build_request(4, "02:00:00:00:00:02", "02:00:00:00:00:01", "10.0.0.2", "10.0.0.1", 50000, OP["ACK"], QPN,
                    0x654321, ext=(bytes(4),))
data = bytes(range(256))
seeds = {
    "ctl_crc": [roce(0, "SEND_ONLY", payload=mrsp(regions(3, 256))), write(1, 0, data), write(2, 1, b"", 2)],
    "ctl_add": [roce(0, "SEND_ONLY", payload=mrsp(regions(3, 256))), write(1, 0, data), write(2, 1, data, 1)],
    "ctl_copy": [roce(0, "SEND_ONLY", payload=mrsp(regions(2, 128))), ack, write(1, 0, data[:128], 3)],
    "ctl_errors": [roce(0, "SEND_ONLY", payload=mrsp(regions(33, 64))), roce(1, "SEND_ONLY", payload=b"\x02\x01"),
                   roce(2, "SEND_ONLY", payload=mrsp(regions(2, 64))), write(3, 0, b"", 1), write(4, 0, b"", 9)],
}
for name, fs in seeds.items():
    # The first byte: the client waits for the endpoint before every frame but the first.
    open(f"{out}/{name}", "wb").write(b"\xff" + b"".join(struct.pack(">H", len(f)) + bytes(f) for f in fs))
PY
  touch "$C/.seeded-v7"
fi

# ---- run ----
mkdir -p "$BUILD/crashes" "$BUILD/logs"
crashed=0
# libFuzzer's max_total_time is wall time (0: none).
[ -n "$CPU_SECONDS" ] && [ "$SECONDS_GIVEN" = 0 ] && SECONDS_EACH=0
limit=(-max_total_time="$SECONDS_EACH")
[ -n "$RUNS" ] && limit+=(-runs="$RUNS")
TICKS=$(getconf CLK_TCK)
# RunTarget BIN ARGS...: runs the fuzzer; with --cpu-seconds, interrupts it (SIGINT: libFuzzer prints its
# final statistics and exits 72) once its user + system time reaches the bound. Sets $interrupted.
RunTarget() {
  interrupted=0
  "$@" &
  local pid=$! st=()
  if [ -n "$CPU_SECONDS" ]; then
    # Polled with builtins and a 5 s sleep: an awk and a sleep every second cost about 100 CPU seconds of a
    # 30-minute target on the loaded machine, counted in its time and taken from the fuzzer.
    while kill -0 "$pid" 2>/dev/null; do
      # Fields 14 and 15 of /proc/PID/stat: user and system time in clock ticks (the name has no spaces).
      read -r -a st 2>/dev/null <"/proc/$pid/stat" || break
      if [ $((st[13] + st[14])) -ge $((CPU_SECONDS * TICKS)) ]; then
        interrupted=1
        kill -INT "$pid" 2>/dev/null || true
        break
      fi
      sleep 5
    done
  fi
  wait "$pid"
}
row() { printf '%-16s %8s %8s %12s %9s %7s %8s %8s\n' "$@"; }
header=$(row target wall_s cpu_s execs exec/s edges corpus crashes)
echo "$header"
summary=()
total_execs=0
for t in "${TARGETS[@]}"; do
  log="$BUILD/logs/$t.log"
  rc=0
  mkdir -p "$BUILD/crashes/$t" "$BUILD/corpus/$t" "$C/$t"  # a target added after seeding starts empty
  # Inputs that once crashed (tb/fuzz/regressions/TARGET, each a fixed bug) must now run clean.
  reg="$ROOT/tb/fuzz/regressions/$t"
  if [ -d "$reg" ] && ! "$BUILD/tb/fuzz/${t}_fuzz" "$reg"/* >"$BUILD/logs/$t.regressions.log" 2>&1; then
    crashed=1
    echo "  $t: a fixed crash is back: $BUILD/tb/fuzz/${t}_fuzz $reg/*; log $BUILD/logs/$t.regressions.log"
  fi
  args=()
  while IFS= read -r a; do args+=("$a"); done < <(FuzzArgs "$t")
  start=$(date +%s)
  # New inputs go to BUILD/corpus/TARGET (first directory); the seeds are only read.
  TIMEFORMAT='%U %S'
  { time RunTarget "$BUILD/tb/fuzz/${t}_fuzz" "$BUILD/corpus/$t" "$C/$t" "${args[@]}" "${limit[@]}" \
      -artifact_prefix="$BUILD/crashes/$t/" -print_final_stats=1 >"$log" 2>&1 || rc=$?; } 2>"$log.cpu"
  # Interrupted by the CPU bound: libFuzzer's exit code for SIGINT, not a finding.
  [ "$interrupted" = 1 ] && [ "$rc" = 72 ] && rc=0
  wall=$(($(date +%s) - start))
  cpu=$(awk '{ printf "%.1f", $1 + $2 }' "$log.cpu")
  execs=$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}' || true)
  rate=$(grep -m1 'stat::average_exec_per_sec' "$log" | awk '{print $2}' || true)
  cov=$(grep -E '#[0-9]+.*cov:' "$log" | tail -1 | sed -E 's/.*cov: ([0-9]+).*/\1/' || true)
  corp=$(grep -E '#[0-9]+.*corp:' "$log" | tail -1 | sed -E 's/.*corp: ([0-9]+).*/\1/' || true)
  n=$(find "$BUILD/crashes/$t" -type f | wc -l)
  line=$(row "$t" "$wall" "$cpu" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${corp:-?}" "$n")
  echo "$line"
  summary+=("$line")
  total_execs=$((total_execs + ${execs:-0}))
  if [ "$rc" -ne 0 ] || [ "$n" -gt 0 ]; then
    crashed=1
    echo "  $t: FAILED (exit $rc); log $log; reproduce: $BUILD/tb/fuzz/${t}_fuzz $BUILD/crashes/$t/<file>"
    grep -m3 -E 'ERROR|runtime error|deadly signal' "$log" | sed 's/^/    /'
  fi
done
if [ ${#TARGETS[@]} -gt 1 ]; then
  limits="${SECONDS_EACH} s"
  [ -n "$CPU_SECONDS" ] && limits="$CPU_SECONDS CPU s"
  [ -n "$RUNS" ] && limits="$limits or $RUNS executions"
  echo
  echo "summary: ${#TARGETS[@]} targets, each up to $limits; $total_execs executions in all"
  echo "$header"
  printf '%s\n' "${summary[@]}"
fi
exit $crashed
