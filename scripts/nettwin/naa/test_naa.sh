#!/usr/bin/env bash
# `nettwin naa`: every client scenario through every engine (identical server frames), each run accepted by
# the independent checker (nettwin.naa.check) with and without gaps / backpressure, and clear errors
# (exit 2, file:line: token 'x') for bad usage, bad configs and bad pcaps.
#   scripts/nettwin/naa/test_naa.sh BUILD_DIR
set -uo pipefail
B=${1:?usage: test_naa.sh BUILD_DIR}
N="$B/nettwin"
PY=/usr/bin/python3
HERE=$(cd "$(dirname "$0")/../.." && pwd)   # scripts/
export PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}"   # python3 -m nettwin.<block>.<tool> finds the package
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# shellcheck source=SCRIPTDIR/../../tests/cli_check.sh
source "$HERE/tests/cli_check.sh"

if ! $PY -m nettwin.naa.gen --seed 3 --out-dir "$T/v" >/dev/null; then
  echo "FAIL nettwin.naa.gen did not make the vectors"; exit 1
fi
C="$T/v/naa.txt"

# ---- every scenario in lockstep, the checker on each ----
for s in connect lost reject bad; do
  I=(--config "$C" --in "$T/v/$s.pcap")
  check "$s lockstep" 0 "naa: " "$N" naa "${I[@]}" --out "$T/$s.pcap" --stats "$T/$s.json"
  check "$s checker" 0 "as the reference" $PY -m nettwin.naa.check "${I[@]}" --out "$T/$s.pcap" --stats "$T/$s.json"
done
# With input gaps and output backpressure (the regression runs every scenario so; here the busiest two).
for s in connect lost; do
  I=(--config "$C" --in "$T/v/$s.pcap")
  check "$s lockstep gaps+bp" 0 "naa: " "$N" naa "${I[@]}" --out "$T/${s}_bp.pcap" --stats "$T/${s}_bp.json" \
    --gaps 0.4 --backpressure 0.5 --seed 7
  check "$s checker gaps+bp" 0 "as the reference" $PY -m nettwin.naa.check "${I[@]}" --out "$T/${s}_bp.pcap" \
    --stats "$T/${s}_bp.json"
done
# The requester (naa_req.txt, gated client ACKs/NAKs): lockstep and the checker; the model alone gives the
# same frames. (req_retry and the gaps+bp mode run in the regression.)
CR="$T/v/naa_req.txt"
for s in requester req_fatal; do
  I=(--config "$CR" --in "$T/v/$s.pcap")
  check "$s lockstep" 0 "naa: " "$N" naa "${I[@]}" --out "$T/$s.pcap" --stats "$T/$s.json"
  check "$s checker" 0 "as the reference" $PY -m nettwin.naa.check "${I[@]}" --out "$T/$s.pcap" --stats "$T/$s.json"
done
check "requester model" 0 "naa: " "$N" naa --config "$CR" --in "$T/v/requester.pcap" --out "$T/requester_m.pcap" \
  --engine model
same_frames "requester model = lockstep" "$T/requester.pcap" "$T/requester_m.pcap"
# The controller (MRSP and RPC, naa_ctl.txt / naa_rpc_err.txt): lockstep and the checker (its RPC results from
# the client's parameters, MRSP read by Scapy and tshark); the model alone gives the same frames.
for s in rpc rpc_err; do
  CC="$T/v/naa_ctl.txt"; [ "$s" = rpc_err ] && CC="$T/v/naa_rpc_err.txt"
  I=(--config "$CC" --in "$T/v/$s.pcap")
  check "$s lockstep" 0 "naa: " "$N" naa "${I[@]}" --out "$T/$s.pcap" --stats "$T/$s.json"
  check "$s checker" 0 "RPC results as the kernels compute them" $PY -m nettwin.naa.check "${I[@]}" \
    --out "$T/$s.pcap" --stats "$T/$s.json"
done
check "rpc_lost model" 0 "naa: " "$N" naa --config "$T/v/naa_ctl.txt" --in "$T/v/rpc_lost.pcap" --out "$T/rpc_lost_m.pcap" \
  --stats "$T/rpc_lost_m.json" --engine model
check "rpc_lost checker (model)" 0 "as the reference" $PY -m nettwin.naa.check --config "$T/v/naa_ctl.txt" \
  --in "$T/v/rpc_lost.pcap" --out "$T/rpc_lost_m.pcap" --stats "$T/rpc_lost_m.json"
cp "$T/v/requester.pcap" "$T/g.pcap"
printf '# gates\n1 after 1\n2 after x\n' >"$T/g.pcap.gates"
check "bad gate line" 2 "g.pcap.gates:3: token 'x': not a decimal number" "$N" naa --config "$CR" --in "$T/g.pcap" \
  --out "$T/o.pcap"

# The engines alone give the lockstep run's frames (the scenarios with the most traffic).
for s in connect lost; do
  for eng in model rtl; do
    check "$s $eng" 0 "naa: " "$N" naa --config "$C" --in "$T/v/$s.pcap" --out "$T/${s}_$eng.pcap" --engine "$eng"
    same_frames "$s $eng = lockstep" "$T/$s.pcap" "$T/${s}_$eng.pcap"
  done
done
check "bad: every CM drop reason counted" 0 '"malformed": 1, "not_for_us": 1, "bad_icrc": 1, "bad_mad": 1, "ignored": 2' \
  cat "$T/bad.json"
check "connect: QP torn down, WRITE after DREQ dropped" 0 '"unknown_qp": 1' cat "$T/connect.json"
check "trace" 0 "naa: " "$N" naa --config "$C" --in "$T/v/connect.pcap" --out "$T/o.pcap" --trace "$T/w.fst"
check "FST written" 0 "" test -s "$T/w.fst"
check "pcapng out" 0 "naa: " "$N" naa --config "$C" --in "$T/v/connect.pcap" --out "$T/o.pcapng" --out-format pcapng
check "tshark reads the REP" 0 "0x0013" tshark -r "$T/o.pcapng" -Y infiniband.mad.attributeid==0x13 -T fields \
  -e infiniband.mad.attributeid

# ---- MRSP and RPC through the controller (vectors/naa/naa_ctl.txt): connect, an MRSP request for two
# regions (the 0x02 answer), a CRC-32 RPC (its result WRITE_WITH_IMM), disconnect; the client's frames gated
# on the endpoint's. The answer is decoded by tshark with mrsp.lua and compared with the Python layout; the
# result with zlib.crc32. ----
CC="$HERE/../vectors/naa/naa_ctl.txt"
if ! PYTHONPATH="$HERE" $PY - "$T/mrsp.pcap" <<'PYEOF'
import random, sys
from nettwin.common.pcap import write_pcap
from nettwin.naa.gen import SERVER, Client
from nettwin.naa.layers import rdma_cm_service_id
from nettwin.naa.mrsp import build_request
from nettwin.rdma.layers import OP, RETH, ImmDt, build_request as roce
QPN, COMM, PSN = 0x11, 0x1000, 0x654321          # the qp line, cm comm_id and psn of naa_ctl.txt
c = Client(random.Random(5), 0)
def req(op, ext=(), payload=b""):
    f = roce(4, c.addr["mac"], SERVER["mac"], c.addr["ip"], SERVER["ip"], c.addr["sport"], OP[op], QPN, c.psn,
             ackreq=True, ext=ext, payload=payload)
    c.psn = (c.psn + 1) & 0xFFFFFF
    return f
regions = [{"fpga": 0x40000000, "addr": 0x7f0000000000, "rkey": 0x1234, "size": 1000},
           {"fpga": 0x40001000, "addr": 0x7f0000100000, "rkey": 0x1235, "size": 64}]
data = bytes(random.Random(9).randrange(256) for _ in range(1000))
frames = [(c.req(rdma_cm_service_id(7471)), None), (c.rtu(COMM), 1),
          (req("SEND_ONLY", payload=build_request(regions)), 1),                      # -> ACK, 0x02 answer
          (c.ack(QPN, PSN), 3),
          (req("WRITE_ONLY_IMM", (RETH(va=0x40000000, rkey=0x5000, dlen=len(data)), ImmDt(imm=2)), data), 3),
          (c.ack(QPN, PSN + 1), 5),                                                   # -> ACK, the result
          (c.dreq(COMM, QPN), 5)]                                                     # -> DREP
write_pcap(sys.argv[1], [(bytes(f), i * 1e-6) for i, (f, _) in enumerate(frames)])
with open(sys.argv[1] + ".gates", "w") as g:
    g.writelines("%d after %d\n" % (i, a) for i, (_, a) in enumerate(frames) if a)
with open(sys.argv[1] + ".data", "wb") as d:
    d.write(data)
PYEOF
then
  echo "FAIL the MRSP client pcap was not made"; exit 1
fi
I=(--config "$CC" --in "$T/mrsp.pcap")
check "mrsp lockstep" 0 "controller 2 events (1 MRSP, 1 RPC, 0 dropped)" "$N" naa "${I[@]}" --out "$T/mrsp_o.pcap" \
  --stats "$T/mrsp.json"
check "mrsp model" 0 "naa: 7 client frames, 6 endpoint frames" "$N" naa "${I[@]}" --out "$T/mrsp_m.pcap" \
  --engine model
same_frames "mrsp model = lockstep" "$T/mrsp_o.pcap" "$T/mrsp_m.pcap"
# the ctl object's keys in rtl/naa/data/naa.json's order (generated, docs/naa.md): events, requests, ..., rpcs
check "mrsp stats" 0 '"ctl": {"events": 2, "requests": 1, ' cat "$T/mrsp.json"
check "mrsp stats rpcs" 0 '"rpcs": 1, "rpc_errors": ' cat "$T/mrsp.json"
check "mrsp checker (independent reference, kernels)" 0 "1 RPC results as the kernels compute them" \
  $PY -m nettwin.naa.check "${I[@]}" --out "$T/mrsp_o.pcap" --stats "$T/mrsp.json"
# The DREQ revoked the grant (regions 0); events = MRSP + RPC + drops.
check "mrsp stats balanced" 0 '"regions": 0, "state": "idle", "balanced": true' cat "$T/mrsp.json"
check "tshark + mrsp.lua decode the 0x02 answer" 0 "0x02	2	0x0000000040000000,0x0000000040001000	0x00005000,0x00005001	1000,64" \
  tshark -X "lua_script:$HERE/dissectors/mrsp.lua" -r "$T/mrsp_o.pcap" -Y "mrsp.type == 2" -T fields \
  -E occurrence=a -E aggregator=, -e mrsp.type -e mrsp.count -e mrsp.addr -e mrsp.rkey -e mrsp.size
check "the CRC-32 result WRITE_WITH_IMM" 0 "crc ok" $PY - "$T/mrsp_o.pcap" "$T/mrsp.pcap.data" <<'PYEOF'
import sys, zlib
from scapy.utils import RawPcapReader
data = open(sys.argv[2], "rb").read()
out = [bytes(d) for d, _ in RawPcapReader(sys.argv[1])]
res = [f for f in out if f[42] == 0x0B]                 # WRITE ONLY with immediate
assert len(res) == 1, len(res)
f = res[0]
va, rkey, dlen, imm = (int.from_bytes(f[54:62], "big"), int.from_bytes(f[62:66], "big"),
                       int.from_bytes(f[66:70], "big"), int.from_bytes(f[70:74], "big"))
assert (va, rkey, dlen, imm) == (0x7f0000100000, 0x1235, 4, 0), (hex(va), hex(rkey), dlen, imm)
assert f[74:78] == zlib.crc32(data).to_bytes(4, "little"), f[74:78].hex()
print("crc ok")
PYEOF

# ---- a mutated server frame is caught ----
$PY - "$T/connect.pcap" "$T/mut.pcap" <<'PYEOF'
import sys
from scapy.utils import RawPcapReader, RawPcapWriter
frames = [bytes(d) for d, _ in RawPcapReader(sys.argv[1])]
f = bytearray(frames[0]); f[86 + 12] ^= 1          # the REP's Local QPN
with RawPcapWriter(sys.argv[2], linktype=1) as w:
    for x in [bytes(f)] + frames[1:]:
        w.write(x)
PYEOF
check "checker catches a changed REP" 1 "differs from the reference at byte 98" $PY -m nettwin.naa.check \
  --config "$C" --in "$T/v/connect.pcap" --out "$T/mut.pcap"

# ---- the checked-in vector is what the generator and the reference make today ----
V="$HERE/../vectors/naa"
$PY -m nettwin.naa.gen --seed 1 --out-dir "$T/s1" >/dev/null
check "vectors/naa config regenerates" 0 "" cmp "$V/naa.txt" "$T/s1/naa.txt"
same_frames "vectors/naa client regenerates" "$V/connect.pcap" "$T/s1/connect.pcap"
$PY -m nettwin.naa.ref --config "$V/naa.txt" --in "$V/connect.pcap" --out "$T/s1/exp.pcap" >/dev/null
same_frames "vectors/naa expected output regenerates" "$V/expected_server.pcap" "$T/s1/exp.pcap"
check "vectors/naa naa_ctl_seed1.txt regenerates" 0 "" cmp "$V/naa_ctl_seed1.txt" "$T/s1/naa_ctl.txt"
for f in naa_rpc_err.txt rpc.pcap.gates; do
  check "vectors/naa $f regenerates" 0 "" cmp "$V/$f" "$T/s1/$f"
done
same_frames "vectors/naa rpc client regenerates" "$V/rpc.pcap" "$T/s1/rpc.pcap"
$PY -m nettwin.naa.ref --config "$V/naa_ctl_seed1.txt" --in "$V/rpc.pcap" --out "$T/s1/exp_rpc.pcap" >/dev/null
same_frames "vectors/naa expected rpc output regenerates" "$V/expected_rpc_server.pcap" "$T/s1/exp_rpc.pcap"

# ---- usage and input errors ----
check "no options" 2 "--config, --in and --out are required" "$N" naa
check "bad engine" 2 "--engine must be model, rtl or lockstep, got 'fast'" "$N" naa --config "$C" \
  --in "$T/v/connect.pcap" --out "$T/o.pcap" --engine fast
check "unknown option" 2 "unknown option '--frob'" "$N" naa --config "$C" --in "$T/v/connect.pcap" \
  --out "$T/o.pcap" --frob
check "help" 0 "usage: nettwin naa" "$N" naa --help
bad_config() {  # NAME TEXT EXPECTED-MESSAGE
  printf '%s\n' "$2" >"$T/bad.txt"
  check "config: $1" 2 "$3" "$N" naa --config "$T/bad.txt" --in "$T/v/connect.pcap" --out "$T/o.pcap"
}
R='responder mac 02:00:00:00:00:01 ip 10.0.0.1'
Q='qp 0x11 mtu 1024 max_rd_atomic 16 aq 0x10000'
bad_config "no cm line" "$R
$Q" "bad.txt: no 'cm' line"
bad_config "no qp line" "$R
cm port 7471" "no 'qp' line"
bad_config "cm key" "$R
$Q
cm port 7471 colour red" "bad.txt:3: token 'colour': unknown cm key"
bad_config "cm number" "$R
$Q
cm port 70000" "bad.txt:3: token '70000': does not fit in 16 bits"
bad_config "cm without service" "$R
$Q
cm guid 1" "bad.txt:3: token 'cm': cm needs 'port <tcp port>' or 'service <service id>'"
bad_config "two cm lines" "$R
$Q
cm port 1
cm port 2" "bad.txt:4: token 'cm': a second cm line"
bad_config "dest_qp set" "$R
qp 0x11 dest_qp 5 mtu 1024
cm port 1" "bad.txt:2: token 'dest_qp': set by the connection manager"
bad_config "two qps" "$R
$Q
qp 0x12 mtu 1024
cm port 1" "bad.txt:3: token 'qp': the endpoint has one QP"
bad_config "responder error passes through" "responder mac zz
$Q
cm port 1" "bad.txt:1: token 'zz'"
bad_config "post operation" "$R
$Q
cm port 1
post read laddr 1 len 2" "bad.txt:4: token 'read': unknown post operation (send, write, write_imm)"
bad_config "req key" "$R
$Q
cm port 1
req timeout 10 colour 2" "bad.txt:4: token 'colour': unknown req key (timeout, retry, rnr_retry)"
printf 'not a pcap' >"$T/bad.pcap"
check "bad pcap" 2 "nettwin naa: " "$N" naa --config "$C" --in "$T/bad.pcap" --out "$T/o.pcap"
check "ref: bad config" 2 "naa_ref: " $PY -m nettwin.naa.ref --config "$T/bad.txt" --in "$T/v/connect.pcap" \
  --out "$T/o.pcap"

echo "naa: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
