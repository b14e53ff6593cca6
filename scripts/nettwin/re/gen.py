#!/usr/bin/python3
"""Scapy source for the EJFAT reassembly engine (docs/re.md): events split into segments, shuffled,
duplicated, overlapped, lost and late, as the LB delivers them to one compute node.

  /usr/bin/python3 scripts/re_gen.py --seed N --out-dir D [--events K]

Writes D/segments.pcap (the RE's input, pcap timestamps = arrival times), D/re.txt (contexts,
buffer_bytes, timeout_us: few contexts so that some segments find none) and D/source.json (every event
the source sent: tick, data_id, its bytes in hex, and what was done to it).  Same seed, same bytes.
Cases: zero-length events (a lone last segment), one-segment events, segments of 1 byte, sizes that do
not divide the event, the last segment first, duplicates, overlapping resends, lost segments, a segment
arriving after the timeout, an event larger than the buffer, and malformed frames.
"""
import argparse
import json
import os
import random
import sys

from scapy.layers.l2 import Ether
from scapy.layers.inet import IP, UDP
from scapy.layers.inet6 import IPv6
from scapy.packet import Raw

from nettwin.common.pcap import write_pcap
from nettwin.lb.layers import EVIO6Seg

CONTEXTS, BUFFER, TIMEOUT_US = 8, 9000, 400


def segment(tick, data_id, offset, data, first, last, v6):
    flags = (2 if first else 0) | (1 if last else 0)
    re_hdr = EVIO6Seg(rocid=data_id, offset=offset, flags=flags)
    l3 = IPv6(src="fe80::2", dst="fd00::1") if v6 else IP(src="10.1.2.3", dst="10.9.0.1")
    return bytes(Ether(dst="02:00:00:00:00:01", src="00:aa:bb:cc:dd:ee") / l3 /
                 UDP(sport=tick & 0xFFFF, dport=20001) / re_hdr / Raw(load=data))


def split(rng, size, sizes=(1, 7, 100, 333, 1000, 1400)):
    """(offset, length) of the segments of an event of `size` bytes: lengths drawn from `sizes` (the last
    one shorter), one zero-length segment for an empty event."""
    cuts, pos = [], 0
    while pos < size:
        n = min(size - pos, rng.choice(sizes))
        cuts.append((pos, n))
        pos += n
    return cuts or [(0, 0)]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--events", type=int, default=60)
    a = ap.parse_args(argv)
    rng = random.Random(a.seed)
    os.makedirs(a.out_dir, exist_ok=True)
    with open(os.path.join(a.out_dir, "re.txt"), "w") as f:
        f.write("contexts %d\nbuffer_bytes %d\ntimeout_us %d\n" % (CONTEXTS, BUFFER, TIMEOUT_US))
    arrivals, source = [], []
    ticks = rng.sample(range(1, 1 << 16), a.events)
    kinds = ["ok", "ok", "ok", "dup", "overlap", "lost", "late", "reverse"]
    for i in range(a.events):
        tick = (rng.getrandbits(48) << 16) | ticks[i]
        data_id = rng.randrange(1 << 16)
        kind = kinds[i % len(kinds)] if i >= 3 else ["empty", "toobig", "single"][i]
        size = {"empty": 0, "toobig": BUFFER + 1, "single": 50}.get(kind, rng.choice([1, 99, 1000, 2500, 8999, 9000]))
        data = bytes(rng.randrange(256) for _ in range(size))
        v6 = rng.random() < 0.4
        t0 = i * 100.0   # microseconds: a few events overlap in time
        segs = []
        cuts = split(rng, size)
        for k, (off, n) in enumerate(cuts):
            segs.append([t0 + rng.uniform(0, 150), off, n, off == 0, k == len(cuts) - 1])
        if kind == "dup":
            segs += [[s[0] + rng.uniform(1, 50)] + s[1:] for s in rng.sample(segs, min(2, len(segs)))]
        if kind == "overlap" and size > 2:
            lo = rng.randrange(0, size - 1)
            segs.append([t0 + rng.uniform(0, 150), lo, rng.randrange(1, size - lo), lo == 0, False])
        if kind == "lost" and len(segs) > 1:
            segs.pop(rng.randrange(len(segs)))
        if kind == "late":
            segs[-1][0] = t0 + TIMEOUT_US * 1.5
        if kind == "reverse":
            for k, s in enumerate(segs):
                s[0] = t0 + 10 * (len(segs) - k)
        for t, off, n, first, last in segs:
            arrivals.append((t, segment(tick, data_id, off, data[off:off + n], first, last, v6)))
        source.append({"tick": tick, "data_id": data_id, "kind": kind, "data": data.hex()})
    # malformed frames, spread over the run
    bad = [b"\x00" * 10, bytes(Ether(dst="02:00:00:00:00:01", type=0x1234) / Raw(load=b"x" * 50)),
           segment(7, 7, 0, b"abc", True, True, False)[:40],
           bytes(Ether(dst="02:00:00:00:00:01") / IP(src="10.1.2.3", dst="10.9.0.1", proto=6) / Raw(load=b"y" * 40))]
    for k, fr in enumerate(bad):
        arrivals.append((k * 500.0 + 0.5, fr))
    arrivals.sort(key=lambda x: x[0])
    write_pcap(os.path.join(a.out_dir, "segments.pcap"), [(fr, t * 1e-6) for t, fr in arrivals])
    with open(os.path.join(a.out_dir, "source.json"), "w") as f:
        json.dump({"events": source}, f, indent=1)
        f.write("\n")
    print("re_gen: seed %d: %d events, %d segments" % (a.seed, len(source), len(arrivals)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
