#!/usr/bin/env bash
# CLI behaviour of `nettwin rdma` and `nettwin rdma-latency`: clear errors and exit 2 on bad input, the
# documented outputs on good input, and the latency scenario's invariants.
#   scripts/tests/test_rdma_cli.sh BUILD_DIR
set -uo pipefail
B=${1:?usage: test_rdma_cli.sh BUILD_DIR}
N="$B/nettwin"
HERE=$(cd "$(dirname "$0")/.." && pwd)   # scripts/
export PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}"   # python3 -m nettwin.<block>.<tool> finds the package
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# shellcheck source=SCRIPTDIR/cli_check.sh
source "$HERE/tests/cli_check.sh"

/usr/bin/python3 -m nettwin.rdma.gen --seed 3 --out-dir "$T/v" --scenario atomic >/dev/null
C="$T/v/responder.txt"
R="$T/v/requests.pcap"

check "missing options" 2 "--config, --in and --out are required" "$N" rdma --in "$R"
check "bad engine" 2 "--engine must be" "$N" rdma --config "$C" --in "$R" --out "$T/o.pcap" --engine fast
check "unknown option" 2 "unknown option '--x'" "$N" rdma --config "$C" --in "$R" --out "$T/o.pcap" --x
printf 'responder mac 02:00:00:00:00:01 ip 10.0.0.1\nqp 0x11 dest_qp 0x22 mtu 1000\n' > "$T/bad1.txt"
check "bad mtu names file:line:token" 2 "bad1.txt:2: token '1000': mtu is 256, 512, 1024, 2048 or 4096" \
  "$N" rdma --config "$T/bad1.txt" --in "$R" --out "$T/o.pcap"
printf 'responder mac 02:00:00:00:00:01\nmr 1 va 0 len 16 pa 0 access rwx\n' > "$T/bad2.txt"
check "bad access letters" 2 "bad2.txt:2: token 'rwx': access letters are r, w and a" \
  "$N" rdma --config "$T/bad2.txt" --in "$R" --out "$T/o.pcap"
printf 'qp 1 dest_qp 2\n' > "$T/bad3.txt"
check "no responder line" 2 "no 'responder' line" "$N" rdma --config "$T/bad3.txt" --in "$R" --out "$T/o.pcap"
printf 'responder mac 02:00:00:00:00:01\nmem 0x10 abc\n' > "$T/bad4.txt"
check "odd hex" 2 "odd number of hex digits" "$N" rdma --config "$T/bad4.txt" --in "$R" --out "$T/o.pcap"
head -c 500 "$R" > "$T/trunc.pcap"
check "truncated pcap" 2 "truncated" "$N" rdma --config "$C" --in "$T/trunc.pcap" --out "$T/o.pcap"

for e in model rtl lockstep; do
  check "engine $e" 0 "responses" "$N" rdma --config "$C" --in "$R" --out "$T/o_$e.pcap" --mem-out "$T/m_$e.json" \
    --stats "$T/s_$e.json" --engine $e --mem-read-cycles 40
done
for e in model rtl; do
  # Every response byte (RoCE payloads included: tshark shows most of them as no data.data field).
  same_frames "engine $e responses equal lockstep's" "$T/o_$e.pcap" "$T/o_lockstep.pcap"
  if cmp -s "$T/m_$e.json" "$T/m_lockstep.json"; then pass=$((pass + 1)); else
    echo "FAIL engine $e memory differs from lockstep"; fail=$((fail + 1))
  fi
done
check "mem-out is JSON of rkeys" 0 "ok" /usr/bin/python3 -c "
import json,sys; d=json.load(open('$T/m_lockstep.json')); assert d and all(k.isdigit() for k in d); print('ok')"
check "trace" 0 "responses" "$N" rdma --config "$C" --in "$R" --out "$T/o.pcap" --trace "$T/w.fst" --mem-read-cycles 40
if [ -s "$T/w.fst" ]; then pass=$((pass + 1)); else echo "FAIL no trace"; fail=$((fail + 1)); fi

# The host model changes timing, never results: the old slots model with one request at a time and slow
# writes gives the same responses and memory as the default PCIe model.
check "bad host model" 2 "pcie or slots" "$N" rdma --config "$C" --in "$R" --out "$T/o.pcap" --mem-model pci
check "bad link bandwidth" 2 "--mem-link-bytes-per-cycle wants a number" "$N" rdma --config "$C" --in "$R" \
  --out "$T/o.pcap" --mem-link-bytes-per-cycle 0
check "slots host" 0 "responses" "$N" rdma --config "$C" --in "$R" --out "$T/o_slots.pcap" --mem-out "$T/m_slots.json" \
  --mem-model slots --mem-outstanding 1 --mem-write-cycles 40 --mem-read-cycles 40
check "narrow pcie host" 0 "responses" "$N" rdma --config "$C" --in "$R" --out "$T/o_narrow.pcap" \
  --mem-out "$T/m_narrow.json" --mem-link-bytes-per-cycle 3.5 --mem-posted-credits 4 --mem-posted-headers 1 \
  --mem-outstanding 1 --mem-read-cycles 40
for h in slots narrow; do
  same_frames "$h host responses equal the default host's" "$T/o_$h.pcap" "$T/o_lockstep.pcap"
  if cmp -s "$T/m_$h.json" "$T/m_lockstep.json"; then pass=$((pass + 1)); else
    echo "FAIL $h host memory differs from the default host's"; fail=$((fail + 1))
  fi
done

# pcapng in and out: the same responses as from the pcap.
editcap -F pcapng "$R" "$T/r.pcapng"
check "pcapng in, pcapng out" 0 "responses" "$N" rdma --config "$C" --in "$T/r.pcapng" --out "$T/o.pcapng" \
  --out-format pcapng --mem-read-cycles 40
if capinfos -t "$T/o.pcapng" | grep -q pcapng &&
   cmp -s <(tshark -r "$T/o.pcapng" -T fields -e frame.len -e data.data 2>/dev/null) \
          <(tshark -r "$T/o_lockstep.pcap" -T fields -e frame.len -e data.data 2>/dev/null); then
  pass=$((pass + 1))
else
  echo "FAIL pcapng run differs from the pcap run"; fail=$((fail + 1))
fi

check "latency json" 0 '"retransmit_host_reads": 1' "$N" rdma-latency --json
check "latency json recent" 0 '"recent_retransmit_host_reads": 0' "$N" rdma-latency --json --mem-read-cycles 100
check "latency text" 0 "at most once: yes" "$N" rdma-latency --clock-mhz 500 --mem-read-cycles 300
check "latency bad option" 2 "unknown option" "$N" rdma-latency --frob
check "latency slots host" 0 '"at_most_once": true' "$N" rdma-latency --json --mem-model slots --mem-outstanding 16

echo "rdma cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
