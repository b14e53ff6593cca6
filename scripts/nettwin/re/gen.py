#!/usr/bin/python3
"""Scapy source for the EJFAT reassembly engine (docs/re.md): events split into segments, shuffled,
duplicated, overlapped, lost and late, as the LB delivers them to one compute node.

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.re.gen --seed N --out-dir D [--events K] [--header evio6|e2sar] [--host]

Writes D/segments.pcap (the RE's input, pcap timestamps = arrival times), D/re.txt (contexts,
buffer_bytes, timeout_us: few contexts so that some segments find none) and D/source.json (every event
the source sent: tick, data_id, its bytes in hex, and what was done to it).  Same seed, same bytes.
Cases: zero-length events (a lone last segment), one-segment events, segments of 1 byte, sizes that do
not divide the event, the last segment first, duplicates, overlapping resends, lost segments, a segment
arriving after the timeout, an event larger than the buffer, and malformed frames.

--header e2sar: the frames E2SAR's segmenter sends (JeffersonLab/E2SAR src/e2sarDPSegmenter.cpp @ 8992fa3), as
an LB delivers them: the 20-byte REHdr (E2SARRE, nettwin/re/layers.py) with the event's length and a 64-bit event
number in every segment; every segment but the last carries MTU - (IP + UDP + LB 16 + RE 20) bytes of data; the
UDP source port is that of one of the sender's sockets (round robin per event; some events' segments come from
several sockets); a quarter of the events still carry the LB v2 or v3 header the LB kept in front (config
`lb_header skip`, the default); two events share their event number's low 16 bits; malformed frames add a wrong
RE version, a non-zero reserved byte and an LB header of an unknown version.  D/re.txt then says `header e2sar`
and D/source.json gives each event's event_num.

--host: E2SAR events from 1 B to 16 MiB (--big-bytes: a smaller largest one) for the engine's `buffer host` configuration (event bytes in host memory by
DMA; docs/re-microarchitecture.md): one event of exactly 16 MiB and one of up to 4 MiB, their segments spread over
the whole run and shuffled in windows of 12 (the engine tracks 16 holes per event, docs/re.md), between K small events (1 B .. 64 KiB, in order, shuffled, duplicated, from several
sockets or with one segment lost: that event stays incomplete), MTU 1500 or 9000, IPv4 and IPv6, some behind a kept
LB header; no timeout expires (timeout_us 1e6).  D/re.txt: `header e2sar`, `buffer host`, `buffer_bytes 16777216`,
`contexts 64` (a completed event holds its context until the timeout, after the run).
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
from nettwin.re.layers import E2SARRE, lb_header_bytes

CONTEXTS, BUFFER, TIMEOUT_US = 8, 9000, 400


def segment(tick, data_id, offset, data, first, last, v6):
    flags = (2 if first else 0) | (1 if last else 0)
    re_hdr = EVIO6Seg(rocid=data_id, offset=offset, flags=flags)
    l3 = IPv6(src="fe80::2", dst="fd00::1") if v6 else IP(src="10.1.2.3", dst="10.9.0.1")
    return bytes(Ether(dst="02:00:00:00:00:01", src="00:aa:bb:cc:dd:ee") / l3 /
                 UDP(sport=tick & 0xFFFF, dport=20001) / re_hdr / Raw(load=data))


def e2sar_segment(event_num, data_id, offset, length, data, sport, v6, lb=None, version=1, rsvd2=0, addrs=None):
    """A frame of E2SAR's segmenter after the LB: [the LB header it kept] REHdr data (UDP source port: the
    sending socket's). addrs (MAC dst, MAC src, (IPv4 src, dst), (IPv6 src, dst)) replaces the default
    addresses (the closed loop sends to the LB's)."""
    re_hdr = E2SARRE(version=version, rsvd2=rsvd2, data_id=data_id, buffer_offset=offset, buffer_length=length,
                     event_num=event_num)
    mac_dst, mac_src, v4a, v6a = addrs or ("02:00:00:00:00:01", "00:aa:bb:cc:dd:ee", ("10.1.2.3", "10.9.0.1"),
                                           ("fe80::2", "fd00::1"))
    l3 = IPv6(src=v6a[0], dst=v6a[1]) if v6 else IP(src=v4a[0], dst=v4a[1])
    return bytes(Ether(dst=mac_dst, src=mac_src) / l3 /
                 UDP(sport=sport, dport=19522) / Raw(load=(lb or b"") + bytes(re_hdr) + data))


def e2sar_cuts(size, mtu, v6):
    """E2SAR's segmenter: maxPldLen = MTU - (IP + UDP + LB 16 + RE 20 header bytes); every segment but the
    last is that long, the last holds the rest (no segment for an empty event)."""
    max_pld = mtu - (40 if v6 else 20) - 8 - 16 - 20
    return [(off, min(max_pld, size - off)) for off in range(0, size, max_pld)]


def disturb(rng, kind, segs, t0, size, resend_fields):
    """What the path does to an event's segments ([time, offset, length, ...] each) by its kind: two
    duplicates, an overlapping resend (its fields after the length: resend_fields(offset)), one lost, the last
    after the timeout, or all in reverse order."""
    if kind == "dup":
        segs += [[s[0] + rng.uniform(1, 50)] + s[1:] for s in rng.sample(segs, min(2, len(segs)))]
    if kind == "overlap" and size > 2:
        lo = rng.randrange(0, size - 1)
        segs.append([t0 + rng.uniform(0, 150), lo, rng.randrange(1, size - lo)] + resend_fields(lo))
    if kind == "lost" and len(segs) > 1:
        segs.pop(rng.randrange(len(segs)))
    if kind == "late":
        segs[-1][0] = t0 + TIMEOUT_US * 1.5
    if kind == "reverse":
        for k, s in enumerate(segs):
            s[0] = t0 + 10 * (len(segs) - k)


def write_out(a, arrivals, bad, source, what):
    """The malformed frames spread over the run, then D/segments.pcap in arrival order and D/source.json."""
    for k, fr in enumerate(bad):
        arrivals.append((k * 500.0 + 0.5, fr))
    arrivals.sort(key=lambda x: x[0])
    write_pcap(os.path.join(a.out_dir, "segments.pcap"), [(fr, t * 1e-6) for t, fr in arrivals])
    with open(os.path.join(a.out_dir, "source.json"), "w") as f:
        json.dump(source, f, indent=1)
        f.write("\n")
    print("re_gen: seed %d: %d %s, %d segments" % (a.seed, len(source["events"]), what, len(arrivals)))
    return 0


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
    ap.add_argument("--header", choices=("evio6", "e2sar"), default="evio6",
                    help="the RE header: the seed's 8 bytes (default) or E2SAR's 20-byte REHdr")
    ap.add_argument("--host", action="store_true",
                    help="E2SAR events of 1 B .. 16 MiB for `buffer host` (events in host memory by DMA)")
    ap.add_argument("--big-bytes", type=int, default=None,
                    help="--host: the largest event (default 16 MiB, the engine's limit; the ctest uses less)")
    a = ap.parse_args(argv)
    rng = random.Random(a.seed)
    os.makedirs(a.out_dir, exist_ok=True)
    if a.host:
        return gen_host(a, rng)
    with open(os.path.join(a.out_dir, "re.txt"), "w") as f:
        f.write("contexts %d\nbuffer_bytes %d\ntimeout_us %d\n" % (CONTEXTS, BUFFER, TIMEOUT_US))
        if a.header == "e2sar":
            f.write("header e2sar\n")
    if a.header == "e2sar":
        return gen_e2sar(a, rng)
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
        disturb(rng, kind, segs, t0, size, lambda lo: [lo == 0, False])
        for t, off, n, first, last in segs:
            arrivals.append((t, segment(tick, data_id, off, data[off:off + n], first, last, v6)))
        source.append({"tick": tick, "data_id": data_id, "kind": kind, "data": data.hex()})
    # malformed frames, spread over the run
    bad = [b"\x00" * 10, bytes(Ether(dst="02:00:00:00:00:01", type=0x1234) / Raw(load=b"x" * 50)),
           segment(7, 7, 0, b"abc", True, True, False)[:40],
           bytes(Ether(dst="02:00:00:00:00:01") / IP(src="10.1.2.3", dst="10.9.0.1", proto=6) / Raw(load=b"y" * 40))]
    return write_out(a, arrivals, bad, {"events": source}, "events")


def gen_e2sar(a, rng):
    arrivals, source = [], []
    sockets = [rng.randrange(10000, 60000) for _ in range(4)]   # the sender's sockets' source ports
    base = rng.getrandbits(48) << 16
    kinds = ["ok", "ok", "ports", "dup", "overlap", "lost", "late", "reverse"]
    for i in range(a.events):
        # event numbers: E2SAR's are 64-bit; events 3 and 4 agree in their low 16 bits
        event_num = base + i if i != 4 else base + 3 + (1 << 40)
        data_id = rng.randrange(1 << 16)
        kind = kinds[i % len(kinds)] if i >= 2 else ["toobig", "single"][i]
        size = {"toobig": BUFFER + 1, "single": 50}.get(kind, rng.choice([1, 99, 1000, 2500, 8999, 9000]))
        data = bytes(rng.randrange(256) for _ in range(size))
        v6 = rng.random() < 0.4
        mtu = rng.choice([576, 1500, 9000])
        lb_v = rng.choice([2, 3]) if rng.random() < 0.25 else 0
        sport = sockets[i % len(sockets)]
        t0 = i * 100.0
        segs = [[t0 + rng.uniform(0, 150), off, n, sport] for off, n in e2sar_cuts(size, mtu, v6)]
        if kind == "ports":
            for s in segs:
                s[3] = rng.choice(sockets)
        disturb(rng, kind, segs, t0, size, lambda lo: [sport])
        entropy = rng.getrandbits(16)
        lb = lb_header_bytes(lb_v, event_num, entropy=entropy, slot=event_num & 0xFFFF, port=entropy) if lb_v else None
        for t, off, n, sp in segs:
            arrivals.append((t, e2sar_segment(event_num, data_id, off, size, data[off:off + n], sp, v6, lb)))
        source.append({"event_num": event_num, "data_id": data_id, "kind": kind, "lb_header": lb_v,
                       "data": data.hex()})
    bad = [b"\x00" * 10,
           e2sar_segment(base + 900, 1, 0, 3, b"abc", sockets[0], False, version=2),      # bad_version
           e2sar_segment(base + 901, 1, 0, 3, b"abc", sockets[0], False, rsvd2=1),        # bad_version
           e2sar_segment(base + 902, 1, 0, 3, b"abc", sockets[0], True,
                         lb=b"LB" + bytes([7, 1]) + bytes(12)),                             # lb_header
           e2sar_segment(base + 903, 1, 0, 3, b"abc", sockets[0], False)[:50]]               # truncated
    return write_out(a, arrivals, bad, {"header": "e2sar", "events": source}, "E2SAR events")


HOST_BUFFER = 1 << 24   # `buffer host`: the largest event (re_pkg ReHostBufBytes)


def gen_host(a, rng):
    with open(os.path.join(a.out_dir, "re.txt"), "w") as f:
        f.write("contexts 64\nbuffer_bytes %d\ntimeout_us 1000000\nheader e2sar\nbuffer host\n" % HOST_BUFFER)
    sockets = [rng.randrange(10000, 60000) for _ in range(4)]
    base = rng.getrandbits(48) << 16
    span = 2000.0   # microseconds: every arrival in [0, span); far below the timeout
    kinds = ["ok", "reverse", "dup", "ports", "lost"]
    big = a.big_bytes or HOST_BUFFER
    if not 1 <= big <= HOST_BUFFER:
        raise SystemExit("re_gen: --big-bytes must be in 1..%d" % HOST_BUFFER)
    sizes = [big, rng.randrange(1, min(big, 4 << 20) + 1), 1] + \
        [rng.choice([1, 7, 99, 1000, 1438, 8956, 9000, 65536, rng.randrange(1, 70000)]) for _ in range(a.events)]
    arrivals, source = [], []
    for i, size in enumerate(sizes):
        event_num, data_id = base + i, rng.randrange(1 << 16)
        kind = "shuffled" if i < 2 else "ok" if i == 2 else kinds[i % len(kinds)]
        data = rng.randbytes(size)
        v6 = rng.random() < 0.4
        mtu = rng.choice([1500, 9000])
        lb_v = rng.choice([2, 3]) if rng.random() < 0.25 else 0
        sport = sockets[i % len(sockets)]
        cuts = e2sar_cuts(size, mtu, v6)
        if kind == "shuffled":   # the big ones: spread over the whole run, shuffled in windows of 12 segments
            times = sorted(rng.uniform(0, span) for _ in cuts)   # (at most 11 holes: the RE tracks 16 ranges)
            for w in range(0, len(cuts), 12):
                win = cuts[w:w + 12]
                rng.shuffle(win)
                cuts[w:w + 12] = win
        else:
            t0 = rng.uniform(0, span - 100)
            times = [t0 + k * 0.5 for k in range(len(cuts))]
        segs = [[t, off, n, sport] for t, (off, n) in zip(times, cuts)]
        if kind == "ports":
            for s in segs:
                s[3] = rng.choice(sockets)
        if kind in ("dup", "lost", "reverse"):
            disturb(rng, kind, segs, segs[0][0], size, lambda lo: [sport])
        entropy = rng.getrandbits(16)
        lb = lb_header_bytes(lb_v, event_num, entropy=entropy, slot=event_num & 0xFFFF, port=entropy) if lb_v else None
        for t, off, n, sp in segs:
            arrivals.append((t, e2sar_segment(event_num, data_id, off, size, data[off:off + n], sp, v6, lb)))
        source.append({"event_num": event_num, "data_id": data_id, "kind": kind, "lb_header": lb_v,
                       "data": data.hex()})
    return write_out(a, arrivals, [], {"header": "e2sar", "events": source}, "E2SAR events (buffer host)")


if __name__ == "__main__":
    sys.exit(main())
