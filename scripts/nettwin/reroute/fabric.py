#!/usr/bin/python3
"""A fabric between the two ConWeave ToRs, open loop: a `nettwin reroute` output becomes a reorder_check directory.

  PYTHONPATH=scripts /usr/bin/python3 -m nettwin.reroute.fabric --dir D --fabric fabric.pcap --out-dir E [--base-us 4] [--step-us 6]

D is the nettwin.reroute.gen directory of the run (hosts.pcap: the NIC frames, run.json: paths and wire_format),
fabric.pcap what `nettwin reroute` sent (timestamps = departures; BTH byte 4 = the path). Each path p is a FIFO
with a fixed one-way delay, base-us + step-us x ((3 p) mod paths) us, so the paths differ in delay and a
reroute to a faster path makes its packets overtake the old path's TAIL (the reorder block must hold them).
Writes, in the format nettwin.reorder.gen writes for the reorder block and its checker nettwin.reorder.check:
  E/arrivals.pcap   the fabric frames in arrival order, arrival = departure + the path's delay (ns pcap)
  E/originals.pcap  the NIC frames (hosts.pcap, offer times)
  E/flows.json      per flow (IP source, IP destination, destination QP): its originals in PSN order, the
                    ones that left as RTT_REQUEST (the RTT_REPLYs the reorder block must send), no CE, no
                    loss, its TAILs
  E/reorder.txt     the reorder block's configuration, wire_format = run.json's (seed or conweave-p4)
The fabric decodes nothing but the path (byte 4) and, for flows.json, the RTT_REQUEST and TAIL bits (with the
reorder block's Scapy-side decode_cw in the run's format); the frames go through unchanged.
Then `nettwin reorder --config E/reorder.txt --in E/arrivals.pcap ...` and nettwin.reorder.check --dir E check that the
destination ToR gives the hosts the NIC frames in order, exactly once, byte for byte (docs/reroute.md "Wire
format", ctest reroute_p4_to_reorder).
"""
import argparse
import json
import os
import sys

from nettwin.common.pcap import InputError, read_pcap, write_pcap
from nettwin.reorder.layers import CW_RTT_REQUEST, SEED, decode_cw, parse, set_format

REORDER_CONF = dict(flows=1024, queues=32, buffer_bytes=262144, margin_us=16, default_hold_us=200,
                    flow_idle_us=2000)


def build(hosts, fabric, paths, base_us, step_us):
    delay = [base_us + step_us * ((3 * p) % paths) for p in range(paths)]
    last = [0] * paths
    arrivals = []
    for k, (f, ts) in enumerate(fabric):
        p = parse(f)
        if p is None:
            raise ValueError("fabric frame %d is not RoCEv2" % (k + 1))
        path = f[p.bth + 4]
        if path >= paths:
            raise ValueError("fabric frame %d: path %d >= paths %d" % (k + 1, path, paths))
        dep = int(round(ts * 1e6))
        arr = max(dep + delay[path], last[path])
        last[path] = arr
        arrivals.append((arr, k, f))
    arrivals.sort(key=lambda x: (x[0], x[1]))
    flows = {}
    oidx = {}
    for i, (nic, _) in enumerate(hosts):
        h = parse(nic)
        key = (h.src, h.dst, h.dqpn)
        oidx[(key, h.psn)] = i
        fl = flows.setdefault(key, dict(key=list(key), family=h.family,
                                        sport=int.from_bytes(nic[h.udp:h.udp + 2], "big"), frames=[], psns=[],
                                        rtt_requests=[], ce=[], lost=[], reroutes=[]))
        fl["frames"].append(i)
        fl["psns"].append(h.psn)
    for f, _ in fabric:
        h, cw = parse(f), decode_cw(f)
        key = (h.src, h.dst, h.dqpn)
        if cw is None or (key, h.psn) not in oidx:
            raise ValueError("a fabric frame that is not one of the hosts' frames (PSN 0x%06x)" % h.psn)
        if cw.op == CW_RTT_REQUEST:
            flows[key]["rtt_requests"].append(oidx[(key, h.psn)])
        if cw.tail:
            flows[key]["reroutes"].append(dict(tail_psn=h.psn, path=cw.path_id))
    return arrivals, list(flows.values()), delay


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--fabric", required=True)
    ap.add_argument("--out-dir", required=True)
    ap.add_argument("--base-us", type=int, default=4)
    ap.add_argument("--step-us", type=int, default=6)
    a = ap.parse_args()
    try:
        with open(os.path.join(a.dir, "run.json")) as f:
            run = json.load(f)
        fmt = run.get("wire_format", SEED)
        set_format(fmt)
        hosts = read_pcap(os.path.join(a.dir, "hosts.pcap"))
        fabric = read_pcap(a.fabric)
        arrivals, flows, delay = build(hosts, fabric, run["paths"], a.base_us, a.step_us)
    except (InputError, OSError, ValueError, KeyError) as e:
        print("reroute_fabric: %s" % e, file=sys.stderr)
        return 2
    os.makedirs(a.out_dir, exist_ok=True)
    with open(os.path.join(a.out_dir, "reorder.txt"), "w") as f:
        for k, v in REORDER_CONF.items():
            f.write("%s %d\n" % (k, v))
        if fmt != SEED:
            f.write("wire_format %s\n" % fmt)
    write_pcap(os.path.join(a.out_dir, "arrivals.pcap"), [(fr, t / 1e6) for t, _, fr in arrivals], nano=True)
    write_pcap(os.path.join(a.out_dir, "originals.pcap"), hosts, nano=True)
    with open(os.path.join(a.out_dir, "flows.json"), "w") as f:
        json.dump(dict(source="nettwin.reroute.fabric", wire_format=fmt, path_delay_us=delay, flows=flows), f, indent=1,
                  sort_keys=True)
        f.write("\n")
    print("reroute_fabric: %d frames, %d flows, %d TAILs, path delays %s us (%s format) -> %s"
          % (len(arrivals), len(flows), sum(len(x["reroutes"]) for x in flows), delay, fmt, a.out_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
