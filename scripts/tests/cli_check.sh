# shellcheck shell=bash
# Shared by the CLI tests: `check NAME EXIT TEXT CMD...` runs CMD and passes if it exits with EXIT and its
# output contains TEXT; counts into $pass / $fail.
pass=0
fail=0
check() {
  local name=$1 want=$2 text=$3
  shift 3
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$want" ] || ! grep -qF -- "$text" <<<"$out"; then
    echo "FAIL $name: exit $rc (want $want), output:"
    echo "$out" | head -5
    fail=$((fail + 1))
  else
    pass=$((pass + 1))
  fi
}
# `same_frames NAME A.pcap B.pcap`: passes if both pcaps hold the same frames byte for byte (timestamps
# aside) and at least one frame; a pcap that cannot be read fails (its error is shown), never compares
# equal to another unreadable one.
same_frames() {
  local name=$1 out
  if out=$(/usr/bin/python3 - "$2" "$3" 2>&1 <<'PY'
import sys
from scapy.utils import RawPcapReader
a, b = ([bytes(d) for d, _ in RawPcapReader(p)] for p in sys.argv[1:3])
if not a:
    sys.exit(f"{sys.argv[1]}: no frames")
if a != b:
    first = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    sys.exit(f"{len(a)} vs {len(b)} frames, first difference at frame {first}")
print(f"{len(a)} frames equal")
PY
  ); then
    pass=$((pass + 1))
  else
    echo "FAIL $name: $out" | head -5
    fail=$((fail + 1))
  fi
}
# `holds NAME CMD...`: passes if CMD exits 0 (a condition, e.g. `test` or a pipeline in `bash -c`).
holds() {
  local name=$1
  shift
  if "$@"; then
    pass=$((pass + 1))
  else
    echo "FAIL $name"
    fail=$((fail + 1))
  fi
}
# `small_vectors DIR`: one small input of each generator into DIR (lb.pcap, rdma/, cw/, vnic/, re/), for the
# tests that run every subcommand; a generator that fails ends the test.
small_vectors() {
  local d=$1 py=/usr/bin/python3
  gen() {
    local name=$1
    shift
    "$@" >/dev/null || { echo "FAIL $name did not make its vector"; exit 1; }
  }
  gen ejfat_spec_gen "$py" -m nettwin.lb.spec_gen --out "$d/lb.pcap"
  gen rdma_gen "$py" -m nettwin.rdma.gen --seed 3 --out-dir "$d/rdma" --scenario atomic
  gen reorder_gen "$py" -m nettwin.reorder.gen --seed 3 --scenario ecn --flows 4 --out-dir "$d/cw"
  gen vnic_gen "$py" -m nettwin.vnic.gen --seed 3 --frames 40 --out-dir "$d/vnic"
  gen re_gen "$py" -m nettwin.re.gen --seed 1 --out-dir "$d/re"
}
