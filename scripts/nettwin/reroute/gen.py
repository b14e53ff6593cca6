#!/usr/bin/python3
"""Seeded stimulus for the ConWeave source-ToR block (docs/reroute.md), open loop.

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.reroute.gen --seed N --out-dir D [--scenario NAME] [--wire-format seed|conweave-p4]
                                    [--no-clear]

Writes
  D/hosts.pcap    the hosts' RoCEv2 frames (Scapy-built, valid ICRC), timestamp = offer time (whole us)
  D/control.pcap  control packets coming back from destination ToRs, timestamp = offer time:
                  RTT_REPLY for host packets (echoing TX_TSTAMP = the packet's offer us), fast (5..15 us)
                  or slow (60..100 us, past the reply cutoff) by a per-flow state that changes over time;
                  NOTIFY every 10 us for each path of the current congestion set (the set moves during the
                  run); CLEAR for each flow every 40 us, cycling through the four epochs (most are stale,
                  each one that matches ends a reroute); a few malformed control packets
  D/run.json      scenario parameters the checker needs: paths, flows, reply_cutoff_us, path_busy_us,
                  flow_idle_us, clock start, wire_format (the block's --wire-format for this run)

--wire-format conweave-p4 (docs/reroute.md "Wire format"): the control packets in conweave-p4's layout, built
by the reorder block's Scapy-side make_control in that format (REPLY phase 0, REPLY phase 1, NOTIFY), from
triggers encoded by to_fabric in that format; the host frames are the same bytes in both formats (the same
seed gives the same traffic and the same control events).
--no-clear: no CLEAR at all (the rest unchanged). Condition (iii) then holds every flow after its first
reroute, so no flow ever has a second reroute the destination did not confirm, and the block's output can be
sent through a fabric to the reorder block open loop (nettwin.reroute.fabric): the generator's CLEARs are not the
destination's, and with them a flow may reroute again before its old path drained, which no destination
can put back in order.

The generator does not model the block: replies are sent for every host packet (those of packets that were
not RTT_REQUESTs are stale), so which ones match is for the block to decide and for the checker to re-derive.
Scenarios: mixed (default), tswrap (clock starts just below 65536 us), overflow (flows = 4 entries for 24
connections: ECMP fallback and evictions), ipv6 (half the flows IPv6). Same seed, same bytes.
"""
import argparse
import json
import os
import random

from nettwin.common.pcap import write_pcap
from nettwin.rdma.layers import OP, RETH, build_request
from nettwin.reorder.layers import (CW_CLEAR, CW_NOTIFY, CW_RTT_REPLY, CW_RTT_REQUEST, FORMATS, SEED, make_control,
                                    set_format, to_fabric)

SCENARIOS = ("mixed", "tswrap", "overflow", "ipv6")
CFG = {
    "mixed": dict(flows=16, table=1024, pkts=(60, 120), t0=1000000),
    "tswrap": dict(flows=12, table=1024, pkts=(60, 100), t0=(1 << 16) * 20 - 600),
    "overflow": dict(flows=24, table=4, pkts=(40, 80), t0=2000000),
    "ipv6": dict(flows=12, table=1024, pkts=(60, 100), t0=3000000),
}
PATHS, CUTOFF_US, BUSY_US, IDLE_US = 8, 40, 100, 2000


def gen(seed, scenario, wire_format=SEED, clears=True):
    set_format(wire_format)
    rng = random.Random(seed * 7919 + SCENARIOS.index(scenario))
    c = CFG[scenario]
    t0 = c["t0"]
    flows = []
    for i in range(c["flows"]):
        fam = 6 if (scenario == "ipv6" and i % 2) else 4
        src = "fd00::%x" % (i % 5 + 2) if fam == 6 else "10.0.0.%d" % (i % 5 + 2)
        dst = "fd00::1" if fam == 6 else "10.0.1.1"
        flows.append(dict(fam=fam, src=src, dst=dst, qp=0x100 + i, n=rng.randint(*c["pkts"]),
                          t=t0 + rng.randint(0, 20), gap=rng.randint(2, 6), psn=rng.getrandbits(24)))
    hosts, ctrl = [], []
    end = t0
    for f in flows:
        slow = False
        t = f["t"]
        for k in range(f["n"]):
            if rng.random() < 0.05:
                slow = not slow
            plen = rng.choice([0, 16, 64, 256, 1024])
            nic = build_request(f["fam"], "02:00:00:00:00:%02x" % (f["qp"] & 0xFF), "02:00:00:00:01:01", f["src"],
                                f["dst"], 0xC000 + f["qp"], OP["WRITE_ONLY"], f["qp"], (f["psn"] + k) & 0xFFFFFF,
                                ext=[RETH(va=0x1000, rkey=1, dlen=plen)], payload=bytes(rng.getrandbits(8)
                                                                                        for _ in range(plen)))
            hosts.append((t, nic))
            fab = to_fabric(nic, 0, CW_RTT_REQUEST, 0, 0, 0, t & 0xFFFF, 0)
            ctrl.append((t + (rng.randint(60, 100) if slow else rng.randint(5, 15)),
                         make_control(fab, CW_RTT_REPLY)))
            t += f["gap"] + rng.randint(0, 3)
        end = max(end, t)
        f["end"] = t
    # Congestion: two paths at a time, the set moving every 150 us; NOTIFY every 10 us for each.
    some = to_fabric(hosts[0][1], 0, 0, 0, 0, 0, 0, 0)
    for t in range(t0, end, 10):
        k = (t - t0) // 150
        for p in ((k * 3) % PATHS, (k * 3 + 1) % PATHS):
            b = bytearray(some)
            b[42 + 4 if some[12:14] == b"\x08\x00" else 62 + 4] = p
            ctrl.append((t, make_control(bytes(b), CW_NOTIFY)))
    # CLEARs: every 40 us per flow, the epoch cycling.
    for f in flows:
        fab = None
        for tt, n in hosts:
            if to_key(n) == (f["src"], f["dst"], f["qp"]):
                fab = to_fabric(n, 0, 0, 0, 0, 0, 0, 0)
                break
        for j, t in enumerate(range(f["t"] + 20, f["end"] + 100, 40) if clears else ()):
            ctrl.append((t, make_control(fab, CW_CLEAR, epoch=j % 4)))
    # A few malformed control packets (a host frame on the control input).
    for j in range(3):
        ctrl.append((t0 + 50 + 100 * j, hosts[j][1]))
    hosts.sort(key=lambda x: x[0])
    ctrl.sort(key=lambda x: x[0])
    run = dict(scenario=scenario, seed=seed, paths=PATHS, flows=c["table"], reply_cutoff_us=CUTOFF_US,
               path_busy_us=BUSY_US, flow_idle_us=IDLE_US, t0_us=t0, wire_format=wire_format, clears=clears)
    return hosts, ctrl, run


def to_key(nic):
    from nettwin.reorder.layers import flow_key
    return flow_key(nic)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--scenario", choices=SCENARIOS, default="mixed")
    ap.add_argument("--wire-format", choices=FORMATS, default=SEED)
    ap.add_argument("--no-clear", action="store_true")
    a = ap.parse_args()
    hosts, ctrl, run = gen(a.seed, a.scenario, a.wire_format, not a.no_clear)
    os.makedirs(a.out_dir, exist_ok=True)
    write_pcap(os.path.join(a.out_dir, "hosts.pcap"), [(f, t / 1e6) for t, f in hosts])
    write_pcap(os.path.join(a.out_dir, "control.pcap"), [(f, t / 1e6) for t, f in ctrl])
    with open(os.path.join(a.out_dir, "run.json"), "w") as f:
        json.dump(run, f, indent=1)
    print("reroute_gen: %s seed %d (%s format): %d host frames, %d control packets"
          % (a.scenario, a.seed, a.wire_format, len(hosts), len(ctrl)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
