#!/usr/bin/env bash
# rdma_pkg's ICRC by GF(2) matrices (issue 27, branch crc15) on a real RoCEv2 capture and on random inputs:
# tb/rdma/icrc_matrix_tb.sv under Verilator; every frame's ICRC must be the one on the wire, and icrc_beat must
# equal the byte-serial form for 200,000 random beats (ctest rdma_icrc_matrix).
#   scripts/tests/test_icrc_matrix.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
nf=$(/usr/bin/python3 - "$ROOT/vectors/peers/roce/oferby_proxy_roce.pcap" "$T" <<'PY'
import sys
from scapy.all import rdpcap, UDP
frames = [bytes(p) for p in rdpcap(sys.argv[1]) if UDP in p and p[UDP].dport == 4791]
beats = 24
assert frames and max(len(f) for f in frames) <= 64 * beats and len(frames) <= 256
with open(f"{sys.argv[2]}/frames.hex", "w") as fh:
    for f in frames:
        fh.write(int.from_bytes(f + bytes(64 * beats - len(f)), "little").to_bytes(64 * beats, "big").hex() + "\n")
with open(f"{sys.argv[2]}/lens.hex", "w") as fh:
    fh.writelines(f"{len(f):04x}\n" for f in frames)
print(len(frames))
PY
)
R="$ROOT/rtl"
nice verilator --binary -O1 -Wno-fatal -Wno-WIDTH -Wno-UNUSED -I"$R/common" --top-module icrc_matrix_tb -Mdir "$T/obj" \
  "$R/common/nt_pkg.sv" "$R/common/nt_crc_pkg.sv" "$R/rdma/rdma_crc_pkg.sv" "$R/rdma/rdma_pkg.sv" \
  "$ROOT/tb/rdma/icrc_matrix_tb.sv" >"$T/build.log" 2>&1 || { tail -20 "$T/build.log"; echo "FAIL build"; exit 1; }
out=$(cd "$T" && ./obj/Vicrc_matrix_tb +nf="$nf")
echo "$out"
if ! grep -q "real capture: $nf RoCEv2 frames, 0 mismatches" <<<"$out" || ! grep -q "0 mismatches in all" <<<"$out"; then
  echo "rdma_icrc_matrix: FAIL"; exit 1
fi
echo "rdma_icrc_matrix: ok"
