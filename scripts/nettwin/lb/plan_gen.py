#!/usr/bin/python3
"""Scenario for the hitless epoch switch of `nettwin lb-plan` (docs/lb.md, "Control plane").

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.lb.plan_gen gen --seed N --out-dir D [--packets K]
  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.lb.plan_gen assemble --dir D

gen writes, for seed N (same seed, same bytes):
  D/filter.txt      the LB's own addresses (dst_filter_table, IPv4 and IPv6)
  D/members0.txt    the members and weights of the epoch in service
  D/members1.txt    those of the next epoch (some kept, some new, some at weight 0, fill levels)
  D/scenario.json   start (first tick of the current epoch), boundary, now, and the packet counts of the
                    three traffic segments
  D/packets_in.pcap K IPv4/IPv6 LB packets with EVIO6 segment headers:
                    segment 1: ticks in [start, boundary) (the switch has not been applied yet);
                    segment 2: ticks on both sides of the boundary (late events of the old epoch and
                               the first of the new), including start, boundary - 1, boundary, 2^64 - 1;
                    segment 3: ticks >= boundary only (after the cleanup, the old epoch is gone).
The boundary kind rotates with the seed: small, random 64-bit, a power of two, and next to 2^64 - 1.
assemble (after `nettwin lb-plan` wrote D/current.txt, D/switch.txt and D/cleanup.txt) writes D/run.txt:
  current, run_traffic n1, switch, run_traffic n2, cleanup, run_traffic.
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
from nettwin.lb.layers import EVIO6Seg, LB_PORT, UDPLB

TOP = (1 << 64) - 1
LB_MAC, LB_IP4, LB_IP6 = "00:aa:bb:cc:dd:ee", "10.1.2.3", "fe80::2"
FILTER = ("table_add dst_filter_table NoAction 0x00aabbccddee 0x0800 10.1.2.3 =>\n"
          "table_add dst_filter_table NoAction 0x00aabbccddee 0x86dd fe80::2 =>\n")


def member_line(name, i, weight_kw, weight):
    return ("member %s %s %s ipv4 0x0200000000%02x 10.9.0.%d %d ipv6 0x0200000000%02x fd00::%x %d\n"
            % (name, weight_kw, weight, i, i, 20000 + i, i, i, 20000 + i))


def boundaries(rng, seed):
    """(start, boundary) of one of four kinds, chosen by the seed."""
    kind = seed % 4
    if kind == 0:
        start = 0
        boundary = rng.randrange(600, 5000)
    elif kind == 1:
        start = rng.randrange(0, 1 << 63)
        boundary = start + rng.randrange(1 << 20, 1 << 62)
    elif kind == 2:
        start = (1 << 40) - rng.randrange(0, 1 << 30)
        boundary = 1 << rng.randrange(41, 63)
    else:
        start = TOP - rng.randrange(1 << 20, 1 << 40)
        boundary = TOP - rng.randrange(0, 600)
    return start, boundary


def packet_of(tick, data_id, offset, data, first, last, v6):
    """An LB input packet carrying one EVIO6 segment; UDP source port = tick[15:0] (spec)."""
    ev = EVIO6Seg(rocid=data_id, offset=offset, flags=(2 if first else 0) | (1 if last else 0))
    l3 = IPv6(src="fe80::1", dst=LB_IP6) if v6 else IP(src="10.1.2.2", dst=LB_IP4)
    return bytes(Ether(dst=LB_MAC, src="00:11:22:33:44:55") / l3 / UDP(sport=tick & 0xFFFF, dport=LB_PORT) /
                 UDPLB(tick=tick, proto=1) / ev / Raw(load=data))


def packet(rng, tick, idx):
    flags = rng.choice([0, 1, 2, 3])
    data = bytes(rng.randrange(256) for _ in range(rng.choice([0, 8, 60, 200, 1400])))
    return packet_of(tick, rng.randrange(0, 1 << 16), rng.randrange(0, 1 << 20) * 64, data, flags & 2, flags & 1,
                     idx % 3 == 2)


def gen(a):
    rng = random.Random(a.seed)
    os.makedirs(a.out_dir, exist_ok=True)
    start, boundary = boundaries(rng, a.seed)
    n_old = rng.randrange(2, 6)
    with open(os.path.join(a.out_dir, "members0.txt"), "w") as f:
        f.write("# members of the epoch in service\n")
        for i in range(n_old):
            f.write(member_line("old%d" % i, i, "weight", rng.choice(["1", "2", "3.5", "0.25"])))
    with open(os.path.join(a.out_dir, "members1.txt"), "w") as f:
        f.write("# members of the next epoch: some kept, a new one, one drained (weight 0), fill levels\n")
        kept = rng.sample(range(n_old), rng.randrange(1, n_old))
        for i in kept:
            f.write(member_line("old%d" % i, i, "fill", rng.choice(["0", "0.3", "0.9"])))
        f.write(member_line("new%d" % n_old, n_old, "weight", rng.choice(["0.5", "1", "7"])))
        f.write(member_line("new%d" % (n_old + 1), n_old + 1, "weight", "0"))
    with open(os.path.join(a.out_dir, "filter.txt"), "w") as f:
        f.write(FILTER)

    def old_tick():
        choice = rng.random()
        if choice < 0.1:
            return start
        if choice < 0.2:
            return boundary - 1
        if choice < 0.7:
            return max(start, boundary - rng.randrange(1, 1200))
        return rng.randrange(start, boundary)

    def new_tick():
        choice = rng.random()
        if choice < 0.1:
            return boundary
        if choice < 0.15:
            return TOP
        return min(TOP, boundary + rng.randrange(0, 1200))

    n1 = a.packets // 3
    n2 = a.packets // 3
    n3 = a.packets - n1 - n2
    ticks = [old_tick() for _ in range(n1)]
    ticks += [old_tick() if rng.random() < 0.4 else new_tick() for _ in range(n2 - 4)]
    ticks += [start, boundary - 1, boundary, TOP]
    ticks += [new_tick() for _ in range(n3)]
    frames = [(packet(rng, t, i), i * 1e-6) for i, t in enumerate(ticks)]
    write_pcap(os.path.join(a.out_dir, "packets_in.pcap"), frames)
    now = max(ticks[:n1])
    sc = {"seed": a.seed, "start": start, "boundary": boundary, "now": now, "segments": [n1, n2, n3]}
    with open(os.path.join(a.out_dir, "scenario.json"), "w") as f:
        json.dump(sc, f, indent=2)
        f.write("\n")
    print("lb_plan_gen: seed %d: start %d, boundary %d (0x%x), %d packets in segments %s"
          % (a.seed, start, boundary, boundary, len(frames), sc["segments"]))
    return 0


def assemble(a):
    d = a.dir
    with open(os.path.join(d, "scenario.json")) as f:
        n1, n2, _ = json.load(f)["segments"]
    parts = []
    for name, tail in (("current.txt", "run_traffic %d\n" % n1), ("switch.txt", "run_traffic %d\n" % n2),
                       ("cleanup.txt", "run_traffic\n")):
        with open(os.path.join(d, name)) as f:
            parts.append(f.read() + "\n" + tail)
    with open(os.path.join(d, "run.txt"), "w") as f:
        f.write("".join(parts))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--seed", type=int, required=True)
    g.add_argument("--out-dir", required=True)
    g.add_argument("--packets", type=int, default=240)
    s = sub.add_parser("assemble")
    s.add_argument("--dir", required=True)
    a = ap.parse_args(argv)
    if a.cmd == "gen" and a.packets < 12:
        ap.error("--packets must be at least 12")
    return gen(a) if a.cmd == "gen" else assemble(a)


if __name__ == "__main__":
    sys.exit(main())
