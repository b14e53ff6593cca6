#!/usr/bin/python3
"""The EJFAT closed loop: source events -> LB (epoch switch mid-run) -> one RE per member.

  /usr/bin/python3 scripts/ejfat_loop.py gen --seed N --out-dir D [--events K]
  (nettwin lb-plan x2, lb_plan_gen.py assemble, nettwin lb --tables D/run.txt ... --out D/out.pcap)
  /usr/bin/python3 scripts/ejfat_loop.py split --dir D --out D/out.pcap [--work W]
  /usr/bin/python3 scripts/ejfat_loop.py reassemble --dir D --nettwin build/nettwin [--work W]   (nettwin re per member, lockstep)
  /usr/bin/python3 scripts/ejfat_loop.py check --dir D [--work W]

gen: lb_plan_gen.py's scenario (members, boundary, filter), but the traffic is events: each (tick,
data_id) event of 0..3000 bytes is cut into EVIO6 segments (UDP source port = tick[15:0], as the spec
says), shuffled within its phase: phase 1 events have ticks in [start, boundary) and run before the
switch; phase 2 mixes both sides of the boundary (an old event's segments may straddle the switch);
phase 3, after the cleanup, has ticks >= boundary. D/loop_source.json lists every event.
split: from the tables alone (lb_tables.py, never the planner or the LB model), which member each event's
tick maps to (tick < boundary: the old calendar's slot, else the new one's); groups the LB output by
destination address into W/<member>/segments.pcap and writes W/<member>/source.json with the events
expected there, so re_check.py on each member also proves the routing. W (--work, default D) holds everything
split, reassemble and check write: two LB outputs of one vector (the regression's stimulus modes, run in
parallel) each need their own, or one's reassembly overwrites the other's while it is being checked.
check: every source event was reassembled exactly once, at its member, byte-identical (re_check.py per
member), with no incomplete event and no RE drop anywhere.
"""
import argparse
import json
import os
import random
import sys

from nettwin.common.pcap import read_pcap, write_pcap
from nettwin.lb import plan_gen as lb_plan_gen
from nettwin.lb import tables as lb_tables
from nettwin.lb.plan_check import full_calendar, tables_of, wildcard_epoch
from nettwin.re import check as re_check
from nettwin.re import gen as re_gen

RE_CONF = "contexts 64\nbuffer_bytes 4096\ntimeout_us 100000\n"


def gen(a):
    lb_plan_gen.main(["gen", "--seed", str(a.seed), "--out-dir", a.out_dir, "--packets", "12"])
    with open(os.path.join(a.out_dir, "scenario.json")) as f:
        sc = json.load(f)
    rng = random.Random(a.seed * 7919)
    start, boundary, top = sc["start"], sc["boundary"], lb_plan_gen.TOP
    used = set()

    def tick(old):
        while True:
            t = (max(start, boundary - rng.randrange(1, 3000)) if old else
                 min(top, boundary + rng.randrange(0, 3000)))
            if t & 0xFFFF not in used:   # the RE keys events by tick[15:0]
                used.add(t & 0xFFFF)
                return t

    phases, events = [[], [], []], []
    for i in range(a.events):
        ph = 0 if i < a.events // 3 else (1 if i < 2 * a.events // 3 else 2)
        t = tick(ph == 0 or (ph == 1 and rng.random() < 0.5))
        data = bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 64, 700, 1500, 3000])))
        data_id = rng.randrange(1 << 16)
        v6 = rng.random() < 0.4
        pieces = re_gen.split(rng, len(data), (1, 100, 512, 1400))
        for k, (off, n) in enumerate(pieces):
            phases[ph].append(lb_plan_gen.packet_of(tick=t, data_id=data_id, offset=off, data=data[off:off + n],
                                                    first=off == 0, last=k == len(pieces) - 1, v6=v6))
        events.append({"tick": t, "data_id": data_id, "data": data.hex()})
    for ph in phases:
        rng.shuffle(ph)
    frames = [f for ph in phases for f in ph]
    write_pcap(os.path.join(a.out_dir, "packets_in.pcap"), [(f, i * 1e-6) for i, f in enumerate(frames)])
    sc["segments"] = [len(p) for p in phases]
    sc["now"] = max(e["tick"] for e in events[:a.events // 3])
    with open(os.path.join(a.out_dir, "scenario.json"), "w") as f:
        json.dump(sc, f, indent=2)
    with open(os.path.join(a.out_dir, "loop_source.json"), "w") as f:
        json.dump({"events": events}, f, indent=1)
    with open(os.path.join(a.out_dir, "re.txt"), "w") as f:
        f.write(RE_CONF)
    print("ejfat_loop: seed %d: %d events in %d segments (phases %s), boundary %d"
          % (a.seed, len(events), len(frames), sc["segments"], boundary))
    return 0


def member_of(d):
    """tick -> (ethertype -> destination IP) of the member the seed's rule picks, from the tables."""
    with open(os.path.join(d, "scenario.json")) as f:
        boundary = json.load(f)["boundary"]
    before = tables_of(os.path.join(d, "current.txt"))
    mid = tables_of(os.path.join(d, "current.txt"), os.path.join(d, "switch.txt"))
    old_cal = full_calendar(before, wildcard_epoch(before, "before"), "old")
    new_cal = full_calendar(mid, wildcard_epoch(mid, "after the switch"), "new")

    def f(tick, et):
        new = tick >= boundary
        return "member%d" % (new_cal if new else old_cal)[tick & 0x1FF]
    # destination (family, IP) -> member name, from both member tables
    names = {(e.ethertype, e.ip_dst): "member%d" % e.member_id
             for t in (before, mid) for e in t.member if e is not None and e.ip_dst is not None}
    return f, names


def split(a):
    w = a.work or a.dir
    route, names = member_of(a.dir)
    with open(os.path.join(a.dir, "loop_source.json")) as f:
        events = json.load(f)["events"]
    frames_in = read_pcap(os.path.join(a.dir, "packets_in.pcap"))
    outs = read_pcap(a.out)
    if len(outs) != len(frames_in):
        print("ejfat_loop: FAIL: the LB dropped %d segments" % (len(frames_in) - len(outs)))
        return 1
    groups, expect = {}, {}
    for fr, ts in outs:
        et = int.from_bytes(fr[12:14], "big")
        dst = int.from_bytes(fr[38:54] if et == lb_tables.ETH_IPV6 else fr[30:34], "big")
        groups.setdefault(names.get((et, dst), "unknown"), []).append((fr, ts))
    for fin, _ in frames_in:   # each event's family is that of its segments
        et = int.from_bytes(fin[12:14], "big")
        l4 = 14 + (40 if et == lb_tables.ETH_IPV6 else (fin[14] & 0xF) * 4)
        tick = int.from_bytes(fin[l4 + 12:l4 + 20], "big")
        data_id = int.from_bytes(fin[l4 + 22:l4 + 24], "big")
        expect.setdefault(route(tick, et), {})[(tick, data_id)] = True
    members = sorted(set(groups) | set(expect))
    for m in members:
        md = os.path.join(w, m)
        os.makedirs(md, exist_ok=True)
        write_pcap(os.path.join(md, "segments.pcap"), groups.get(m, []))
        mine = [e for e in events if (e["tick"], e["data_id"]) in expect.get(m, {})]
        with open(os.path.join(md, "source.json"), "w") as f:
            json.dump({"events": mine}, f)
    with open(os.path.join(w, "members.json"), "w") as f:
        json.dump(members, f)
    print("ejfat_loop: %d segments to %d members" % (len(outs), len(members)))
    return 0


def reassemble(a):
    """`nettwin re` on every member's input (the members split wrote)."""
    import subprocess
    w = a.work or a.dir
    with open(os.path.join(w, "members.json")) as f:
        members = json.load(f)
    for m in members:
        md = os.path.join(w, m)
        r = subprocess.run([a.nettwin, "re", "--engine", a.engine, "--config", os.path.join(a.dir, "re.txt"), "--in",
                            os.path.join(md, "segments.pcap"), "--out", os.path.join(md, "events.pcap"),
                            "--report", os.path.join(md, "report.json")], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            print("ejfat_loop: FAIL: nettwin re for %s: %s" % (m, r.stdout.strip()))
            return 1
    print("ejfat_loop: reassembled %d members' inputs" % len(members))
    return 0


def check(a):
    w = a.work or a.dir
    with open(os.path.join(w, "members.json")) as f:
        members = json.load(f)
    with open(os.path.join(a.dir, "loop_source.json")) as f:
        n_events = len(json.load(f)["events"])
    done = 0
    for m in members:
        md = os.path.join(w, m)
        try:
            re_check.check(md, os.path.join(md, "events.pcap"), os.path.join(md, "report.json"),
                           os.path.join(a.dir, "re.txt"))
        except re_check.Fail as e:
            print("ejfat_loop: FAIL: member %s: re_check: FAIL: %s" % (m, e))
            return 1
        with open(os.path.join(md, "report.json")) as f:
            rep = json.load(f)
        if rep["incomplete"] or any(rep["drops"].values()):
            print("ejfat_loop: FAIL: member %s: incomplete events or RE drops: %s" % (m, rep["drops"]))
            return 1
        with open(os.path.join(md, "source.json")) as f:
            if len(json.load(f)["events"]) != rep["events_completed"]:
                print("ejfat_loop: FAIL: member %s: not every expected event completed" % m)
                return 1
        done += rep["events_completed"]
    if done != n_events:
        print("ejfat_loop: FAIL: %d of %d events reassembled" % (done, n_events))
        return 1
    print("ejfat_loop: ok: all %d events reassembled exactly once, byte-identical, at the member their tick "
          "maps to (%d members)" % (done, len(members)))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--seed", type=int, required=True)
    g.add_argument("--out-dir", required=True)
    g.add_argument("--events", type=int, default=90)
    s = sub.add_parser("split")
    s.add_argument("--dir", required=True)
    s.add_argument("--out", required=True)
    s.add_argument("--work", help="directory for the per-member files (default: --dir)")
    r = sub.add_parser("reassemble")
    r.add_argument("--dir", required=True)
    r.add_argument("--nettwin", required=True)
    r.add_argument("--engine", default="lockstep", help="nettwin re's engine (default lockstep: RTL + cycle model)")
    r.add_argument("--work", help="directory split wrote to (default: --dir)")
    c = sub.add_parser("check")
    c.add_argument("--dir", required=True)
    c.add_argument("--work", help="directory split wrote to (default: --dir)")
    a = ap.parse_args(argv)
    return {"gen": gen, "split": split, "reassemble": reassemble, "check": check}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
